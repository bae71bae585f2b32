"""Words of the long-context atlas (`attnviz.atlas`): its errors, memory phrases, statistics and patterns, the poster
and the command line."""

STRINGS = {
    "en": {
        # attnviz.atlas
        "error.atlas_count": "The atlas's {name} must be a whole number of tokens ≥ 1, not {value!r}.",
        "error.atlas_softcap": "This model soft-caps its attention scores (Gemma 2), which no fused kernel does; the "
        "atlas cannot read it exactly. Use the other pages (full or on-demand capture) for it.",
        "error.atlas_position_bias": "This model adds a relative position bias to its scores (T5), which the atlas's "
        "fused kernels do not take without an n × n mask per layer; use the other pages (full or on-demand capture) "
        "for it.",
        "error.atlas_no_windows": "This atlas kept no queries and keys, so its windows cannot be computed; run it "
        "again keeping them (keep_inputs=True, or without --no-windows).",
        "error.atlas_shape": "Block masses of shape {shape} do not fit {queries:,} queries × {keys:,} keys in blocks "
        "of {block} over {layers} layers.",
        "error.atlas_sink_shape": "Sink masses of shape {shape} do not fit {layers} layers × {heads} heads.",
        "error.atlas_file_unreadable": "{path} cannot be read as an atlas (.npz): {detail}",
        "error.atlas_file_not_atlas": "{path} is not an atlas file written by attnviz (its 'meta' names no atlas "
        "format).",
        "atlas.memory_what": "An atlas of {tokens:,} tokens with {model}",
        "atlas.memory_advice_windows": "use fewer tokens, or an atlas without windows (keep_inputs=False, "
        "--no-windows: blocks and statistics only)",
        "atlas.memory_advice": "use fewer tokens",
        "atlas.memory_window": "A window of {cells:,} weights",
        "atlas.memory_window_advice": "open fewer rows, keys or heads",
        # statistics and patterns (attnviz.maps.atlas_stats)
        "atlas.stat_sink": "sink mass",
        "atlas.stat_local": "local mass",
        "atlas.stat_entropy": "block entropy (nats)",
        "atlas.stat_entropy_ratio": "block entropy ÷ log(blocks seen)",
        "atlas.stat_a-shape": "A-shape recall",
        "atlas.stat_vertical-slash": "vertical-slash recall",
        "atlas.stat_block-sparse": "block-sparse recall",
        "atlas.pattern_a-shape": "A-shape",
        "atlas.pattern_vertical-slash": "vertical-slash",
        "atlas.pattern_block-sparse": "block-sparse",
        "atlas.pattern_dense": "dense",
        "atlas.pattern_—": "no pattern",
        # the poster (attnviz.figures.atlas)
        "atlas.poster_title": "Attention atlas of {model}: {layers} layers × {heads} heads, {tokens:,} tokens",
        "atlas.poster_subtitle": "each square: one head's block masses, {block} × {block} tokens per cell (rows: "
        "query blocks, columns: key blocks)",
        "atlas.poster_scale": "colour: log₁₀ of the mean share of a query's attention per block; grey: masked",
        "atlas.poster_colorbar": "log₁₀ block mass",
        "atlas.poster_layer": "L{layer}",
        "atlas.poster_head": "H{head}",
        "atlas.poster_hover": "layer {layer} · head {head}",
        # the command line (attnviz.cli.commands.atlas)
        "cli.atlas_done": "{layers} layers × {heads} heads over {tokens:,} tokens, blocks of {block} → {path}",
        "cli.atlas_windows": "queries, keys and LSE kept for windows: {size}",
        "cli.atlas_fell_back": "a fused route disagreed with float64 and was not used: {routes}",
    },
    "zh": {
        "error.atlas_count": "图谱的 {name} 必须是 ≥ 1 的整数个词元，而不是 {value!r}。",
        "error.atlas_softcap": "这个模型对注意力分数做软上限（Gemma 2），融合内核都不支持；图谱无法精确读取它。"
        "请用其他页面（完整或按需捕获）。",
        "error.atlas_position_bias": "这个模型在分数上加相对位置偏置（T5），图谱的融合内核只有在每层一个 n × n 掩码时"
        "才能接受；请用其他页面（完整或按需捕获）。",
        "error.atlas_no_windows": "这个图谱没有保留查询和键，无法计算窗口；请保留它们重新运行"
        "（keep_inputs=True，或不加 --no-windows）。",
        "error.atlas_shape": "形状为 {shape} 的块质量与 {queries:,} 个查询 × {keys:,} 个键、块大小 {block}、"
        "{layers} 层不符。",
        "error.atlas_sink_shape": "形状为 {shape} 的汇点质量与 {layers} 层 × {heads} 个头不符。",
        "error.atlas_file_unreadable": "{path} 无法作为图谱（.npz）读取：{detail}",
        "error.atlas_file_not_atlas": "{path} 不是 attnviz 写的图谱文件（其 'meta' 没有写明图谱格式）。",
        "atlas.memory_what": "用 {model} 为 {tokens:,} 个词元做图谱",
        "atlas.memory_advice_windows": "请减少词元，或做不带窗口的图谱（keep_inputs=False，--no-windows：只有块和统计）",
        "atlas.memory_advice": "请减少词元",
        "atlas.memory_window": "一个 {cells:,} 个权重的窗口",
        "atlas.memory_window_advice": "请少开一些行、键或头",
        "atlas.stat_sink": "汇点质量",
        "atlas.stat_local": "局部质量",
        "atlas.stat_entropy": "块熵（奈特）",
        "atlas.stat_entropy_ratio": "块熵 ÷ log(可见块数)",
        "atlas.stat_a-shape": "A 形召回率",
        "atlas.stat_vertical-slash": "竖线-斜线召回率",
        "atlas.stat_block-sparse": "块稀疏召回率",
        "atlas.pattern_a-shape": "A 形",
        "atlas.pattern_vertical-slash": "竖线-斜线",
        "atlas.pattern_block-sparse": "块稀疏",
        "atlas.pattern_dense": "稠密",
        "atlas.pattern_—": "无模式",
        "atlas.poster_title": "{model} 的注意力图谱：{layers} 层 × {heads} 个头，{tokens:,} 个词元",
        "atlas.poster_subtitle": "每个方块：一个头的块质量，每格 {block} × {block} 个词元（行：查询块，列：键块）",
        "atlas.poster_scale": "颜色：每块所得查询注意力平均份额的 log₁₀；灰色：被掩码",
        "atlas.poster_colorbar": "log₁₀ 块质量",
        "atlas.poster_layer": "第{layer}层",
        "atlas.poster_head": "头{head}",
        "atlas.poster_hover": "第 {layer} 层 · 头 {head}",
        "cli.atlas_done": "{layers} 层 × {heads} 个头，{tokens:,} 个词元，块大小 {block} → {path}",
        "cli.atlas_windows": "为窗口保留的查询、键和 LSE：{size}",
        "cli.atlas_fell_back": "有融合路径与 float64 不一致，未被使用：{routes}",
    },
}
