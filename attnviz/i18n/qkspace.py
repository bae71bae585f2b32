"""The words of the query–key space, rollout and the explainer on your own sentence, in English and 中文."""

STRINGS: dict[str, dict[str, str]] = {
    "en": {
        # figures
        "qk_fig_title": "Query–key space · {kind} · layer {layer}, head {head}",
        "qk_fig_explained": "PCA of queries and keys together: PC 1 holds {first:.0f}%, PC 2 {second:.0f}% of the variance",
        "qk_fig_normalised": "keys shifted to the queries' mean and both rescaled to one mean length (the weights "
        "are unchanged)",
        "qk_fig_queries": "queries (●)",
        "qk_fig_symbols": "● queries, ◆ keys",
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
        "qk_fig_steps_differs": "the rebuilt softmax row differs from the captured weights by up to {difference}",
        # How attention works, on your sentence
        "qk_ex_title": "3 · The same steps on your sentence, with the real model",
        "qk_ex_intro": "The same steps, now with the numbers the model itself computed for your text (the text "
        "below is the one the other pages show). Pick a map, a layer, a head and one token: that token asks the "
        "question (its **query**), every token offers an answer (its **key**) and a content (its **value**). Each "
        "of these is a list of numbers, drawn as a strip of coloured cells (blue below zero, red above): hover a "
        "cell to read its number.",
        "qk_ex_token": "Query token",
        "qk_ex_step_vectors": "Step 1 · query and keys.",
        "qk_ex_step_vectors_text": "The model turned “{token}” into a query vector of {d} numbers (the strip top "
        "left) and every token into a key vector of {d} numbers (the rows under it).",
        "qk_ex_step_scores": "Step 2 · one score per key.",
        "qk_ex_step_scores_text": "Multiply the query and a key number by number and add the {d} products: that "
        "is q·k. For the key “{other}” it is {score} (column q·k).",
        "qk_ex_step_scale": "Step 3 · scaling.",
        "qk_ex_step_scale_text": "Every score is multiplied by {scale} (the model's scaling, usually 1/√{d}) so "
        "that long vectors do not give huge scores: “{other}” gets {scaled}.",
        "qk_ex_step_bias_text": "This model then adds a position bias that depends only on how far apart the two "
        "tokens are: {bias} here, giving {biased}.",
        "qk_ex_step_hidden_text": "{hidden} key(s) are hidden from this token (a later token in a causal model, or "
        "padding): they get no score and a weight of exactly 0.",
        "qk_ex_step_softmax": "Step 4 · softmax.",
        "qk_ex_step_softmax_text": "Each scaled score x becomes e^x, and each is divided by their sum, so the weights "
        "are positive and add up to 1: “{other}” gets {weight}, the largest of this row.",
        "qk_ex_step_output": "Step 5 · the weighted sum of the values.",
        "qk_ex_step_output_text": "Multiply every key's value vector by its weight and add them up: the {d} numbers "
        "top right are what this head passes on for “{token}” (its output, before the layer mixes the heads).",
        "qk_ex_equal": "The softmax row rebuilt here from the model's own vectors equals the weights the capture "
        "recorded for this token: the largest difference over its {keys} keys is {difference} (float rounding).",
        "qk_ex_differs": "The rebuilt row differs from the captured weights by up to {difference} over {keys} keys.",
        "qk_ex_no_compare": "The page's capture holds this map with other tokens (the model wrote the text and read "
        "it back differently), so the rebuilt row is not compared with it here.",
        "qk_ex_col_bias": "+ position bias",
        "qk_ex_col_weight": "softmax weight",
        "qk_ex_col_captured": "captured weight",
        # the Query–key space page
        "page_query_key_space": "Query–key space",
        "qk_title": "Query–key space",
        "qk_intro": "One head's queries (●) and keys (◆) drawn in one plane: a head gives a query much weight on "
        "the keys whose vectors point its way (a large q·k), so a query tends to lie near the keys it looks at. "
        "Computed from the vectors the model made for your text; pick a point to find its row or column in the map.",
        "qk_ex_needs_model": "The walk-through on your sentence needs the model's own queries, keys and values, "
        "which a saved capture does not hold: close the saved capture to compute them.",
        "qk_ex_hidden_cell": "hidden",
        "qk_needs_model": "The query–key space needs the model's own query and key vectors, which a saved capture "
        "does not hold: close the saved capture to compute them.",
        "qk_computing_vectors": "Keeping every layer's queries, keys and values…",
        "qk_ex_window": "Your text has {total} tokens: the walk-through reads its first {tokens} ({text}) as a text of its "
        "own, so every key fits on one screen. The model sees only these tokens here, so the weights are this shorter "
        "text's; they are checked against its own capture.",
        "qk_color": "Colour by",
        "qk_color_position": "position",
        "qk_color_token": "token",
        "qk_norm": "Centre and balance",
        "qk_norm_help": "Shift the keys so that their mean is the queries' mean and scale queries and keys to one "
        "mean length. Neither changes a single attention weight (the softmax ignores a score added to every key, "
        "and q·k stays the same when q is multiplied and k divided by one number), but without them queries and "
        "keys often sit in two far-apart clouds.",
        "qk_pick_hint": "Click a point (or drag a box around some) to outline its row or column in the map below; "
        "the choice is kept in the link.",
        "qk_map_title": "The same head's attention map",
        "qk_picked_query": "Picked: query #{index} “{token}” — its row is outlined: how it spreads its attention "
        "over the keys.",
        "qk_picked_key": "Picked: key #{index} “{token}” — its column is outlined: how much each query looks at it.",
        "qk_map_window": "A long text: rows {rows} and keys {keys} are shown, around the picked token.",
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
        "error.qk_rollout_reversed": "The rollout layer range {first}–{last} runs backwards: give the first layer "
        "first ({last}–{first}).",
        "error.qk_rollout_layers_text": "--rollout-layers takes FIRST-LAST, such as 0-3 (or one layer); got {value!r}.",
    },
    "zh": {
        "qk_fig_title": "查询–键空间 · {kind} · 第 {layer} 层，第 {head} 头",
        "qk_fig_explained": "查询与键一起做主成分分析：PC 1 占方差的 {first:.0f}%，PC 2 占 {second:.0f}%",
        "qk_fig_normalised": "键平移到查询的均值，二者缩放到相同的平均长度（权重不变）",
        "qk_fig_queries": "查询（●）",
        "qk_fig_symbols": "● 查询，◆ 键",
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
        "qk_fig_col_score": "q·k 值",  # a column title: as short as its numbers, or titles run into each other
        "qk_fig_col_scaled": "× {scale}",
        "qk_fig_col_bias": "+ 位置偏置",
        "qk_fig_col_weight": "softmax",
        "qk_fig_col_captured": "捕获值",
        "qk_fig_steps_title": "“{token}”如何看这句话 · 第 {layer} 层，第 {head} 头（向量有 {d} 个值）",
        "qk_fig_steps_equal": "重算的 softmax 行与捕获的权重相同：最大差 {difference}",
        "qk_fig_steps_differs": "重算的 softmax 行与捕获的权重最多相差 {difference}",
        "qk_ex_title": "3 · 用真实模型在你的句子上走一遍同样的步骤",
        "qk_ex_intro": "同样的步骤，这次用的是模型为你的文本真正算出的数字（下面的文本就是其他页面显示的那段）。选一个矩阵、一层、一个头和一个词元："
        "这个词元提出问题（它的**查询**），每个词元给出回答（它的**键**）和内容（它的**值**）。它们都是一串数字，画成一条彩色格子"
        "（蓝色小于零，红色大于零）：把鼠标移到格子上就能读出数字。",
        "qk_ex_token": "查询词元",
        "qk_ex_step_vectors": "第 1 步 · 查询和键。",
        "qk_ex_step_vectors_text": "模型把“{token}”变成一个有 {d} 个数的查询向量（左上方的色条），把每个词元变成一个有 {d} 个数的键向量（下面的各行）。",
        "qk_ex_step_scores": "第 2 步 · 每个键一个分数。",
        "qk_ex_step_scores_text": "把查询和一个键逐个数相乘，再把 {d} 个乘积加起来，就是 q·k。键“{other}”的分数是 {score}（q·k 一列）。",
        "qk_ex_step_scale": "第 3 步 · 缩放。",
        "qk_ex_step_scale_text": "每个分数都乘以 {scale}（模型的缩放系数，通常是 1/√{d}），免得长向量给出过大的分数：“{other}”得到 {scaled}。",
        "qk_ex_step_bias_text": "这个模型还会加上一个只取决于两个词元相距多远的位置偏置：这里是 {bias}，结果是 {biased}。",
        "qk_ex_step_hidden_text": "有 {hidden} 个键对这个词元不可见（因果模型中后面的词元，或填充）：它们没有分数，权重正好是 0。",
        "qk_ex_step_softmax": "第 4 步 · softmax。",
        "qk_ex_step_softmax_text": "每个缩放后的分数 x 变成 e^x，再除以它们的总和，于是权重都是正数且加起来等于 1：“{other}”得到 {weight}，是这一行最大的。",
        "qk_ex_step_output": "第 5 步 · 值的加权和。",
        "qk_ex_step_output_text": "把每个键的值向量乘以它的权重再相加：右上方的 {d} 个数就是这个头为“{token}”传出去的内容（它的输出，层再把各头合并）。",
        "qk_ex_equal": "这里用模型自己的向量重算的 softmax 行与捕获记录的这个词元的权重相同：在 {keys} 个键上最大差为 {difference}（浮点舍入）。",
        "qk_ex_differs": "重算的行与捕获的权重在 {keys} 个键上最多相差 {difference}。",
        "qk_ex_no_compare": "本页的捕获中这个矩阵的词元不同（模型写出的文本再读回来时切分不同），所以这里不与它比较。",
        "qk_ex_col_bias": "加位置偏置",
        "qk_ex_col_weight": "softmax 权重",
        "qk_ex_col_captured": "捕获的权重",
        "page_query_key_space": "查询–键空间",
        "qk_title": "查询–键空间",
        "qk_intro": "把一个头的查询（●）和键（◆）画在同一个平面上：若键向量指向查询的方向（q·k 大），这个头就给它很大的权重，"
        "所以查询往往落在它关注的键附近。这些向量是模型为你的文本算出来的；点选一个点，就能在下方矩阵中找到它的行或列。",
        "qk_ex_needs_model": "在你的句子上逐步演示需要模型自己的查询、键和值向量，保存的捕获文件里没有：请关闭保存的捕获再计算。",
        "qk_ex_hidden_cell": "不可见",  # the figure's word for them (qk_fig_masked)
        "qk_needs_model": "查询–键空间需要模型自己的查询和键向量，保存的捕获文件里没有：请关闭保存的捕获再计算。",
        "qk_computing_vectors": "正在保留每一层的查询、键和值……",
        "qk_ex_window": "你的文本有 {total} 个词元：这里的逐步演示只读取前 {tokens} 个（{text}），把它当作一段独立的文本，"
        "让每个键都能在一屏内列出。模型在这里只看到这些词元，所以权重属于这段较短的文本，并与它自己的捕获结果核对。",
        "qk_color": "着色依据",
        "qk_color_position": "位置",
        "qk_color_token": "词元",
        "qk_norm": "居中并平衡",
        "qk_norm_help": "把键平移，使其均值等于查询的均值，并把查询和键缩放到相同的平均长度。两者都不改变任何注意力权重"
        "（给每个键的分数加同一个数，softmax 不变；q 乘以一个数、k 除以同一个数，q·k 不变），但不这样做时，查询和键常常分成相距很远的两团。",
        "qk_pick_hint": "点击一个点（或拖框选中几个），下方矩阵中就会框出它的行或列；选择会保存在链接里。",
        "qk_map_title": "同一个头的注意力矩阵",
        "qk_picked_query": "已选：查询 #{index}“{token}”——框出的是它的行：它怎样把注意力分给各个键。",
        "qk_picked_key": "已选：键 #{index}“{token}”——框出的是它的列：每个查询有多关注它。",
        "qk_map_window": "长文本：显示选中词元附近的第 {rows} 行和第 {keys} 个键。",
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
        "error.qk_rollout_reversed": "展开的层范围 {first}–{last} 是倒过来的：请先写起始层（{last}–{first}）。",
        "error.qk_rollout_layers_text": "--rollout-layers 的写法是 起-止，如 0-3（或一个层号）；收到的是 {value!r}。",
    },
}
