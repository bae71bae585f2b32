"""Gold links on the Translate & align page: the field, the scores of the view in one line, the verdicts drawn on
the alignment, and a layer × head map of AER for the pair whose every cell opens that head."""

from __future__ import annotations

import streamlit as st

from app_pages import figure_export
from app_pages.session import VIEW, bound, reset_widgets, tr
from app_pages.state import ViewState
from attnviz import figures, i18n, selection
from attnviz.corpus.view import GoldShown, show_gold
from attnviz.errors import AttnvizError
from attnviz.figures._common import format_value

HEAD_MAP = "chart_gold_heads"  # the AER map's chart key: its selection opens a head


def field(view: ViewState) -> None:
    t = tr(view)
    bound(st.text_input, "gold", t("corpus_gold_label"), placeholder=t("corpus_gold_placeholder"),
          help=t("corpus_gold_help"))  # fmt: skip


def scored(view: ViewState, result, shown: selection.Shown, options: selection.ViewOptions) -> GoldShown | None:
    """The view against the gold links (None when there are none); a link that cannot be read is said, and the
    figures are drawn without gold."""
    if not view.gold.strip():
        return None
    try:
        return show_gold(result, shown, options, view.gold)
    except AttnvizError as error:
        st.warning(i18n.error_sentence(error, view.lang), icon=":material/rule:")
        return None


def score_line(view: ViewState, gold: GoldShown) -> None:
    t = tr(view)
    s, v = gold.scores.scores, gold.scores
    st.markdown(t("corpus_gold_line", precision=format_value(s.precision), recall=format_value(s.recall),
                  aer=format_value(s.aer), found=len(v.found), missed=len(v.missed), extra=len(v.extra)))  # fmt: skip
    st.caption(t("corpus_gold_words", source=" · ".join(gold.words.source.words),
                 target=" · ".join(gold.words.target.words)))  # fmt: skip


def _open_selected_head() -> None:
    """Chart callback: the clicked cell's head becomes the view's (one head, that layer)."""
    points = st.session_state[HEAD_MAP]["selection"]["points"]
    if points:
        view = st.session_state[VIEW]
        view.view, view.layer, view.head = "head", int(points[0]["y"]), int(points[0]["x"])
        reset_widgets("view", "layer", "head")


def head_map(view: ViewState, gold: GoldShown) -> None:
    t = tr(view)
    st.subheader(t("corpus_head_aer_title"))
    layer, head = gold.heads.best()
    st.caption(t("corpus_head_aer_hint", layer=layer, head=head, aer=format_value(gold.heads.aer[layer, head])))
    fig = figures.score_grid(gold.heads.aer, "aer", style=figures.FigureStyle(lang=view.lang))
    figure_export.figure(fig, "head-aer", HEAD_MAP.removeprefix("chart_"), view, model=view.model,
                         on_select=_open_selected_head)  # fmt: skip
