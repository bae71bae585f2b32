"""Finding a head, and saying honestly what colours and sentences mean: the head search (which heads send one token
to another), clicking heads and tokens in figures, the colour scale named in every legend, and the replay sentence
when the weight went to hidden tokens, in English and 中文."""

STRINGS: dict[str, dict[str, str]] = {
    "en": {
        # attnviz.view.find_head
        "error.find_side_unknown": "Unknown side {side!r}; a token is picked on the query or the key side.",
        "error.find_token_missing": "No token {token!r} (occurrence {occurrence}) in this map; its tokens are "
        "{tokens}.",
        "error.find_span_outside": "The chosen tokens lie outside this map of {queries} queries × {keys} keys; pick "
        "them again from its tokens.",
        "error.find_effect_outside": "The chosen token lies outside the {count} target tokens these head effects "
        "measure; pick one of them.",
        "error.find_color_scale": "Unknown colour scale {scale!r}; use {scales}.",
        "error.find_not_a_grid": "Only a layer × head grid (figures.grid, statistic_grid or effect_grid) has "
        "heads to click.",
        # the Self-attention page's head search
        "find_title": "Find a head",
        "find_intro": "Which heads make one token look at another? Pick a query token and a key token (or click them "
        "in the head-line view: left column query, right column key); every layer × head is ranked by that weight.",
        "find_query": "Query token (looks)",
        "find_key": "Key token (looked at)",
        "find_pick": "Pick a token",
        "find_open": "L{layer}·H{head}: {weight}",
        "find_ranked_by_weights": "Heads ranked by the attention weight from the query token to the key token.",
        "find_ranked_by_value_norm": "Heads ranked by that weight scaled by each key's value norm (rows summing to 1), "
        "as the figures show it.",
        "find_open_help": "Open layer {layer}, head {head} in the figures above",
        "find_ranking": "Every head, ranked ({count})",
        "find_rank": "Rank",
        "find_weight": "Weight {query} → {looked_at}",
        "find_weight_help": "The weight from the query token to the key token in that head (a word's pieces: the key's "
        "summed, the query's averaged)",
        "find_opened": "In the figures above ({selection}), **{query}** → **{looked_at}** has weight **{weight}**.",
        "find_not_drawn": "The figures above do not show **{query}** → **{looked_at}** (hidden, or merged differently).",
        "find_table_hint": "Click a row to open that head.",
        # clicking in figures
        "find_grid_hint": "Click a head in the grid to open it.",
        "find_lines_hint": "Click a token to show only its lines (and pick it for the head search); click it again "
        "to show every line.",
        "find_lines_isolated": "Only the lines of **{token}** are shown.",
        "find_lines_show_all": "Show every line",
        # colour scale
        "find_color_scale": "Colour scale",
        "find_color_scale_help": "The same colour means the same weight on every head (0–1, or the largest weight of any "
        "head of this map); or each figure its own largest weight.",
        "find_color_scale_unit": "0–1, every head",
        "find_color_scale_shared": "shared max of all heads",
        "find_color_scale_head": "each head its own max",
        # colour-bar titles (attnviz.figures)
        "find_scale_unit": "{weight}<br><sup>0–1, every head</sup>",
        "find_scale_shared": "{weight}<br><sup>0–{top}: max of all {heads} heads</sup>",
        "find_scale_head": "{weight}<br><sup>0–{top}: this figure's max</sup>",
        "find_scale_each_note": "colours: each head from 0 to its own max",
        # the replay sentence when the weight went to hidden tokens
        "find_focus_hidden": "{unit} {step} of {steps}: most of **{token}**'s attention ({weight}) went to {hidden}, which "
        "is hidden.",
        "find_focus_hidden_also": "{unit} {step} of {steps}: most of **{token}**'s attention ({weight}) went to {hidden}, "
        "which is hidden; of the tokens shown it looked at {keys}.",
    },
    "zh": {
        "error.find_side_unknown": "未知的一侧 {side!r}；词元只能在查询侧或键侧选择。",
        "error.find_token_missing": "此图中没有词元 {token!r}（第 {occurrence} 次出现）；它的词元是 {tokens}。",
        "error.find_span_outside": "所选词元超出了此图（{queries} 个查询 × {keys} 个键）；请从它的词元中重新选择。",
        "error.find_effect_outside": "所选词元超出了这些头效应度量的 {count} 个目标词元；请从中选择一个。",
        "error.find_color_scale": "未知的色标 {scale!r}；请使用 {scales}。",
        "error.find_not_a_grid": "只有层 × 头网格（figures.grid、statistic_grid 或 effect_grid）才有可点击的头。",
        "find_title": "查找注意力头",
        "find_intro": "哪些头让一个词元看向另一个词元？选择一个查询词元和一个键词元（或在头连线图中点击它们：左列为查询，"
        "右列为键）；所有层 × 头按这一权重排序。",
        "find_query": "查询词元（看的一方）",
        "find_key": "键词元（被看的一方）",
        "find_pick": "选择一个词元",
        "find_open": "第{layer}层·第{head}头：{weight}",
        "find_ranked_by_weights": "按查询词元到键词元的注意力权重给注意力头排序。",
        "find_ranked_by_value_norm": "按该权重乘以每个键的值向量范数（每行和为 1）给注意力头排序，与图中所示一致。",
        "find_open_help": "在上方的图中打开第 {layer} 层第 {head} 头",
        "find_ranking": "全部头的排名（{count} 个）",
        "find_rank": "名次",
        "find_weight": "{query} → {looked_at} 的权重",
        "find_weight_help": "该头中从查询词元到键词元的权重（一个词由多个子词组成时：键的子词求和，查询的子词取平均）",
        "find_opened": "在上方的图中（{selection}），**{query}** → **{looked_at}** 的权重为 **{weight}**。",
        "find_not_drawn": "上方的图没有显示 **{query}** → **{looked_at}**（已隐藏，或合并方式不同）。",
        "find_table_hint": "点击一行即可打开该头。",
        "find_grid_hint": "点击网格中的一个头即可打开它。",
        "find_lines_hint": "点击一个词元，只显示它的连线（并把它选作查找的词元）；再点一次显示全部连线。",
        "find_lines_isolated": "只显示 **{token}** 的连线。",
        "find_lines_show_all": "显示全部连线",
        "find_color_scale": "色标",
        "find_color_scale_help": "同一种颜色在每个头上表示同样的权重（0–1，或此图所有头中的最大权重）；或每张图用它自己的最大值。",
        "find_color_scale_unit": "0–1，所有头相同",
        "find_color_scale_shared": "所有头共用的最大值",
        "find_color_scale_head": "每个头各自的最大值",
        "find_scale_unit": "{weight}<br><sup>0–1，所有头相同</sup>",
        "find_scale_shared": "{weight}<br><sup>0–{top}：全部 {heads} 个头的最大值</sup>",
        "find_scale_head": "{weight}<br><sup>0–{top}：此图的最大值</sup>",
        "find_scale_each_note": "颜色：每个头从 0 到它自己的最大值",
        "find_focus_hidden": "第 {step} 个{unit}（共 {steps} 个）：**{token}** 的大部分注意力（{weight}）落在 {hidden} 上，"
        "它已被隐藏。",
        "find_focus_hidden_also": "第 {step} 个{unit}（共 {steps} 个）：**{token}** 的大部分注意力（{weight}）落在 {hidden} 上，"
        "它已被隐藏；在显示的词元中，它看向了 {keys}。",
    },
}
