"""The explorer file's button on Translate & align and Self-attention: the measures to put in, a button that draws
every figure of this input into one offline HTML file (`attnviz.export.explorer_file`, a progress bar while it
draws), then its size and a download button. The file is said before it is saved; a file too large is refused with
the sentence naming what to leave out.

The made file is kept in this session until the input changes (one file per session: the next one replaces it)."""

from __future__ import annotations

from dataclasses import dataclass, replace

import streamlit as st

from app_pages.shared import caches
from app_pages.shared.page_errors import shown_errors
from app_pages.shared.session import tr
from app_pages.shared.state import ViewState
from attnviz import export
from attnviz.export.explorer_file import ExplorerContent, ExplorerFile, check_plan, explorer_file
from attnviz.measures.names import CONTRIBUTIONS

MADE = "attnviz_explorer_file"  # session key: the file made last (`Made`)
MEASURES_KEY = "w_explorer_measures"


@dataclass(frozen=True)
class Made:
    """An explorer file made in this session, for the input and measures it was made of."""

    made_of: tuple
    name: str
    file: ExplorerFile


def explorer_button(view: ViewState, handle, result, model: str) -> None:
    """The button and what it makes, for the capture `result` of `model` (its `handle` runs the measures)."""
    t = tr(view)
    with st.popover(t("explorer_button"), icon=":material/travel_explore:"):
        st.caption(t("explorer_intro"))
        measures = st.multiselect(
            t("explorer_measures"),
            CONTRIBUTIONS,
            key=MEASURES_KEY,
            format_func=lambda name: t(f"measure_choice.{name}"),
            help=t("explorer_measures_help"),
        )
        made_of = (model, result.source_text, result.target_text, tuple(measures), view.lang)
        held = st.session_state.get(MADE)
        if held is not None and held.made_of != made_of:
            st.session_state.pop(MADE)  # another input: its file is not this one's
            held = None
        if st.button(t("explorer_make"), key="explorer_make", icon=":material/build:"):
            with shown_errors(view):
                held = _make(view, handle, result, model, ExplorerContent(measures=tuple(measures)), made_of)
                st.session_state[MADE] = held
        if held is not None:
            size = f"{held.file.megabytes:.1f}"
            st.caption(t("explorer_ready", name=held.name, size=size, figures=f"{held.file.figures:,}"))
            st.download_button(
                t("explorer_save"),
                data=held.file.data,
                file_name=held.name,
                mime="text/html",
                key="explorer_save",
                on_click="ignore",
                icon=":material/download:",
            )


def _make(view: ViewState, handle, result, model: str, content: ExplorerContent, made_of: tuple) -> Made:
    """The file: its weights' figures counted before a measure runs (refused when they alone are too many), then the
    measures (cached per input), then every figure drawn, a progress bar saying how far."""
    t = tr(view)
    check_plan(result, {}, replace(content, measures=()))
    measures = {name: caches.measure_of(view, handle, result, name) for name in content.measures}
    bar = st.progress(0.0)

    def progress(done: int, total: int) -> None:
        if done % 25 == 0 or done == total:
            bar.progress(done / total, text=t("explorer_making", done=done, total=total))

    made = explorer_file(result, handle.alignment_heads, measures, content, view.lang, progress=progress)
    bar.empty()
    name = export.figure_filename("explorer", "html", model=model, text=result.source_text)
    return Made(made_of, name, made)
