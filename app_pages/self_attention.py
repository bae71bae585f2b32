"""Self-attention: how the tokens of one text look at each other, encoder or decoder, one head or many."""

import streamlit as st

from app_pages import common
from attnviz import figures, views


def long_map(view: views.ViewState, lazy, kind: str) -> None:
    """One head of a long text's map: pooled whole (every cell computed, tile by tile, none kept), and one block of
    it exact, chosen by its first query row and first key; the browser receives only these two."""
    t = common.tr(view)
    layers, heads, queries, keys = lazy.shape(kind)
    layer, head = min(view.layer, layers - 1), min(view.head, heads - 1)
    st.info(
        t("long_note", tokens=max(queries, keys), window=views.LONG_WINDOW, bins=views.LONG_BINS),
        icon=":material/info:",
    )
    if kind == "self" and view.mode == "generate" and lazy.stack(kind).causal:
        st.caption(t("long_not_continued"))
    target = common.forced_target(view)
    with st.spinner(t("pooling"), show_time=True):
        pooled = common.cached_pooled(view.model, view.device, view.text, target, view.mode, kind, layer, head)
    stack = lazy.stack(kind)
    common.figure(
        figures.pooled_heatmap(
            pooled,
            stack.query_tokens,
            stack.key_tokens,
            kind=kind,
            layer=layer,
            head=head,
            style=figures.FigureStyle(lang=view.lang),
        ),
        "long-heatmap-pooled",
        "long_pooled",
        view,
        model=view.model,
    )
    st.subheader(t("long_block_title"))
    starts = st.columns(2)
    row = starts[0].number_input(t("long_first_row"), 0, queries - 1, 0, step=views.LONG_WINDOW // 2, key="w_long_row")
    key = starts[1].number_input(t("long_first_key"), 0, keys - 1, 0, step=views.LONG_WINDOW // 2, key="w_long_key")
    rows, columns = views.token_window(queries, int(row)), views.token_window(keys, int(key))
    block = lazy.map(kind, layers=layer, heads=head, queries=rows, keys=columns)  # (1, 1, rows, columns), exact
    title = t(
        "long_block_figure",
        layer=layer,
        head=head,
        rows=f"{rows[0]}–{rows[1] - 1}",
        keys=f"{columns[0]}–{columns[1] - 1}",
    )
    common.figure(
        figures.heatmap(block, style=figures.FigureStyle(lang=view.lang, title=title)),
        "long-heatmap-block",
        "long_block",
        view,
        data=block,
        model=view.model,
    )


view = common.state()
t = common.tr(view)
st.title(t("self_title"))
st.caption(t("self_intro"))
common.link_warnings(view)

common.bound(st.text_input, "text", t("source_text"), placeholder=t("source_placeholder"))

with common.shown_errors(view):
    handle, result = common.analysis(view)
    controls = st.columns([2, 2, 1, 1, 2, 2])
    if handle.is_seq2seq:
        common.bound(
            controls[0].radio,
            "stack",
            t("stack"),
            options=views.STACKS,
            format_func=lambda s: t(f"stack_{s}"),
            horizontal=True,
        )
    else:
        controls[0].markdown(t("stack_single", kind=t(f"kind_{handle.kind}")))
    kind = views.self_attention_kind(result, view.stack)
    layers, heads, queries, keys = views.map_shape(result, kind)
    long = views.is_lazy(result)  # a long text: one head at a time, pooled, with exact values for a block
    common.bound(
        controls[1].selectbox,
        "self_view",
        t("aggregation"),
        options=views.SELF_AGGREGATIONS,
        format_func=lambda a: t(f"aggregation_{a}"),
        disabled=long,
    )
    common.bound(
        controls[2].selectbox,
        "layer",
        t("layer"),
        options=range(layers),
        disabled=view.self_view == "all" and not long,
    )
    common.bound(
        controls[3].selectbox,
        "head",
        t("head"),
        options=range(heads),
        disabled=view.self_view != "head" and not long,
    )
    if not long:
        common.link_controls(controls[4], controls[5], t, lowest=0.05)

    if kind == "decoder":
        st.markdown(t("decoder_text", target=result.target_text))
    if long:
        long_map(view, result, kind)
    else:
        amap = views.prepare_map(result, kind, hide=view.hide, words=view.words)
        selection = views.head_selection(amap, view.self_view, view.layer, view.head)
        if amap.causal:
            st.caption(t("causal_note"))

        figure_left, figure_right = st.columns(2)
        with figure_left:
            common.figure(
                figures.heatmap(amap, **common.figure_options(selection, view)),
                "self-heatmap",
                "self_heatmap",
                view,
                data=amap,
                model=view.model,
            )
        with figure_right:
            common.figure(
                figures.head_lines(
                    amap,
                    **views.head_lines_options(selection, view.self_view),
                    style=figures.FigureStyle(lang=view.lang),
                    threshold=max(view.threshold, 0.01),
                ),
                "head-lines",
                "self_lines",
                view,
                data=amap,
                model=view.model,
            )
        st.subheader(t("grid_title"))
        st.caption(t("grid_intro"))
        common.figure(
            figures.grid(amap, style=figures.FigureStyle(lang=view.lang)),
            "layer-head-grid",
            "self_grid",
            view,
            data=amap,
            model=view.model,
        )
