"""What the attention pages add under their figures when a measure of what each layer uses is drawn: the agreement
line (`attnviz.view.agreement`: do the weights and the contributions rank the cells alike?) and, for a translation drawn
with ALTI, each target token's source and target-prefix shares (`figures.shares`)."""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from app_pages.shared import caches
from app_pages.shared.controls import measuring
from app_pages.shared.state import ViewState
from attnviz.errors import AttnvizError
from attnviz.figures import FigureStyle
from attnviz.figures.shares import translation_shares
from attnviz.view import agreement, viewing
from attnviz.view.token_units import combined, drawn_units

COMPARED = ("alti", "value-zeroing")  # the contributions the agreement line ranks the weights against, beside the
# measure drawn (its own ρ is the line's number)


def agreement_line(view: ViewState, handle, result, options: viewing.ViewOptions) -> None:
    """The line "here, attention weights and ALTI contributions agree: ρ = 0.81" — the measure drawn, its own ρ —
    for the layer and rows `options` show of the weights capture `result`, and below it every measure compared;
    only while a measure is drawn (it runs the model for ALTI and value zeroing)."""
    if not measuring(view):
        return
    try:
        compared = dict.fromkeys((view.measure, *COMPARED))  # the measure drawn first, each once
        measured = {name: caches.measure_of(view, handle, result, name) for name in compared}
        found = agreement.view_agreement(result, measured, replace(options, measure=None))
    except AttnvizError as error:  # a model a measure cannot handle: said, the figures above stay
        st.caption(error.message(view.lang))
        return
    except ValueError:  # the measure read the text into other tokens than the capture (a generated text re-read)
        return
    line, detail = agreement.agreement_line(found, options.layer, view.lang, measure=view.measure)
    st.markdown(f"**{line}**")
    if detail:
        st.caption(detail)


def shares(view: ViewState, drawn, key: str = "measure_shares", given_words: tuple | None = None) -> None:
    """Each target token's source and target-prefix shares (ALTI+) under the alignment, when `drawn` has them (the
    figure keyed `key`), over the target as the maps draw it: words (a word's shares the mean of its pieces', as a
    merged map's rows are, so that they still sum to 1) or pieces, special tokens hidden or not; `given_words`:
    the (source, target) words a person typed (`ViewOptions.given_words`)."""
    held = getattr(drawn, "shares", None)
    if held is None or "cross" not in drawn.maps:
        return
    spans = None if given_words is None else given_words[1]
    units = drawn_units(
        drawn["cross"].query_tokens, drawn.target_text, words=view.words, hide_special=view.hide_special, spans=spans
    )
    figure = translation_shares(
        [unit.token for unit in units],
        combined(held.source_share, units, "mean"),  # (target units,)
        combined(held.target_share, units, "mean"),
        style=FigureStyle(lang=view.lang),
    )
    st.plotly_chart(figure, key=key, config={"displaylogo": False})
