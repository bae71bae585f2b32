"""Comparing two maps (attnviz.compare): the diff heatmap's words, the command line's report, the Compare page."""

STRINGS: dict[str, dict[str, str]] = {
    "en": {
        "compare_diff_weight": "A − B",
        "compare_diff_note": "red: A gives more · blue: B gives more · + only in B · − only in A",
        "compare_diff_hover": "{query} → {key}: A − B = {value}",
        "compare_status_added": "only in B",
        "compare_status_removed": "only in A",
        "compare_all_heads": "mean of all heads",
        "compare_layer_heads": "layer {layer}, mean of its heads (B: layer {layer_b})",
        "compare_one_head": "layer {layer}, head {head} (B: layer {layer_b}, head {head_b})",
        "compare_parity": "one input read twice: max |ΔP| {max:.2e} (layer {layer}, head {head}); row-sum error "
        "{rows:.2e}",
        "compare_top": "most changed: layer {layer}, head {head} (B: layer {layer_b}, head {head_b}), JS {js:.4f} bits",
        # the Compare page (app_pages/page_scripts/compare.py)
        "page_compare": "Compare",
        "compare_title": "Compare two inputs or two models",
        "compare_intro": "A is the sidebar's model and text; B has its own. Tokens are matched through their words, "
        "each head of A is set beside its head of B, and the heads are ranked by the Jensen–Shannon divergence of "
        "the rows both share (0: the same, 1 bit: nothing in common).",
        "compare_side": "{side}: model {model}",
        "compare_model_b": "Model B",
        "compare_same_model": "the same as A",
        "compare_dtype_b": "Precision of B",
        "compare_dtype_same": "float32, as A",
        "compare_dtype_b_help": "Two precisions of one model: B reads in half precision (float16 or bfloat16, where "
        "its device allows it). Given A's model and text, B reads the same tokens, and the parity numbers say how far "
        "its weights moved.",
        "compare_device_b": "Device of B",
        "compare_device_same": "as A ({device})",
        "compare_text": "Text {side}",
        "compare_target": "Target {side}",
        "compare_target_b_help": "Empty: A's target.",
        "compare_scope": "Heads drawn",
        "compare_scope_all": "mean of all heads",
        "compare_scope_layer": "mean of one layer's heads",
        "compare_scope_head": "one head",
        "compare_ranking": "Heads ranked by how much they changed",
        "compare_paired_note": "The models differ: each layer of A is set beside B's layer at the same relative depth, "
        "and each head of A beside the head of that layer of B that looks most alike (minimum-cost assignment); the "
        "table says which.",
        "compare_parity_title": "One input read twice",
        "compare_parity_needs_same": "The parity numbers (max |ΔP|, row-sum error, worst head) need A and B to read "
        "the same tokens: give B the text of A, with the same model, to see how far B's precision or device moves "
        "the weights.",
        "compare_js": "JS (bits)",
        "compare_kind": "map",
        "compare_head_b": "head of B",
        "compare_layer_b": "layer of B",
        "compare_alignments": "A and B side by side: the strongest links of the heads drawn",
        "warning_link_cut_text_b": "text B",
        "warning_link_cut_target_b": "target B",
    },
    "zh": {
        "compare_diff_weight": "差值 A − B",
        "compare_diff_note": "红：A 的权重更大 · 蓝：B 的权重更大 · + 只在 B 中 · − 只在 A 中",
        "compare_diff_hover": "{query} → {key}：A − B = {value}",
        "compare_status_added": "只在 B 中",
        "compare_status_removed": "只在 A 中",
        "compare_all_heads": "所有注意力头的平均",
        "compare_layer_heads": "第 {layer} 层，各头的平均（B：第 {layer_b} 层）",
        "compare_one_head": "第 {layer} 层，第 {head} 个头（B：第 {layer_b} 层，第 {head_b} 个头）",
        "compare_parity": "同一输入读了两次：最大 |ΔP| {max:.2e}（第 {layer} 层，第 {head} 个头）；行和误差 {rows:.2e}",
        "compare_top": "变化最大：第 {layer} 层，第 {head} 个头（B：第 {layer_b} 层，第 {head_b} 个头），JS {js:.4f} 比特",
        "page_compare": "对比",
        "compare_title": "对比两个输入或两个模型",
        "compare_intro": "A 是侧栏中的模型和文本；B 有自己的模型和文本。词元通过词语对齐，A 的每个注意力头与 B 的对应头并列，"
        "并按双方共有行的 Jensen–Shannon 散度排序（0：相同，1 比特：毫无共同之处）。",
        "compare_side": "{side}：模型 {model}",
        "compare_model_b": "模型 B",
        "compare_same_model": "与 A 相同",
        "compare_dtype_b": "B 的精度",
        "compare_dtype_same": "float32，与 A 相同",
        "compare_dtype_b_help": "同一模型的两种精度：B 以半精度（float16 或 bfloat16，视其设备是否允许）读取。若 B 与 A "
        "的模型和文本相同，两者读到相同的词元，一致性数值说明其权重偏移了多少。",
        "compare_device_b": "B 的设备",
        "compare_device_same": "与 A 相同（{device}）",
        "compare_text": "文本 {side}",
        "compare_target": "目标文本 {side}",
        "compare_target_b_help": "留空：使用 A 的目标文本。",
        "compare_scope": "显示的注意力头",
        "compare_scope_all": "所有头的平均",
        "compare_scope_layer": "一层各头的平均",
        "compare_scope_head": "单个头",
        "compare_ranking": "按变化大小排序的注意力头",
        "compare_paired_note": "两个模型不同：A 的每一层与 B 中相对深度相同的层并列，A 的每个头再与 B 该层中最相似的头"
        "配对（最小代价指派）；表中列出配对。",
        "compare_parity_title": "同一输入读了两次",
        "compare_parity_needs_same": "一致性数字（最大 |ΔP|、行和误差、变化最大的头）需要 A 和 B 读取相同的词元："
        "请让 B 使用与 A 相同的文本和同一模型，即可看到 B 的精度或设备让权重移动了多少。",
        "compare_js": "JS（比特）",
        "compare_kind": "注意力图",
        "compare_head_b": "B 的头",
        "compare_layer_b": "B 的层",
        "compare_alignments": "A 与 B 并排：所显示注意力头的最强连线",
        "warning_link_cut_text_b": "文本 B",
        "warning_link_cut_target_b": "目标文本 B",
    },
}
