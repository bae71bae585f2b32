"""What each setting accepts (attnviz.settings), in English and 中文: the end of a SettingError's sentence,
`setting_accepts.<setting>` (every on/off setting shares `setting_accepts.flag`)."""

STRINGS: dict[str, dict[str, str]] = {
    "en": {
        "setting_accepts.flag": "use 1, true, yes or on to turn it on, and 0, false, no or off to turn it off",
        "setting_accepts.device": "use auto, npu, npu:N, cuda, cuda:N, mps or cpu",
        "setting_accepts.memory_budget_mb": "use a positive number of megabytes (for example 4096)",
        "setting_accepts.max_chars": "use a whole number of characters, 1 or more (for example 20000)",
        "setting_accepts.lazy_from_tokens": "use a whole number of tokens, 1 or more (for example 1024)",
        "setting_accepts.torch_threads": "use a whole number of threads, 1 or more (such as 1 or 4)",
        "setting_accepts.allowed_models": "use Hugging Face ids separated by commas (in secrets.toml, a list of "
        "strings)",
        "setting_accepts.allowed_dirs": "use folders separated by '{separator}' (in secrets.toml, a list of strings)",
        "setting_accepts.max_model_mb": "use a number of megabytes, or 0 for no limit",
        "setting_accepts.export_engine": "use auto, kaleido or static",
        "setting_accepts.cjk_font": "use the path of a .otf or .ttf font file with Chinese glyphs",
    },
    "zh": {
        "setting_accepts.flag": "用 1、true、yes 或 on 表示开启，用 0、false、no 或 off 表示关闭",
        "setting_accepts.device": "请使用 auto、npu、npu:N、cuda、cuda:N、mps 或 cpu",
        "setting_accepts.memory_budget_mb": "请填写一个正数，单位 MB（例如 4096）",
        "setting_accepts.max_chars": "请填写不小于 1 的整数，即字符数（例如 20000）",
        "setting_accepts.lazy_from_tokens": "请填写不小于 1 的整数，即词元数（例如 1024）",
        "setting_accepts.torch_threads": "请填写不小于 1 的整数，即线程数（例如 1 或 4）",
        "setting_accepts.allowed_models": "请填写以逗号分隔的 Hugging Face 模型名（在 secrets.toml 中写成字符串列表）",
        "setting_accepts.allowed_dirs": "请填写以“{separator}”分隔的文件夹（在 secrets.toml 中写成字符串列表）",
        "setting_accepts.max_model_mb": "请填写兆字节数（MB），0 表示不限制",
        "setting_accepts.export_engine": "请使用 auto、kaleido 或 static",
        "setting_accepts.cjk_font": "请填写一个含中文字形的 .otf 或 .ttf 字体文件的路径",
    },
}
