"""The Hugging Face hub models attnviz offers (attnviz.model.hub) and how they are fed (attnviz.model.usage), in English and 中文:
the picker's words, each model's description `hub_description.<id>`, and the sentences said when one cannot be had."""

STRINGS: dict[str, dict[str, str]] = {
    "en": {
        "hub_option": "{name} — {kind}, reads {languages} · {size}, downloads on first use",
        "hub_caption": "{name}: {kind}, reads {languages}. It comes from the Hugging Face hub: {size}, downloaded once "
        "on first use (into {cache}).",
        "hub_size": "about {size}",
        "hub_downloads": "about {size}, downloads on first use",
        "hub_size_unknown": "size not known here",
        "hub_kind.encoder-decoder": "translator",
        "hub_kind.encoder": "encoder",
        "hub_kind.decoder": "decoder",
        "hub_language.zh": "Chinese",
        "hub_language.en": "English",
        "hub_language_join": " and ",
        "hub_reason_offline_setting": "HF_HUB_OFFLINE is on",
        "hub_reason_unreachable": "the Hugging Face hub ({endpoint}) does not answer",
        "hub_description.Helsinki-NLP/opus-mt-zh-en": "Marian translator 中文 → English trained on OPUS (Helsinki-NLP)",
        "hub_description.Helsinki-NLP/opus-mt-en-zh": "Marian translator English → 中文 trained on OPUS (Helsinki-NLP); "
        "attnviz starts each sentence with its target-language token >>cmn_Hans<<",
        "hub_description.facebook/nllb-200-distilled-600M": "NLLB-200 (600M, distilled), 200 languages; attnviz "
        "translates zh ↔ en with the codes zho_Hans / eng_Latn, the direction taken from the text",
        "hub_description.google-t5/t5-small": "T5 small: English → German, French or Romanian with a task prefix "
        '("translate English to German: "); it has no Chinese',
        "hub_description.bert-base-chinese": "BERT base, Chinese (character-level WordPiece), for Self-attention",
        "hub_description.bert-base-multilingual-cased": "BERT base, 104 languages, cased, for Self-attention",
        "hub_description.gpt2": "GPT-2 (124M), English, reads and continues plain text",
        "hub_description.Qwen/Qwen2.5-0.5B": "Qwen2.5 0.5B base model, Chinese and English, reads and continues "
        "plain text (no chat template)",
        "error.hub_offline": "{name} is not on this computer yet ({size}; it downloads from the Hugging Face hub on first use), "
        "and {reason}, so it cannot be downloaded now. "
        "Connect to the internet and try again (it downloads once, into {cache}), copy the model into that "
        "cache, or use an embedded model such as {suggestion}.",
        "error.hub_t5_no_chinese": "{model} translates only from English ({pairs}); it has no Chinese. For Chinese "
        "text pick facebook/nllb-200-distilled-600M or Helsinki-NLP/opus-mt-zh-en.",
        "error.hub_t5_no_pair": "{model} has no task prefix for {wanted}; it knows {pairs}.",
        "error.hub_language_code_missing": "{model}'s tokenizer has no language code {code}, so it cannot be told "
        "to translate {source} → {target}.",
    },
    "zh": {
        "hub_option": "{name} — {kind}，读{languages} · {size}，首次使用时下载",
        "hub_caption": "{name}：{kind}，读{languages}。它来自 Hugging Face Hub：{size}，首次使用时下载一次（存入 {cache}）。",
        "hub_size": "约 {size}",
        "hub_downloads": "约 {size}，首次使用时下载",
        "hub_size_unknown": "此处不知道大小",
        "hub_kind.encoder-decoder": "翻译模型",
        "hub_kind.encoder": "编码器",
        "hub_kind.decoder": "解码器",
        "hub_language.zh": "中文",
        "hub_language.en": "英文",
        "hub_language_join": "和",
        "hub_reason_offline_setting": "HF_HUB_OFFLINE 已开启",
        "hub_reason_unreachable": "Hugging Face Hub（{endpoint}）没有响应",
        "hub_description.Helsinki-NLP/opus-mt-zh-en": "Marian 翻译模型 中文 → English，用 OPUS 数据训练（Helsinki-NLP）",
        "hub_description.Helsinki-NLP/opus-mt-en-zh": "Marian 翻译模型 English → 中文，用 OPUS 数据训练（Helsinki-NLP）；"
        "attnviz 在每句开头加上目标语言标记 >>cmn_Hans<<",
        "hub_description.facebook/nllb-200-distilled-600M": "NLLB-200（600M，蒸馏版），200 种语言；attnviz 用语言代码 "
        "zho_Hans / eng_Latn 做中英互译，方向由文本判断",
        "hub_description.google-t5/t5-small": "T5 small：用任务前缀（“translate English to German: ”）把英文译成德文、"
        "法文或罗马尼亚文；不支持中文",
        "hub_description.bert-base-chinese": "BERT base 中文模型（按字切分的 WordPiece），用于自注意力页面",
        "hub_description.bert-base-multilingual-cased": "BERT base 多语言模型（104 种语言，区分大小写），用于自注意力页面",
        "hub_description.gpt2": "GPT-2（124M），英文，读取并续写纯文本",
        "hub_description.Qwen/Qwen2.5-0.5B": "Qwen2.5 0.5B 基础模型，中英文，读取并续写纯文本（不套用对话模板）",
        "error.hub_offline": "{name} 还不在这台电脑上（{size}，首次使用时从 Hugging Face Hub 下载），而且{reason}，现在无法下载。"
        "请连上网络后再试一次"
        "（只下载一次，存入 {cache}），或把模型复制到该缓存中，或改用内置模型，例如 {suggestion}。",
        "error.hub_t5_no_chinese": "{model} 只能从英文翻译（{pairs}），不支持中文。中文文本请选择 "
        "facebook/nllb-200-distilled-600M 或 Helsinki-NLP/opus-mt-zh-en。",
        "error.hub_t5_no_pair": "{model} 没有 {wanted} 的任务前缀；它支持 {pairs}。",
        "error.hub_language_code_missing": "{model} 的分词器中没有语言代码 {code}，因此无法让它翻译 {source} → {target}。",
    },
}
