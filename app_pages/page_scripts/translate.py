"""Translate & align: cross-attention from every target token back to the source, as an alignment and a heatmap."""

from dataclasses import replace

import streamlit as st

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
from app_pages.shared.state import view_options
from app_pages.translate import gold_panel, live_panel, pair_target
from attnviz.corpus.view import gold_record
from attnviz.maps import replay
from attnviz.run import MODES
from attnviz.text.excerpts import excerpt
from attnviz.view import focus, head_choice, selection

LINE_CHARS = 300  # characters of the source and the translation the line above the controls quotes

view = session.state()
t = session.tr(view)
st.title(t("translate_title"))
st.caption(t("translate_intro"))
session.link_warnings(view)

pair_target.start(view)
left, right = st.columns([3, 2])
with left:
    session.bound(st.text_input, "text", t("source_text"), placeholder=t("source_placeholder"))
with right:
    modes = {"format_func": lambda m: t(f"mode_{m}"), "horizontal": True, "on_change": pair_target.mode_changed}
    session.bound(st.radio, "mode", t("mode"), options=MODES, **modes)
    if view.mode == "pair":
        given = {"placeholder": t("target_placeholder"), "on_change": pair_target.target_typed}
        session.bound(st.text_input, "target", t("target_text"), **given)
    gold_panel.field(view)

truth_notes.language_check(view)
with shown_errors(view):
    read = gold_panel.as_read(view)  # the texts the model reads: a pair of space-separated words, joined
    tokens = long_text.truncate_choice(read)
    handle, result = caches.analysis(read)
    truth_notes.caveat_notes(view, result)
    long_text.truncation_note(read, result, tokens)
    result = selection.whole_capture(result, ["cross"])  # a long source: its cross map is still small (target rows)
    if view.mode == "pair" and view.target.strip() and not handle.is_seq2seq:  # typed, and not read: said
        st.warning(t("target_not_read", model=view.model), icon=":material/warning:")
    if "cross" not in result.maps:
        st.info(t("no_cross", model=view.model), icon=":material/info:")
    else:
        if view.mode == "generate":
            st.markdown(
                t(
                    "translation_line",
                    text=excerpt(result.source_text, view.lang, LINE_CHARS),
                    translation=excerpt(result.target_text or "", view.lang, LINE_CHARS),
                )
            )
            pair_target.remember(view, result.target_text)
            live_panel.watch(view, read, handle)  # the same writing, token by token, above its replay
        faithfulness.detached_line(read, handle, result)  # does the translation read its source?
        drawn = caches.measured(read, handle, result)  # the weights, or the measure chosen (one map per layer)
        measuring = controls.measuring(view)
        cross = drawn["cross"]
        columns = st.columns([2, 1, 1, 2, 2])
        shape = (cross.num_layers, cross.num_heads)
        aggregations = head_choice.offered_aggregations("cross", view.measure)
        controls.head_choice(view, columns, "cross_aggregation", aggregations, shape, help=t("aggregation_help"))
        controls.link_controls(view, columns[3], columns[4], lowest=0.0)
        faithfulness.section(read, handle, result, key="translate_faithfulness")  # beside the Measure choice

        options = view_options(view, "cross", view.cross_aggregation)
        given = gold_panel.user_words(view, result)  # a pair typed as words: the word view draws those words
        if given is not None:
            options = replace(options, given_words=(given.source.spans, given.target.spans))
        written = selection.prepare(drawn, options)
        steps = replay.step_count(written)
        step = controls.replay_slider(view, steps)
        names = ("alignment", "heatmap")
        shown = selection.show_map(written, replace(options, step=step), handle.alignment_heads, names)
        if not measuring:  # its sentence says where the newest token looked: weights only
            hidden = focus.hidden_focus(result, replace(options, step=step), shown.selection, handle.alignment_heads)
            controls.step_focus(view, shown.selection, step or steps, steps, hidden)
        scores = replay.step_scores(result)
        truth_notes.step_line(view, replay.replayed_scores(scores, written, step), scores)
        gold = gold_panel.scored(view, drawn, shown, replace(options, step=step))  # the map drawn, weights or not
        if gold is not None:
            shown = gold.shown
            gold_panel.score_line(view, gold)
        charts = [("alignment", "alignment", "translate_alignment"), ("heatmap", "heatmap", "translate_heatmap")]
        recorded = (
            gold_record(view.gold, view.gold_reverse if gold.both_directions else None) if gold is not None else {}
        )
        figure_export.shown_figures(view, shown, charts, drawn, replace(options, step=step), recorded=recorded)
        explorer_download.explorer_button(read, handle, result, read.model)
        measures.shares(view, drawn, given_words=options.given_words)  # over the target as the maps draw it
        measures.agreement_line(view, handle, result, replace(options, step=step))
        saliency.section(read, handle, result, given_words=options.given_words)  # about one target token
        truth_notes.step_table(view, scores, truth_notes.beams_of(result))
        if gold is not None:
            gold_panel.head_map(view, gold)
        lens.logit_section(read, handle, result)  # each computed only once its toggle is on
        lens.decoder_section(read, handle, result)
        head_effects.find_by_effect(read, handle, read.model, "cross")
