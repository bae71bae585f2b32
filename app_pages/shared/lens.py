"""The lenses on the pages: the logit lens (Self-attention, Translate & align), what each layer's residual stream
predicts as the next token, and DecoderLens (Translate & align), what a translator's decoder writes from each encoder
layer with that writing's cross-attention. Both run the model, so each starts from a toggle bound to the view (part
of the page's link) and is computed once per input (`caches`); which lens applies to a model is
`attnviz.view.lenses.lenses_for`'s choice."""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from app_pages.shared import caches, figure_export
from app_pages.shared.page_errors import shown_errors
from app_pages.shared.session import bound, tr
from app_pages.shared.state import ViewState, view_options
from attnviz.figures import FigureStyle
from attnviz.figures.lens import decoder_lens_grid, logit_lens_figures
from attnviz.i18n.lens import STRINGS as LENS_WORDS
from attnviz.measures.lens_results import last_layer_choices, reading_labels, stream_file_part
from attnviz.text.tokens import drawable, shown
from attnviz.view.lenses import (
    DECODER_LENS,
    LENS_WINDOW,
    LOGIT_LENS,
    lens_window,
    lenses_for,
    reading_alignment,
    reading_choice,
    reading_choices,
)


def logit_section(view: ViewState, handle, result) -> None:
    """The logit lens of the input `result` shows: what it is, a toggle, then its grid and lines; a model that
    predicts no next token (an encoder) gets the sentence that says so instead of the toggle."""
    t = tr(view)
    st.subheader(t("lens_title"))
    st.caption(t("lens_intro"))
    if LOGIT_LENS not in lenses_for(handle.kind):
        # a property of the model, not a fault of the input: said as a plain line, never as an error
        st.caption(t("error.lens_no_next_token", model=handle.name))
        return
    bound(st.toggle, "logit_lens", t("lens_toggle"), help=t("lens_toggle_help"))
    if not view.logit_lens:
        return
    with shown_errors(view):
        lens = caches.logit_lens_of(view, handle, result)
        if lens.kind == "decoder":
            st.caption(t("lens_decoder_read", target=lens.provenance.get("target_text") or ""))
        window = _window(view, len(lens.tokens))
        grid, lines = logit_lens_figures(lens, FigureStyle(lang=view.lang), window)
        source = figure_export.Source(provenance=lens.provenance)
        figure_export.figure(grid, "logit-lens", "logit_lens_grid", view, source, model=handle.name)
        figure_export.figure(lines, "logit-lens-lines", "logit_lens_lines", view, source, model=handle.name)
        st.markdown(t("lens_last_line", tokens=_last_row(view, lens)))


def _window(view: ViewState, positions: int) -> tuple[int, int] | None:
    """The positions drawn, chosen by a slider when they take more than one window (`lenses.lens_window`)."""
    if lens_window(positions, 0) is None:
        return None
    t = tr(view)
    last = positions - LENS_WINDOW
    view.lens_from = min(max(view.lens_from, 0), last)  # a link made with a longer text: its window, kept inside
    bound(
        st.slider,
        "lens_from",
        t("lens_from"),
        min_value=0,
        max_value=last,
        help=t("lens_from_help", window=LENS_WINDOW),
    )
    window = lens_window(positions, view.lens_from)
    st.caption(t("lens_window_line", first=window[0], last=window[1] - 1, positions=positions))
    return window


def _last_row(view: ViewState, lens) -> str:
    """The last layer's first choice at every position, with its probability: the model's own prediction."""
    t = tr(view)
    said = [
        t(
            "truth_token_probability", token=drawable(shown(token)), probability=f"{probability:.3f}"
        )  # "\\n" as text, not a break
        for token, probability in last_layer_choices(lens)
    ]
    return t("truth_list_separator").join(said)


def decoder_section(view: ViewState, handle, result) -> None:
    """DecoderLens of the source `result` shows, for a translator: what it is, a toggle, then the grid of what the
    decoder writes from each encoder layer, each writing with its tokens' probabilities, and the cross-attention
    alignment of the writing the view chose (`decoder_lens_layer`; the last layer's by default: the translation)."""
    if DECODER_LENS not in lenses_for(handle.kind):
        return
    t = tr(view)
    st.subheader(t("decoder_lens_title"))
    st.caption(t("decoder_lens_intro"))
    bound(st.toggle, "decoder_lens", t("decoder_lens_toggle"), help=t("decoder_lens_toggle_help"))
    if not view.decoder_lens:
        return
    with shown_errors(view):
        lens = caches.decoder_lens_of(view, handle, result)
        style = FigureStyle(lang=view.lang)
        source = figure_export.Source(provenance=lens.provenance)
        figure_export.figure(
            decoder_lens_grid(lens, style), "decoder-lens", "decoder_lens_grid", view, source, model=handle.name
        )
        labels = reading_labels(lens, LENS_WORDS[view.lang])
        for label, reading in zip(labels, lens.readings):
            st.markdown(
                t(
                    "decoder_lens_line",
                    layer=label,
                    text=reading.target_text or t("decoder_lens_nothing"),
                    tokens=_tokens(view, reading),
                )
            )
        st.markdown(t("decoder_lens_last", layer=labels[-1], text=lens.readings[-1].target_text or ""))
        choices = reading_choices(lens)  # a choice → its reading's index
        view.decoder_lens_layer = reading_choice(lens, view.decoder_lens_layer)  # a link's layer, clamped
        chosen = bound(
            st.selectbox,
            "decoder_lens_layer",
            t("decoder_lens_pick"),
            options=list(choices),
            format_func=lambda choice: labels[choices[choice]],
        )
        index = choices[chosen]
        reading = lens.readings[index]
        options = replace(view_options(view, "cross", "alignment"), measure=None)  # the readings hold weights
        drawn = reading_alignment(lens, index, options, handle.alignment_heads)
        source = figure_export.Source(reading, options, drawn.selection.file_heads())
        figure_export.figure(
            drawn.figures["alignment"],
            f"decoder-lens-{stream_file_part(lens.layers[index])}-alignment",  # layers numbered as the heads
            "decoder_lens_alignment",
            view,
            source,
            model=handle.name,
        )


def _tokens(view: ViewState, reading) -> str:
    """Each written token with its probability."""
    t = tr(view)
    said = [
        t("truth_token_probability", token=drawable(shown(step.token)), probability=f"{step.probability:.3f}")
        for step in reading.steps or []
    ]
    return t("truth_list_separator").join(said)
