"""Words of the Measure choice (`attnviz.measures.names`): each measure's name, the figure words that say a figure
draws contributions rather than attention weights, the agreement line (`attnviz.view.agreement`) and their errors."""

STRINGS = {
    "en": {
        "measure": "Measure",
        "measure_choice.weights": "attention weights",
        "measure_choice.value-norm": "weighted by value norm",
        "measure_choice.alti": "ALTI contributions",
        "measure_choice.alti-rollout": "ALTI rollout",
        "measure_choice.value-zeroing": "value zeroing",
        "measure_help": "Weights say where a head looks; the other measures say what a layer uses. ALTI (Ferrando et "
        "al., 2022) splits each token's output of an attention block into one part per input token and measures how "
        "much each part makes up; ALTI rollout follows that back to the input tokens; value zeroing (Mohebbi et al., "
        "2023) removes one token's value vector and measures how far each output moves. These measures have one map "
        "per layer, not one per head: their rows sum to 1. Saliency (gradient × input) is about one output token: "
        "the maps stay the weights, and bars under them show which input tokens that token depends on.",
        "measure_figure.alti": "ALTI contributions",
        "measure_figure.alti-rollout": "ALTI rollout",
        "measure_figure.value-zeroing": "value zeroing",
        "measure_layer_rollout": "layers up to {layer}",
        "measure_colorbar": "contribution<br>({rows})",
        "rows_sum_one": "rows sum to 1",
        "rows_sum_less": "rows sum to less than 1",
        "measure_grid_cell": "layer {layer}",
        "measure_shares_title": "Where each target token comes from (ALTI+): source and target prefix",
        "measure_shares_source": "source",
        "measure_shares_target": "target prefix",
        "measure_shares_axis": "share of the prediction",
        "measure_computing": "Computing the measure (it runs the model once more)…",
        "looking_title": "5 · Looking is not using",
        "looking_text": "A weight says where a query *looks*, not what it *uses*. In the 四不像 mixture above, "
        "{animal}, the key with the highest weight ({weight}), has a value vector of zeros. The output is Σ αⱼ vⱼ; now "
        "remove each key's value in turn and see how far the output turns (value zeroing: 1 − cosine, shares summing "
        "to 1). {animal} gets {contribution}: removing it changes nothing, although the query looked at it most. "
        "Real models do this too: a head can put most of its weight on a token whose value is tiny. The Measure "
        "choice on Self-attention and Translate & align shows what each layer of a real model uses.",
        "looking_key": "key",
        "looking_weight": "weight α",
        "looking_value_norm": "‖v‖",
        "looking_contribution": "contribution (value zeroing)",
        "looking_sentence_title": "Looking is not using, on your sentence",
        "looking_sentence": "In this head, **{token}** looks most at **{looked}** (weight {weight}), and removing "
        "**{used}**'s value vector turns the head's output most (contribution {contribution}, value zeroing within "
        "this head: 1 − cosine, shares summing to 1).",
        "looking_sentence_differs": "The key it looks at most is not the key it uses most.",
        "looking_sentence_same": "Here the key it looks at most is also the one it uses most.",
        "error.measure_shares_shape": "Shares of shape {shape} and {other} cannot be drawn for {targets} target tokens: "
        "give one source and one target-prefix share per token.",
        "agreement_agree": "Here, attention weights and {measure} agree: ρ = {rho}",
        "agreement_disagree": "Here, attention weights and {measure} disagree: ρ = {rho}",
        "agreement_agree_mean": "Here, attention weights and the measures below agree: mean ρ = {rho}",
        "agreement_disagree_mean": "Here, attention weights and the measures below disagree: mean ρ = {rho}",
        "agreement_detail": "Spearman rank correlation of the weights (mean of layer {layer}'s heads) with {pairs}, "
        "over the {cells} cells of the rows shown; “agree” from ρ ≥ {threshold}.",
        "agreement_pair": "{measure} {rho}",
        "agreement_too_few": "Too few cells shown to compare the measures' ranks.",
        "error.measure_unknown": "Unknown measure “{measure}”; choose one of: {measures}.",
        "error.measure_mismatch": "The options ask for {asked}, but this result holds {held}: compute {asked} first "
        "(`attnviz.measuring.measured`), or choose {held}.",
        "error.measure_no_alignment_heads": "{measure} has one map per layer, not heads: there are no alignment heads "
        "to show. Choose a layer.",
        "error.measure_no_rollout": "{measure} is not attention weights, so attention rollout does not apply to it; "
        "choose “ALTI rollout” to follow contributions back to the input tokens.",
    },
    "zh": {
        "measure": "度量",
        "measure_choice.weights": "注意力权重",
        "measure_choice.value-norm": "按值向量范数加权",
        "measure_choice.alti": "ALTI 贡献",
        "measure_choice.alti-rollout": "ALTI 展开",
        "measure_choice.value-zeroing": "值置零",
        "measure_help": "权重说明一个头看向哪里；其他度量说明一层真正用了什么。ALTI（Ferrando 等，2022）把注意力块对每个"
        "词元的输出拆成每个输入词元各一份，并衡量每一份占多少；ALTI 展开把它一路追溯到输入词元；值置零（Mohebbi 等，"
        "2023）去掉一个词元的值向量，看每个输出移动了多远。这些度量每层只有一张图，而不是每个头一张：每行之和为 1。"
        "显著性（梯度 × 输入）针对一个输出词元：图仍显示权重，其下的柱状图显示该词元依赖哪些输入词元。",
        "measure_figure.alti": "ALTI 贡献",
        "measure_figure.alti-rollout": "ALTI 展开",
        "measure_figure.value-zeroing": "值置零",
        "measure_layer_rollout": "直到第 {layer} 层",
        "measure_colorbar": "贡献<br>（{rows}）",
        "rows_sum_one": "每行之和为 1",
        "rows_sum_less": "各行之和小于 1",
        "measure_grid_cell": "第 {layer} 层",
        "measure_shares_title": "每个目标词元来自哪里（ALTI+）：源文与已写出的目标前缀",
        "measure_shares_source": "源文",
        "measure_shares_target": "目标前缀",
        "measure_shares_axis": "在预测中的占比",
        "measure_computing": "正在计算度量（需要再运行一次模型）……",
        "looking_title": "5 · 看见不等于用到",
        "looking_text": "权重说明一个查询*看向*哪里，而不是它*用到*了什么。在上面的四不像混合中，权重最高的键"
        "{animal}（权重 {weight}）的值向量全为零。输出是 Σ αⱼ vⱼ；现在依次去掉每个键的值，看输出转了多少"
        "（值置零：1 − 余弦，占比之和为 1）。{animal} 得到 {contribution}：去掉它什么都不变，尽管查询最看重它。"
        "真实模型也会这样：一个头可能把大部分权重放在值向量很小的词元上。自注意力和翻译与对齐页面上的“度量”选项"
        "显示真实模型每一层用到了什么。",
        "looking_key": "键",
        "looking_weight": "权重 α",
        "looking_value_norm": "值向量长度 ‖v‖",
        "looking_contribution": "贡献（值置零）",
        "looking_sentence_title": "在你的句子上：看见不等于用到",
        "looking_sentence": "在这个头里，**{token}** 最看重 **{looked}**（权重 {weight}），而去掉 **{used}** 的值向量"
        "会让这个头的输出转得最多（贡献 {contribution}；在这个头内做值置零：1 − 余弦，占比之和为 1）。",
        "looking_sentence_differs": "它看得最多的键，并不是它用得最多的键。",
        "looking_sentence_same": "这里它看得最多的键，也正是它用得最多的键。",
        "error.measure_shares_shape": "形状为 {shape} 和 {other} 的占比无法画成 {targets} 个目标词元的图：每个词元"
        "需要一个源文占比和一个目标前缀占比。",
        "agreement_agree": "在这里，注意力权重与{measure}一致：ρ = {rho}",
        "agreement_disagree": "在这里，注意力权重与{measure}不一致：ρ = {rho}",
        "agreement_agree_mean": "在这里，注意力权重与下列度量一致：平均 ρ = {rho}",
        "agreement_disagree_mean": "在这里，注意力权重与下列度量不一致：平均 ρ = {rho}",
        "agreement_detail": "权重（第 {layer} 层各头的平均）与 {pairs} 的斯皮尔曼秩相关，基于所显示各行的 {cells} 个格子；"
        "ρ ≥ {threshold} 时称为“一致”。",
        "agreement_pair": "{measure}：{rho}",
        "agreement_too_few": "显示的格子太少，无法比较各度量的排序。",
        "error.measure_unknown": "未知的度量“{measure}”；可选：{measures}。",
        "error.measure_mismatch": "选项要求的是{asked}，但这个结果保存的是{held}：请先计算{asked}"
        "（`attnviz.measuring.measured`），或选择{held}。",
        "error.measure_no_alignment_heads": "{measure}每层只有一张图，没有头：因此没有对齐头可显示。请选择一层。",
        "error.measure_no_rollout": "{measure}不是注意力权重，注意力展开不适用于它；要把贡献追溯到输入词元，请选择"
        "“ALTI 展开”。",
    },
}
