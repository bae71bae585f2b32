"""Words of gradient × input saliency on the pages and in its figure (`attnviz.figures.saliency`): the Measure
choice's name, the bar figure's title, legend and axis, and what the page says of it."""

STRINGS = {
    "en": {
        "measure_choice.saliency": "saliency (gradient × input)",
        "saliency_title": "Saliency: which input tokens one output token depends on",
        "saliency_intro": "Saliency is about one output token, not a layer's map: the figures above still show the "
        "attention weights. For the output token chosen here, each bar is ‖∂ log p(token) / ∂e_j ⊙ e_j‖₂, the "
        "gradient of its log-probability with respect to input token j's embedding times that embedding, measured as "
        "a length (gradient × input, L2 per token).",
        "saliency_token": "Output token explained",
        "saliency_token_option": "{row}: {token}",
        "saliency_long": "Saliency is not computed for a text this long: it runs the model forward and backward once "
        "per eight output tokens.",
        "saliency_computing": "Computing saliency (the model runs forward and backward)…",
        "saliency_figure_title": "Saliency of “{token}” (output token {row}) · gradient × input, L2 per token",
        "saliency_figure_title_words": "Saliency of “{token}” (output token {row}) · gradient × input, L2 per word "
        "(over its pieces together)",
        "saliency_figure_source": "source",
        "saliency_figure_text": "text",
        "saliency_figure_prefix": "target written so far",
        "saliency_figure_axis": "saliency ‖∂ log p / ∂e ⊙ e‖₂",
        "error.saliency_figure_shape": "Saliency scores of shape {shape} cannot be drawn for {tokens} input tokens: "
        "give one score per token.",
    },
    "zh": {
        "measure_choice.saliency": "显著性（梯度 × 输入）",
        "saliency_title": "显著性：一个输出词元依赖哪些输入词元",
        "saliency_intro": "显著性针对的是一个输出词元，而不是某一层的图：上面的图仍然显示注意力权重。对这里所选的输出词元，"
        "每根柱子是 ‖∂ log p(词元) / ∂e_j ⊙ e_j‖₂：它的对数概率对输入词元 j 的嵌入的梯度，乘以该嵌入，再取长度"
        "（梯度 × 输入，每个词元取 L2 范数）。",
        "saliency_token": "要解释的输出词元",
        "saliency_token_option": "{row}：{token}",
        "saliency_long": "文本这么长时不计算显著性：每八个输出词元就要让模型前向和反向各运行一次。",
        "saliency_computing": "正在计算显著性（模型前向和反向各运行一次）……",
        "saliency_figure_title": "“{token}”（输出词元 {row}）的显著性 · 梯度 × 输入，每个词元取 L2 范数",
        "saliency_figure_title_words": "“{token}”（输出词元 {row}）的显著性 · 梯度 × 输入，每个词取 L2 范数"
        "（把它的各个子词合在一起）",
        "saliency_figure_source": "源文",
        "saliency_figure_text": "文本",
        "saliency_figure_prefix": "已写出的目标",
        "saliency_figure_axis": "显著性 ‖∂ log p / ∂e ⊙ e‖₂",
        "error.saliency_figure_shape": "形状为 {shape} 的显著性分数无法画成 {tokens} 个输入词元的图：每个词元需要一个分数。",
    },
}
