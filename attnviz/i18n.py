"""Every string the app shows, in English and 中文.

`t(key, lang, **values)` looks a key up in `STRINGS[lang]` and formats it; keys the figures own (kind_*, stat_*,
layer, head, …) come from `attnviz.figures.LABELS`, so a word is translated in one place. Both languages must have
the same keys with the same {placeholders}; tests/test_app_i18n.py checks it.
"""

from __future__ import annotations

from attnviz.errors import AttnvizError, DeviceUnavailableError, InputError, ModelLoadError, ResourceLimitError

LANGUAGES = {"en": "English", "zh": "中文"}

STRINGS: dict[str, dict[str, str]] = {
    "en": {
        # Navigation and sidebar
        "page_translate": "Translate & align",
        "page_self": "Self-attention",
        "page_explainer": "How attention works",
        "page_heads": "Heads",
        "language": "Language · 语言",
        "model": "Model",
        "model_demo-zh-en": "Demo translator 中文 → English",
        "model_demo-en-zh": "Demo translator English → 中文",
        "model_minilm": "all-MiniLM-L6-v2 (English encoder)",
        "model_custom": "Other: Hugging Face id or local folder…",
        "model_custom_input": "Hugging Face id or local folder",
        "model_custom_hint": "e.g. Helsinki-NLP/opus-mt-zh-en or /models/my-model",
        "device": "Device",
        "device_auto": "auto (NPU → CUDA → CPU)",
        "device_npu": "npu (Ascend)",
        "device_cuda": "cuda (NVIDIA GPU)",
        "device_cpu": "cpu",
        "device_help": "Where the model runs. auto picks the first available of NPU, CUDA, MPS and CPU.",
        "device_report": "Device: {chosen}",
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
        "alignment_view": "alignment heads",
        "pairs_mean": "mean of {pairs}",
        "pair": "L{layer}·H{head}",
        "pair_layer": "L{layer} (all heads)",
        "threshold": "Weakest link shown",
        "threshold_help": "Links with a weight below this are not drawn.",
        "words": "Words",
        "words_help": "On: subword pieces are merged into words. Off: one row and column per token.",
        "hide_special": "Hide special tokens",
        "hide_special_help": "Hide </s>, <pad>, [CLS] and the like (their weight is left out, not redistributed).",
        "export_help": "Download this figure as {format}",
        # Translate & align
        "translate_title": "Translate & align",
        "translate_intro": "Cross-attention: while writing each target word, where in the source did the model look? "
        "Let the model translate, or give a translation pair and see how it aligns.",
        "translation_line": "**{text}** → **{translation}**",
        "no_cross": "{model} has no cross-attention (it is not a translation model). Open Self-attention, or choose "
        "a demo translator in the sidebar.",
        "replay": "Replay: target tokens written so far",
        "replay_help": "Drag to replay the translation one target token at a time.",
        "step_focus": "Step {step} of {steps}: **{token}** looked at {keys}.",
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
        "decoder_text": "Decoder input: **{target}**",
        "causal_note": "Grey cells are masked: a decoder token can only look at itself and the tokens before it.",
        "grid_title": "Every layer and head",
        "grid_intro": "Each small square is one head's attention; rows are layers, columns heads.",
        # How attention works
        "explainer_title": "How attention works",
        "explainer_intro": "A walk-through for everyone: what attention is, how Q, K and V turn into weights, and "
        "how multi-head attention splits the work. Edit the numbers and watch every step change.",
        "explainer_what": "1 · What attention is",
        "explainer_what_text": "Translating 早上好！ into Good Morning！, each output word depends on some input words "
        "more than on others: **Good** on 好, **Morning** on 早上, **！** on ！. That strength of connection is "
        "attention. The lines below are darker and thicker where it is stronger.",
        "explainer_seed_alignment": "早上好！ → Good Morning！ (illustration)",
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
        "explainer_mixture": "3 · 四不像: a weighted mixture",
        "explainer_mixture_text": "Looking for the mother of the 四不像 (Père David's deer): with 四不像 as the query "
        "and [鹿, 牛, 羊, 驴, 青蛙] as keys and values, the similarities are 1/3, 1/6, 1/4, 1/4 and 0, so the "
        "answer is 1/3·鹿 + 1/6·牛 + 1/4·羊 + 1/4·驴 + 0·青蛙.",
        "explainer_multihead": "4 · Multi-head attention: split, attend, merge",
        "explainer_multihead_text": "Multi-head attention splits the features into independent subspaces, computes "
        "attention in each one separately, and concatenates the results. Below, attnviz's own attention layer runs "
        "this on random input on the selected device, with the shapes of the seed's pseudo-code:",
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
        "stat_help_entropy": "Low: the head focuses on few tokens. High: it spreads its attention.",
        "stat_help_distance": "How far, in tokens, a head looks on average.",
        "stat_help_sink": "Attention parked on special tokens or the first token.",
        "stat_help_previous_token": "How much a token attends to the one just before it.",
        "stat_help_diagonal": "Attention on the diagonal: the token itself, or the proportional position in "
        "cross-attention (a monotone alignment).",
        "table_hint": "Click a column header to sort; select a row to choose that head.",
        "open_head_title": "Open a head",
        "open_on_translate": "Open layer {layer}, head {head} on Translate & align",
        "open_on_self": "Open layer {layer}, head {head} on Self-attention",
        # Messages
        "warning_link": "Some link parameters could not be read and were left at their defaults: {names}.",
        "error_unexpected": "Something went wrong while drawing this part of the page. The rest still works; try "
        "another input or model, and see the server log for details.",
        "error_custom_models_off": "This app only offers the models listed in the sidebar; {model!r} is not one "
        "of them.",
        "error_ModelLoadError": "The model could not be loaded",
        "error_DeviceUnavailableError": "That device is not available",
        "error_InputError": "This input cannot be used",
        "error_ResourceLimitError": "This is over a limit",
        "error_AttnvizError": "This did not work",
    },
    "zh": {
        "page_translate": "翻译与对齐",
        "page_self": "自注意力",
        "page_explainer": "注意力如何工作",
        "page_heads": "注意力头",
        "language": "Language · 语言",
        "model": "模型",
        "model_demo-zh-en": "演示翻译模型 中文 → English",
        "model_demo-en-zh": "演示翻译模型 English → 中文",
        "model_minilm": "all-MiniLM-L6-v2（英文编码器）",
        "model_custom": "其他：Hugging Face 模型名或本地文件夹…",
        "model_custom_input": "Hugging Face 模型名或本地文件夹",
        "model_custom_hint": "例如 Helsinki-NLP/opus-mt-zh-en 或 /models/my-model",
        "device": "设备",
        "device_auto": "自动（NPU → CUDA → CPU）",
        "device_npu": "npu（昇腾）",
        "device_cuda": "cuda（NVIDIA GPU）",
        "device_cpu": "cpu",
        "device_help": "模型在哪里运行。自动：依次选用第一个可用的 NPU、CUDA、MPS、CPU。",
        "device_report": "设备：{chosen}",
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
        "alignment_view": "对齐头",
        "pairs_mean": "{pairs} 的平均",
        "pair": "第{layer}层·第{head}头",
        "pair_layer": "第{layer}层全部头",
        "threshold": "显示的最弱连线",
        "threshold_help": "权重低于此值的连线不画出。",
        "words": "按词",
        "words_help": "开：子词合并为词。关：每个词元一行一列。",
        "hide_special": "隐藏特殊词元",
        "hide_special_help": "隐藏 </s>、<pad>、[CLS] 等（其权重被去掉，不再重新分配）。",
        "export_help": "把此图下载为 {format}",
        "translate_title": "翻译与对齐",
        "translate_intro": "交叉注意力：写出每个目标词时，模型看向了源句的哪里？可以让模型自己翻译，也可以给出一对译文，看它如何对齐。",
        "translation_line": "**{text}** → **{translation}**",
        "no_cross": "{model} 没有交叉注意力（不是翻译模型）。请打开“自注意力”，或在侧边栏选择演示翻译模型。",
        "replay": "回放：已写出的目标词元",
        "replay_help": "拖动滑块，逐个目标词元回放翻译过程。",
        "step_focus": "第 {step} 步（共 {steps} 步）：**{token}** 看向了 {keys}。",
        "weighted": "{token}（{weight}）",
        "self_title": "自注意力",
        "self_intro": "同一段文本中的词元如何互相关注：编码器读源句，解码器读已写出的译文。行是查询，列是被关注的键。",
        "stack": "部分",
        "stack_encoder": "编码器",
        "stack_decoder": "解码器",
        "stack_single": "这个{kind}模型的自注意力",
        "kind_encoder-decoder": "编码器-解码器",
        "decoder_text": "解码器输入：**{target}**",
        "causal_note": "灰色格子被遮蔽：解码器的词元只能看到自己和它之前的词元。",
        "grid_title": "所有层与头",
        "grid_intro": "每个小方块是一个头的注意力；行是层，列是头。",
        "explainer_title": "注意力如何工作",
        "explainer_intro": "写给所有人的讲解：注意力是什么，Q、K、V 如何变成权重，多头注意力如何分工。修改数字，看每一步如何变化。",
        "explainer_what": "1 · 注意力是什么",
        "explainer_what_text": "把“早上好！”翻译成“Good Morning！”时，每个输出词与某些输入词的关联更强："
        "**Good** 与“好”，**Morning** 与“早上”，**！** 与“！”。这种关联的强弱就是注意力。下图中关联越强，连线越深越粗。",
        "explainer_seed_alignment": "早上好！ → Good Morning！（示意）",
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
        "explainer_mixture": "3 · 四不像：加权混合",
        "explainer_mixture_text": "给四不像找妈妈：以四不像为查询，[鹿, 牛, 羊, 驴, 青蛙] 同时作为键和值，"
        "相似度分别为 1/3、1/6、1/4、1/4 和 0，于是结果是 1/3·鹿 + 1/6·牛 + 1/4·羊 + 1/4·驴 + 0·青蛙。",
        "explainer_multihead": "4 · 多头注意力：拆分、计算、合并",
        "explainer_multihead_text": "多头注意力把特征空间分成几个互不相交的子空间，在每个子空间内单独计算注意力，"
        "再把结果拼接起来。下面用 attnviz 自己的注意力层在所选设备上对随机输入运行一遍，形状与原文伪代码一致：",
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
        "stat_help_entropy": "低：该头集中在少数词元上。高：注意力分散。",
        "stat_help_distance": "该头平均看向多远（以词元计）。",
        "stat_help_sink": "停留在特殊词元或第一个词元上的注意力。",
        "stat_help_previous_token": "一个词元关注其前一个词元的程度。",
        "stat_help_diagonal": "对角线上的注意力：词元自身，或交叉注意力中按比例对应的位置（单调对齐）。",
        "table_hint": "点击列标题排序；选中一行即选择该头。",
        "open_head_title": "打开一个头",
        "open_on_translate": "在“翻译与对齐”中打开第 {layer} 层第 {head} 头",
        "open_on_self": "在“自注意力”中打开第 {layer} 层第 {head} 头",
        "warning_link": "链接中有些参数无法读取，已使用默认值：{names}。",
        "error_unexpected": "绘制页面这一部分时出错了。页面其余部分仍可使用；请换一个输入或模型，详情见服务器日志。",
        "error_custom_models_off": "此应用只提供侧边栏中列出的模型；{model!r} 不在其中。",
        "error_ModelLoadError": "模型无法加载",
        "error_DeviceUnavailableError": "该设备不可用",
        "error_InputError": "此输入无法使用",
        "error_ResourceLimitError": "超出限制",
        "error_AttnvizError": "操作未成功",
    },
}

_ERROR_CLASSES = (ModelLoadError, DeviceUnavailableError, InputError, ResourceLimitError, AttnvizError)


def _figure_labels(lang: str) -> dict[str, str]:
    from attnviz.figures import LABELS  # the figures' own words (kind_*, stat_*, layer, head …)

    return LABELS.get(lang, {})


def has(key: str, lang: str = "en") -> bool:
    return key in STRINGS.get(lang, {}) or key in _figure_labels(lang)


def t(key: str, lang: str = "en", **values) -> str:
    """The string `key` in `lang` ("en" or "zh"), formatted with `values`; an unknown language reads English.

    A missing key shows as the key itself rather than failing the page (the i18n test keeps that from happening).
    """
    lang = lang if lang in STRINGS else "en"
    template = STRINGS[lang].get(key)
    if template is None:
        template = _figure_labels(lang).get(key, key)
    return template.format(**values) if values else template


def error_sentence(error: AttnvizError, lang: str = "en") -> str:
    """What the page says for an error: a short heading in the page's language, then the library's own sentence."""
    kind = next(cls for cls in _ERROR_CLASSES if isinstance(error, cls)).__name__
    detail = str(error).strip()
    heading = t(f"error_{kind}", lang)
    return f"**{heading}.** {detail}" if lang == "en" else f"**{heading}。** {detail}"
