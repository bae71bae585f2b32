"""Words of the lenses (attnviz.view.lenses, attnviz.figures.lens, `python -m attnviz lens` and `decoder-lens`, the pages'
lens sections): the logit lens's layer × position grid and its lines, DecoderLens, in English and 中文."""

STRINGS: dict[str, dict[str, str]] = {
    "en": {
        "lens_grid_title": "Logit lens: the next token each layer would write",
        "lens_lines_title": "Logit lens: the probability of the model's final prediction, layer by layer",
        "lens_axis_layer": "residual stream read",
        "lens_axis_position": "position (the token read there)",
        "lens_axis_probability": "probability",
        "lens_layer_embeddings": "embeddings",
        "lens_layer_number": "after layer {layer}",
        "lens_hover_cell": "%{customdata[0]} · after %{customdata[1]}<br>next token: %{text}<br>probability: %{z:.3~g}",
        "lens_line_name": "{position}: {token} → {final}",
        "lens_decoder_title": "DecoderLens: what the decoder writes from each encoder layer",
        "lens_axis_step": "step (the token written, #0 first)",
        "lens_axis_encoder_layer": "encoder stream the decoder read",
        # the app's lens sections (app_pages/shared/lens.py)
        "lens_title": "Logit lens: what each layer would predict",
        "lens_intro": "At every layer and position, the next token the model would predict from that layer: the "
        "model's own final norm, then its output embedding, applied to each layer's residual stream. The last "
        "layer's reading is the model's real output. Layers are numbered as the heads are: layer 0 is the first.",
        "lens_toggle": "Show the logit lens",
        "lens_toggle_help": "Runs the model once more over the text; computed only while it is shown.",
        "lens_from": "First position shown",
        "lens_from_help": "The grid and the lines show {window} positions at a time, so that every cell's token is readable; "
        "move the window along the text.",
        "lens_window_line": "Positions {first}–{last} of {positions}: move the slider to see the others.",
        "lens_decoder_read": "Read on the decoder, over the translation “{target}” (each position predicts the token "
        "after it).",
        "lens_last_line": "Last layer: the model's own prediction at every position — {tokens}.",
        "decoder_lens_title": "DecoderLens: what the decoder writes from each encoder layer",
        "decoder_lens_intro": "The decoder reads the encoder's stream after layer l in place of the encoder's output "
        "(Langedijk et al., 2024), for the embeddings and after every encoder layer (numbered as the heads: layer 0 "
        "is the first), and writes as it always does. After the last layer it reads what it always reads, so that "
        "reading writes the normal translation.",
        "decoder_lens_toggle": "Show DecoderLens",
        "decoder_lens_toggle_help": "The model writes once per encoder layer; computed only while it is shown.",
        "decoder_lens_line": "**{layer}**: {text} — {tokens}",
        "decoder_lens_nothing": "(nothing written)",
        "decoder_lens_last": "Reading the encoder's own output ({layer}), the decoder writes the normal translation: "
        "“{text}”.",
        "decoder_lens_pick": "Cross-attention of the writing from",
        "decoder_lens_reading": "DecoderLens, reading the encoder {layer}",
    },
    "zh": {
        "lens_grid_title": "Logit lens：每一层会写出的下一个词元",
        "lens_lines_title": "Logit lens：模型最终预测的概率，逐层变化",
        "lens_axis_layer": "读取的残差流",
        "lens_axis_position": "位置（该处读入的词元）",
        "lens_axis_probability": "概率",
        "lens_layer_embeddings": "嵌入",
        "lens_layer_number": "第 {layer} 层之后",
        "lens_hover_cell": "%{customdata[0]} · 读入 %{customdata[1]} 之后<br>下一个词元：%{text}<br>概率：%{z:.3~g}",
        "lens_line_name": "{position}：{token} → {final}",
        "lens_decoder_title": "DecoderLens：解码器读取每一层编码器输出时写出的内容",
        "lens_axis_step": "步骤（写出的词元，#0 为第一个）",
        "lens_axis_encoder_layer": "解码器读取的编码器残差流",
        "lens_title": "Logit lens：每一层会预测什么",
        "lens_intro": "在每一层、每个位置上，模型从该层出发会预测的下一个词元：把模型自己的最终归一化层和输出嵌入，"
        "用在每一层的残差流上。最后一层读出的就是模型真实的输出。层的编号与头相同：第 0 层是第一层。",
        "lens_toggle": "显示 logit lens",
        "lens_toggle_help": "让模型在这段文本上再运行一次；只在显示时计算。",
        "lens_from": "显示的第一个位置",
        "lens_from_help": "网格和折线图一次显示 {window} 个位置，使每个格子里的词元都清晰可读；可沿文本移动这个窗口。",
        "lens_window_line": "共 {positions} 个位置中的第 {first}–{last} 个：移动滑块可查看其他位置。",
        "lens_decoder_read": "在解码器上读取，读的是译文“{target}”（每个位置预测它后面的词元）。",
        "lens_last_line": "最后一层：模型自己在每个位置的预测——{tokens}。",
        "decoder_lens_title": "DecoderLens：解码器读取每一层编码器输出时写出的内容",
        "decoder_lens_intro": "解码器读取编码器第 l 层之后的残差流来代替编码器的输出（Langedijk 等，2024），对嵌入和"
        "每一层编码器之后都如此（层的编号与头相同：第 0 层是第一层），然后照常写出译文。在最后一层之后它读的正是平常"
        "读的，所以这次读取写出的就是正常的译文。",
        "decoder_lens_toggle": "显示 DecoderLens",
        "decoder_lens_toggle_help": "模型对每一层编码器各写一次；只在显示时计算。",
        "decoder_lens_line": "**{layer}**：{text}——{tokens}",
        "decoder_lens_nothing": "（什么也没写）",
        "decoder_lens_last": "读取编码器自己的输出（{layer}）时，解码器写出正常的译文：“{text}”。",
        "decoder_lens_pick": "交叉注意力，来自读取这一层时的写出：",
        "decoder_lens_reading": "DecoderLens，读取编码器{layer}",
    },
}
