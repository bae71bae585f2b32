"""The words attnviz.view.selection adds to a figure's title when it names the heads it shows, in English and 中文.

An alignment selection may gather heads from several layers ("alignment heads · mean of L2·H3, L3·H1"): these are the
templates of those phrases, each filled with its {layer}, {head} or {pairs}.
"""

STRINGS: dict[str, dict[str, str]] = {
    "en": {
        "alignment_view": "alignment heads",
        "alignment_unknown": "alignment heads not recorded",
        "pairs_mean": "mean of {pairs}",
        "pair": "L{layer}·H{head}",
        "pair_layer": "L{layer} (all heads)",
        "hidden_share": "hidden tokens hold {share} of each row's weight (mean): rows sum to less than 1",
        "hidden_renormalized": "rows renormalised after hiding tokens",
        "replay_note": "replay: the first {step} of {steps} rows written",
    },
    "zh": {
        "alignment_view": "对齐头",
        "alignment_unknown": "未记录对齐头",
        "pairs_mean": "{pairs} 的平均",
        "pair": "第{layer}层·第{head}头",
        "pair_layer": "第{layer}层全部头",
        "hidden_share": "隐藏的词元占每行权重的 {share}（平均）：各行之和小于 1",
        "hidden_renormalized": "隐藏词元后各行已重新归一化",
        "replay_note": "回放：已写出 {steps} 行中的前 {step} 行",
    },
}
