"""The words of truth on the screen, in English and 中文: unknown tokens in figures, the sentences that say what the
model did not read or was unsure of (`attnviz.text.caveats`), the language a text is written in (`attnviz.text.language`), and
the step scores of a generation."""

STRINGS: dict[str, dict[str, str]] = {
    "en": {
        # Figures (attnviz/figures/common.py: `truth_figure_*` join the figures' words)
        "truth_figure_word": "word",
        "truth_figure_unknown": "= unknown to the model: it read no characters here; the label is the text it covers",
        # Caveats (attnviz/text/caveats.py): the page, the CLI (stderr) and the capture file say them
        "truth_unknown_words": "The model does not know {words}: it read them as unknown tokens (drawn as “word?”), "
        "so the attention there says nothing about those words. Give the translation yourself, or load a full model "
        "such as {suggestion}.",
        "truth_unknown_words_read": "The model does not know {words}: it read them as unknown tokens (drawn as "
        "“word?”), so the attention there says nothing about those words. Load a model that knows them, such as "
        "{suggestion}.",
        "truth_unknown_words_one": "The model does not know {words}: it read it as an unknown token (drawn as "
        "“word?”), so the attention there says nothing about that word. Give the translation yourself, or load a full "
        "model such as {suggestion}.",
        "truth_unknown_words_read_one": "The model does not know {words}: it read it as an unknown token (drawn as "
        "“word?”), so the attention there says nothing about that word. Load a model that knows it, such as "
        "{suggestion}.",
        "truth_unsure": "The model is unsure of what it wrote: it gave {tokens} a probability below {threshold}, so "
        "those tokens are guesses. Check them, give the translation yourself, or load a full model such as "
        "{suggestion}.",
        "truth_unsure_one": "The model is unsure of what it wrote: it gave {tokens} a probability below {threshold}, "
        "so that token is a guess. Check it, give the translation yourself, or load a full model such as "
        "{suggestion}.",
        "truth_unsure_continued_one": "The model is unsure of what it wrote: it gave {tokens} a probability below "
        "{threshold}, so that token is a guess. Load a full model such as {suggestion}.",
        "truth_unsure_continued": "The model is unsure of what it wrote: it gave {tokens} a probability below "
        "{threshold}, so those tokens are guesses. Load a full model such as {suggestion}.",
        "truth_list_separator": ", ",
        "truth_token_probability": "“{token}” ({probability})",
        # Language (attnviz/text/language.py)
        "truth_language_mismatch": "This text is written in {script}, which {model} does not read (it reads "
        "{languages}): its attention would show nothing real.",
        "truth_writes_mismatch": "The pair's source is written in {script}, which {model} does not write (it "
        "writes {languages}): read back by it, the links say little.",
        "truth_language_offer": "Models that read it:",
        "truth_language_none": "No model listed here reads it; load a full model such as {suggestion}.",
        "truth_switch_model": "Use {model}",
        "truth_script_han": "Chinese characters",
        "truth_script_latin": "Latin letters",
        "truth_script_kana": "Japanese kana",
        "truth_script_hangul": "Korean Hangul",
        "truth_script_cyrillic": "Cyrillic letters",
        "truth_script_greek": "Greek letters",
        "truth_script_arabic": "Arabic script",
        "truth_script_hebrew": "Hebrew script",
        "truth_script_devanagari": "Devanagari",
        "truth_script_thai": "Thai script",
        "truth_language_zh": "Chinese",
        "truth_language_en": "English",
        "truth_language_de": "German",
        "truth_language_fr": "French",
        "truth_language_ro": "Romanian",
        # Step scores (app_pages/page_scripts/translate.py)
        "truth_steps_title": "How sure the model was of each token it wrote",
        "truth_steps_intro": "For every token it wrote: the probability the model gave it, and the tokens it "
        "found most likely there. A low probability means the model was guessing.",
        "truth_step_line": "Token {step} of {steps} it wrote: the model wrote {token} with probability {probability}; its top choices "
        "were {alternatives}.",
        "truth_steps_beams": "The model wrote by beam search with {beams} beams: at each step it kept the {beams} "
        "best partial translations and chose the best whole one at the end, so a token it wrote need not be the most "
        "likely one at its step. Every row here is the model's own computation for the text it chose.",
        "truth_beam_chose": "It was not the most likely token here: beam search chose it because the whole "
        "translation it belongs to scored best.",
        "truth_column_step": "Token #",
        "truth_column_token": "Token written",
        "truth_column_probability": "Probability",
        "truth_column_alternatives": "Most likely tokens",
        "truth_guess": "guess",
        # Errors
        "error.truth_bad_step_score": "A generation step's score must be {{'probability': float | null, "
        "'alternatives': [{{'text': str, 'probability': float}}, …]}}; got {score}.",
    },
    "zh": {
        "truth_figure_word": "词",
        "truth_figure_unknown": "＝模型不认识：它在这里没有读到任何字符；标签是该词元覆盖的原文",
        "truth_unknown_words": "模型不认识{words}：它把这些读成了未知词元（图中画作“词?”），所以那里的注意力与这些词无关。"
        "请自己给出译文，或加载完整的模型，例如 {suggestion}。",
        "truth_unknown_words_read": "模型不认识{words}：它把这些读成了未知词元（图中画作“词?”），所以那里的注意力与这些词无关。"
        "请加载认识它们的模型，例如 {suggestion}。",
        "truth_unknown_words_one": "模型不认识{words}：它把它读成了未知词元（图中画作“词?”），所以那里的注意力与这个词无关。"
        "请自己给出译文，或加载完整的模型，例如 {suggestion}。",
        "truth_unknown_words_read_one": "模型不认识{words}：它把它读成了未知词元（图中画作“词?”），所以那里的注意力与这个词无关。"
        "请加载认识它的模型，例如 {suggestion}。",
        "truth_unsure": "模型对自己写出的内容没有把握：它给{tokens}的概率低于 {threshold}，所以这些词元是猜的。"
        "请核对，自己给出译文，或加载完整的模型，例如 {suggestion}。",
        "truth_unsure_one": "模型对自己写出的内容没有把握：它给{tokens}的概率低于 {threshold}，所以这个词元是猜的。"
        "请核对，自己给出译文，或加载完整的模型，例如 {suggestion}。",
        "truth_unsure_continued_one": "模型对自己写出的内容没有把握：它给{tokens}的概率低于 {threshold}，所以这个词元是猜的。"
        "请加载完整的模型，例如 {suggestion}。",
        "truth_unsure_continued": "模型对自己写出的内容没有把握：它给{tokens}的概率低于 {threshold}，所以这些词元是猜的。"
        "请加载完整的模型，例如 {suggestion}。",
        "truth_list_separator": "、",
        "truth_token_probability": "“{token}”（{probability}）",
        "truth_language_mismatch": "这段文字用的是{script}，{model} 读不了（它读的是{languages}）：它的注意力不会显示任何真实的东西。",
        "truth_writes_mismatch": "这对句子的源文用的是{script}，{model} 写不出来（它写的是{languages}）：由它反向读出的连线说明不了什么。",
        "truth_language_offer": "能读它的模型：",
        "truth_language_none": "这里列出的模型都读不了它；请加载完整的模型，例如 {suggestion}。",
        "truth_switch_model": "改用{model}",
        "truth_script_han": "汉字",
        "truth_script_latin": "拉丁字母",
        "truth_script_kana": "日文假名",
        "truth_script_hangul": "韩文",
        "truth_script_cyrillic": "西里尔字母",
        "truth_script_greek": "希腊字母",
        "truth_script_arabic": "阿拉伯文字",
        "truth_script_hebrew": "希伯来文字",
        "truth_script_devanagari": "天城文",
        "truth_script_thai": "泰文",
        "truth_language_zh": "中文",
        "truth_language_en": "英文",
        "truth_language_de": "德文",
        "truth_language_fr": "法文",
        "truth_language_ro": "罗马尼亚文",
        "truth_steps_title": "模型对写出的每个词元有多确定",
        "truth_steps_intro": "对它写出的每个词元：模型给它的概率，以及它认为那里最可能的词元。概率低表示模型在猜。",
        "truth_beam_chose": "它不是这里最可能的词元：束搜索选了它，因为它所在的整句译文得分最高。",
        "truth_steps_beams": "模型用束搜索（{beams} 束）写出译文：每一步保留 {beams} 个最好的部分译文，最后选出整体最好的一个，"
        "所以它写出的词元不一定是该步最可能的那个。这里每一行都是模型为它选定的译文实际算出的结果。",
        "truth_step_line": "写出的第 {step} 个词元（共 {steps} 个）：模型以概率 {probability} 写出了{token}；它最看好的是{alternatives}。",
        "truth_column_step": "词元序号",
        "truth_column_token": "写出的词元",
        "truth_column_probability": "概率",
        "truth_column_alternatives": "最可能的词元",
        "truth_guess": "猜测",
        "error.truth_bad_step_score": "生成步骤的分数必须是 {{'probability': float | null, "
        "'alternatives': [{{'text': str, 'probability': float}}, …]}}；收到的是 {score}。",
    },
}
