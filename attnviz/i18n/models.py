"""The model catalogue (attnviz.model.catalogue), in English and 中文: each model's description,
`model_description.<name>`."""

STRINGS: dict[str, dict[str, str]] = {
    "en": {
        "model_description.demo-zh-en": (
            "Demo translator Chinese → English (small Marian model trained for attnviz on short everyday sentences; "
            "it may leave out words or turn the meaning around in others)"
        ),
        "model_description.demo-en-zh": (
            "Demo translator English → Chinese (small Marian model trained for attnviz on short everyday sentences; "
            "it may leave out words or turn the meaning around in others)"
        ),
        "model_description.minilm": "all-MiniLM-L6-v2, pretrained 6-layer BERT (English)",
    },
    "zh": {
        "model_description.demo-zh-en": (
            "演示翻译模型 中文 → 英文（为 attnviz 在简短日常句子上训练的小型 Marian 模型；"
            "翻译其他句子时可能漏译或把意思译反）"
        ),
        "model_description.demo-en-zh": (
            "演示翻译模型 英文 → 中文（为 attnviz 在简短日常句子上训练的小型 Marian 模型；"
            "翻译其他句子时可能漏译或把意思译反）"
        ),
        "model_description.minilm": "all-MiniLM-L6-v2，预训练的 6 层 BERT 模型（英文）",
    },
}
