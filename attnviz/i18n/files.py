"""The words of files going out of and coming into the app, in English and 中文: the download size chosen once for
every download, the Open a capture page and what it says of a capture's provenance, and the sentences of a capture
file whose header disagrees with itself (`error.capture_*`, raised by attnviz.export.upload)."""

STRINGS: dict[str, dict[str, str]] = {
    "en": {
        # Downloads (app_pages/shared/figure_export.py)
        "download_size": "Download size",
        "download_preset": "Size",
        "preset_screen": "As on screen (choose scale and size)",
        "preset_single-column": "Paper, one column (3.5 in, 300 dpi)",
        "preset_double-column": "Paper, full width (7 in, 300 dpi)",
        "preset_slide": "Slide, 16:9 (13.3 in, 150 dpi)",
        "download_scale": "PNG scale",
        "download_width": "Width (px)",
        "download_height": "Height (px)",
        "download_own_size": "the figure's own",
        "download_scale_note": "PNG at {scale}× the figure's pixels ({dpi} dpi); PDF and SVG are vector: PDF text is "
        "real text (it can be selected and searched), SVG text is drawn as outlines (it shows without the font, but "
        "cannot be selected). Applies to every download.",
        "download_preset_note": "Printed {inches} in wide at {dpi} dpi: a PNG {pixels} px wide, a PDF or SVG page "
        "{inches} in wide, fonts at their printed size. Applies to every download.",
        "export_capture_help": "Download the capture this figure is drawn from as {format}, with where it came from "
        "(opens again on the Open a capture page)",
        "export.small_labels": "At {width} px wide, the {tokens} token labels of a line stand {size} px high "
        "({points} pt in print): too small to read. Export it wider, or show fewer tokens (words instead of pieces, "
        "special tokens hidden).",
        # Open a capture (app_pages/page_scripts/open_capture.py, app_pages/shared/opened.py)
        "page_open_capture": "Open a capture",
        "open_title": "Open a capture",
        "open_intro": "A capture saved by attnviz — this app's JSON or NPZ download, or `python -m attnviz capture` "
        "on another machine (a GPU or NPU server) — opens here: every page then shows it as if it had just been "
        "computed, until you close it or change the text or the model.",
        "open_upload": "Capture file (.json or .npz)",
        # Streamlit's own uploader words, written by app_pages/shared/uploader.py outside English
        "uploader_button": "Upload",
        "uploader_limit": "{limit}MB per file • {types}",
        "uploader_drag": "Drag and drop a file here",
        "uploader_drag_many": "Drag and drop files here",
        "open_upload_help": "Up to {limit} MB. The file is checked before anything is drawn: its structure, shapes "
        "and values, and NPZ files are read without running any code from them.",
        "open_none": "No capture is open: the pages compute from the model in the sidebar.",
        "open_done": "Open: **{file}** ({model}). Every page shows this capture.",
        "open_no_provenance": "This file does not say where it came from (it was saved without provenance).",
        "open_provenance_title": "Where it came from",
        "open_column_what": "What",
        "open_column_value": "Recorded",
        "open_explore_title": "Explore it",
        "open_close": "Close the capture",
        "opened_notice": "Showing the saved capture **{file}**; changing the text or the model closes it.",
        "open_unexpected": "This file could not be read, for a reason attnviz did not expect; it has not been opened. "
        "The server log has the details.",
        "open_not_recorded": "not recorded",
        "open_layers_heads": "{layers} layers × {heads} heads",
        "open_field_model": "Model",
        "open_field_revision": "Revision",
        "open_field_weights": "Weights",
        "open_field_architecture": "Architecture",
        "open_field_device": "Device",
        "open_field_dtype": "Precision (dtype)",
        "open_field_versions": "Versions",
        "open_field_source": "Source text",
        "open_field_target": "Target text",
        "open_field_options": "Capture options",
        "open_field_time": "Captured at (UTC)",
        "open_field_maps": "Maps (layers × heads × queries × keys)",
        # Capture files whose header disagrees with itself
        "error.capture_unknown_kind": "The {kind!r} map says it is {value!r}; a map is one of {choices}.",
        "error.capture_tokens_mismatch": "The {kind!r} map has shape {shape} but {queries} query tokens and {keys} "
        "key tokens; a capture has one token per query row and per key column.",
        "error.capture_layer_names_mismatch": "The {kind!r} map has {layers} layers but {names} layer names.",
    },
    "zh": {
        "download_size": "下载尺寸",
        "download_preset": "尺寸",
        "preset_screen": "与屏幕一致（自选缩放和尺寸）",
        "preset_single-column": "论文单栏（3.5 英寸，300 dpi）",
        "preset_double-column": "论文通栏（7 英寸，300 dpi）",
        "preset_slide": "幻灯片 16:9（13.3 英寸，150 dpi）",
        "download_scale": "PNG 缩放",
        "download_width": "宽度（像素）",
        "download_height": "高度（像素）",
        "download_own_size": "图自身的尺寸",
        "download_scale_note": "PNG 为图像素的 {scale} 倍（{dpi} dpi）；PDF 和 SVG 是矢量图：PDF 中的文字是真实文本"
        "（可以选中和搜索），SVG 中的文字画成轮廓（没有字体也能显示，但不能选中）。对每次下载都生效。",
        "download_preset_note": "打印宽度 {inches} 英寸、{dpi} dpi：PNG 宽 {pixels} 像素，PDF 或 SVG 页面宽 {inches} "
        "英寸，字号即打印字号。对每次下载都生效。",
        "export_capture_help": "把绘制这张图所用的捕获下载为 {format}，附带来源信息（可在“打开捕获文件”页面再次打开）",
        "export.small_labels": "图宽 {width} px 时，一条线上的 {tokens} 个词元标签只有 {size} px 高（印刷时 {points} "
        "pt），无法辨认。请导出得更宽，或显示更少的词元（按词而非词片显示、隐藏特殊词元）。",
        "page_open_capture": "打开捕获文件",
        "open_title": "打开捕获文件",
        "open_intro": "attnviz 保存的捕获文件——本应用下载的 JSON 或 NPZ，或在另一台机器（GPU 或 NPU 服务器）上用 "
        "`python -m attnviz capture` 保存的文件——可以在这里打开：之后每个页面都像刚刚算出来一样展示它，"
        "直到你关闭它或更改文本、模型。",
        "open_upload": "捕获文件（.json 或 .npz）",
        "uploader_button": "上传",
        "uploader_limit": "每个文件最大 {limit} MB · {types}",
        "uploader_drag": "把文件拖放到这里",
        "uploader_drag_many": "把文件拖放到这里（可多个）",
        "open_upload_help": "最大 {limit} MB。绘图之前会先检查文件的结构、形状和数值；读取 NPZ 时不会执行文件里的任何代码。",
        "open_none": "当前没有打开的捕获文件：各页面用侧边栏中的模型计算。",
        "open_done": "已打开：**{file}**（{model}）。每个页面都展示这份捕获。",
        "open_no_provenance": "这个文件没有记录来源（保存时未附带来源信息）。",
        "open_provenance_title": "来源",
        "open_column_what": "项目",
        "open_column_value": "记录内容",
        "open_explore_title": "查看",
        "open_close": "关闭捕获文件",
        "opened_notice": "正在展示保存的捕获 **{file}**；更改文本或模型会关闭它。",
        "open_unexpected": "由于意料之外的原因，这个文件无法读取，未被打开。详情见服务器日志。",
        "open_not_recorded": "未记录",
        "open_layers_heads": "{layers} 层 × {heads} 个头",
        "open_field_model": "模型",
        "open_field_revision": "版本（revision）",
        "open_field_weights": "权重",
        "open_field_architecture": "结构",
        "open_field_device": "设备",
        "open_field_dtype": "精度（dtype）",
        "open_field_versions": "软件版本",
        "open_field_source": "源文本",
        "open_field_target": "目标文本",
        "open_field_options": "捕获选项",
        "open_field_time": "捕获时间（UTC）",
        "open_field_maps": "注意力图（层 × 头 × 查询 × 键）",
        "error.capture_unknown_kind": "{kind!r} 图自称是 {value!r}；注意力图只能是 {choices} 之一。",
        "error.capture_tokens_mismatch": "{kind!r} 图的形状是 {shape}，却有 {queries} 个查询词元和 {keys} 个键词元；"
        "捕获文件里每个查询行、每个键列各对应一个词元。",
        "error.capture_layer_names_mismatch": "{kind!r} 图有 {layers} 层，却有 {names} 个层名。",
    },
}
