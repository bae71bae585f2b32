"""Words of head effects on the pages and in their figure (attnviz.figures.effects, the "Does it matter?" grid and
Find a head by effect): what removing a head did to the model's output, in English and 中文."""

STRINGS: dict[str, dict[str, str]] = {
    "en": {
        # attnviz.figures.effects
        "effects_figure_log_prob": "Change in log-probability of the target when each head is removed",
        "effects_figure_cosine": "1 − cos of the pooled output when each head is removed",
        "effects_axis_log_prob": "Δ log p",
        "effects_axis_cosine": "1 − cos",
        "error.effects_figure_shape": "Head effects are drawn from a (layers, heads) array of numbers; this one has "
        "shape {shape}.",
        "error.effects_figure_metric": "Unknown head-effect metric {metric!r}; use {metrics}.",
        # the "Does it matter?" section (Heads, Self-attention)
        "effects_title": "Does it matter?",
        "effects_intro": "A weight says where a head looks, not whether the model uses what it finds there. Here "
        "each head is removed in turn (its output set to zero before the layer's output projection, nothing else "
        "changed) and the model runs again: each number is exactly what that changed, not an estimate.",
        "effects_button": "Remove each head and measure",
        "effects_button_help": "Runs the model once more per batch of heads; the result is kept for this input.",
        "effects_hide": "Hide the head effects",
        "effects_computing": "Removing each head in turn and running the model again…",
        "effects_meaning_log_prob": "Each cell: how much the log-probability of the target **{target}** (summed "
        "over its {count} tokens) changes when that head alone is removed. Below 0 (red): the head helped the model "
        "say it; above 0 (blue): the model says it more readily without the head; near 0: removing the head changes "
        "nothing here. Exact: the model was run with the head's output zeroed.",
        "effects_meaning_cosine": "Each cell: 1 − the cosine similarity between the model's last hidden state "
        "(averaged over the text's tokens) with that head removed and without it. 0: removing the head changes "
        "nothing; the larger, the more the output turns. Exact: the model was run with the head's output zeroed. "
        "An encoder writes no target, so there is no probability to measure.",
        "effects_written": "The target is the one the model wrote.",
        "effects_agreement": "The fast estimate (attribution patching: one backward pass instead of one run per "
        "head) ranks these heads with Spearman ρ = {rho} against the exact effects ({verdict}).",
        "effects_agree": "it agrees",
        "effects_agree_partly": "it agrees only partly",
        "effects_disagree": "it does not agree: trust the exact grid",
        "effects_agreement_none": "The fast estimate's rank agreement is undefined here: the exact or estimated "
        "effects are all the same.",
        "effects_stack_missing": "These head effects have no {kind} heads.",
        # Find a head by effect (Self-attention, Translate & align)
        "effects_find_title": "Find a head by its effect",
        "effects_find_intro": "Which heads make the model write one target token, and does removing them change it? "
        "Pick a target token: the heads of this map are ranked by the exact change in its log-probability when "
        "each is removed, most negative first (the heads the token needs most).",
        "effects_find_token": "Target token",
        "effects_find_words": "In word view a word's effect is the change in the whole word's log-probability: the "
        "sum of its pieces'.",
        "effects_find_needs": "Ranking heads by effect removes each head in turn and runs the model again.",
        "effects_find_encoder": "{model} is an encoder: it writes no target token, so there is no token "
        "probability to rank heads by. The “Does it matter?” grid above measures each head's effect on its output.",
        "effects_find_open": "L{layer}·H{head}: {effect}",
        "effects_find_open_help": "Open layer {layer}, head {head}: removing it changes log p({token}) by {effect}",
        "effects_find_said": "Removing the top head, layer {layer} head {head}, changes the log-probability of "
        "**{token}** by **{effect}**: its probability is multiplied by {factor}.",
        "effects_find_column": "Δ log p({token})",
        "effects_find_column_help": "The exact change in the token's log-probability when the head is removed.",
        "effects_find_ranking": "Every head, ranked by effect ({count})",
    },
    "zh": {
        "effects_figure_log_prob": "去掉每个头时目标的对数概率的变化",
        "effects_figure_cosine": "去掉每个头时池化输出的 1 − cos",
        "effects_axis_log_prob": "Δ 对数概率",
        "effects_axis_cosine": "1 − 余弦",
        "error.effects_figure_shape": "头效应图需要一个 (层, 头) 的数值数组；这个数组的形状是 {shape}。",
        "error.effects_figure_metric": "未知的头效应度量 {metric!r}；请使用 {metrics}。",
        "effects_title": "它真的起作用吗？",
        "effects_intro": "注意力权重只说明一个头看向哪里，并不说明模型是否用到了它看到的内容。这里依次去掉每个头"
        "（在该层的输出投影之前把它的输出置零，其余不变）并重新运行模型：每个数都是由此产生的精确变化，而不是估计。",
        "effects_button": "去掉每个头并测量",
        "effects_button_help": "每批头再运行一次模型；结果会为这个输入保留。",
        "effects_hide": "隐藏头效应",
        "effects_computing": "正在依次去掉每个头并重新运行模型…",
        "effects_meaning_log_prob": "每个格子：只去掉这个头时，目标 **{target}** 的对数概率（对它的 {count} 个词元求和）"
        "变化了多少。小于 0（红色）：这个头帮助模型说出它；大于 0（蓝色）：没有这个头模型反而更容易说出它；接近 0："
        "去掉这个头在这里没有影响。精确值：模型在该头输出置零的情况下实际运行得到。",
        "effects_meaning_cosine": "每个格子：去掉这个头与不去掉时，模型最后一层隐藏状态（对文本的词元取平均）的"
        " 1 − 余弦相似度。0：去掉这个头没有影响；越大，输出的方向变化越大。精确值：模型在该头输出置零的情况下实际"
        "运行得到。编码器不写出目标，因此没有可度量的概率。",
        "effects_written": "目标是模型自己写出的译文。",
        "effects_agreement": "快速估计（归因修补：一次反向传播，而不是每个头运行一次）对这些头的排序与精确效应的"
        " Spearman ρ = {rho}（{verdict}）。",
        "effects_agree": "一致",
        "effects_agree_partly": "只部分一致",
        "effects_disagree": "不一致：请以精确网格为准",
        "effects_agreement_none": "这里无法计算快速估计的排序一致性：精确效应或估计值全都相同。",
        "effects_stack_missing": "这些头效应中没有 {kind} 的头。",
        "effects_find_title": "按效应查找头",
        "effects_find_intro": "哪些头让模型写出某个目标词元？去掉它们，这个词元会改变吗？选择一个目标词元：本图的"
        "各个头按去掉后该词元对数概率的精确变化排序，最负的在前（该词元最依赖的头）。",
        "effects_find_token": "目标词元",
        "effects_find_words": "词视图下，一个词的效应是整个词的对数概率的变化：即其各个子词的变化之和。",
        "effects_find_needs": "按效应排序会依次去掉每个头并重新运行模型。",
        "effects_find_encoder": "{model} 是编码器：它不写出目标词元，因此没有可用来给头排序的词元概率。"
        "上面的“它真的起作用吗？”网格度量了每个头对输出的影响。",
        "effects_find_open": "第{layer}层·第{head}头：{effect}",
        "effects_find_open_help": "打开第 {layer} 层第 {head} 头：去掉它使 log p({token}) 变化 {effect}",
        "effects_find_said": "去掉排在最前的头（第 {layer} 层第 {head} 头）使 **{token}** 的对数概率变化 **{effect}**："
        "它的概率乘以 {factor}。",
        "effects_find_column": "{token} 的 Δ 对数概率",
        "effects_find_column_help": "去掉这个头时该词元对数概率的精确变化。",
        "effects_find_ranking": "按效应排序的全部头（{count}）",
    },
}
