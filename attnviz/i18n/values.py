"""Words of value-weighted attention (Kobayashi et al., 2020): the weighting switch, the value-norm bar, its errors."""

STRINGS = {
    "en": {
        "error.values_shape": "Value norms have shape {shape}; they must be (layers, heads, keys) = {expected}.",
        "error.values_not_finite": "Value norms must be finite and non-negative; these hold NaN, ∞ or negative values.",
        "error.values_missing": "This capture holds no value norms for the {kind} map (the model's output projection "
        "was not found, or the capture was saved without them), so it cannot be weighted by value norm: choose "
        "weighting “weights”.",
        "error.values_weighting_unknown": "Unknown weighting “{weighting}”; choose one of: {weightings}.",
    },
    "zh": {
        "error.values_shape": "值向量范数的形状是 {shape}；应为（层, 头, 键）= {expected}。",
        "error.values_not_finite": "值向量范数必须是有限且非负的数；这里有 NaN、∞ 或负数。",
        "error.values_missing": "这份捕获没有 {kind} 图的值向量范数（没找到模型的输出投影，或保存时没有带上），"
        "所以无法按值向量范数加权：请选择加权方式“权重”。",
        "error.values_weighting_unknown": "未知的加权方式“{weighting}”；可选：{weightings}。",
    },
}
