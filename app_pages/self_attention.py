"""Self-attention: how the tokens of one text look at each other, encoder or decoder, one head or many."""

import streamlit as st

from app_pages import caches, controls, figure_export, long_text, session, truth_notes
from app_pages.page_errors import shown_errors
from app_pages.state import view_options
from attnviz import selection

view = session.state()
t = session.tr(view)
st.title(t("self_title"))
st.caption(t("self_intro"))
session.link_warnings(view)

session.bound(st.text_input, "text", t("source_text"), placeholder=t("source_placeholder"))

truth_notes.language_check(view)
with shown_errors(view):
    model = long_text.page_model(view)  # a text longer than the chosen model reads: the longest reader of its language
    tokens = long_text.truncate_choice(view, model)
    handle, result = caches.analysis(view, model)
    truth_notes.caveat_notes(view, result)
    long_text.truncation_note(view, result, tokens)
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
    else:
        controls.weighting_choice(view, columns[4])

    if kind == "decoder":
        st.markdown(t("decoder_text", target=result.target_text))
    if long:
        long_text.long_map(view, result, kind, model)
    else:
        options = view_options(view, kind, view.self_view)
        shown = selection.show(result, options, handle.alignment_heads, ("heatmap", "lines", "grid"))
        if shown.amap.causal:
            st.caption(t("causal_note"))
        charts = [("heatmap", "self-heatmap", "self_heatmap"), ("lines", "head-lines", "self_lines")]
        figure_export.shown_figures(view, shown, charts, result, options, model=model)
        st.subheader(t("grid_title"))
        st.caption(t("grid_intro"))
        grid = shown.figures["grid"]
        source = figure_export.Source(result, options)
        figure_export.figure(grid, "layer-head-grid", "self_grid", view, source, model=model)
