"""The app's own words: navigation, sidebar, controls and page texts, in English and 中文."""

STRINGS: dict[str, dict[str, str]] = {
    "en": {
        "excerpt_more": "… (+{count} characters)",  # attnviz.text.excerpts: a long text quoted
        # Navigation and sidebar
        "page_translate": "Translate & align",
        "page_self_attention": "Self-attention",
        "page_how_attention_works": "How attention works",
        "page_heads": "Heads",
        "language": "Language · 语言",
        "model": "Model",
        "model_demo-zh-en": "Demo translator Chinese → English",
        "model_demo-en-zh": "Demo translator English → Chinese",
        "model_minilm": "all-MiniLM-L6-v2 (English encoder)",
        "model_custom": "Other: a hub id or a folder…",
        "model_custom_input": "Hugging Face id or local folder",
        "model_custom_hint": "e.g. Helsinki-NLP/opus-mt-zh-en or /models/my-model",
        "device": "Device",
        "device_auto": "auto (NPU → CUDA → CPU)",
        "device_npu": "npu (Ascend)",
        "device_cuda": "cuda (NVIDIA GPU)",
        "device_cpu": "cpu",
        "device_help": "Where the model runs. auto picks the first available of NPU, CUDA, MPS and CPU.",
        "device_report": "Device: {chosen}",
        "device_report_loading": "Device: listed once torch has loaded",
        "placement": "Advanced: placement",
        "placement_device_map": "Device map",
        "placement_one_device": "one device (the device above)",
        "placement_device_map_help": "accelerate places the model's layers across the accelerators, the CPU and the "
        "disk: auto and balanced spread them evenly, balanced_low_0 leaves room on the first accelerator, sequential "
        "fills one device after another. A max memory without a device map means auto.",
        "placement_max_memory": "Max memory per device",
        "placement_max_memory_help": "place=size, comma-separated: npu:N, cuda:N (or N), cpu or disk; a size like "
        "30GiB or 500MB. Layers that fit nowhere go to the offload folder.",
        "placement_offload_folder": "Offload folder",
        "placement_offload_help": "A folder on this machine for the layers kept on disk; each is read back when it runs.",
        "placement_note": "For this session only, not in the link: a placement names this machine's devices and "
        "folders.",
        "placement_report": "Where each layer ran ({layers} layers; kept on {places})",
        "placement_report_layer": "Layer",
        "placement_report_placed": "Weights kept on",
        "placement_report_ran": "Ran on",
        "first_view_note": "Computed ahead by {model} for this text (the same weights, checked), shown while the server "
        "is still loading the model; your first change runs the model itself.",
        "first_view_unused_machine": "A view of this text was computed ahead for other CPU kernels ({saved}); this "
        "server computes with {here}, whose last bits can differ, so it waits for the model (a few seconds while the "
        "server starts).",
        "first_view_unused_files": "A view of this text was computed ahead by other files of {model}: this server "
        "waits for the model instead (a few seconds while it starts).",
        "sidebar_footer": "Weights are recorded from the model's own attention computation while it runs; "
        "your text never leaves this machine.",
        "loading_model": "Loading {model}…",
        "analysing": "Running the model…",
        "analysing_long": "Running the model on a long text (keeping queries and keys; heads are computed when shown)…",
        "computing_statistics": "Computing every head's statistics, tile by tile…",
        "pooling": "Computing this head over the whole text…",
        "long_note": "A long text ({tokens:,} tokens): this page shows one head at a time — the whole map pooled to "
        "at most {bins} × {bins} cells (each cell the largest weight of its block), and below it a block of "
        "{window} × {window} exact weights. The word view, hidden tokens and the layer × head grid apply to shorter "
        "texts; the Heads page has every head's statistics.",
        "long_block_title": "Exact weights of one block",
        "long_not_continued": "The model reads this long prompt; it does not continue it (generation keeps every "
        "step's weights, which a text this long cannot afford).",
        "long_first_row": "First query row",
        "long_first_key": "First key",
        "long_block_figure": "Layer {layer} · head {head} · rows {rows} × keys {keys} (exact)",
        # Shared controls
        "source_text": "Text",
        "source_placeholder": "Type a sentence, e.g. 早上好！",
        "target_text": "Target (translation)",
        "target_placeholder": "The translation to force-decode, e.g. Good morning!",
        "mode": "Target",
        "mode_generate": "Let the model translate",
        "mode_pair": "Give the translation",
        "aggregation": "View",
        "aggregation_alignment": "Alignment heads",
        "aggregation_head": "One head",
        "aggregation_layer": "Mean of a layer's heads",
        "aggregation_all": "Mean of all layers and heads",
        "aggregation_help": "Alignment heads: the heads the model was trained to align with (config alignment_heads), "
        "or, without them, every head of the second-to-last layer.",
        "threshold": "Weakest link shown",
        "threshold_help": "Links with a weight below this are not drawn.",
        "words": "Words",
        "words_help": "On: subword pieces are merged into words; Chinese read a character at a time is joined into "
        "words of jieba's dictionary (always whole tokens). Off: one row and column per token.",
        "hide_special": "Hide special tokens",
        "hide_special_help": "Hide </s>, <pad>, [CLS] and the like (their weight is left out, not redistributed).",
        "export_help": "Download this figure as {format}",
        "export_plotly_help": "Download this figure as a plotly figure ({format}: the drawing, not the attention data)",
        # Translate & align
        "translate_title": "Translate & align",
        "translate_intro": "Cross-attention: while writing each target word, where in the source did the model look? "
        "Let the model translate, or give a translation pair and see how it aligns.",
        "translation_line": "**{text}** → **{translation}**",
        "no_cross": "{model} has no cross-attention (it is not a translation model). Open Self-attention, or choose "
        "a demo translator in the sidebar.",
        "target_not_read": "{model} reads no target (it has no decoder to force-decode one): the target you typed "
        "was not used. Choose a translation model in the sidebar to read a pair.",
        "replay": "Replay: target tokens written so far",
        "replay_words": "Replay: target words written so far",
        "replay_help": "Drag to replay the translation one target token at a time.",
        "step_focus": "{unit} {step} of {steps}: **{token}** looked at {keys}.",
        "unit_word": "Word",  # what a replay counts: the rows drawn (words in the word view, else tokens)
        "unit_token": "Token",
        "weighted": "{token} ({weight})",
        # Self-attention
        "self_title": "Self-attention",
        "self_intro": "How the tokens of one text look at each other: the encoder reads the source, the decoder "
        "the translation so far. Rows are queries, columns the keys they attend to.",
        "stack": "Stack",
        "stack_encoder": "Encoder",
        "stack_decoder": "Decoder",
        "stack_single": "Self-attention of this {kind} model",
        "kind_encoder-decoder": "encoder-decoder",
        "model_kind_encoder": "encoder-only",
        "model_kind_decoder": "decoder-only",
        "decoder_text": "Decoder input: **{target}**",
        "causal_note": "Grey cells are masked: a decoder token can only look at itself and the tokens before it.",
        "prompt_only": "Your text alone",
        "prompt_only_help": "Draw only the tokens of your text, not the continuation the model wrote after it. The "
        "model is causal, so the attention among your text's tokens is exactly the same either way.",
        "continuation_line": "The model continued your text: the maps draw your text's {prompt} tokens, then {shown} "
        "of the {written} tokens it wrote (the last one was never read back). Turn on “Your text alone” to read your "
        "text by itself.",
        "prompt_only_line": "Drawn: your text alone ({prompt} tokens), without the {written} tokens the model wrote "
        "after it. The model is causal, so these are exactly the weights of reading your text by itself.",
        "grid_title": "Every layer and head",
        "grid_intro": "Each small square is one head's attention; rows are layers, columns heads.",
        # How attention works
        "explainer_title": "How attention works",
        "explainer_intro": "A walk-through for everyone: what attention is, how Q, K and V turn into weights, and "
        "how multi-head attention splits the work. Edit the numbers and watch every step change.",
        "explainer_what": "1 · What attention is",
        "explainer_what_text": "Translating 早上好！ into Good morning!, each output word looks at some input words "
        "more than at others: **Good** at 好, **morning** at 早上, **!** at ！. How strongly it looks at each one is "
        "its attention weight: where it looks, which is not yet what it uses (section 5 shows the difference). The "
        "lines below are darker and thicker where the weight is stronger.",
        "explainer_seed_alignment": "早上好！ → Good morning! (illustration)",
        "explainer_qkv": "2 · Q, K and V, step by step",
        "explainer_qkv_text": "**Q** (queries) is what we look for, **K** (keys) says what each piece of knowledge is "
        "about, **V** (values) is the knowledge itself. Here Q has 3 rows, K and V have 4, and every row is a "
        "vector of dimension 2. Edit any number: the page's link keeps your numbers.",
        "explainer_reset": "Back to the starting numbers",
        "matrix_q_caption": "**Q** — 3 queries",
        "matrix_k_caption": "**K** — 4 keys",
        "matrix_v_caption": "**V** — 4 values",
        "step_scores_title": "Step {number}: similarity Q·Kᵀ",
        "step_scores_text": "Each query is compared with each key by a dot product: row i, column j is how well "
        "query i matches key j.",
        "step_scaled_title": "Step {number}: divide by √dₖ",
        "step_scaled_text": "Dividing by the square root of the vector dimension keeps the scores from growing with "
        "the dimension, so the softmax does not saturate.",
        "step_softmax_title": "Step {number}: softmax of each row",
        "step_softmax_text": "The softmax turns each row into a probability distribution: every weight lies between "
        "0 and 1 and each row sums to 1 (column Σ). These are the attention weights.",
        "step_output_title": "Step {number}: output A·V",
        "step_output_text": "Each output row is the weighted average of the value rows, with that query's weights.",
        "explainer_expectation": "So attention is an expected value: for each query, the average of V under the "
        "distribution its row of A defines. All steps at a glance:",
        "explainer_mixture": "4 · 四不像: a weighted mixture",
        "explainer_mixture_text": "Looking for the mother of the 四不像 (Père David's deer): with 四不像 as the query "
        "and [鹿, 牛, 羊, 驴, 青蛙] as keys and values, 四不像 looks at them with the weights (after the softmax) "
        "1/3, 1/6, 1/4, 1/4 and 0, and its output is the mixture of their value vectors in those proportions: "
        "1/3·v(鹿) + 1/6·v(牛) + 1/4·v(羊) + 1/4·v(驴) + 0·v(青蛙). **Looking is not using**: a weight says where "
        "the query looks; how much each key gives the output depends on its value vector too. Here 鹿's value vector "
        "is all zeros, so the figure draws each key's contribution (value zeroing, section 5) beside its weight: "
        "鹿 is looked at most, and not used at all.",
        "explainer_multihead": "6 · Multi-head attention: split, attend, merge",
        "explainer_multihead_text": "Multi-head attention splits the features into independent subspaces, computes "
        "attention in each one separately, and concatenates the results. Below, attnviz's own attention layer runs "
        "this on random input on the selected device; the table follows the tensor shapes step by step, as an "
        "implementation writes them (b = batch, l = length, hdim = hidden size):",
        "mh_batch": "Batch b",
        "mh_length": "Length l",
        "mh_hidden": "Hidden size hdim",
        "mh_heads": "Heads",
        "mh_running": "Running the attention layer on {device}…",
        "mh_ran_on": "Ran on **{device}**; each head works on head_dim = {head_dim} features.",
        "mh_step": "Step",
        "mh_axes": "Axes",
        "mh_shape": "Shape",
        "mh_meaning": "What it is",
        "mh_shape_x": "input",
        "mh_shape_query": "Q after multi_head_split",
        "mh_shape_key": "K after multi_head_split",
        "mh_shape_value": "V after multi_head_split",
        "mh_shape_scores": "Q·Kᵀ per head",
        "mh_shape_weights": "softmax weights per head",
        "mh_shape_context": "weights·V per head",
        "mh_shape_merged": "after multi_head_merge",
        "mh_shape_output": "after the output projection",
        "mh_grid_title": "The weights of each of the {heads} heads (batch row 0)",
        # Heads
        "heads_title": "Heads",
        "heads_intro": "What each head does, in numbers: sort the table by any column, then open a head on the "
        "other pages.",
        "heads_map": "Attention",
        "statistic": "Statistic in the heatmap",
        "stat_help_entropy": "The mean entropy of a query's attention row, in nats. Low: the head focuses on few "
        "tokens. High: it spreads its attention.",
        "stat_help_distance": "How far, in tokens, a head looks on average: |query position − key position| weighted "
        "by attention (self-attention only).",
        "stat_help_sink": "Attention parked on special tokens or the first token (attention sinks), on average.",
        "stat_help_previous_token": "How much a token attends to the one just before it (self-attention only).",
        "stat_help_induction": "On a repeated token: how much it attends to the token that followed its earlier "
        "copy (“last time A came, B came next”), the mark of an induction head. Needs a token that occurs twice.",
        "stat_help_positional": "How much the head keeps to one fixed distance back (itself, the previous token, two "
        "back …) whatever the words: the mean weight at its strongest offset, up to 7 back (self-attention only).",
        "stat_help_diagonal": "Attention on the diagonal: the token itself, or the proportional position in "
        "cross-attention (a monotone alignment).",
        "table_hint": "Click a column header to sort; select a row to choose that head.",
        "role": "Role",
        "role_help": "The role of the head's highest role score, when that score is at least {threshold}",
        "role_rule": "Role: the head's highest of the previous-token, induction, diagonal, positional and sink "
        "scores, named when it is at least {threshold}; below that, no role is named.",
        "role_previous_token": "previous token",
        "role_induction": "induction",
        "role_diagonal": "diagonal (itself)",
        "role_positional": "positional",
        "role_sink": "sink",
        "open_head_title": "Open a head",
        "open_on_translate": "Open layer {layer}, head {head} on Translate & align",
        "open_on_self_attention": "Open layer {layer}, head {head} on Self-attention",
        # Messages
        "warning_link": "Some link parameters could not be read and were left at their defaults: {names}.",
        "warning_link_cut": "This link held only the first {kept} of the {what}'s {whole} characters (a longer text "
        "does not fit in a link): this page shows that part only. Paste the whole text to see all of it.",
        "warning_link_cut_text": "text",
        "warning_link_cut_target": "translation",
        "error_unexpected": "Something went wrong while drawing this part of the page. The rest still works; try "
        "another input or model, and see the server log for details.",
        "error_ModelLoadError": "The model could not be loaded",
        "error_DeviceUnavailableError": "That device is not available",
        "error_InputError": "This input cannot be used",
        "error_ResourceLimitError": "This is over a limit",
        "error_AttnvizError": "This did not work",
    },
    "zh": {
        "excerpt_more": "……（另有 {count} 个字符）",
        "page_translate": "翻译与对齐",
        "page_self_attention": "自注意力",
        "page_how_attention_works": "注意力如何工作",
        "page_heads": "注意力头",
        "language": "Language · 语言",
        "model": "模型",
        "model_demo-zh-en": "演示翻译模型 中文 → 英文",
        "model_demo-en-zh": "演示翻译模型 英文 → 中文",
        "model_minilm": "all-MiniLM-L6-v2（英文编码器）",
        "model_custom": "其他：Hub 模型名或文件夹…",
        "model_custom_input": "Hugging Face 模型名或本地文件夹",
        "model_custom_hint": "例如 Helsinki-NLP/opus-mt-zh-en 或 /models/my-model",
        "device": "设备",
        "device_auto": "自动（NPU → CUDA → CPU）",
        "device_npu": "npu（昇腾）",
        "device_cuda": "cuda（NVIDIA GPU）",
        "device_cpu": "cpu",
        "device_help": "模型在哪里运行。自动：依次选用第一个可用的 NPU、CUDA、MPS、CPU。",
        "device_report": "设备：{chosen}",
        "device_report_loading": "设备：torch 加载完成后列出",
        "placement": "高级：模型放置",
        "placement_device_map": "设备映射",
        "placement_one_device": "单个设备（上面选的设备）",
        "placement_device_map_help": "由 accelerate 把模型的各层放到加速卡、CPU 和磁盘上：auto 和 balanced 平均分配，"
        "balanced_low_0 给第一张加速卡留出空间，sequential 依次填满每个设备。只填内存上限、不选设备映射时按 auto 处理。",
        "placement_max_memory": "每个设备的内存上限",
        "placement_max_memory_help": "用逗号分隔的 位置=大小：npu:N、cuda:N（或 N）、cpu 或 disk；大小如 30GiB 或 "
        "500MB。哪里都放不下的层放进卸载文件夹。",
        "placement_offload_folder": "卸载文件夹",
        "placement_offload_help": "本机上的一个文件夹，存放放在磁盘上的层；每层运行时再读回。",
        "placement_note": "只在本次会话中保留，不写进链接：放置方式指的是本机的设备和文件夹。",
        "placement_report": "每一层在哪里运行（{layers} 层；权重放在 {places}）",
        "placement_report_layer": "层",
        "placement_report_placed": "权重放在",
        "placement_report_ran": "运行于",
        "first_view_note": "此结果由 {model} 预先为这段文本计算（权重相同，已核对），服务器仍在加载模型时先显示；"
        "你的第一次修改将由模型本身运行。",
        "first_view_unused_machine": "这段文本的视图是预先为其他 CPU 内核（{saved}）计算的；本服务器使用 {here} 计算，"
        "末位数字可能不同，因此等待模型计算（服务器启动期间需要几秒）。",
        "first_view_unused_files": "这段文本的视图是由 {model} 的另一版文件预先计算的：本服务器改为等待模型计算"
        "（启动期间需要几秒）。",
        "sidebar_footer": "权重取自模型运行时自身的注意力计算；你的文本不会离开这台机器。",
        "loading_model": "正在加载 {model}…",
        "analysing": "正在运行模型…",
        "analysing_long": "正在对长文本运行模型（保留查询和键，显示时再计算各个头）…",
        "computing_statistics": "正在逐块计算每个头的统计量…",
        "pooling": "正在对整段文本计算这个头…",
        "long_note": "长文本（{tokens:,} 个词元）：本页一次显示一个头——整张图汇聚成最多 {bins} × {bins} 格（每格取其区块中"
        "最大的权重），下方是一个 {window} × {window} 的精确权重区块。词语视图、隐藏特殊词元和层 × 头网格只用于较短的文本；"
        "“注意力头”页面有每个头的统计量。",
        "long_block_title": "一个区块的精确权重",
        "long_not_continued": "模型只读取这段长提示，不再续写（生成会保留每一步的权重，这么长的文本承担不起）。",
        "long_first_row": "起始查询行",
        "long_first_key": "起始键",
        "long_block_figure": "第 {layer} 层 · 第 {head} 个头 · 行 {rows} × 键 {keys}（精确值）",
        "source_text": "文本",
        "source_placeholder": "输入一句话，例如 早上好！",
        "target_text": "目标（译文）",
        "target_placeholder": "要强制解码的译文，例如 Good morning!",
        "mode": "目标",
        "mode_generate": "由模型翻译",
        "mode_pair": "给定译文",
        "aggregation": "视图",
        "aggregation_alignment": "对齐头",
        "aggregation_head": "单个头",
        "aggregation_layer": "某一层所有头的平均",
        "aggregation_all": "所有层和头的平均",
        "aggregation_help": "对齐头：模型训练时用于对齐的头（配置项 alignment_heads）；没有时取倒数第二层的所有头。",
        "threshold": "显示的最弱连线",
        "threshold_help": "权重低于此值的连线不画出。",
        "words": "按词",
        "words_help": "开：子词合并为词；逐字读入的中文按 jieba 词典合并为词（总是由完整的词元组成）。关：每个词元一行一列。",
        "hide_special": "隐藏特殊词元",
        "hide_special_help": "隐藏 </s>、<pad>、[CLS] 等（其权重被去掉，不再重新分配）。",
        "export_help": "把此图下载为 {format}",
        "export_plotly_help": "把此图下载为 plotly 图形（{format}：图本身，而不是注意力数据）",
        "translate_title": "翻译与对齐",
        "translate_intro": "交叉注意力：写出每个目标词时，模型看向了源句的哪里？可以让模型自己翻译，也可以给出一对译文，看它如何对齐。",
        "translation_line": "**{text}** → **{translation}**",
        "no_cross": "{model} 没有交叉注意力（不是翻译模型）。请打开“自注意力”，或在侧边栏选择演示翻译模型。",
        "target_not_read": "{model} 不读取目标文本（它没有可强制解码的解码器）：你输入的目标文本没有被使用。要读取一对句子，"
        "请在侧边栏选择翻译模型。",
        "replay": "回放：已写出的目标词元",
        "replay_words": "回放：已写出的目标词",
        "replay_help": "拖动滑块，逐个目标词元回放翻译过程。",
        "step_focus": "第 {step} 个{unit}（共 {steps} 个）：**{token}** 看向了 {keys}。",
        "unit_word": "词",
        "unit_token": "词元",
        "weighted": "{token}（{weight}）",
        "self_title": "自注意力",
        "self_intro": "同一段文本中的词元如何互相关注：编码器读源句，解码器读已写出的译文。行是查询，列是被关注的键。",
        "stack": "部分",
        "stack_encoder": "编码器",
        "stack_decoder": "解码器",
        "stack_single": "这个{kind}模型的自注意力",
        "kind_encoder-decoder": "编码器-解码器",
        "model_kind_encoder": "仅编码器",
        "model_kind_decoder": "仅解码器",
        "decoder_text": "解码器输入：**{target}**",
        "causal_note": "灰色格子被遮蔽：解码器的词元只能看到自己和它之前的词元。",
        "prompt_only": "只看你的文本",
        "prompt_only_help": "只画你的文本的词元，不画模型在它之后续写的内容。模型是因果的，所以你的文本内部各词元之间的"
        "注意力两种情况下完全相同。",
        "continuation_line": "模型续写了你的文本：图中先画你的文本的 {prompt} 个词元，再画它写出的 {written} 个词元中的 "
        "{shown} 个（最后一个从未被读回）。打开“只看你的文本”即可单独查看你的文本。",
        "prompt_only_line": "图中只画你的文本（{prompt} 个词元），不含模型在其后写出的 {written} 个词元。模型是因果的，"
        "所以这些权重与单独读取你的文本时完全相同。",
        "grid_title": "所有层与头",
        "grid_intro": "每个小方块是一个头的注意力；行是层，列是头。",
        "explainer_title": "注意力如何工作",
        "explainer_intro": "写给所有人的讲解：注意力是什么，Q、K、V 如何变成权重，多头注意力如何分工。修改数字，看每一步如何变化。",
        "explainer_what": "1 · 注意力是什么",
        "explainer_what_text": "把“早上好！”翻译成“Good morning!”时，每个输出词看向某些输入词比看向其他词更多："
        "**Good** 看向“好”，**morning** 看向“早上”，**!** 看向“！”。它看向每个输入词的强弱，就是注意力权重：说明它看向"
        "哪里，还不说明它用到了什么（第 5 节说明两者的区别）。下图中权重越大，连线越深越粗。",
        "explainer_seed_alignment": "早上好！ → Good morning!（示意）",
        "explainer_qkv": "2 · Q、K、V 逐步计算",
        "explainer_qkv_text": "**Q**（查询）是我们要找的东西，**K**（键）说明每条知识是关于什么的，**V**（值）是知识本身。"
        "这里 Q 有 3 行，K 和 V 各有 4 行，每一行都是维度为 2 的向量。可以修改任何数字，页面链接会记住你的数字。",
        "explainer_reset": "恢复初始数字",
        "matrix_q_caption": "**Q** — 3 个查询",
        "matrix_k_caption": "**K** — 4 个键",
        "matrix_v_caption": "**V** — 4 个值",
        "step_scores_title": "第 {number} 步：相似度 Q·Kᵀ",
        "step_scores_text": "每个查询与每个键做内积：第 i 行第 j 列表示查询 i 与键 j 的匹配程度。",
        "step_scaled_title": "第 {number} 步：除以 √dₖ",
        "step_scaled_text": "除以向量维度的平方根，使分数不随维度变大，softmax 不会饱和。",
        "step_softmax_title": "第 {number} 步：逐行 softmax",
        "step_softmax_text": "softmax 把每一行变成一个概率分布：每个权重都在 0 到 1 之间，每行之和为 1（Σ 列）。这就是注意力权重。",
        "step_output_title": "第 {number} 步：输出 A·V",
        "step_output_text": "每一行输出是各行 V 的加权平均，权重就是该查询那一行的注意力。",
        "explainer_expectation": "所以注意力是一个数学期望：对每个查询，按 A 中它那一行给出的分布对 V 求平均。所有步骤一览：",
        "explainer_mixture": "4 · 四不像：加权混合",
        "explainer_mixture_text": "给四不像找妈妈：以四不像为查询，[鹿, 牛, 羊, 驴, 青蛙] 同时作为键和值，四不像看向"
        "它们的权重（softmax 之后）分别为 1/3、1/6、1/4、1/4 和 0，它的输出就是它们的值向量按这些比例的混合："
        "1/3·v(鹿) + 1/6·v(牛) + 1/4·v(羊) + 1/4·v(驴) + 0·v(青蛙)。**看见不等于用到**：权重说明查询看向哪里；每个键给了"
        "输出多少，还取决于它的值向量。这里鹿的值向量全为零，所以图中在每个键的权重旁边画出它的贡献（值置零，见第 5 节）："
        "鹿被看得最多，却完全没有被用到。",
        "explainer_multihead": "6 · 多头注意力：拆分、计算、合并",
        "explainer_multihead_text": "多头注意力把特征空间分成几个互不相交的子空间，在每个子空间内单独计算注意力，"
        "再把结果拼接起来。下面用 attnviz 自己的注意力层在所选设备上对随机输入运行一遍；表格逐步列出实现中的张量形状"
        "（b = 批大小，l = 长度，hdim = 隐藏维度）：",
        "mh_batch": "批大小 b",
        "mh_length": "长度 l",
        "mh_hidden": "隐藏维度 hdim",
        "mh_heads": "头数",
        "mh_running": "正在 {device} 上运行注意力层…",
        "mh_ran_on": "运行于 **{device}**；每个头处理 head_dim = {head_dim} 个特征。",
        "mh_step": "步骤",
        "mh_axes": "各维含义",
        "mh_shape": "形状",
        "mh_meaning": "说明",
        "mh_shape_x": "输入",
        "mh_shape_query": "multi_head_split 之后的 Q",
        "mh_shape_key": "multi_head_split 之后的 K",
        "mh_shape_value": "multi_head_split 之后的 V",
        "mh_shape_scores": "每个头的 Q·Kᵀ",
        "mh_shape_weights": "每个头的 softmax 权重",
        "mh_shape_context": "每个头的 权重·V",
        "mh_shape_merged": "multi_head_merge 之后",
        "mh_shape_output": "输出投影之后",
        "mh_grid_title": "{heads} 个头各自的权重（第 0 个样本）",
        "heads_title": "注意力头",
        "heads_intro": "用数字看每个头在做什么：按任意列排序，再在其他页面打开某个头。",
        "heads_map": "注意力",
        "statistic": "热力图中的统计量",
        "stat_help_entropy": "查询的注意力行的平均熵，单位为奈特。低：该头集中在少数词元上。高：注意力分散。",
        "stat_help_distance": "该头平均看向多远（以词元计）：按注意力加权的 |查询位置 − 键位置|（仅自注意力）。",
        "stat_help_sink": "平均停留在特殊词元或第一个词元上的注意力（注意力汇点，attention sink）。",
        "stat_help_previous_token": "一个词元关注其前一个词元的程度（仅自注意力）。",
        "stat_help_induction": "对重复出现的词元：它关注其先前副本之后那个词元的程度（“上次 A 之后是 B”），"
        "这是归纳头的标志。需要某个词元出现两次。",
        "stat_help_positional": "无论内容如何，该头固定关注某一距离（自身、前一个、前两个……）的程度："
        "最强偏移（最多往前 7 个）上的平均权重（仅自注意力）。",
        "stat_help_diagonal": "对角线上的注意力：词元自身，或交叉注意力中按比例对应的位置（单调对齐）。",
        "table_hint": "点击列标题排序；选中一行即选择该头。",
        "role": "角色",
        "role_help": "该头最高的角色得分所对应的角色（得分至少为 {threshold} 时）",
        "role_rule": "角色：取该头在前一词元、归纳、对角、位置和汇点得分中最高的一项，得分至少为 {threshold} 时才标出；"
        "低于此值则不标角色。",
        "role_previous_token": "前一词元",
        "role_induction": "归纳",
        "role_diagonal": "对角（看自己）",
        "role_positional": "位置",
        "role_sink": "汇点",
        "open_head_title": "打开一个头",
        "open_on_translate": "在“翻译与对齐”中打开第 {layer} 层第 {head} 头",
        "open_on_self_attention": "在“自注意力”中打开第 {layer} 层第 {head} 头",
        "warning_link": "链接中有些参数无法读取，已使用默认值：{names}。",
        "warning_link_cut": "这个链接只保存了{what}共 {whole} 个字符中的前 {kept} 个（更长的文本放不进链接）：本页只显示"
        "这一部分。粘贴完整文本即可看到全部。",
        "warning_link_cut_text": "原文",
        "warning_link_cut_target": "译文",
        "error_unexpected": "绘制页面这一部分时出错了。页面其余部分仍可使用；请换一个输入或模型，详情见服务器日志。",
        "error_ModelLoadError": "模型无法加载",
        "error_DeviceUnavailableError": "该设备不可用",
        "error_InputError": "此输入无法使用",
        "error_ResourceLimitError": "超出限制",
        "error_AttnvizError": "操作未成功",
    },
}
