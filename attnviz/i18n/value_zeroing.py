"""Words of the measures of what the model uses, beside where it looks: value zeroing (Mohebbi et al., 2023) and
gradient × input saliency — their names, what they show, and why a model cannot have one."""

STRINGS = {
    "en": {
        "measure_name.value_zeroing": "Value zeroing",
        "measure_name.saliency": "Saliency (gradient × input)",
        "error.block_shared_layers": "{measure} needs each attention layer to run once per pass, but {model} runs the "
        "same layer several times (layers that share weights, as in ALBERT). Choose attention weights or value norms "
        "for this model.",
        "error.block_not_found": "{measure} cannot find the layer around {layer} in {model}: attnviz knows the layer "
        "stacks of BERT-like, GPT-2, Llama/Qwen, BART, Marian and T5 models. Choose attention weights or value norms "
        "for this model.",
        "error.saliency_no_output": "Saliency explains a token the model writes, and {model} is an encoder only: it "
        "writes none. Choose a translator or a decoder, or another measure (value zeroing, attention weights).",
        "error.saliency_needs_target": "Saliency explains a target token, and {model} is a translator: give the "
        "target (the translation) whose tokens it should explain.",
        "error.saliency_not_differentiable": "Saliency needs gradients, and {model}'s input embeddings gave none "
        "(its weights may be quantized or frozen in a way that stops them). Choose value zeroing or attention "
        "weights for this model.",
        "error.saliency_shape": "Saliency scores for {part} have shape {shape}; they must be {expected} (one row per "
        "explained token, one column per input token).",
        "error.saliency_not_a_file": "{path} is not an attnviz saliency file; write it with `contributions --method "
        "saliency`.",
        "value_zeroing_help": "Value zeroing (Mohebbi et al., 2023) asks what each token really takes from the others: "
        "for every key token j it sets j's value vector to zero in one layer — where the heads look stays the same — "
        "computes the layer again, and measures how far each token's output moved (1 − cosine). Each row is then "
        "scaled to sum to 1. A key with a high attention weight but a small value changes little here.",
        "saliency_help": "Saliency (gradient × input) asks which input tokens the chosen output token depends on: "
        "the gradient of its log-probability with respect to each input token's embedding, times that embedding, "
        "measured as a length (L2). For a translator, the source and the target written so far; for a decoder, the "
        "text up to that position. An encoder-only model writes no token, so it has no saliency here.",
    },
    "zh": {
        "measure_name.value_zeroing": "值置零",
        "measure_name.saliency": "显著性（梯度 × 输入）",
        "error.block_shared_layers": "{measure}要求每个注意力层在一次前向传播中只运行一次，而 {model} 会把同一层运行多次"
        "（共享权重的层，如 ALBERT）。请为这个模型选择注意力权重或值向量范数。",
        "error.block_not_found": "{measure}在 {model} 中找不到 {layer} 所在的层：attnviz 认识 BERT 类、GPT-2、"
        "Llama/Qwen、BART、Marian 和 T5 模型的层结构。请为这个模型选择注意力权重或值向量范数。",
        "error.saliency_no_output": "显著性解释的是模型写出的词元，而 {model} 只有编码器，不写出任何词元。请选择翻译模型"
        "或解码器，或换一种度量（值置零、注意力权重）。",
        "error.saliency_needs_target": "显著性解释的是目标词元，而 {model} 是翻译模型：请给出要解释其词元的目标（译文）。",
        "error.saliency_not_differentiable": "显著性需要梯度，而 {model} 的输入嵌入没有给出梯度（它的权重可能经过量化或"
        "以阻断梯度的方式冻结）。请为这个模型选择值置零或注意力权重。",
        "error.saliency_shape": "{part} 的显著性分数形状是 {shape}；应为 {expected}（每个被解释的词元一行，每个输入词元一列）。",
        "error.saliency_not_a_file": "{path} 不是 attnviz 的显著性文件；请用 `contributions --method saliency` 写出。",
        "value_zeroing_help": "值置零（Mohebbi 等，2023）衡量每个词元真正从其他词元那里拿到了多少：对每个键词元 j，"
        "在某一层把 j 的值向量设为零——各个头看向哪里不变——重新计算这一层，再看每个词元的输出移动了多远"
        "（1 − 余弦相似度），最后把每一行缩放到和为 1。注意力权重很高、但值向量很小的键，在这里几乎不起作用。",
        "saliency_help": "显著性（梯度 × 输入）衡量所选的输出词元依赖哪些输入词元：它的对数概率对每个输入词元嵌入的梯度，"
        "乘以该嵌入，再取长度（L2 范数）。翻译模型看源文和已写出的目标；解码器看到该位置为止的文本。"
        "只有编码器的模型不写出词元，因此这里没有显著性。",
    },
}
