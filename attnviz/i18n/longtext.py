"""Words of long texts in the app: truncation to the model's limit, the model a long text opens on, and the window
of head lines."""

STRINGS = {
    "en": {
        "long_truncate": "Truncate to the model's limit ({limit:,} tokens)",
        "long_truncate_help": "The text has {tokens:,} tokens, more than {model} reads. On: the model reads the first "
        "{limit:,} tokens and the page says where it cut. Off: the text is refused.",
        "long_truncated": "Kept {kept:,} of {total:,} tokens; cut from “{cut}”.",
        "long_model_toggle": "Open long texts on the longest-reading model ({model}, {positions:,} positions)",
        "long_model_help": "A text longer than the chosen model reads is shown with the catalogue model that reads the "
        "most tokens of its language. Off: the chosen model, with truncation.",
        "long_model_note": "This text has {tokens:,} tokens; {chosen} reads at most {limit:,}. It is shown with "
        "{model}, which reads up to {positions:,}.",
        "long_loading_libraries": "Starting: loading torch, plotly, transformers and the default model…",
        "long_lines_title": "Head lines of a window of tokens",
        "long_lines_from": "Window from token",
        "long_lines_help": "The head lines of {window} tokens at a time: each query of the window with its links to "
        "keys of the same window.",
        "long_lines_note": "Tokens {start}–{stop} of {tokens:,}, layer {layer} · head {head}: lines to keys inside the "
        "window only; {outside:.0%} of these tokens' weight goes to tokens outside it (the heatmaps show where).",
    },
    "zh": {
        "long_truncate": "截断到模型的上限（{limit:,} 个词元）",
        "long_truncate_help": "这段文本有 {tokens:,} 个词元，超过 {model} 能读的长度。打开：模型读前 {limit:,} 个词元，"
        "页面说明从哪里截断。关闭：拒绝这段文本。",
        "long_truncated": "保留了 {total:,} 个词元中的 {kept:,} 个；从“{cut}”处截断。",
        "long_model_toggle": "长文本改用能读最长文本的模型（{model}，{positions:,} 个位置）",
        "long_model_help": "文本超过所选模型能读的长度时，改用模型目录里能读这种语言、位置最多的模型。"
        "关闭：仍用所选模型，并截断。",
        "long_model_note": "这段文本有 {tokens:,} 个词元；{chosen} 最多读 {limit:,} 个。这里改用 {model} 显示，"
        "它最多读 {positions:,} 个。",
        "long_loading_libraries": "正在启动：加载 torch、plotly、transformers 和默认模型…",
        "long_lines_title": "一段词元窗口的头视图连线",
        "long_lines_from": "窗口起始词元",
        "long_lines_help": "一次显示 {window} 个词元的头视图连线：窗口里每个查询与同一窗口里的键之间的连线。",
        "long_lines_note": "第 {start}–{stop} 个词元（共 {tokens:,} 个），第 {layer} 层 · 第 {head} 个头：只画窗口内的键；"
        "这些词元有 {outside:.0%} 的权重落在窗口之外（热力图显示落在哪里）。",
    },
}
