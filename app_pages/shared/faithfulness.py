"""Which explanation to believe, on the attention pages (Translate & align, Self-attention, Heads) beside the Measure
choice, and at the end of How attention works: every measure scored on the page's own input by removing tokens in its
order (`attnviz.measures.faithfulness`), the verdict in one sentence (`attnviz.maps.faithfulness_verdict`), its two
figures with their files, and every score as a table and a CSV. Computed when the toggle is switched on, once per
input and output (`caches.faithfulness_of`).

On Translate & align, `detached_line` says beside the translation whether it reads its source (ALTI+ source share
with the sequence log-probability: `attnviz.maps.detachment`), with its threshold and definition."""

from __future__ import annotations

import streamlit as st

from app_pages.shared import caches, figure_export
from app_pages.shared.session import tr
from app_pages.shared.state import ViewState
from attnviz import i18n
from attnviz.errors import AttnvizError
from attnviz.export.faithfulness_file import scores_bytes
from attnviz.figures import FigureStyle
from attnviz.figures.faithfulness import deletion_figure, scoreboard_figure
from attnviz.maps.detachment import detachment_lines
from attnviz.maps.faithfulness_verdict import verdict, verdict_sentence
from attnviz.measures.faithfulness import RANDOM_ORDERS
from attnviz.model.load import ModelHandle

TOGGLE_KEY = "faithfulness_on"  # the toggle that computes the scoreboard
ROW_KEY = "faithfulness_row"  # a translator's output scored: a target row, or the whole target
MOST_TOKENS = 96  # input tokens beyond which the scoreboard is not computed on a page (its passes grow as n²)
WHOLE = -1  # the row choice "the whole target"


def section(view: ViewState, handle, result, long: bool = False, key: str = "faithfulness") -> None:
    """The scoreboard of the input `result` shows, read by `handle`'s model, in an expander; `long`: a text read in
    blocks, for which it is not computed. `key` keeps two pages' widgets apart. Nothing for a capture opened from a
    file without its model (the scoreboard runs the model)."""
    if not isinstance(handle, ModelHandle):
        return
    t = tr(view)
    with st.expander(t("faithfulness_title"), icon=":material/balance:"):
        if long or len(result[result.kinds[0]].key_tokens) > MOST_TOKENS:
            st.info(t("faithfulness_long", most=MOST_TOKENS), icon=":material/info:")
            return
        row = _row_choice(view, result, key) if "cross" in result.maps else None
        if handle.is_seq2seq and row is None:  # no target yet: the model writes one and the whole of it is scored
            row = WHOLE
        mask = handle.tokenizer.mask_token or handle.tokenizer.unk_token or handle.tokenizer.pad_token
        output = _output_words(view, handle, result, row)
        st.caption(t("faithfulness_intro", output=output, mask=mask, orders=RANDOM_ORDERS))
        if not st.toggle(t("faithfulness_button"), key=f"{key}_{TOGGLE_KEY}"):
            return
        try:
            board = caches.faithfulness_of(view, handle, result, None if row == WHOLE else row)
        except AttnvizError as error:  # a model a measure or the removal cannot handle: said, the page goes on
            st.info(i18n.error_sentence(error, view.lang), icon=":material/info:")
            return
        _board(view, board, handle.name, key)


def _board(view: ViewState, board, model: str, key: str) -> None:
    """The verdict, what was not scored and why, the two figures, and the scores."""
    t = tr(view)
    found = verdict(board)
    st.markdown(f"**{verdict_sentence(found, view.lang)}**")
    for measure, reason in board.unavailable.items():
        said = i18n.t(f"error.{reason}", view.lang, model=model) if i18n.has(f"error.{reason}", view.lang) else reason
        st.caption(t("faithfulness_unavailable", measure=t(f"faithfulness_measure.{measure}"), reason=said))
    style = FigureStyle(lang=view.lang)
    files = figure_export.Source(provenance=board.provenance, recorded={"verdict": found.reason})
    figure_export.figure(scoreboard_figure(board, found, style=style), "faithfulness", key, view, files, model)
    deletion = deletion_figure(board, board.baselines[0], style=style)
    figure_export.figure(deletion, "faithfulness-deletion", f"{key}_deletion", view, files, model)
    st.dataframe(board.table(), hide_index=True)
    st.caption(t("faithfulness_table_caption"))
    st.download_button(
        t("faithfulness_download_scores"),
        data=scores_bytes(board, found, "csv"),
        file_name=f"faithfulness_{model}.csv",
        mime="text/csv",
        key=f"{key}_scores_csv",
        on_click="ignore",
        icon=":material/download:",
    )


def _row_choice(view: ViewState, result, key: str) -> int:
    """A translator's output scored: one target token (the newest written word first) or the whole target."""
    t = tr(view)
    targets = result["cross"].query_tokens
    written = [i for i, token in enumerate(targets) if not token.special]
    newest = written[-1] if written else len(targets) - 1
    options = [*range(len(targets)), WHOLE]
    return st.selectbox(
        t("faithfulness_row"),
        options=options,
        index=newest,
        format_func=lambda i: t("faithfulness_row_whole") if i == WHOLE else f"{i}: {targets[i].text}",
        key=f"{key}_{ROW_KEY}",
    )


def _output_words(view: ViewState, handle, result, row: int | None) -> str:
    """The output scored, as the intro names it."""
    if handle.kind == "encoder":
        return i18n.t("faithfulness_output_pooled", view.lang)
    if row is None:
        return i18n.t("faithfulness_output_next_plain", view.lang)
    if row == WHOLE:
        return i18n.t("faithfulness_output_whole", view.lang)
    token = result["cross"].query_tokens[row].text
    return i18n.t("faithfulness_output_token", view.lang, token=token, row=row)


def detached_line(view: ViewState, handle, result) -> None:
    """Beside a translation: whether it reads its source (the flag, or its two numbers where no threshold is
    calibrated), and under it the flag's definition and thresholds."""
    if not isinstance(handle, ModelHandle) or not handle.is_seq2seq or not result.target_text:
        return
    try:
        found = caches.detachment_of(view, handle, result)
    except AttnvizError as error:  # an architecture ALTI cannot decompose: said, the page goes on
        st.caption(i18n.error_sentence(error, view.lang))
        return
    line, definition = detachment_lines(found, view.lang)
    (st.warning if found.flagged else st.markdown)(line)
    st.caption(definition)
