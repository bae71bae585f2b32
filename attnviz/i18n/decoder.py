"""Words of the demo decoder (training.decoder.train): its name in the model picker, its catalogue description."""

STRINGS: dict[str, dict[str, str]] = {
    "en": {
        "model_demo-decoder": "Demo decoder for long texts",
        "model_description.demo-decoder": (
            "Demo decoder, Chinese and English, 4,096 tokens (small Llama trained for attnviz: a previous-token "
            "head, a sink head and induction heads)"
        ),
    },
    "zh": {
        "model_demo-decoder": "演示解码器（长文本）",
        "model_description.demo-decoder": (
            "演示解码器，中文和英文，4,096 个词元（为 attnviz 训练的小型 Llama：一个前一词元头、一个注意力汇聚头和归纳头）"
        ),
    },
}
