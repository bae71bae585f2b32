"""The sentences of the training tools' errors, in English and 中文 (key `error.<key>` for `InputError("<key>", …)`).

They are training's alone, so the product does not ship them: importing `training` adds them to attnviz's catalogue
(`attnviz.i18n.register`)."""

STRINGS: dict[str, dict[str, str]] = {
    "en": {
        "error.demo_piece_outside_words": "Piece {piece!r} in {pieces} does not fall inside one of the words {words}.",
        "error.demo_pieces_do_not_spell": "Pieces {pieces} do not spell the words {words}.",
        "error.demo_two_translations": "{text!r} has two translations, {first!r} and {second!r}; change the lexicon "
        "or phrasebook so that each sentence has one.",
        "error.demo_not_pharaoh": "Alignment item {item!r} is not Pharaoh format; write links as 'i-j' separated by "
        "spaces.",
        "error.demo_link_outside": "Link {zh}-{en} points outside {zh_words} / {en_words}.",
        "error.demo_words_round_trip": "English words {words} do not survive a round trip through the text {text!r}.",
        "error.demo_row_fields": "A corpus row needs {count} tab-separated fields ({columns}); got {got} in {row!r}.",
        "error.demo_row_mismatch": "Row {row!r}: the text columns do not match the word columns.",
        "error.demo_not_corpus": "{path} is not a demo corpus file: its header must be {header}.",
        "error.demo_unknown_language": "Unknown language {lang!r}; the demo models speak 'zh' and 'en'.",
        "error.demo_unknown_direction": "Unknown direction {direction!r}; use one of {directions}.",
        "error.demo_ids_pieces_disagree": "Tokenizer ids and pieces disagree for {zh!r} / {en!r}.",
        "error.demo_stage_weights_differ": "{path} does not hold this model's weights (names that differ: {names}); "
        "continue from a folder the same command wrote.",
        "error.demo_average_needs_two": "Averaging needs at least two checkpoint folders.",
        "error.demo_average_not_a_model": "{path} is not a saved model folder (model.safetensors and training.json).",
        "error.demo_average_other_run": "{path} was trained by another run than {first}; average checkpoints of "
        "one run, or of runs that continue from the same weights to the same model shape.",
        "error.demo_average_same_step": "{path} is the checkpoint of step {step} again; give each step once.",
        "error.demo_no_alignment_heads": "This model's config has no `alignment_heads`; it was not trained with "
        "guided alignment.",
        "error.demo_pieces_attention_disagree": "Pieces and attention disagree for {source!r} -> {target!r}: {shape}.",
    },
    "zh": {
        "error.demo_piece_outside_words": "{pieces} 中的片段 {piece!r} 没有完整落在 {words} 的某一个词里。",
        "error.demo_pieces_do_not_spell": "片段 {pieces} 拼不出词 {words}。",
        "error.demo_two_translations": "{text!r} 有两种译法：{first!r} 和 {second!r}；请修改词表或短语手册，"
        "让每个句子只有一种译法。",
        "error.demo_not_pharaoh": "对齐项 {item!r} 不是 Pharaoh 格式；请把链接写成 'i-j'，用空格分隔。",
        "error.demo_link_outside": "链接 {zh}-{en} 超出了 {zh_words} / {en_words} 的范围。",
        "error.demo_words_round_trip": "英文词 {words} 与文本 {text!r} 来回转换后不一致。",
        "error.demo_row_fields": "语料的每一行需要 {count} 个以制表符分隔的字段（{columns}）；{row!r} 中有 {got} 个。",
        "error.demo_row_mismatch": "这一行的文本列与分词列不一致：{row!r}。",
        "error.demo_not_corpus": "{path} 不是演示语料文件：表头必须是 {header}。",
        "error.demo_unknown_language": "未知语言 {lang!r}；演示模型只会 'zh' 和 'en'。",
        "error.demo_unknown_direction": "未知的翻译方向 {direction!r}；请使用 {directions} 之一。",
        "error.demo_ids_pieces_disagree": "{zh!r} / {en!r} 的分词器编号与片段对不上。",
        "error.demo_stage_weights_differ": "{path} 里不是这个模型的权重（不一致的名称：{names}）；请从同一命令写出的文件夹继续。",
        "error.demo_average_needs_two": "求平均至少需要两个检查点文件夹。",
        "error.demo_average_not_a_model": "{path} 不是保存的模型文件夹（需要 model.safetensors 和 training.json）。",
        "error.demo_average_other_run": "{path} 与 {first} 不是同一次训练的结果；请对同一次训练（或从同一权重继续、模型形状相同的几次训练）的检查点求平均。",
        "error.demo_average_same_step": "{path} 又是第 {step} 步的检查点；每一步只给一次。",
        "error.demo_no_alignment_heads": "这个模型的配置里没有 `alignment_heads`；它没有用引导对齐训练过。",
        "error.demo_pieces_attention_disagree": "{source!r} -> {target!r} 的片段与注意力对不上：{shape}。",
    },
}
