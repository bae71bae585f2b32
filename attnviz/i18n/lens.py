"""Words of the lenses (attnviz.lens, attnviz.figures.lens, `python -m attnviz lens` and `decoder-lens`): the logit
lens's layer × position grid and its lines, in English and 中文."""

STRINGS: dict[str, dict[str, str]] = {
    "en": {
        "lens_grid_title": "Logit lens: the next token each layer would write",
        "lens_lines_title": "Logit lens: the probability of the model's final prediction, layer by layer",
        "lens_axis_layer": "layer (residual stream after it)",
        "lens_axis_position": "position (the token read there)",
        "lens_axis_probability": "probability",
        "lens_layer_embeddings": "embeddings",
        "lens_layer_number": "layer {layer}",
        "lens_hover_cell": "%{customdata[0]} · after %{customdata[1]}<br>next token: %{text}<br>probability: %{z:.3~g}",
        "lens_line_name": "{position}: {token} → {final}",
        "lens_decoder_title": "DecoderLens: what the decoder writes from each encoder layer",
        "lens_axis_step": "step (the token written, #0 first)",
        "lens_axis_encoder_layer": "encoder layer the decoder read",
    },
    "zh": {
        "lens_grid_title": "Logit lens：每一层会写出的下一个词元",
        "lens_lines_title": "Logit lens：模型最终预测的概率，逐层变化",
        "lens_axis_layer": "层（该层之后的残差流）",
        "lens_axis_position": "位置（该处读入的词元）",
        "lens_axis_probability": "概率",
        "lens_layer_embeddings": "嵌入",
        "lens_layer_number": "第 {layer} 层",
        "lens_hover_cell": "%{customdata[0]} · 读入 %{customdata[1]} 之后<br>下一个词元：%{text}<br>概率：%{z:.3~g}",
        "lens_line_name": "{position}：{token} → {final}",
        "lens_decoder_title": "DecoderLens：解码器读取每一层编码器输出时写出的内容",
        "lens_axis_step": "步骤（写出的词元，#0 为第一个）",
        "lens_axis_encoder_layer": "解码器读取的编码器层",
    },
}
