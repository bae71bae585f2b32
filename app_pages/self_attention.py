"""Self-attention: how the tokens of one text look at each other, encoder or decoder, one head or many."""

import streamlit as st

from app_pages import caches, controls, figure_export, find_head, session
from app_pages.page_errors import shown_errors
from app_pages.state import ViewState, view_options
from attnviz import figures, selection


def long_map(view: ViewState, lazy, kind: str) -> None:
    """One head of a long text's map: pooled whole (every cell computed, tile by tile, none kept), and one block of
    it exact, chosen by its first query row and first key; the browser receives only these two."""
    t = session.tr(view)
    layers, heads, queries, keys = lazy.shape(kind)
    layer, head = min(view.layer, layers - 1), min(view.head, heads - 1)
    window, bins = selection.LONG_WINDOW, selection.LONG_BINS
    st.info(t("long_note", tokens=max(queries, keys), window=window, bins=bins), icon=":material/info:")
    stack = lazy.stack(kind)
    if kind == "self" and view.mode == "generate" and stack.causal:
        st.caption(t("long_not_continued"))
    pooled = caches.pooled(view, kind, layer, head)
    scale = "head" if view.scale == "head" else "unit"  # no other head is computed here to share a maximum with
    pooled_figure = figures.pooled_heatmap(
        pooled,
        stack.query_tokens,
        stack.key_tokens,
        kind=kind,
        layer=layer,
        head=head,
        color_scale=scale,
        style=figures.FigureStyle(lang=view.lang),
    )
    figure_export.figure(pooled_figure, "long-heatmap-pooled", "long_pooled", view, model=view.model)
    st.subheader(t("long_block_title"))
    starts = st.columns(2)
    row = starts[0].number_input(t("long_first_row"), 0, queries - 1, 0, step=window // 2, key="w_long_row")
    key = starts[1].number_input(t("long_first_key"), 0, keys - 1, 0, step=window // 2, key="w_long_key")
    rows, columns = selection.token_window(queries, int(row)), selection.token_window(keys, int(key))
    block = lazy.map(kind, layers=layer, heads=head, queries=rows, keys=columns)  # (1, 1, rows, columns), exact
    spans = {"rows": f"{rows[0]}–{rows[1] - 1}", "keys": f"{columns[0]}–{columns[1] - 1}"}
    title = t("long_block_figure", layer=layer, head=head, **spans)
    block_figure = figures.heatmap(block, color_scale=scale, style=figures.FigureStyle(lang=view.lang, title=title))
    figure_export.figure(
        block_figure, "long-heatmap-block", "long_block", view, figure_export.Source(block), model=view.model
    )


view = session.state()
t = session.tr(view)
st.title(t("self_title"))
st.caption(t("self_intro"))
session.link_warnings(view)

session.bound(st.text_input, "text", t("source_text"), placeholder=t("source_placeholder"))

with shown_errors(view):
    handle, result = caches.analysis(view)
    columns = st.columns([2, 2, 1, 1, 2, 2])
    if handle.is_seq2seq:
        stacks = {"options": selection.STACKS, "format_func": lambda s: t(f"stack_{s}"), "horizontal": True}
        session.bound(columns[0].radio, "stack", t("stack"), **stacks)
    else:
        columns[0].markdown(t("stack_single", kind=t(f"kind_{handle.kind}")))
    kind = selection.self_attention_kind(result, view.stack)
    layers, heads, queries, keys = result.shape(kind)
    long = not result.is_complete  # a long text: one head at a time, pooled, with exact values for a block
    aggregations = selection.SELF_AGGREGATIONS
    controls.head_choice(view, columns[1:4], "self_view", aggregations, (layers, heads), one_head=long, disabled=long)
    if not long:
        controls.link_controls(view, columns[4], columns[5], lowest=0.05)

    if kind == "decoder":
        st.markdown(t("decoder_text", target=result.target_text))
    if long:
        long_map(view, result, kind)
    else:
        options = view_options(view, kind, view.self_view, lines_query=find_head.lines_query(view, result, kind))
        shown = selection.show(result, options, handle.alignment_heads, ("heatmap", "lines", "grid"))
        if shown.amap.causal:
            st.caption(t("causal_note"))
        charts = [("heatmap", "self-heatmap", "self_heatmap"), ("lines", "head-lines", find_head.LINES_KEY)]
        labels = [[c.label for c in find_head.choices(view, result, kind, side)] for side in ("query", "key")]
        clicks = {find_head.LINES_KEY: lambda: find_head.lines_clicked(*labels)}
        figure_export.shown_figures(view, shown, charts, result, options, clicks=clicks)
        find_head.lines_note(view)
        find_head.opened_weight(view, shown, result, kind)
        st.subheader(t("grid_title"))
        st.caption(t("grid_intro") + " " + t("find_grid_hint"))
        grid = shown.figures["grid"]
        source = figure_export.Source(result, options)
        figure_export.figure(grid, "layer-head-grid", find_head.GRID_KEY, view, source, model=view.model,
                             on_select=find_head.grid_clicked)  # fmt: skip
    find_head.section(view, result, kind)
