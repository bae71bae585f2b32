"""The words of gold alignments and the corpus job (attnviz.corpus, the Corpus page, `python -m attnviz corpus`),
in English and 中文."""

STRINGS: dict[str, dict[str, str]] = {
    "en": {
        # errors
        "error.corpus_not_pharaoh": "Gold link {item!r} is not Pharaoh format: write links as 'i-j' (sure) or 'i?j' "
        "(possible), 0-based source word i and target word j, separated by spaces.",
        "error.corpus_link_outside": "Gold link {link} points outside the pair: it has {source} source words and "
        "{target} target words (counted from 0).",
        "error.corpus_no_words": "One side of the pair has no words.",
        "error.corpus_not_utf8": "The line is not UTF-8 text.",
        "error.corpus_positive": "{option} must be 1 or more.",
        "error.corpus_empty_side": "The {side} side is empty.",
        "error.corpus_too_long": "The pair is too long: {tokens} tokens, more than the {limit} the job takes.",
        "error.corpus_columns": "Expected source<TAB>target (and a gold column with --gold), found {count} columns.",
        "error.corpus_no_cross": "Model {model} has no cross-attention: gold links need a translation model.",
        "error.corpus_input_empty": "{path} holds no usable pair.",
        "error.corpus_report_missing": "No corpus report in {path}: it needs heads.parquet and report.json.",
        "error.corpus_ray_missing": "The Ray engine needs Ray Data: pip install -r requirements-ray.txt "
        "(ray[data]); the in-process engine needs nothing more.",
        "error.corpus_engine_unknown": "Unknown engine {engine!r}: use inprocess or ray.",
        "error.corpus_output_exists": "{path} already holds a report; pass --force to replace it or --resume to "
        "finish it.",
        # the Translate & align page
        "corpus_gold_label": "Gold links (optional)",
        "corpus_gold_placeholder": "e.g. 0-0 1-1 2?2",
        "corpus_gold_help": "Pharaoh format, as awesome-align writes it: 'i-j' a sure link, 'i?j' a possible one; i a "
        "source word, j a target word, both counted from 0 as the word view draws them (special tokens left "
        "out). A word is linked to the source word it gives most weight, when that weight reaches the threshold.",
        "corpus_gold_line": "Against the gold links — precision {precision} · recall {recall} · AER {aer} "
        "({found} found, {missed} missed, {extra} extra)",
        "corpus_gold_found": "found",
        "corpus_gold_missed": "missed",
        "corpus_gold_extra": "extra",
        "corpus_gold_words": "Words the links index — source: {source} · target: {target}",
        "corpus_head_aer_title": "AER of each head for this pair (lower is better)",
        "corpus_head_aer_hint": "Click a cell to open that head. Best here: layer {layer}, head {head} (AER {aer}).",
        "corpus_gold_needs_words": "Gold links are scored on words: turn on the word view's words to see them drawn.",
        # figures
        "corpus_fig_layer": "layer",
        "corpus_fig_head": "head",
        "corpus_fig_hover": "layer {layer} · head {head}: {value}",
        "corpus_stat_aer": "AER",
        "corpus_stat_precision": "precision",
        "corpus_stat_recall": "recall",
        "corpus_layer_aer_title": "AER per layer (mean over its heads)",
        "corpus_report_title": "Corpus report · {model}",
        "corpus_report_counts": "{pairs} pairs analysed, {bad} lines skipped, {shards} shards.",
        "corpus_best_heads": "Best-aligning heads",
        "corpus_worst_pairs": "Worst-aligned pairs (alignment view)",
        "corpus_bad_lines": "Lines skipped ({count})",
    },
    "zh": {
        "error.corpus_not_pharaoh": "标准链接 {item!r} 不是 Pharaoh 格式：请写成 'i-j'（确定）或 'i?j'（可能），"
        "i 为源语词、j 为目标语词，均从 0 起数，以空格分隔。",
        "error.corpus_link_outside": "标准链接 {link} 超出了这对句子：源语有 {source} 个词，目标语有 {target} 个词"
        "（从 0 起数）。",
        "error.corpus_no_words": "句对的一侧没有词。",
        "error.corpus_not_utf8": "这一行不是 UTF-8 文本。",
        "error.corpus_positive": "{option} 必须不小于 1。",
        "error.corpus_empty_side": "{side}一侧为空。",
        "error.corpus_too_long": "句对太长：{tokens} 个词元，超过任务接受的 {limit} 个。",
        "error.corpus_columns": "应为 源语<TAB>目标语（使用 --gold 时再加一列标准链接），实际有 {count} 列。",
        "error.corpus_no_cross": "模型 {model} 没有交叉注意力：标准链接需要翻译模型。",
        "error.corpus_input_empty": "{path} 中没有可用的句对。",
        "error.corpus_report_missing": "{path} 中没有语料报告：需要 heads.parquet 和 report.json。",
        "error.corpus_ray_missing": "Ray 引擎需要 Ray Data：pip install -r requirements-ray.txt（ray[data]）；"
        "进程内引擎无需其他安装。",
        "error.corpus_engine_unknown": "未知引擎 {engine!r}：请用 inprocess 或 ray。",
        "error.corpus_output_exists": "{path} 中已有报告；用 --force 替换，或用 --resume 继续完成。",
        "corpus_gold_label": "标准链接（可选）",
        "corpus_gold_placeholder": "例如 0-0 1-1 2?2",
        "corpus_gold_help": "Pharaoh 格式（与 awesome-align 相同）：'i-j' 为确定链接，'i?j' 为可能链接；i 为源语词，"
        "j 为目标语词，均按词视图所画的词从 0 起数（不含特殊词元）。每个词链接到它给予权重最大的源语词，"
        "前提是该权重达到阈值。",
        "corpus_gold_line": "与标准链接相比 — 精确率 {precision} · 召回率 {recall} · AER {aer}"
        "（找到 {found}，漏掉 {missed}，多出 {extra}）",
        "corpus_gold_found": "找到",
        "corpus_gold_missed": "漏掉",
        "corpus_gold_extra": "多出",
        "corpus_gold_words": "链接所指的词 — 源语：{source} · 目标语：{target}",
        "corpus_head_aer_title": "这对句子中每个头的 AER（越低越好）",
        "corpus_head_aer_hint": "点击格子即可打开该头。此处最佳：第 {layer} 层，第 {head} 头（AER {aer}）。",
        "corpus_gold_needs_words": "标准链接按词评分：打开词视图即可看到它们画在图上。",
        "corpus_fig_layer": "层",
        "corpus_fig_head": "头",
        "corpus_fig_hover": "第 {layer} 层 · 第 {head} 头：{value}",
        "corpus_stat_aer": "对齐错误率 AER",
        "corpus_stat_precision": "精确率",
        "corpus_stat_recall": "召回率",
        "corpus_layer_aer_title": "每层的 AER（该层各头的平均）",
        "corpus_report_title": "语料报告 · {model}",
        "corpus_report_counts": "分析了 {pairs} 对句子，跳过 {bad} 行，共 {shards} 个分片。",
        "corpus_best_heads": "对齐最好的头",
        "corpus_worst_pairs": "对齐最差的句对（对齐视图）",
        "corpus_bad_lines": "跳过的行（{count}）",
    },
}
