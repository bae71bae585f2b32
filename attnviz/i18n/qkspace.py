"""The words of the query–key space, rollout and the explainer on your own sentence, in English and 中文."""

STRINGS: dict[str, dict[str, str]] = {
    "en": {
        # figures
        "qk_fig_title": "Query–key space · {kind} · layer {layer}, head {head}",
        "qk_fig_explained": "PCA of queries and keys together: PC 1 holds {first:.0f}%, PC 2 {second:.0f}% of the variance",
        "qk_fig_normalised": "keys shifted to the queries' mean and both rescaled to one mean length (the weights "
        "are unchanged)",
        "qk_fig_queries": "queries (●)",
        "qk_fig_keys_legend": "keys (◆)",
        "qk_fig_keys": "keys K",
        "qk_fig_position": "position",
        "qk_fig_picked": "picked",
        "qk_fig_hover_query": "query #%{customdata[1]} · %{customdata[2]}",
        "qk_fig_hover_key": "key #%{customdata[1]} · %{customdata[2]}",
        "qk_fig_hover_vector": "{what} of %{customdata} · value %{x}: %{z:.5f}",
        "qk_fig_hover_number": "%{customdata} · {what}: %{z:.6f}",
        "qk_fig_masked": "hidden",
        "qk_fig_q": "query q",
        "qk_fig_k": "key k",
        "qk_fig_v": "value v",
        "qk_fig_out": "output Σ weight·v",
        "qk_fig_query_vector": "query vector q of “{token}”",
        "qk_fig_output": "output = Σ weight · v",
        "qk_fig_values": "values V",
        "qk_fig_col_score": "q·k",
        "qk_fig_col_scaled": "× {scale}",
        "qk_fig_col_bias": "+ position bias",
        "qk_fig_col_weight": "softmax",
        "qk_fig_col_captured": "captured",
        "qk_fig_steps_title": "How “{token}” looks at the sentence · layer {layer}, head {head} (vectors of {d} values)",
        "qk_fig_steps_equal": "the rebuilt softmax row equals the captured weights: largest difference {difference}",
        # rollout
        "aggregation_rollout": "Rollout through layers",
        "qk_rollout_heads": "mean of heads, residual included",
        "qk_rollout_first": "Rollout from layer",
        "qk_rollout_last": "to layer",
        "qk_rollout_residual": "Residual term",
        "qk_rollout_residual_help": "Attention rollout (Abnar & Zuidema, 2020) multiplies the layers' attention "
        "maps, each the mean of its heads. With the residual term each layer's map becomes 0.5·A + 0.5·I, rows "
        "renormalised: the skip connection around attention carries half of every token through unchanged. Without "
        "it, the plain product of the maps.",
        "qk_rollout_note": "Rollout: row i says how much of each token reaches token i after the chosen layers, "
        "following attention and the skip connections; the grid shows the rollout up to each layer of the range.",
        "qk_rollout_note_decoder": "Rollout of the decoder's self-attention: it follows the decoder tokens only; "
        "what reaches them from the source through cross-attention is not part of this product.",
        # errors
        "error.qk_projection_shapes": "Queries and keys must be non-empty (tokens, values) matrices of the same width; "
        "got {queries} and {keys}.",
        "error.qk_projection_not_finite": "The query or key vectors hold a value that is not a number; nothing to "
        "project.",
        "error.qk_projection_tokens": "The projection has {points} points but the tokens number {tokens}.",
        "error.qk_color_unknown": "Cannot colour points by {color_by!r}; choose one of {choices}.",
        "error.qk_role_unknown": "A point is a query or a key, not {role!r}.",
        "error.qk_softcap_not_shown": "This head soft-caps its scores (tanh, cap {softcap}), a step this page does "
        "not show; pick a model without soft-capping.",
        "error.qk_rollout_cross": "Rollout is defined for self-attention, where the tokens a layer reads are the "
        "tokens it writes. Cross-attention reads the encoder's last output, not the decoder's previous layer, so "
        "composing it layer by layer would multiply maps of two different token sets: roll out the encoder or the "
        "decoder self-attention instead.",
        "error.qk_rollout_range": "The rollout layer range {first}–{last} is not inside layers 0–{top}.",
        "error.qk_rollout_layers_text": "--rollout-layers takes FIRST-LAST, such as 0-3 (or one layer); got {value!r}.",
        "error.qk_rollout_long": "Rollout multiplies every layer's whole map, which this long text does not keep; "
        "shorten the text to see its rollout.",
    },
    "zh": {
        "qk_fig_title": "查询–键空间 · {kind} · 第 {layer} 层，第 {head} 头",
        "qk_fig_explained": "查询与键一起做主成分分析：PC 1 占方差的 {first:.0f}%，PC 2 占 {second:.0f}%",
        "qk_fig_normalised": "键平移到查询的均值，二者缩放到相同的平均长度（权重不变）",
        "qk_fig_queries": "查询（●）",
        "qk_fig_keys_legend": "键（◆）",
        "qk_fig_keys": "键 K",
        "qk_fig_position": "位置",
        "qk_fig_picked": "选中",
        "qk_fig_hover_query": "查询 #%{customdata[1]} · %{customdata[2]}",
        "qk_fig_hover_key": "键 #%{customdata[1]} · %{customdata[2]}",
        "qk_fig_hover_vector": "%{customdata} 的{what} · 第 %{x} 个值：%{z:.5f}",
        "qk_fig_hover_number": "%{customdata} · {what}：%{z:.6f}",
        "qk_fig_masked": "不可见",
        "qk_fig_q": "查询 q",
        "qk_fig_k": "键 k",
        "qk_fig_v": "值 v",
        "qk_fig_out": "输出 Σ 权重·v",
        "qk_fig_query_vector": "“{token}”的查询向量 q",
        "qk_fig_output": "输出 = Σ 权重 · v",
        "qk_fig_values": "值 V",
        "qk_fig_col_score": "q·k 点积",
        "qk_fig_col_scaled": "乘以 {scale}",
        "qk_fig_col_bias": "加位置偏置",
        "qk_fig_col_weight": "softmax 权重",
        "qk_fig_col_captured": "捕获的权重",
        "qk_fig_steps_title": "“{token}”如何看这句话 · 第 {layer} 层，第 {head} 头（向量有 {d} 个值）",
        "qk_fig_steps_equal": "重算的 softmax 行与捕获的权重相同：最大差 {difference}",
        "aggregation_rollout": "逐层注意力展开（rollout）",
        "qk_rollout_heads": "各头平均，含残差项",
        "qk_rollout_first": "从第几层展开",
        "qk_rollout_last": "到第几层",
        "qk_rollout_residual": "残差项",
        "qk_rollout_residual_help": "注意力展开（Abnar 与 Zuidema，2020）把各层的注意力矩阵（各头平均）相乘。加上残差项时，每层的矩阵变为 "
        "0.5·A + 0.5·I 并重新按行归一：注意力旁的跳跃连接把每个词元的一半原样传下去。不加残差项时，就是各层矩阵的直接乘积。",
        "qk_rollout_note": "展开：第 i 行表示经过所选各层之后，每个词元有多少传到了词元 i（沿注意力和跳跃连接）；网格显示到范围内每一层为止的展开。",
        "qk_rollout_note_decoder": "解码器自注意力的展开只沿解码器的词元；经交叉注意力从源语言传来的部分不在这个乘积里。",
        "error.qk_projection_shapes": "查询和键必须是宽度相同、非空的（词元，值）矩阵；实际为 {queries} 和 {keys}。",
        "error.qk_projection_not_finite": "查询或键向量中有非数值，无法投影。",
        "error.qk_projection_tokens": "投影有 {points} 个点，但词元有 {tokens} 个。",
        "error.qk_color_unknown": "不能按 {color_by!r} 着色；请从 {choices} 中选择。",
        "error.qk_role_unknown": "一个点是查询或键，而不是 {role!r}。",
        "error.qk_softcap_not_shown": "这个头对分数做了软截断（tanh，上限 {softcap}），本页不展示这一步；请换一个没有软截断的模型。",
        "error.qk_rollout_cross": "注意力展开（rollout）只对自注意力有定义：一层读的词元就是它写出的词元。交叉注意力读的是编码器的最后输出，"
        "而不是解码器的上一层，逐层相乘会把两组不同词元的矩阵相乘：请改为展开编码器或解码器的自注意力。",
        "error.qk_rollout_range": "展开的层范围 {first}–{last} 不在第 0–{top} 层之内。",
        "error.qk_rollout_layers_text": "--rollout-layers 的写法是 起-止，如 0-3（或一个层号）；收到的是 {value!r}。",
        "error.qk_rollout_long": "注意力展开要把每一层的完整矩阵相乘，而这段长文本没有保留完整矩阵；请缩短文本再看展开。",
    },
}
