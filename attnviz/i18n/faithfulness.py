"""Words of the faithfulness scoreboard (`attnviz.measures.faithfulness`, `attnviz.maps.faithfulness_verdict`,
`attnviz.figures.faithfulness`) and of the detached-translation flag (`attnviz.maps.detachment`): names, the verdict,
figure words, what the pages say, and the errors."""

STRINGS = {
    "en": {
        "faithfulness_measure.weights": "attention weights",
        "faithfulness_measure.rollout": "attention rollout",
        "faithfulness_measure.value-norm": "weighted by value norm",
        "faithfulness_measure.alti": "ALTI contributions",
        "faithfulness_measure.alti-rollout": "ALTI rollout",
        "faithfulness_measure.value-zeroing": "value zeroing",
        "faithfulness_measure.saliency": "saliency (gradient × input)",
        "faithfulness_measure.random": "random order (floor)",
        "faithfulness_baseline.mask": "replaced by the mask token",
        "faithfulness_baseline.random": "replaced by a random token",
        "faithfulness_verdict.decides": "On this input {best} explains the output best: {margin} above random order "
        "(mean over both ways of removing tokens), and the ranking holds across them (Spearman ρ = {rho} ≥ "
        "{threshold}).",
        "faithfulness_verdict.baselines_disagree": "The scores do not decide on this input: the ranking changes with "
        "the way tokens are removed (Spearman ρ = {rho} < {threshold}). {best} leads on average ({margin} above random "
        "order), but the removed inputs are unlike what the model was trained on.",
        "faithfulness_verdict.not_above_floor": "The scores do not decide on this input: even {best}, first in the "
        "ranking ({margin} above random order, ρ = {rho}), is not above random order by more than random orders "
        "differ among themselves under both ways of removing tokens.",
        "faithfulness_verdict.too_few": "The scores do not decide on this input: too few measures differ to compare "
        "their rankings (ρ = {rho}).",
        "faithfulness_output_token": "log p of “{token}” (target token {row})",
        "faithfulness_output_whole": "log p of the whole target",
        "faithfulness_output_next": "log p of the next token “{token}”",
        "faithfulness_output_pooled": "the pooled output",
        "faithfulness_output_next_plain": "log p of the next token, the one the model finds most probable",
        "faithfulness_figure_title": "Which explanation is faithful? {output} · margin above random order · ρ of the "
        "two rankings = {rho} (decides from {threshold})",
        "faithfulness_axis.log-prob": "comprehensiveness − sufficiency, minus random order's (nats)",
        "faithfulness_axis.cosine": "comprehensiveness − sufficiency, minus random order's (1 − cos)",
        "faithfulness_deletion_title": "Deletion curves: {output} as the most relevant tokens are removed · {baseline}",
        "faithfulness_deletion_axis": "share of input tokens removed",
        "faithfulness_output_axis.log-prob": "log-probability (nats)",
        "faithfulness_output_axis.cosine": "cos(pooled output, the original's)",
        "faithfulness_title": "Which explanation should I believe here?",
        "faithfulness_intro": "Each measure orders the input tokens by how much it says they matter for {output}. "
        "Here the tokens are removed in that order — replaced by the tokenizer's mask token ({mask}), and separately by "
        "random tokens of the vocabulary — and the model is run again on every step. Comprehensiveness: how much the "
        "output drops when the top tokens are removed; sufficiency: how much it drops when only they are kept (ERASER, "
        "DeYoung et al. 2020: the mean over removing or keeping 1, 5, 10, 20 and 50 % of the tokens). A faithful "
        "explanation has high comprehensiveness and low sufficiency. Removed inputs are unlike anything the model was "
        "trained on, so every measure is read against {orders} random orders of the same tokens (the floor): the bars "
        "show comprehensiveness − sufficiency minus the floor's; the grey band is how much the random orders differ "
        "among themselves.",
        "faithfulness_button": "Score every measure on this input",
        "faithfulness_computing": "Scoring every measure (the model runs once per removal step, batched)…",
        "faithfulness_row": "Output scored",
        "faithfulness_row_whole": "the whole target",
        "faithfulness_unavailable": "Not scored here: {measure} ({reason})",
        "faithfulness_table_caption": "Every score (nats for a log-probability; 1 − cos for a pooled output). "
        "Deletion and insertion areas: the output's mean over the removal curve (Petsiuk et al. 2018); a faithful "
        "order has a low deletion and a high insertion area.",
        "faithfulness_download_scores": "Download the scores (CSV)",
        "corpus_faithfulness_note": "Each measure's scores averaged over the pairs (nats of the whole target's "
        "log-probability; 1 − cos for an encoder): margin = comprehensiveness − sufficiency minus random order's. "
        "The scores decide on {share} of the pairs.",
        "faithfulness_long": "The scoreboard is not computed for a text of more than {most} tokens: it runs the "
        "model about forty times per input token.",
        "faithfulness_explainer": "Looking is not using, on your own sentence: the scoreboard below removes the tokens "
        "each measure ranks first and watches what the model's output does.",
        "detached_flagged": "⚠ Possibly detached from the source: source share {share}, log-probability {logp} per "
        "token.",
        "detached_attached": "Reads the source: source share {share}, log-probability {logp} per token.",
        "detached_uncalibrated": "Source share {share}, log-probability {logp} per token (no threshold calibrated "
        "for this model: no flag).",
        "detached_definition": "Source share: ALTI+'s share of the source in each target token, averaged (Dale et al. "
        "2023); log-probability: the mean over target tokens (Guerreiro et al. 2023). Flagged when the share is below "
        "{share} or the log-probability below {logp}: the 5th percentile of each over {pairs} held-out reference "
        "pairs ({corpus}).",
        "detached_definition_none": "Source share: ALTI+'s share of the source in each target token, averaged (Dale "
        "et al. 2023); log-probability: the mean over target tokens (Guerreiro et al. 2023). Thresholds are calibrated "
        "for the demo translators only.",
        "error.faithfulness_relevance_shape": "A relevance of shape {shape} does not fit {tokens} input tokens: give "
        "one number per token.",
        "error.faithfulness_relevance_not_finite": "A measure gave a relevance that is not a finite number: its order "
        "cannot be scored.",
        "error.faithfulness_nothing_removable": "The input has no token that can be removed (only special tokens): "
        "give a longer text.",
        "error.faithfulness_curve_shape": "Removal curves of shapes {deletion} and {insertion} cannot be scored: give "
        "two curves of the same length, at least 2.",
        "error.faithfulness_measure_unknown": "There is no measure “{measure}”. Choose from: {measures}.",
        "error.faithfulness_no_mask": "{model}'s tokenizer has no mask, unknown or padding token to remove tokens "
        "with: use the random baseline only.",
        "error.faithfulness_baseline_unknown": "There is no removal baseline “{baseline}”. Choose from: {baselines}.",
        "error.faithfulness_inputs_shape": "Edited inputs of shape {shape} do not fit an input of {tokens} tokens.",
        "error.faithfulness_random_orders": "The number of random orders must be a whole number of at least 1, not "
        "{count}.",
        "error.faithfulness_row_not_translator": "{model} is not a translator: it has no target row to choose (a "
        "decoder's next token or an encoder's pooled output is scored). Leave out the row.",
        "error.notebook_not_scoreboard": "show_faithfulness draws what attnviz.faithfulness returns, not a {given}.",
        "error.detached_not_translator": "{model} does not translate: the detached-translation flag is for "
        "encoder-decoder models.",
    },
    "zh": {
        "faithfulness_measure.weights": "注意力权重",
        "faithfulness_measure.rollout": "注意力展开（rollout）",
        "faithfulness_measure.value-norm": "按值向量范数加权",
        "faithfulness_measure.alti": "ALTI 贡献",
        "faithfulness_measure.alti-rollout": "ALTI 展开",
        "faithfulness_measure.value-zeroing": "值置零",
        "faithfulness_measure.saliency": "显著性（梯度 × 输入）",
        "faithfulness_measure.random": "随机顺序（基线）",
        "faithfulness_baseline.mask": "替换为掩码词元",
        "faithfulness_baseline.random": "替换为随机词元",
        "faithfulness_verdict.decides": "在这个输入上，{best} 最能解释输出：比随机顺序高 {margin}（两种移除方式的平均），"
        "并且两种方式下的排名一致（Spearman ρ = {rho} ≥ {threshold}）。",
        "faithfulness_verdict.baselines_disagree": "在这个输入上，这些分数无法作出判断：排名随移除词元的方式而改变"
        "（Spearman ρ = {rho} < {threshold}）。{best} 平均领先（比随机顺序高 {margin}），但移除后的输入与模型训练时见过的"
        "文本不同。",
        "faithfulness_verdict.not_above_floor": "在这个输入上，这些分数无法作出判断：即使排名第一的 {best}（比随机顺序高 "
        "{margin}，ρ = {rho}），在两种移除方式下也没有比随机顺序高出随机顺序彼此之间的差异。",
        "faithfulness_verdict.too_few": "在这个输入上，这些分数无法作出判断：有差别的度量太少，无法比较排名（ρ = {rho}）。",
        "faithfulness_output_token": "“{token}”（目标词元 {row}）的 log p",
        "faithfulness_output_whole": "整个目标的 log p",
        "faithfulness_output_next": "下一个词元“{token}”的 log p",
        "faithfulness_output_pooled": "池化输出",
        "faithfulness_output_next_plain": "下一个词元（模型认为最可能的那个）的 log p",
        "faithfulness_figure_title": "哪种解释是忠实的？{output} · 比随机顺序高出的量 · 两种排名的 ρ = {rho}"
        "（从 {threshold} 起可作判断）",
        "faithfulness_axis.log-prob": "完整性 − 充分性，减去随机顺序的值（奈特）",
        "faithfulness_axis.cosine": "完整性 − 充分性，减去随机顺序的值（1 − cos）",
        "faithfulness_deletion_title": "删除曲线：依次移除最相关的词元时 {output} 的变化 · {baseline}",
        "faithfulness_deletion_axis": "已移除的输入词元比例",
        "faithfulness_output_axis.log-prob": "对数概率（奈特）",
        "faithfulness_output_axis.cosine": "cos(池化输出, 原来的池化输出)",
        "faithfulness_title": "在这里该相信哪种解释？",
        "faithfulness_intro": "每种度量按它认为各输入词元对 {output} 有多重要来给词元排序。这里按这个顺序移除词元——"
        "替换为分词器的掩码词元（{mask}），另外也分别替换为词表中的随机词元——每移除一步都重新运行模型。完整性："
        "移除最靠前的词元后输出下降多少；充分性：只保留这些词元时输出下降多少（ERASER，DeYoung 等 2020：对移除或保留 "
        "1、5、10、20、50% 的词元取平均）。忠实的解释完整性高、充分性低。移除后的输入与模型训练时见过的文本都不同，"
        "所以每种度量都要和同样这些词元的 {orders} 个随机顺序（基线）对照：柱子表示完整性 − 充分性减去基线的值；"
        "灰色带表示随机顺序彼此之间的差异。",
        "faithfulness_button": "在这个输入上给每种度量打分",
        "faithfulness_computing": "正在给每种度量打分（每个移除步骤都运行一次模型，分批进行）……",
        "faithfulness_row": "要打分的输出",
        "faithfulness_row_whole": "整个目标",
        "faithfulness_unavailable": "这里没有打分：{measure}（{reason}）",
        "faithfulness_table_caption": "全部分数（对数概率以奈特为单位；池化输出以 1 − cos 为单位）。删除面积和插入面积："
        "输出在移除曲线上的平均值（Petsiuk 等 2018）；忠实的顺序删除面积低、插入面积高。",
        "faithfulness_download_scores": "下载分数（CSV）",
        "corpus_faithfulness_note": "每种度量的分数在所有句对上的平均（整个目标的对数概率，以奈特为单位；编码器为 1 − cos）："
        "高出量 = 完整性 − 充分性减去随机顺序的值。这些分数在 {share} 的句对上能作出判断。",
        "faithfulness_long": "文本超过 {most} 个词元时不计算打分表：每个输入词元大约要让模型运行四十次。",
        "faithfulness_explainer": "“看”不等于“用”，用你自己的句子来验证：下面的打分表移除每种度量排在最前面的词元，"
        "观察模型的输出如何变化。",
        "detached_flagged": "⚠ 可能脱离了源文：源文占比 {share}，每个词元的对数概率 {logp}。",
        "detached_attached": "读取了源文：源文占比 {share}，每个词元的对数概率 {logp}。",
        "detached_uncalibrated": "源文占比 {share}，每个词元的对数概率 {logp}（此模型没有校准过的阈值：不作标记）。",
        "detached_definition": "源文占比：ALTI+ 中源文在每个目标词元里所占的份额，取平均（Dale 等 2023）；对数概率："
        "对目标词元取平均（Guerreiro 等 2023）。占比低于 {share} 或对数概率低于 {logp} 时标记：各自是 {pairs} "
        "个留出参考句对（{corpus}）上的第 5 百分位数。",
        "detached_definition_none": "源文占比：ALTI+ 中源文在每个目标词元里所占的份额，取平均（Dale 等 2023）；"
        "对数概率：对目标词元取平均（Guerreiro 等 2023）。阈值只为演示翻译模型校准过。",
        "error.faithfulness_relevance_shape": "形状为 {shape} 的相关性与 {tokens} 个输入词元不符：每个词元需要一个数。",
        "error.faithfulness_relevance_not_finite": "某个度量给出的相关性不是有限的数：无法为它的顺序打分。",
        "error.faithfulness_nothing_removable": "输入中没有可以移除的词元（只有特殊词元）：请给出更长的文本。",
        "error.faithfulness_curve_shape": "形状为 {deletion} 和 {insertion} 的移除曲线无法打分：请给出长度相同、至少为 2 "
        "的两条曲线。",
        "error.faithfulness_measure_unknown": "没有名为“{measure}”的度量。可选：{measures}。",
        "error.faithfulness_no_mask": "{model} 的分词器没有可用于移除词元的掩码、未知或填充词元：请只用随机基线。",
        "error.faithfulness_baseline_unknown": "没有名为“{baseline}”的移除方式。可选：{baselines}。",
        "error.faithfulness_inputs_shape": "形状为 {shape} 的编辑后输入与 {tokens} 个词元的输入不符。",
        "error.faithfulness_random_orders": "随机顺序的个数必须是至少为 1 的整数，而不是 {count}。",
        "error.faithfulness_row_not_translator": "{model} 不是翻译模型：没有可选的目标行（打分的是解码器的下一个词元或编码器的"
        "池化输出）。请不要指定行。",
        "error.notebook_not_scoreboard": "show_faithfulness 画的是 attnviz.faithfulness 的返回值，而不是 {given}。",
        "error.detached_not_translator": "{model} 不是翻译模型：脱离源文标记只适用于编码器-解码器模型。",
    },
}
