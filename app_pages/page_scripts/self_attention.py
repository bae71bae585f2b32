"""Self-attention: how the tokens of one text look at each other, encoder or decoder, one head or many."""

import streamlit as st

from app_pages.self_attention import find_head, live_panel, prompt_panel
from app_pages.shared import (
    caches,
    controls,
    explorer_download,
    faithfulness,
    figure_export,
    head_effects,
    lens,
    long_text,
    measures,
    saliency,
    session,
    truth_notes,
)
from app_pages.shared.page_errors import shown_errors
from app_pages.shared.state import ViewState, view_options
from attnviz.view import head_choice, selection, viewing


def rollout_controls(view: ViewState, columns, layers: int) -> None:
    """The rollout's layer range (first, last, both included) and its residual term, for a map of `layers` layers."""
    view.rollout_last = min(view.rollout_last, layers - 1)
    view.rollout_first = min(view.rollout_first, view.rollout_last)
    session.bound(columns[0].selectbox, "rollout_first", t("qk_rollout_first"), options=range(layers))
    session.bound(columns[1].selectbox, "rollout_last", t("qk_rollout_last"), options=range(view.rollout_first, layers))
    with columns[2]:
        session.bound(st.toggle, "residual", t("qk_rollout_residual"), help=t("qk_rollout_residual_help"))


view = session.state()
t = session.tr(view)
session.text_page_top(view, t("self_title"), t("self_intro"))

truth_notes.language_check(view)
with shown_errors(view):
    model = long_text.page_model(view)  # a text longer than the chosen model reads: the longest reader of its language
    tokens = long_text.truncate_choice(view, model)
    handle, continued = caches.analysis(view, model)
    truth_notes.caveat_notes(view, continued)
    result = prompt_panel.prompt_choice(view, continued)  # a decoder's continuation, or the user's text alone
    long_text.truncation_note(view, continued, tokens)
    columns = st.columns([2, 2, 1, 1, 2, 2])
    if handle.is_seq2seq:
        stacks = {"options": viewing.STACKS, "format_func": lambda s: t(f"stack_{s}"), "horizontal": True}
        session.bound(columns[0].radio, "stack", t("stack"), **stacks)
    else:
        columns[0].markdown(t("stack_single", kind=t(f"model_kind_{handle.kind}")))  # (kind_* name the maps)
    kind = selection.self_attention_kind(result, view.stack)
    long = not result.is_complete  # a long text: one head at a time, pooled, with exact values for a block
    drawn = result if long else caches.measured(view, handle, result)  # the weights, or the measure chosen
    layers, heads, queries, keys = drawn.shape(kind)
    measuring = controls.measuring(view) and not long
    aggregations = head_choice.offered_aggregations(kind, "weights" if long else view.measure)  # long: weights only
    controls.head_choice(
        view, columns[1:4], "self_aggregation", aggregations, (layers, heads), one_head=long, disabled=long
    )
    if not long:
        controls.link_controls(view, columns[4], columns[5], lowest=0.05)
    else:
        controls.weighting_choice(view, columns[4])
    faithfulness.section(view, handle, result, long=long, key="self_faithfulness")  # beside the Measure choice
    if view.self_aggregation == viewing.ROLLOUT and not long:
        rollout_controls(view, st.columns([2, 2, 4]), layers)
        st.caption(t("qk_rollout_note_decoder" if kind == "decoder" else "qk_rollout_note"))

    if kind == "decoder":
        st.markdown(t("decoder_text", target=result.target_text))
    live_panel.watch(view, handle, continued, kind)  # a decoder's continuation, token by token, above its view
    if long:
        long_text.long_map(view, result, kind, model)
        saliency.section(view, handle, result, long=True)
    else:
        options = view_options(view, kind, view.self_aggregation, lines_query=find_head.lines_query(view, result, kind))
        shown = selection.show(drawn, options, handle.alignment_heads, ("heatmap", "lines", "grid"))
        if shown.amap.causal:
            st.caption(t("causal_note"))
        charts = [("heatmap", "self-heatmap", "self_heatmap"), ("lines", "head-lines", find_head.LINES_KEY)]
        labels = [[c.label for c in find_head.choices(view, result, kind, side)] for side in ("query", "key")]
        clicks = {find_head.LINES_KEY: lambda: find_head.lines_clicked(*labels)}
        figure_export.shown_figures(view, shown, charts, drawn, options, model=model, clicks=clicks)
        explorer_download.explorer_button(view, handle, result, model)
        measures.agreement_line(view, handle, result, options)
        saliency.section(view, handle, result)  # a decoder's output token; an encoder's: why there is none
        find_head.lines_note(view)
        if not measuring:  # it says which weight a clicked cell holds
            find_head.opened_weight(view, shown, result, kind)
        st.subheader(t("grid_title"))
        st.caption(t("grid_intro") + " " + t("find_grid_hint"))
        grid = shown.figures["grid"]
        source = figure_export.Source(drawn, options)
        figure_export.figure(
            grid, "layer-head-grid", find_head.GRID_KEY, view, source, model=model, on_select=find_head.grid_clicked
        )
        head_effects.section(view, model, kind, "self_effects")
        lens.logit_section(view, handle, result)  # computed only once its toggle is on
    find_head.section(view, result, kind)
    head_effects.find_by_effect(view, handle, model, kind)
