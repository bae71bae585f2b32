"""Words of value-weighted attention (Kobayashi et al., 2020): the weighting switch, the value-norm bar, its errors."""

STRINGS = {
    "en": {
        "error.values_shape": "Value norms have shape {shape}; they must be (layers, heads, keys) = {expected}.",
        "error.values_not_finite": "Value norms must be finite and non-negative; these hold NaN, ∞ or negative values.",
        "error.values_missing": "This capture holds no value norms for the {kind} map (the model's output projection "
        "was not found, or the capture was saved without them), so it cannot be weighted by value norm: choose "
        "weighting “weights”.",
        "error.values_weighting_unknown": "Unknown weighting “{weighting}”; choose one of: {weightings}.",
        "values_part_map": "the value norms of the {kind} map",
        "values_title_note": "weighted by value norm",
        "values_colorbar": "α·‖f(x)‖<br>({rows})",
        "values_bar": "‖f(x)‖",
        "values_bar_hover": "{key}: ‖f(x)‖ = {value}",
        "values_weighting": "Weighting",
        "values_weighting_weights": "weights",
        "values_weighting_value_norm": "weighted by value norm",
        "values_weighting_help": "Weights alone can mislead: a head may put most of its weight on a token whose value "
        "vector is tiny and so moves almost nothing. “Weighted by value norm” multiplies each weight α by the length "
        "‖f(x)‖ of what that key actually adds to the output (its value vector through the head's part of the output "
        "projection; Kobayashi et al., 2020), then scales each row to sum to 1. The grey bars above the heatmap are "
        "‖f(x)‖ itself (the mean over the heads shown; for a word, over its pieces).",
    },
    "zh": {
        "error.values_shape": "值向量范数的形状是 {shape}；应为（层, 头, 键）= {expected}。",
        "error.values_not_finite": "值向量范数必须是有限且非负的数；这里有 NaN、∞ 或负数。",
        "error.values_missing": "这份捕获没有 {kind} 图的值向量范数（没找到模型的输出投影，或保存时没有带上），"
        "所以无法按值向量范数加权：请选择加权方式“权重”。",
        "error.values_weighting_unknown": "未知的加权方式“{weighting}”；可选：{weightings}。",
        "values_part_map": "{kind} 图的值向量范数",
        "values_title_note": "按值向量范数加权",
        "values_colorbar": "α·‖f(x)‖<br>（{rows}）",
        "values_bar": "范数 ‖f(x)‖",
        "values_bar_hover": "{key}：‖f(x)‖ = {value}",
        "values_weighting": "加权方式",
        "values_weighting_weights": "权重",
        "values_weighting_value_norm": "按值向量范数加权",
        "values_weighting_help": "只看权重可能会误导：一个头可能把大部分权重放在某个词元上，而那个词元的值向量很小，"
        "几乎不带来任何信息。“按值向量范数加权”把每个权重 α 乘以这个键真正加到输出上的向量的长度 ‖f(x)‖"
        "（它的值向量经过该头那部分输出投影；Kobayashi 等，2020），再把每一行缩放到和为 1。热力图上方的灰色柱"
        "就是 ‖f(x)‖ 本身（所显示各头的平均；一个词则是其各子词的平均）。",
    },
}
