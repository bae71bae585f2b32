"""The sentences of attnviz's errors (attnviz.errors), in English and 中文: key `error.<key>` for `Error("<key>", ...)`.

Each sentence says what went wrong and what to do about it; {placeholders} are the values the raise passes.
"""

STRINGS: dict[str, dict[str, str]] = {
    "en": {
        # figure export: size and resolution (attnviz.export.sizing)
        "error.export_width": "The figure width must be a whole number of pixels from {low} to {high}; got {value}.",
        "error.export_height": "The figure height must be a whole number of pixels from {low} to {high}; got {value}.",
        "error.export_scale": "The PNG scale must be a number from {low}× to {high}×; got {value}.",
        "error.export_dpi": "The PNG resolution must be from {low} to {high} dpi; got {value}.",
        "error.export_scale_and_dpi": "Give the PNG resolution as a scale or as dpi, not both (got scale {scale} and "
        "{dpi} dpi).",
        "error.export_pixels": "A {width} × {height} px figure at {scale}× would be a PNG of more than {limit} pixels; "
        "make it smaller or lower the scale.",
        "error.export_preset": "There is no print preset called {value!r}; use one of: {choices}.",
        "error.export_preset_width": "The preset {preset!r} sets the width ({width} px); give a height, a scale or dpi "
        "with it, or a width without a preset.",
        # capture files (attnviz.export.schema, attnviz.export.upload)
        "error.capture_not_attnviz": 'This is not an attnviz capture (no "schema": "{schema}"); export it with '
        "attnviz first.",
        "error.capture_schema_version": "This capture uses schema version {version}; this attnviz reads version "
        "{supported}. Save it again with this version of attnviz.",
        "error.capture_no_maps": 'The capture has no "maps" (an object of attention maps by kind); export it again.',
        "error.capture_not_bytes": "A capture upload must be the file's bytes; got {kind}.",
        "error.capture_too_large": "This file is {size} MB; captures up to {limit} MB can be opened here. Save fewer "
        "layers or a shorter text, or open it with the command line.",
        "error.capture_empty": "This file is empty; choose a capture saved by attnviz as .json or .npz.",
        "error.capture_single_npy": "This is a single .npy array, not an attnviz capture; save the capture as .npz.",
        "error.capture_not_utf8": "This file is neither an NPZ archive nor UTF-8 JSON (the bytes at position "
        "{position} are not text); choose a capture saved by attnviz as .json or .npz.",
        "error.capture_truncated": "This {format} file ends too early: it was cut short while being saved or "
        "uploaded. Save or upload it again.",
        "error.capture_bad_json": "This file is not valid JSON ({problem} at line {line}, column {column}); choose a "
        "capture saved by attnviz.",
        "error.capture_too_deep": "This file nests lists too deeply to be an attnviz capture.",
        "error.capture_bad_npz": "This is not a complete NPZ archive ({problem}); it may be cut short. Save or upload "
        "it again.",
        "error.capture_unpacked_too_large": "This capture unpacks to {size} MB of weights; up to {limit} MB can be "
        "opened here. Save fewer layers or a shorter text.",
        "error.capture_npz_no_header": 'This NPZ archive has no "header" entry, so it is not an attnviz capture; '
        "save the capture with attnviz.",
        "error.capture_npz_pickle": "The NPZ entry {entry!r} holds Python objects, which could only be read by "
        "running code from the file (pickle); attnviz never does that. Save the capture with attnviz.",
        "error.capture_npz_dtype": "The NPZ entry {entry!r} holds {dtype} values, where attnviz writes numbers "
        "(weights) or text (the header); save the capture with attnviz.",
        "error.capture_bad_shape": "The {kind!r} map's shape must be four whole numbers (layers, heads, queries, "
        "keys); it is {shape}.",
        "error.capture_too_many_layers": "The {kind!r} map has {count} layers; up to {limit} can be opened here.",
        "error.capture_too_many_heads": "The {kind!r} map has {count} heads; up to {limit} can be opened here.",
        "error.capture_too_many_tokens": "The {kind!r} map has {count} tokens in a row; up to {limit} can be opened "
        "here. Capture a shorter text.",
        "error.capture_too_many_steps": "The capture has {count} generation steps; up to {limit} can be opened here.",
        "error.capture_rows_not_normalised": "In the {kind!r} map, layer {layer}, head {head}, query {query}, the "
        "attention weights sum to {total}, not 1 (±{tolerance}): this is not the weights as captured (tokens "
        "hidden without renormalising, or edited). Save the capture itself.",
        "error.capture_step_rows_not_normalised": "At generation step {step}, the {kind} weights of layer {layer}, "
        "head {head} sum to {total}, not 1 (±{tolerance}); save the capture itself.",
    },
    "zh": {
        "error.export_width": "图的宽度必须是 {low} 到 {high} 之间的整数像素；收到的是 {value}。",
        "error.export_height": "图的高度必须是 {low} 到 {high} 之间的整数像素；收到的是 {value}。",
        "error.export_scale": "PNG 缩放倍数必须在 {low}× 到 {high}× 之间；收到的是 {value}。",
        "error.export_dpi": "PNG 分辨率必须在 {low} 到 {high} dpi 之间；收到的是 {value}。",
        "error.export_scale_and_dpi": "PNG 分辨率请用缩放倍数或 dpi 其中一种给出，不要同时给（收到缩放 {scale} 和 "
        "{dpi} dpi）。",
        "error.export_pixels": "{width} × {height} 像素的图放大 {scale}× 后，PNG 会超过 {limit} 像素；请把图改小或降低"
        "缩放倍数。",
        "error.export_preset": "没有名为 {value!r} 的打印预设；可用的有：{choices}。",
        "error.export_preset_width": "预设 {preset!r} 已经规定了宽度（{width} 像素）；可以同时指定高度、缩放倍数或 "
        "dpi，或者不用预设、直接给宽度。",
        "error.capture_not_attnviz": '这不是 attnviz 的捕获文件（没有 "schema": "{schema}"）；请先用 attnviz 导出。',
        "error.capture_schema_version": "这个捕获文件使用第 {version} 版格式；当前的 attnviz 只读第 {supported} 版。"
        "请用这个版本的 attnviz 重新保存。",
        "error.capture_no_maps": '捕获文件里没有 "maps"（按类型存放的注意力图）；请重新导出。',
        "error.capture_not_bytes": "上传的捕获必须是文件的字节内容；收到的是 {kind}。",
        "error.capture_too_large": "这个文件有 {size} MB；这里最多能打开 {limit} MB 的捕获。请少存几层、换一段更短的"
        "文本，或者用命令行打开。",
        "error.capture_empty": "这个文件是空的；请选择 attnviz 保存的 .json 或 .npz 捕获文件。",
        "error.capture_single_npy": "这是单个 .npy 数组，不是 attnviz 的捕获文件；请把捕获保存为 .npz。",
        "error.capture_not_utf8": "这个文件既不是 NPZ 压缩包，也不是 UTF-8 编码的 JSON（第 {position} 个字节起不是"
        "文本）；请选择 attnviz 保存的 .json 或 .npz 文件。",
        "error.capture_truncated": "这个 {format} 文件提前结束了：保存或上传时被截断。请重新保存或上传。",
        "error.capture_bad_json": "这个文件不是有效的 JSON（第 {line} 行第 {column} 列：{problem}）；请选择 attnviz "
        "保存的捕获文件。",
        "error.capture_too_deep": "这个文件的列表嵌套太深，不可能是 attnviz 的捕获文件。",
        "error.capture_bad_npz": "这不是完整的 NPZ 压缩包（{problem}），可能被截断了。请重新保存或上传。",
        "error.capture_unpacked_too_large": "这个捕获解压后有 {size} MB 的权重；这里最多能打开 {limit} MB。请少存几层"
        "或换一段更短的文本。",
        "error.capture_npz_no_header": '这个 NPZ 压缩包没有 "header" 条目，所以不是 attnviz 的捕获文件；请用 attnviz '
        "保存。",
        "error.capture_npz_pickle": "NPZ 条目 {entry!r} 里存的是 Python 对象，只有执行文件里的代码（pickle）才能读出；"
        "attnviz 从不这样做。请用 attnviz 保存捕获。",
        "error.capture_npz_dtype": "NPZ 条目 {entry!r} 里存的是 {dtype} 类型的值，而 attnviz 写入的是数字（权重）或"
        "文本（文件头）；请用 attnviz 保存捕获。",
        "error.capture_bad_shape": "{kind!r} 图的形状必须是四个整数（层、头、查询、键）；这里是 {shape}。",
        "error.capture_too_many_layers": "{kind!r} 图有 {count} 层；这里最多能打开 {limit} 层。",
        "error.capture_too_many_heads": "{kind!r} 图有 {count} 个头；这里最多能打开 {limit} 个。",
        "error.capture_too_many_tokens": "{kind!r} 图的一条词元序列有 {count} 个词元；这里最多能打开 {limit} 个。"
        "请捕获更短的文本。",
        "error.capture_too_many_steps": "这个捕获有 {count} 个生成步骤；这里最多能打开 {limit} 个。",
        "error.capture_rows_not_normalised": "在 {kind!r} 图的第 {layer} 层、第 {head} 头、第 {query} 个查询处，注意力"
        "权重之和是 {total}，而不是 1（允许误差 ±{tolerance}）：这不是原样捕获的权重（隐藏了词元却没有重新归一化，"
        "或被手动改过）。请保存捕获本身。",
        "error.capture_step_rows_not_normalised": "在第 {step} 个生成步骤，第 {layer} 层、第 {head} 头的 {kind} 权重"
        "之和是 {total}，而不是 1（允许误差 ±{tolerance}）；请保存捕获本身。",
    },
}
