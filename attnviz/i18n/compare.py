"""Comparing two maps (attnviz.compare): the diff heatmap's words, the command line's report and the ranking."""

STRINGS: dict[str, dict[str, str]] = {
    "en": {
        "compare_diff_weight": "A − B",
        "compare_diff_note": "red: A gives more · blue: B gives more · + only in B · − only in A",
        "compare_diff_hover": "{query} → {key}: A − B = {value}",
        "compare_status_added": "only in B",
        "compare_status_removed": "only in A",
        "compare_all_heads": "mean of all heads",
        "compare_layer_heads": "layer {layer}, mean of its heads",
        "compare_one_head": "layer {layer}, head {head} (B: head {head_b})",
        "compare_parity": "one input read twice: max |ΔP| {max:.2e} (layer {layer}, head {head}); row-sum error "
        "{rows:.2e}",
        "compare_top": "most changed: layer {layer}, head {head} (B: head {head_b}), JS {js:.4f} bits",
    },
    "zh": {
        "compare_diff_weight": "差值 A − B",
        "compare_diff_note": "红：A 的权重更大 · 蓝：B 的权重更大 · + 只在 B 中 · − 只在 A 中",
        "compare_diff_hover": "{query} → {key}：A − B = {value}",
        "compare_status_added": "只在 B 中",
        "compare_status_removed": "只在 A 中",
        "compare_all_heads": "所有注意力头的平均",
        "compare_layer_heads": "第 {layer} 层，各头的平均",
        "compare_one_head": "第 {layer} 层，第 {head} 个头（B：第 {head_b} 个头）",
        "compare_parity": "同一输入读了两次：最大 |ΔP| {max:.2e}（第 {layer} 层，第 {head} 个头）；行和误差 {rows:.2e}",
        "compare_top": "变化最大：第 {layer} 层，第 {head} 个头（B：第 {head_b} 个头），JS {js:.4f} 比特",
    },
}
