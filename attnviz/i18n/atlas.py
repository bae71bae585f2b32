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
        "error.atlas_answer_before_needle": "The answer (tokens {answer}) must come after the needle (tokens "
        "{needle}): the retrieval score reads the steps that wrote the answer, each looking back at the needle.",
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
        "atlas.block_title": "layer {layer} · head {head}: block masses ({block} × {block} tokens)",
        "atlas.block_hover": "query tokens from %{y} · key tokens from %{x}<br>block mass %{customdata:.3g}",
        # the Atlas page (app_pages/page_scripts/atlas.py)
        "page_atlas": "Atlas",
        "atlas_title": "Atlas: every head of a long text",
        "atlas_intro": "The model reads the text once through fused attention kernels and, layer by layer, one more "
        "fused pass gives every head's block masses: the share of each block of queries' attention that goes to each "
        "block of keys, exact, without ever holding a head's n × n weights. Any window of any head is computed "
        "exactly when you open it.",
        "atlas_text": "Long text",
        "atlas_upload": "…or a .txt file (UTF-8), which replaces the text above",
        "atlas_block": "Tokens per block",
        "atlas_block_help": "Each head's map is shown as blocks of this many query × key tokens; each block holds the "
        "mean share of its queries' attention that goes to its keys.",
        "atlas_truncate": "Keep the first tokens the model reads",
        "atlas_truncate_help": "On: a text longer than the model's positions is cut there, and the atlas says how "
        "many tokens it read. Off: such a text is refused.",
        "atlas_run": "Build the atlas",
        "atlas_stop": "Stop",
        "atlas_stop_help": "Ends the run in flight; the atlas shown before stays.",
        "atlas_stopped": "The run was stopped; nothing of it is kept.",
        "atlas_progress": "Attention calls done: {done} of {total}",
        "atlas_none": "Type or upload a long text, then build its atlas.",
        "atlas_done": "{layers} layers × {heads} heads over {tokens:,} tokens, blocks of {block}; queries, keys and "
        "row log-sum-exps kept for exact windows: {size}.",
        "atlas_fell_back": "A fused kernel disagreed with float64 on its checked rows and was not used ({routes}): "
        "the exact eager computation took its place.",
        "atlas_download": "Download the atlas (.npz)",
        "atlas_download_help": "Block masses, statistics, pattern labels, tokens and provenance; it reopens without "
        "the model (python -m attnviz atlas writes one with windows too).",
        "atlas_filter": "Patterns shown",
        "atlas_pattern_rule": "A head's pattern is the first of A-shape, vertical-slash, block-sparse (MInference, "
        "Jiang et al. 2024) whose cover of k = max(2, {budget:.3g} × key blocks) blocks per query block holds at "
        "least {recall:.0%} of its attention; dense when none does.",
        "atlas_pattern": "Pattern",
        "atlas_help_sink": "Mean weight of the queries after the first 4 tokens on those 4 tokens (StreamingLLM's "
        "attention sink, Xiao et al. 2023), exact.",
        "atlas_help_local": "Mean share of a query's attention on its own key block and the one before.",
        "atlas_help_entropy_ratio": "Mean entropy of a query block's row of block masses, divided by the log of the "
        "blocks it sees: 0 on one block, 1 spread evenly.",
        "atlas_help_a-shape": "Share of the head's attention on the first block and the local band (budget k blocks).",
        "atlas_help_vertical-slash": "Share on the head's heaviest k/2 key-block columns and k/2 diagonals.",
        "atlas_help_block-sparse": "Share on each query block's k heaviest blocks.",
        "atlas_table_hint": "Click a column to sort; select a row to open that head below.",
        "atlas_zoom_title": "Layer {layer} · head {head}",
        "atlas_window_size": "Window (tokens per side)",
        "atlas_window_note": "Exact weights exp(s · q·kᵀ − LSE), computed now from the kept queries, keys and row "
        "log-sum-exps.",
        "atlas_definitions": "Definitions: sink mass over the first {sink} tokens (StreamingLLM, Xiao et al. 2023); "
        "patterns after MInference (Jiang et al. 2024), a pattern named when its cover holds ≥ {recall:.0%}; block "
        "masses exact (one fused pass per layer with one-hot key-bucket values).",
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
        "error.atlas_answer_before_needle": "答案（词元 {answer}）必须在针（词元 {needle}）之后：检索分数读的是写出答案的"
        "每一步，它们回看针。",
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
        "atlas.block_title": "第 {layer} 层 · 头 {head}：块质量（{block} × {block} 个词元）",
        "atlas.block_hover": "查询词元自 %{y} 起 · 键词元自 %{x} 起<br>块质量 %{customdata:.3g}",
        "page_atlas": "图谱",
        "atlas_title": "图谱：长文本的每一个头",
        "atlas_intro": "模型用融合注意力内核读一遍文本，每一层再做一次融合计算，得到每个头的块质量：每个查询块的注意力"
        "落到每个键块上的份额，精确，且从不保存一个头的 n × n 权重。打开任何一个头的任何窗口时，都会精确计算。",
        "atlas_text": "长文本",
        "atlas_upload": "…或者一个 .txt 文件（UTF-8），它会替换上面的文本",
        "atlas_block": "每块的词元数",
        "atlas_block_help": "每个头的图按这么多查询 × 键词元分块显示；每块是其查询的注意力落到其键上的平均份额。",
        "atlas_truncate": "只保留模型能读的前面的词元",
        "atlas_truncate_help": "打开：超过模型位置数的文本在那里截断，图谱会说明读了多少个词元。关闭：拒绝这样的文本。",
        "atlas_run": "生成图谱",
        "atlas_stop": "停止",
        "atlas_stop_help": "结束正在进行的计算；之前显示的图谱保留。",
        "atlas_stopped": "计算已停止；这次计算的结果没有保留。",
        "atlas_progress": "已完成的注意力调用：{done} / {total}",
        "atlas_none": "输入或上传一段长文本，然后生成它的图谱。",
        "atlas_done": "{layers} 层 × {heads} 个头，{tokens:,} 个词元，块大小 {block}；为精确窗口保留的查询、键和行 "
        "log-sum-exp：{size}。",
        "atlas_fell_back": "有融合内核在检查的行上与 float64 不一致，未被使用（{routes}）：改用精确的逐块计算。",
        "atlas_download": "下载图谱（.npz）",
        "atlas_download_help": "块质量、统计量、模式标签、词元和来源信息；无需模型即可重新打开"
        "（python -m attnviz atlas 还能写入窗口）。",
        "atlas_filter": "显示的模式",
        "atlas_pattern_rule": "一个头的模式是 A 形、竖线-斜线、块稀疏（MInference，Jiang 等 2024）中第一个满足条件的："
        "每个查询块用 k = max(2, {budget:.3g} × 键块数) 个块覆盖，至少覆盖其注意力的 {recall:.0%}；都不满足时为稠密。",
        "atlas_pattern": "模式",
        "atlas_help_sink": "前 4 个词元之后的查询落在这 4 个词元上的平均权重（StreamingLLM 的注意力汇点，Xiao 等 2023），"
        "精确值。",
        "atlas_help_local": "查询的注意力落在自己所在键块和前一个键块上的平均份额。",
        "atlas_help_entropy_ratio": "查询块那一行块质量的平均熵，除以它能看到的块数的对数：0 表示集中在一块，1 表示均匀分布。",
        "atlas_help_a-shape": "头的注意力落在第一块和局部带上的份额（预算 k 块）。",
        "atlas_help_vertical-slash": "落在最重的 k/2 个键块列和 k/2 条对角线上的份额。",
        "atlas_help_block-sparse": "落在每个查询块最重的 k 个块上的份额。",
        "atlas_table_hint": "点击列名排序；选中一行，在下方打开那个头。",
        "atlas_zoom_title": "第 {layer} 层 · 头 {head}",
        "atlas_window_size": "窗口（每边词元数）",
        "atlas_window_note": "精确权重 exp(s · q·kᵀ − LSE)，由保留的查询、键和行 log-sum-exp 现场计算。",
        "atlas_definitions": "定义：汇点质量取前 {sink} 个词元（StreamingLLM，Xiao 等 2023）；模式参照 MInference"
        "（Jiang 等 2024），覆盖 ≥ {recall:.0%} 时命名；块质量为精确值（每层一次融合计算，值为键块的独热指示）。",
        "cli.atlas_done": "{layers} 层 × {heads} 个头，{tokens:,} 个词元，块大小 {block} → {path}",
        "cli.atlas_windows": "为窗口保留的查询、键和 LSE：{size}",
        "cli.atlas_fell_back": "有融合路径与 float64 不一致，未被使用：{routes}",
    },
}
