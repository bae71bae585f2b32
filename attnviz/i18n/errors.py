"""The sentences of attnviz's errors (attnviz.errors), in English and 中文: key `error.<key>` for `Error("<key>", ...)`.

Each sentence says what went wrong and what to do about it; {placeholders} are the values the raise passes. The
parts some sentences are built from (`Phrase`s: what was being done, what to do instead) follow their sentences.
"""

STRINGS: dict[str, dict[str, str]] = {
    "en": {
        "error_SettingError": "A setting is not valid",
        # attnviz.settings
        "error.setting_in_environment": "The environment variable {variable}={value!r} is not valid: {accepts}.",
        "error.setting_in_secrets": "The setting {key} = {value!r} in {file} is not valid: {accepts}.",
        "error.secrets_unreadable": "{file} cannot be read as TOML: {detail}",
        "error.secrets_not_a_table": "In {file}, [{table}] must be a table of settings (server_mode = true, …).",
        "error.secrets_unknown_key": "{file} has an unknown setting {key!r} in [attnviz]; the settings are {known}.",
    },
    "zh": {
        "error_SettingError": "设置有误",
        # attnviz.settings
        "error.setting_in_environment": "环境变量 {variable}={value!r} 无效：{accepts}。",
        "error.setting_in_secrets": "{file} 中的设置 {key} = {value!r} 无效：{accepts}。",
        "error.secrets_unreadable": "{file} 不是可读的 TOML 文件：{detail}",
        "error.secrets_not_a_table": "{file} 中的 [{table}] 必须是一张设置表（例如 server_mode = true）。",
        "error.secrets_unknown_key": "{file} 的 [attnviz] 中有未知设置 {key!r}；可用的设置有 {known}。",
    },
}
