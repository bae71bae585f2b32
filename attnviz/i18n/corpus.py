"""The words of gold alignments and the corpus job (attnviz.corpus, the Corpus page, `python -m attnviz corpus`),
in English and 中文."""

STRINGS: dict[str, dict[str, str]] = {
    "en": {
        # errors
        "error.corpus_not_pharaoh": "Gold link {item!r} is not Pharaoh format: write links as 'i-j' (sure) or 'i?j' "
        "(possible), 0-based source word i and target word j, separated by spaces.",
        "error.corpus_link_outside": "Gold link {link} points outside the pair: words count from 0, and it has "
        "source words: {source}, target words: {target}.",
        "error.corpus_no_words": "One side of the pair has no words.",
        "error.corpus_not_utf8": "The line is not UTF-8 text.",
        "error.corpus_resume_other_job": "The shards in {path} belong to another job (model, input, shard size or "
        "options differ): resume it with the same ones, or pass --force to start again.",
        "error.corpus_report_unreadable": "The report {path} cannot be read ({detail}).",
        "error.corpus_positive": "{option} must be 1 or more.",
        "error.corpus_empty_source": "The source side is empty.",
        "error.corpus_empty_target": "The target side is empty.",
        "error.corpus_too_long": "The pair is too long: {tokens} tokens, more than the {limit} the job takes.",
        "error.corpus_header": "This line names the columns ({columns}): a header, not a pair; skipped.",
        "error.corpus_columns": "Expected source<TAB>target or source ||| target (and a third column of gold links when the input has them), columns found: {count}.",
        "error.corpus_no_cross": "Model {model} has no cross-attention: gold links need a translation model.",
        "error.corpus_input_empty": "{path} holds no pair: every line is blank.",
        "corpus_links_view": "Over the corpus, the alignment view's links (each target word's strongest source "
        "word, at least {threshold}): precision {precision} · recall {recall} · AER {aer}.",
        "corpus_links_both": "Those that {model}, reading each pair back, also finds: precision {precision} · recall "
        "{recall} · AER {aer}. The head map and best heads count each head's links both directions find.",
        "corpus_unread_source": "{count} of {pairs} pairs have a source in a script {model} does not read (it "
        "reads {languages}): their attention says little of the model. Is the input the other direction?",
        "corpus_unread_reverse": "{count} of {pairs} pairs have a target in a script the reverse model {model} does "
        "not read (it reads {languages}): does it translate the other way?",
        "error.gold_needs_target": "Gold links score a translation pair: give {model} the target text too "
        "(--target, or the page's translation).",
        "error.corpus_app_url": "--app-url {url!r} is not an address: give one such as http://localhost:8501/.",
        "error.corpus_input_folder": "--input {path} is a folder: give the file of pairs.",
        "error.corpus_input_utf16": '{path} is UTF-16 text (a spreadsheet\'s "Unicode text"): save it as UTF-8.',
        "error.corpus_words_other_text": "The space-separated words, joined, are not the text the model read: the "
        "gold links cannot be placed on it.",
        "error.corpus_columns_gold": "Expected source<TAB>target, columns found: {count}. A third column of gold "
        "links is read with --gold (on the Corpus page: “Third column: gold links”).",
        "error.corpus_nothing_analysed": "No pair of {path} could be analysed: all {bad} lines were skipped, the "
        "first (line {line}) because: {reason} The report in {output} lists them.",
        "error.corpus_workers_unreachable": "No Ray cluster answers at {address} ({detail}): there are no kept "
        "actors to stop there.",
        "error.corpus_report_missing": "No corpus report in {path}: it needs heads.parquet and report.json.",
        "error.corpus_ray_missing": "The Ray engine needs Ray Data: pip install -r requirements-ray.txt "
        "(ray[data]); the in-process engine needs nothing more.",
        "error.corpus_engine_unknown": "Unknown engine {engine!r}: use inprocess or ray.",
        "error.corpus_ray_unreachable": "No Ray cluster answers at {address} ({detail}). Start one with "
        "ray start --head, or leave out --ray-address to start a local Ray for the job.",
        "error.corpus_keep_workers_needs_cluster": "--keep-workers leaves the actors on a running Ray cluster: use "
        "it with --engine ray and --ray-address (a local Ray started for one job stops with it).",
        "error.corpus_reverse_needs_gold": "A reverse model scores links against gold links: pass --gold with "
        "--reverse-model.",
        "error.corpus_reverse_failed": "The reverse model {model} could not read this pair.",
        "error.corpus_output_exists": "{path} already holds a report; pass --force to replace it or --resume to "
        "finish it.",
        # the Translate & align page
        "corpus_gold_label": "Gold links (optional)",
        "gold_stale": "These gold links were typed for another pair: the text or the translation has changed since. "
        "They are not scored against this pair.",
        "gold_stale_keep": "They belong to this pair",
        "gold_stale_clear": "Clear the gold links",
        "corpus_gold_placeholder": "e.g. 0-0 1-1 2?2",
        "corpus_gold_help": "Pharaoh format, as awesome-align writes it: 'i-j' a sure link, 'i?j' a possible one; i a "
        "source word, j a target word, both counted from 0 as the word view draws them (special tokens left "
        "out). A word is linked to the source word it gives most weight, when that weight reaches the threshold.",
        "corpus_gold_line": "Against the gold links — precision {precision} · recall {recall} · AER {aer} "
        "({found} found, {missed} missed, {extra} extra)",
        "corpus_gold_found": "found",
        "corpus_gold_missed": "missed",
        "corpus_gold_not_drawn": "{count} not drawn: no token of its own here",
        "corpus_gold_extra": "extra",
        "corpus_gold_both_legend": "Links both directions find:",
        "corpus_gold_words": "Words the links index — source: {source} · target: {target}",
        "corpus_head_aer_title": "AER of each head for this pair (lower is better)",
        "corpus_head_aer_hint": "Click a cell to open that head. Best here: layer {layer}, head {head} (AER {aer}).",
        "corpus_layer_measure_aer_title": "AER of each layer's {measure} for this pair (lower is better)",
        "corpus_layer_measure_aer_hint": "The links of a contributions map are read as the weights' are (each target "
        "word to the source word that contributes most, at the threshold), as Ferrando et al. score ALTI against gold "
        "alignments. Click a cell to open that layer. Best here: layer {layer} (AER {aer}).",
        "corpus_gold_needs_words": "Gold links are scored on words: turn on the word view's words to see them drawn.",
        "corpus_reverse_label": "Check the links with a model translating back",
        "corpus_reverse_none": "No: this model's links",
        "corpus_reverse_help": "A second model reads the pair the other way (the target as its source). Only the "
        "links both directions find are kept (their intersection, as awesome-align and SimAlign do): usually fewer "
        "links, more of them right.",
        "corpus_reverse_line": "Scored and drawn, here and in the head map: the links that {model}, reading the pair "
        "the other way, also finds.",
        # the Corpus page
        "page_corpus": "Corpus",
        "corpus_title": "Corpus",
        "corpus_intro": "Which heads align, and which are sink or previous-token heads, over many pairs: open a "
        "report of `python -m attnviz corpus`, or run a small corpus here.",
        "corpus_source": "Report",
        "corpus_source_open": "Open a report",
        "corpus_source_run": "Run a small corpus",
        "corpus_folder": "Report folder",
        "corpus_folder_help": "A folder written by python -m attnviz corpus (report.json, heads.parquet, …).",
        "corpus_upload": "…or upload its files",
        "corpus_upload_help": "report.json and heads.parquet at least; pairs.parquet, layers.parquet and "
        "bad_lines.parquet too for every table.",
        "corpus_lines": "Pairs, one per line: source ||| target (and ||| gold links), or pasted tab-separated",
        "corpus_lines_help": "At most {limit} lines here; use the command line for more.",
        "corpus_has_gold": "Third column: gold links",
        "corpus_is_segmented": "Space-separated words",
        "corpus_is_segmented_help": "Each side is words separated by spaces, which the gold links index; Chinese "
        "is read without the spaces.",
        "corpus_run": "Run with {model}",
        "corpus_running": "Shard {done} of {total}",
        "corpus_none": "Open a report or run a corpus to see its heads.",
        "corpus_summary": "{model} — pairs: {pairs}, lines skipped: {bad}, shards: {shards}, {seconds} s ({engine}).",
        "corpus_engine_inprocess": "in-process engine",
        "corpus_head_table_hint": "Select a row to open that head on the Translate & align page.",
        "corpus_pairs_title": "Pairs",
        "corpus_lines_cut": "Only the first {limit} lines were run here ({cut} more left out); the command line "
        "(python -m attnviz corpus) runs a corpus of any size.",
        "corpus_pair_line": "line",
        "corpus_pair_source": "source",
        "corpus_pair_target": "target",
        "corpus_pair_source_words": "source words",
        "corpus_pair_target_words": "target words",
        "corpus_pair_gold": "gold links",
        "corpus_pair_aer": "AER (view)",
        "corpus_pair_precision": "precision (view)",
        "corpus_pair_recall": "recall (view)",
        "corpus_pair_best_layer": "best layer",
        "corpus_pair_best_head": "best head",
        "corpus_pair_best_aer": "best head's AER",
        "corpus_pair_both_aer": "AER (both directions)",
        "corpus_pair_source_tokens": "source tokens",
        "corpus_pair_target_tokens": "target tokens",
        "corpus_pairs_hint": "Select a pair to open it on the Translate & align page, its gold links with it.",
        "corpus_statistics_title": "Head statistics over the corpus (mean)",
        "corpus_map": "Map",
        "corpus_gold_title": "Alignment against the gold links",
        "corpus_gold_map_hint": "Click a cell to open that head on the Translate & align page.",
        "corpus_column_layer": "layer",
        "corpus_column_head": "head",
        "corpus_column_line": "line",
        "corpus_column_message": "why",
        "corpus_column_text": "text",
        # figures
        "corpus_fig_layer": "layer",
        "corpus_fig_head": "head",
        "corpus_fig_hover": "layer {layer} · head {head}: {value}",
        "corpus_fig_layer_hover": "layer {layer} · {measure}: {value}",
        "corpus_stat_aer": "AER",
        "corpus_stat_precision": "precision",
        "corpus_stat_recall": "recall",
        "corpus_layer_aer_title": "AER per layer (mean over its heads)",
        "corpus_report_title": "Corpus report · {model}",
        "corpus_report_counts": "Pairs analysed: {pairs}; lines skipped: {bad}; shards: {shards}.",
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
        "error.corpus_resume_other_job": "{path} 中的分片属于另一个任务（模型、输入、分片大小或选项不同）：请用相同的"
        "设置继续，或用 --force 重新开始。",
        "error.corpus_report_unreadable": "无法读取报告 {path}（{detail}）。",
        "error.corpus_positive": "{option} 必须不小于 1。",
        "error.corpus_empty_source": "源语一侧为空。",
        "error.corpus_empty_target": "目标语一侧为空。",
        "error.corpus_too_long": "句对太长：{tokens} 个词元，超过任务接受的 {limit} 个。",
        "error.corpus_header": "这一行是各列的名称（{columns}）：是表头，不是句对；已跳过。",
        "error.corpus_columns": "应为 源语<TAB>目标语 或 源语 ||| 目标语（输入带标准链接时再加第三列），实际有 {count} 列。",
        "error.corpus_no_cross": "模型 {model} 没有交叉注意力：标准链接需要翻译模型。",
        "error.corpus_input_empty": "{path} 中没有句对：每一行都是空行。",
        "corpus_links_view": "整个语料上，对齐视图的链接（每个目标语词权重最大的源语词，至少 {threshold}）：精确率 "
        "{precision} · 召回率 {recall} · AER {aer}。",
        "corpus_links_both": "其中 {model} 反向读每对句子时也找到的：精确率 {precision} · 召回率 {recall} · AER {aer}。"
        "头图和最佳头统计的是每个头双向都找到的链接。",
        "corpus_unread_source": "{pairs} 对句子中有 {count} 对的源语所用文字 {model} 读不了（它读的是{languages}）："
        "它们的注意力说明不了模型什么。输入是否是反方向的？",
        "corpus_unread_reverse": "{pairs} 对句子中有 {count} 对的目标语所用文字反向模型 {model} 读不了（它读的是"
        "{languages}）：它是否是反方向翻译的？",
        "error.gold_needs_target": "标准链接评分的是一对译文：请同时给 {model} 目标语文本（--target，或页面上的译文）。",
        "error.corpus_app_url": "--app-url {url!r} 不是网址：请给出如 http://localhost:8501/ 的地址。",
        "error.corpus_input_folder": "--input {path} 是文件夹：请给出句对文件。",
        "error.corpus_input_utf16": "{path} 是 UTF-16 文本（电子表格的“Unicode 文本”）：请另存为 UTF-8。",
        "error.corpus_words_other_text": "以空格分隔的词连起来后不是模型读入的文本：无法在其上标出标准链接。",
        "error.corpus_columns_gold": "应为 源语<TAB>目标语，实际有 {count} 列：第三列的标准链接要加 --gold 才会读取"
        "（语料页面上：勾选“第三列：标准链接”）。",
        "error.corpus_nothing_analysed": "{path} 中没有一对句子能够分析：{bad} 行全部被跳过，第一行（第 {line} 行）"
        "的原因是：{reason} {output} 中的报告列出了这些行。",
        "error.corpus_workers_unreachable": "在 {address} 没有应答的 Ray 集群（{detail}）：那里没有保留的工作进程可停止。",
        "error.corpus_report_missing": "{path} 中没有语料报告：需要 heads.parquet 和 report.json。",
        "error.corpus_ray_missing": "Ray 引擎需要 Ray Data：pip install -r requirements-ray.txt（ray[data]）；"
        "进程内引擎无需其他安装。",
        "error.corpus_engine_unknown": "未知引擎 {engine!r}：请用 inprocess 或 ray。",
        "error.corpus_ray_unreachable": "在 {address} 没有应答的 Ray 集群（{detail}）。请先用 ray start --head "
        "启动一个，或去掉 --ray-address，让任务自行启动本地 Ray。",
        "error.corpus_keep_workers_needs_cluster": "--keep-workers 会把工作进程留在正在运行的 Ray 集群上：请与 "
        "--engine ray 和 --ray-address 一起使用（为单个任务启动的本地 Ray 会随任务停止）。",
        "error.corpus_reverse_needs_gold": "反向模型的链接要与标准链接比较：使用 --reverse-model 时请同时加 --gold。",
        "error.corpus_reverse_failed": "反向模型 {model} 无法读取这一对句子。",
        "error.corpus_output_exists": "{path} 中已有报告；用 --force 替换，或用 --resume 继续完成。",
        "corpus_gold_label": "标准链接（可选）",
        "gold_stale": "这些标准链接是为另一对句子输入的：原文或译文此后已改变，因此不会拿它们给这对句子打分。",
        "gold_stale_keep": "它们属于这对句子",
        "gold_stale_clear": "清除标准链接",
        "corpus_gold_placeholder": "例如 0-0 1-1 2?2",
        "corpus_gold_help": "Pharaoh 格式（与 awesome-align 相同）：'i-j' 为确定链接，'i?j' 为可能链接；i 为源语词，"
        "j 为目标语词，均按词视图所画的词从 0 起数（不含特殊词元）。每个词链接到它给予权重最大的源语词，"
        "前提是该权重达到阈值。",
        "corpus_gold_line": "与标准链接相比 — 精确率 {precision} · 召回率 {recall} · AER {aer}"
        "（找到 {found}，漏掉 {missed}，多出 {extra}）",
        "corpus_gold_found": "找到",
        "corpus_gold_missed": "漏掉",
        "corpus_gold_not_drawn": "{count} 条未画出：此处没有它自己的词元",
        "corpus_gold_extra": "多出",
        "corpus_gold_both_legend": "两个方向都找到的链接：",
        "corpus_gold_words": "链接所指的词 — 源语：{source} · 目标语：{target}",
        "corpus_head_aer_title": "这对句子中每个头的 AER（越低越好）",
        "corpus_head_aer_hint": "点击格子即可打开该头。此处最佳：第 {layer} 层，第 {head} 头（AER {aer}）。",
        "corpus_layer_measure_aer_title": "这对句子中每一层{measure}的 AER（越低越好）",
        "corpus_layer_measure_aer_hint": "贡献图的链接与权重的读法相同（每个目标词链接到贡献最大的源语词，且须达到阈值），"
        "正如 Ferrando 等人用标准对齐给 ALTI 打分。点击格子即可打开该层。此处最佳：第 {layer} 层（AER {aer}）。",
        "corpus_gold_needs_words": "标准链接按词评分：打开词视图即可看到它们画在图上。",
        "corpus_reverse_label": "用反向翻译模型核对链接",
        "corpus_reverse_none": "不用：只看本模型的链接",
        "corpus_reverse_help": "第二个模型按相反方向读这对句子（把目标语当作源语）。只保留两个方向都找到的链接"
        "（取交集，与 awesome-align、SimAlign 的做法相同）：链接通常更少，但对的比例更高。",
        "corpus_reverse_line": "此处和各头的 AER 图中，评分和绘制的是：{model} 反向读这对句子时也找到的链接。",
        "page_corpus": "语料",
        "corpus_title": "语料",
        "corpus_intro": "在许多句对上看哪些头在对齐，哪些是汇聚头或前一词元头：打开 `python -m attnviz corpus` "
        "生成的报告，或在这里运行一个小语料。",
        "corpus_source": "报告",
        "corpus_source_open": "打开报告",
        "corpus_source_run": "运行小语料",
        "corpus_folder": "报告文件夹",
        "corpus_folder_help": "由 python -m attnviz corpus 写出的文件夹（report.json、heads.parquet 等）。",
        "corpus_upload": "……或上传其中的文件",
        "corpus_upload_help": "至少需要 report.json 和 heads.parquet；要看全部表格，再加上 pairs.parquet、"
        "layers.parquet 和 bad_lines.parquet。",
        "corpus_lines": "句对，每行一对：源语 ||| 目标语（可再加 ||| 标准链接），或粘贴以制表符分隔的行",
        "corpus_lines_help": "这里最多 {limit} 行；更多请用命令行。",
        "corpus_has_gold": "第三列：标准链接",
        "corpus_is_segmented": "以空格分词",
        "corpus_is_segmented_help": "每侧都是以空格分隔的词，标准链接按这些词编号；中文读入时去掉空格。",
        "corpus_run": "用 {model} 运行",
        "corpus_running": "第 {done} 个分片，共 {total} 个",
        "corpus_none": "打开报告或运行语料后，即可看到各个头。",
        "corpus_summary": "{model}：{pairs} 对句子，跳过 {bad} 行，{shards} 个分片，{seconds} 秒（{engine}）。",
        "corpus_engine_inprocess": "进程内引擎",
        "corpus_head_table_hint": "选中一行，即可在“翻译与对齐”页打开该头。",
        "corpus_pairs_title": "句对",
        "corpus_lines_cut": "这里只运行了前 {limit} 行（另有 {cut} 行未运行）；命令行（python -m attnviz corpus）可运行任意大小的语料。",
        "corpus_pair_line": "行",
        "corpus_pair_source": "源语",
        "corpus_pair_target": "目标语",
        "corpus_pair_source_words": "源语词",
        "corpus_pair_target_words": "目标语词",
        "corpus_pair_gold": "标准链接",
        "corpus_pair_aer": "AER（视图）",
        "corpus_pair_precision": "精确率（视图）",
        "corpus_pair_recall": "召回率（视图）",
        "corpus_pair_best_layer": "最佳层",
        "corpus_pair_best_head": "最佳头",
        "corpus_pair_best_aer": "最佳头的 AER",
        "corpus_pair_both_aer": "AER（双向）",
        "corpus_pair_source_tokens": "源语词元数",
        "corpus_pair_target_tokens": "目标语词元数",
        "corpus_pairs_hint": "选中一对句子，即可在“翻译与对齐”页打开它及其标准链接。",
        "corpus_statistics_title": "整个语料上的头统计（平均）",
        "corpus_map": "注意力图",
        "corpus_gold_title": "与标准链接对比的对齐",
        "corpus_gold_map_hint": "点击格子，即可在“翻译与对齐”页打开该头。",
        "corpus_column_layer": "层",
        "corpus_column_head": "头",
        "corpus_column_line": "行",
        "corpus_column_message": "原因",
        "corpus_column_text": "文本",
        "corpus_fig_layer": "层",
        "corpus_fig_head": "头",
        "corpus_fig_hover": "第 {layer} 层 · 第 {head} 头：{value}",
        "corpus_fig_layer_hover": "第 {layer} 层 · {measure}：{value}",
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
