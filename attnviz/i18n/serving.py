"""Who can reach the app and what its visitors may load (local mode, server mode), in English and 中文."""

STRINGS: dict[str, dict[str, str]] = {
    "en": {
        "mode_local": "🔒 Local mode: only this computer can open this app ({address}); any model folder or hub id "
        "may be loaded.",
        "mode_local_help": "The app listens on loopback only, so nobody else on the network can reach it. To serve "
        "others, start it with `make serve` (or `--server.address 0.0.0.0`): that turns server mode on, which "
        "limits what visitors may load (see docs/serving.md).",
        "mode_server": "🌐 Server mode: others on the network may use this app; only the catalogue's models and "
        "{allowed} allowlisted hub ids or folders can be loaded.",
        "mode_server_help": "Set by ATTNVIZ_SERVER_MODE, or turned on because the app listens beyond loopback. "
        "ATTNVIZ_ALLOWED_MODELS and ATTNVIZ_ALLOWED_DIRS list what visitors may load; ATTNVIZ_MAX_MODEL_MB limits "
        "its size (see docs/serving.md).",
    },
    "zh": {
        "mode_local": "🔒 本地模式：只有这台电脑能打开本应用（{address}）；可以加载任何模型文件夹或 Hub 模型名。",
        "mode_local_help": "应用只监听本机回环地址，网络上的其他人无法访问。要为他人提供服务，请用 `make serve`"
        "（或 `--server.address 0.0.0.0`）启动：这会开启服务器模式，限制访问者能加载的模型（见 docs/serving.md）。",
        "mode_server": "🌐 服务器模式：网络上的其他人可以使用本应用；只能加载模型列表中的模型和 {allowed} 个"
        "白名单中的 Hub 模型名或文件夹。",
        "mode_server_help": "由 ATTNVIZ_SERVER_MODE 设置，或因应用监听回环地址以外的地址而自动开启。"
        "ATTNVIZ_ALLOWED_MODELS 和 ATTNVIZ_ALLOWED_DIRS 列出访问者可以加载的内容；ATTNVIZ_MAX_MODEL_MB 限制其大小"
        "（见 docs/serving.md）。",
    },
}
