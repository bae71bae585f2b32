"""Saliency on the attention pages (Translate & align, Self-attention), when the Measure choice says "saliency":
which input tokens one output token depends on — gradient × input, L2 per token (`attnviz.measures.saliency`) —
as bars (`figures.saliency.saliency_bars`) under the attention figures, which still show the weights. The output
token is chosen in a selectbox, the newest written one first; computed once per input (`caches.saliency_of`)."""

from __future__ import annotations

import streamlit as st

from app_pages.shared import caches, figure_export
from app_pages.shared.session import tr
from app_pages.shared.state import ViewState
from attnviz.errors import InputError
from attnviz.figures import FigureStyle
from attnviz.figures.saliency import saliency_bars
from attnviz.measures import names as measure_view
from attnviz.measures.saliency_scores import SaliencyScores
from attnviz.view.token_units import combined, drawn_units

TOKEN_KEY = "saliency_token"  # the selectbox of the output token explained (an index into the scores' rows)


def section(view: ViewState, handle, result, long: bool = False, given_words: tuple | None = None) -> None:
    """The saliency section for the input `result` shows, read by `handle`'s model, while the view's measure is
    saliency: what it is (one output token, not a layer's map), the token choice and the bars, over the input as
    the maps draw it (words or pieces, special tokens hidden or not; `given_words`: the (source, target) words a
    person typed). `long`: a text read in blocks, for which it is not computed; an encoder-only model gets the
    library's sentence."""
    if view.measure not in measure_view.PER_OUTPUT_TOKEN:
        return
    t = tr(view)
    st.subheader(t("saliency_title"))
    st.caption(t("saliency_intro"))
    if long:
        st.info(t("saliency_long"), icon=":material/info:")
        return
    try:
        scores = caches.saliency_of(view, handle, result)
    except InputError as error:  # a model that writes no token: nothing to explain, said as the library says it
        st.info(error.message(view.lang), icon=":material/info:")
        return
    offered = explainable(scores, view.hide_special)
    index = st.selectbox(
        t("saliency_token"),
        options=offered,
        index=offered.index(newest(scores)),
        format_func=lambda i: t("saliency_token_option", row=scores.rows[i], token=scores.explained[i].text),
        key=TOKEN_KEY,
    )
    source_spans, target_spans = given_words or (None, None)
    parts = [(scores.source_tokens, scores.source[index], result.source_text, source_spans)]
    if scores.prefix is not None:  # (decoder input tokens,): the target written so far
        parts.append((scores.prefix_tokens, scores.prefix[index], result.target_text, target_spans))
    drawn = []
    for tokens, values, text, spans in parts:
        units = drawn_units(tokens, text, words=view.words, hide_special=view.hide_special, spans=spans)
        drawn += [[unit.token for unit in units], combined(values, units, "l2")]  # a word: L2 over its pieces
    prefix_tokens, prefix = drawn[2:] if scores.prefix is not None else (None, None)
    style = FigureStyle(lang=view.lang)
    figure = saliency_bars(
        scores.explained[index], scores.rows[index], *drawn[:2], prefix_tokens, prefix, per_word=view.words, style=style
    )
    source = figure_export.Source(provenance=scores.provenance)
    figure_export.figure(figure, "saliency", "saliency", view, source, model=handle.name)


def explainable(scores: SaliencyScores, hide_special: bool) -> list[int]:
    """The rows a person may choose to explain: every output token, special ones (</s>) left out when the view
    hides them (unless nothing else is left)."""
    rows = list(range(len(scores.rows)))
    shown = [i for i in rows if not scores.explained[i].special]
    return shown if hide_special and shown else rows


def newest(scores: SaliencyScores) -> int:
    """The index of the newest output token that is text (a translation's last word rather than its </s>), or of
    the last one when none is."""
    written = [i for i, token in enumerate(scores.explained) if not token.special]
    return written[-1] if written else len(scores.rows) - 1
