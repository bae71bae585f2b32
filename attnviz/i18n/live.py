"""Words of live generation (attnviz.attention.live, attnviz.figures.live, "Watch it write" on Translate & align and
Self-attention): the text written so far, the newest token's probability and alternatives, the beams, the ALTI+
shares once the writing ends, in English and 中文."""

STRINGS: dict[str, dict[str, str]] = {
    "en": {
        "live_watch": "Watch it write",
        "live_watch_help": "The model writes the translation once more, one token at a time: each token appears with "
        "its probability, its alternatives and where it looked while it was written.",
        "live_watch_help_self": "The model writes its continuation once more, one token at a time: each token "
        "appears with its probability, its alternatives and where it looked (its self-attention over the prompt and "
        "what it had written) while it was written.",
        "live_stop": "Stop",
        "live_written": "**Written so far:** {text}",
        "live_token": "Step {step}: “{token}”, probability {probability}. Other candidates: {alternatives}",
        "live_beams": "Beam search after {step} tokens (score: the sum of the tokens' log-probabilities)",
        "live_beam": "{rank}. {text} ({score})",
        "live_figure_title": "Where “{token}” looked while it was written (mean of every layer and head)",
        "live_figure_axis_cross": "cross-attention",
        "live_figure_axis_self": "self-attention",
        "live_shares_note": "Where each written token comes from (ALTI+): its source share and its target-prefix "
        "share, computed once the writing ended, on the finished translation read back by the model.",
        "error.live_row_shape": "A step's attention row of shape {shape} cannot be drawn over {keys} key tokens: "
        "give it as (layers, heads, keys), one weight per key token.",
        "error.live_row_kind": "A live step draws its attention row of one of these kinds: {kinds}; “{kind}” is not one of them.",
    },
    "zh": {
        "live_watch": "看它逐词写出",
        "live_watch_help": "模型把译文再写一遍，一次一个词元：每个词元出现时显示它的概率、其他候选，以及写它时关注了源文的哪里。",
        "live_watch_help_self": "模型把续写再写一遍，一次一个词元：每个词元出现时显示它的概率、其他候选，以及写它时的自注意力关注了提示和已写内容的哪里。",
        "live_stop": "停止",
        "live_written": "**已写出：** {text}",
        "live_token": "第 {step} 步：“{token}”，概率 {probability}。其他候选：{alternatives}",
        "live_beams": "束搜索写到第 {step} 个词元（得分：各词元对数概率之和）",
        "live_beam": "{rank}. {text}（{score}）",
        "live_figure_title": "写“{token}”时关注了哪里（所有层与头的平均）",
        "live_figure_axis_cross": "交叉注意力",
        "live_figure_axis_self": "自注意力",
        "live_shares_note": "每个写出的词元从哪里来（ALTI+）：源文占比与已写译文前缀占比，在写完之后对完整译文由模型重新读取算出。",
        "error.live_row_shape": "形状为 {shape} 的一步注意力行无法画在 {keys} 个键词元上：请按（层, 头, 键）给出，每个键词元一个权重。",
        "error.live_row_kind": "实时的一步只画这几种注意力的一行：{kinds}；“{kind}”不在其中。",
    },
}
