"""The explorer file (attnviz.export.explorer_file): its page's words, the app's button and its refusals, in English
and 中文."""

STRINGS: dict[str, dict[str, str]] = {
    "en": {
        # the page
        "explorer_title": "attnviz explorer",
        "explorer_map": "Map",
        "explorer_view": "Figure",
        "explorer_view_heatmap": "Heatmap",
        "explorer_view_alignment": "Alignment diagram",
        "explorer_view_lines": "Head lines",
        "explorer_view_grid": "Layer × head grid",
        "explorer_tokens": "Tokens",
        "explorer_tokens_words": "Words",
        "explorer_tokens_pieces": "Subword pieces",
        "explorer_model": "Model: {text}",
        "explorer_source": "Source: {text}",
        "explorer_target": "Target: {text}",
        "explorer_fixed": "As the app's defaults: special tokens hidden, colours from 0 to 1 on every head, the whole "
        "translation (no replay), the three strongest links per token in the alignment diagram.",
        "explorer_made": "Made by attnviz {version}. Every figure was drawn when this file was saved, by the code the "
        "attnviz app draws its pages with; this page only shows them: it computes nothing and fetches nothing. The "
        "address's part after # names the figure shown, so a link to this file opens it.",
        "explorer_not_held": "This file does not hold the view the link asks for ({fields}); the nearest one it holds "
        "is shown.",
        "explorer_loading": "Unpacking the figures…",
        "explorer_no_decompression": "This browser cannot unpack the file: it needs DecompressionStream (Chrome or "
        "Edge 80, Firefox 113, Safari 16.4 or later).",
        "explorer_no_script": "This page needs JavaScript to show its figures.",
        # what to drop from a file too large
        "explorer_drop.subwords": "the subword view ({figures} figures without it)",
        "explorer_drop.language": "one language ({figures} figures)",
        "explorer_drop.thresholds": "all weakest links but one ({figures} figures)",
        "explorer_drop.measures": "the measures ({figures} figures)",
        "explorer_drop.maps": "every map but the first ({figures} figures)",
        "explorer_drop.text": "a shorter text",
        "explorer_drop.separator": ", then ",
        "error.explorer_too_many_figures": "The explorer file would hold {figures} figures, more than the "
        "{limit} it may; leave out {drops}.",
        "error.explorer_too_big": "The explorer file would take {size} MB, more than the {limit} MB it may; leave "
        "out {drops}.",
        "error.explorer_long_text": "The explorer file holds every head of a text shown whole; this text is "
        "analysed on demand (a long text): shorten it to make an explorer file.",
        "error.explorer_measure_missing": "The explorer file was asked to hold {measure}, but it was not computed.",
        "error.explorer_empty_choice": "An explorer file needs at least one word view, one language and one "
        "weakest link.",
        "error.explorer_language_unknown": "An explorer file speaks {langs}.",
        "error.explorer_threshold": "Weakest links go between 0 and 1 (both left out); given: {thresholds}.",
        "error.explorer_reserved_key": "A figure holds the key {key!r}, which the explorer file uses itself.",
        "error.explorer_no_map": "None of the maps asked for is in this capture; it has {kinds}.",
        "error.cli_list_choice": "{value!r} is not a comma-separated list of {choices}.",
        # the app's button
        "explorer_button": "Explorer file",
        "explorer_intro": "One HTML file holding every layer and head of this input, for a reader without attnviz: "
        "they pick the map, figure, heads, word view, weakest link and language as here. It opens offline.",
        "explorer_measures": "Measures to put in",
        "explorer_measures_help": "Each one runs the model again on this input (seconds on the demo models).",
        "explorer_make": "Make the explorer file",
        "explorer_making": "Drawing figure {done} of {total}…",
        "explorer_ready": "{name}: {size} MB, {figures} figures.",
        "explorer_save": "Save the explorer file",
    },
    "zh": {
        "explorer_title": "attnviz 注意力浏览文件",
        "explorer_map": "注意力图",
        "explorer_view": "图形",
        "explorer_view_heatmap": "热力图",
        "explorer_view_alignment": "对齐图",
        "explorer_view_lines": "注意力连线",
        "explorer_view_grid": "层 × 头 总览",
        "explorer_tokens": "单位",
        "explorer_tokens_words": "按词",
        "explorer_tokens_pieces": "按子词",
        "explorer_model": "模型：{text}",
        "explorer_source": "原文：{text}",
        "explorer_target": "译文：{text}",
        "explorer_fixed": "与应用的默认设置相同：隐藏特殊词元，每个头的颜色都从 0 到 1，显示整句译文（不回放），"
        "对齐图中每个词元显示最强的三条连线。",
        "explorer_made": "由 attnviz {version} 生成。每张图都在保存本文件时由 attnviz 应用绘制页面所用的同一段代码画出；"
        "本页只负责显示：不做任何计算，也不联网获取任何内容。地址中 # 之后的部分记录当前显示的图，"
        "因此指向本文件的链接会打开同一张图。",
        "explorer_not_held": "本文件不包含链接所要的视图（{fields}）；已显示文件中最接近的视图。",
        "explorer_loading": "正在解压图形……",
        "explorer_no_decompression": "此浏览器无法解压本文件：需要 DecompressionStream（Chrome 或 Edge 80、"
        "Firefox 113、Safari 16.4 及以上版本）。",
        "explorer_no_script": "本页需要 JavaScript 才能显示图形。",
        "explorer_drop.subwords": "子词视图（去掉后 {figures} 张图）",
        "explorer_drop.language": "一种语言（{figures} 张图）",
        "explorer_drop.thresholds": "只保留一个最弱连线阈值（{figures} 张图）",
        "explorer_drop.measures": "各项度量（{figures} 张图）",
        "explorer_drop.maps": "除第一张以外的注意力图（{figures} 张图）",
        "explorer_drop.text": "更短的文本",
        "explorer_drop.separator": "，再去掉",
        "error.explorer_too_many_figures": "浏览文件将包含 {figures} 张图，超过上限 {limit} 张；请去掉{drops}。",
        "error.explorer_too_big": "浏览文件将有 {size} MB，超过上限 {limit} MB；请去掉{drops}。",
        "error.explorer_long_text": "浏览文件包含整段显示的文本的每一个头；这段文本较长，是按需分析的：请缩短文本后再生成。",
        "error.explorer_measure_missing": "浏览文件需要包含 {measure}，但它尚未计算。",
        "error.explorer_empty_choice": "浏览文件至少需要一种词视图、一种语言和一个最弱连线阈值。",
        "error.explorer_language_unknown": "浏览文件支持的语言为 {langs}。",
        "error.explorer_threshold": "最弱连线阈值须在 0 和 1 之间（不含两端）；给出的是：{thresholds}。",
        "error.explorer_reserved_key": "某张图含有键 {key!r}，而浏览文件自己要用这个键。",
        "error.explorer_no_map": "所要的注意力图都不在这次捕获中；它包含 {kinds}。",
        "error.cli_list_choice": "{value!r} 不是以逗号分隔的 {choices} 列表。",
        "explorer_button": "浏览文件",
        "explorer_intro": "一个 HTML 文件，包含这次输入的每一层、每一个头，供没有 attnviz 的读者使用："
        "他们可以像在这里一样选择注意力图、图形、头、词视图、最弱连线和语言。离线即可打开。",
        "explorer_measures": "要包含的度量",
        "explorer_measures_help": "每一项都要在这次输入上再运行一次模型（演示模型上需要几秒）。",
        "explorer_make": "生成浏览文件",
        "explorer_making": "正在绘制第 {done} 张图，共 {total} 张……",
        "explorer_ready": "{name}：{size} MB，{figures} 张图。",
        "explorer_save": "保存浏览文件",
    },
}
