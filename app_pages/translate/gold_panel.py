"""Gold links on the Translate & align page: the field, the scores of the view in one line, the verdicts drawn on
the alignment, and a layer × head map of AER for the pair whose every cell opens that head. A second translation
model may read the pair the other way: then only the links both directions find count (`attnviz.corpus.view`)."""

from __future__ import annotations

import hashlib
from dataclasses import replace

import streamlit as st

from app_pages.shared import caches, figure_export
from app_pages.shared.session import VIEW, bound, reset_widgets, tr
from app_pages.shared.sidebar import model_label, offered_models
from app_pages.shared.state import ViewState
from app_pages.translate import pair_target
from attnviz import figures, i18n
from attnviz.corpus.pair import PairWords
from attnviz.corpus.view import GoldShown, reading_prefix, reverse_texts, reverse_view, show_gold
from attnviz.corpus.words import segmented
from attnviz.errors import AttnvizError
from attnviz.figures.common import format_value
from attnviz.measures.names import CONTRIBUTIONS
from attnviz.run import RunRequest
from attnviz.text import language
from attnviz.view import viewing

HEAD_MAP = "chart_gold_heads"  # the AER map's chart key: its selection opens a head


GOLD_SEEN = "attnviz_gold_seen"  # the gold links as the last run saw them: a change means they were typed now


def pair_key(view: ViewState) -> str:
    """What gold links index: the source, and the given target or (when the model writes it) the model; the words
    of a pair typed as space-separated words. Links typed for one pair are not scored against another."""
    written = view.target if view.mode == "pair" else f"written by {view.model}"
    pair = "\0".join((view.mode, view.text, written, str(is_segmented(view))))
    return hashlib.sha256(pair.encode("utf-8")).hexdigest()[:12]


def stale(view: ViewState) -> bool:
    """Whether the view's gold links were typed for another pair than the one it shows."""
    return bool(view.gold.strip()) and view.gold_pair != pair_key(view)


def field(view: ViewState) -> None:
    t = tr(view)
    bound(
        st.text_input,
        "gold",
        t("corpus_gold_label"),
        placeholder=t("corpus_gold_placeholder"),
        help=t("corpus_gold_help"),
    )
    _belong_where_typed(view)
    if view.mode == "pair":
        bound(st.checkbox, "segmented", t("corpus_is_segmented"), help=t("corpus_is_segmented_help"))
    if view.gold.strip():
        entries = offered_models(view)

        def label(name: str) -> str:
            return model_label(view, name, entries) if name else t("corpus_reverse_none")

        bound(
            st.selectbox,
            "gold_reverse",
            t("corpus_reverse_label"),
            ["", *reverse_candidates(view)],
            format_func=label,
            help=t("corpus_reverse_help"),
        )


def _belong_where_typed(view: ViewState) -> None:
    """Links typed (or changed) now belong to the pair shown now, as do a link's links that name no pair; links
    kept while the pair changed are said to be another pair's, with a way to keep them for this one or clear them."""
    seen = st.session_state.get(GOLD_SEEN)
    if not view.gold.strip():
        view.gold_pair = ""
    elif view.gold != seen and (seen is not None or not view.gold_pair):
        view.gold_pair = pair_key(view)
    st.session_state[GOLD_SEEN] = view.gold
    if stale(view):
        t = tr(view)
        st.warning(t("gold_stale"), icon=":material/link_off:")
        keep, clear = st.columns(2)
        keep.button(t("gold_stale_keep"), key="gold_keep", on_click=_keep_for_this_pair)
        clear.button(t("gold_stale_clear"), key="gold_clear", on_click=_clear_gold)


def _keep_for_this_pair() -> None:
    view = st.session_state[VIEW]
    view.gold_pair = pair_key(view)


def _clear_gold() -> None:
    view = st.session_state[VIEW]
    view.gold, view.gold_pair = "", ""
    st.session_state[GOLD_SEEN] = ""
    reset_widgets("gold")


def is_segmented(view: ViewState) -> bool:
    return view.segmented and view.mode == "pair" and bool(view.text.split()) and bool(view.target.split())


def as_read(view: ViewState) -> ViewState:
    """The view with the texts the model reads: a pair typed as space-separated words, its words joined."""
    if not is_segmented(view):
        return view
    return replace(view, text=segmented(view.text).text, target=segmented(view.target).text)


def user_words(view: ViewState, result) -> PairWords | None:
    """The words a pair typed as space-separated words gives, in the texts the model read (after its prefix); None:
    the word merge's words index the gold links."""
    if not is_segmented(view):
        return None
    return PairWords(segmented(view.text).behind(reading_prefix(result)), segmented(view.target))


def reverse_candidates(view: ViewState) -> list[str]:
    """Translation models, other than the view's, that could read the pair the other way: the catalogue's, and the
    hub's where this deployment takes hub models, less those that declare they do not read the pair's target or do
    not write its source (a model of the same direction, or of other languages: t5-small reads English but writes
    German, French and Romanian); first those whose source language is not the view model's (the likely reverse
    direction), then those that also read it (many-language models)."""
    entries = offered_models(view)
    own = entries[view.model].languages if view.model in entries else ()
    target = view.target if view.mode == "pair" else pair_target.written(view)
    others = [
        entry
        for entry in entries.values()
        if entry.kind == "encoder-decoder"
        and entry.name != view.model
        and language.reads(entry.languages, target)
        and language.reads(entry.writes, view.text)
    ]
    others.sort(key=lambda entry: bool(own) and bool(set(own) & set(entry.languages)))  # stable: the rest in order
    return [entry.name for entry in others]


def scored(view: ViewState, result, shown: viewing.Shown, options: viewing.ViewOptions) -> GoldShown | None:
    """The view against the gold links (None when there are none), with the reverse model's links when one is
    chosen; `result` is the capture drawn (the weights, or the measure chosen: its map of each layer is scored); a link that cannot be read is said, and the figures are drawn without gold; a reverse model that cannot
    read the pair is said, and the links are scored one way."""
    if not view.gold.strip() or stale(view):  # another pair's links are not scored against this one
        return None
    try:
        reverse = _reverse(view, result)
    except AttnvizError as error:  # the gold links are still scored, one way
        st.warning(i18n.error_sentence(error, view.lang), icon=":material/rule:")
        reverse = None
    try:
        return show_gold(result, shown, options, view.gold, reverse, user_words(view, result))
    except AttnvizError as error:
        st.warning(i18n.error_sentence(error, view.lang), icon=":material/rule:")
        return None


def _reverse(view: ViewState, result):
    """The chosen reverse model's alignment view of the pair read the other way (its source: the pair's target), or
    None when none is chosen."""
    if not view.gold_reverse or not result.target_text:
        return None
    handle = caches.model(view, view.gold_reverse)
    source, target = reverse_texts(result)
    backward = caches.cached_analysis(caches.key_of(view, view.gold_reverse), RunRequest(source, target))
    return reverse_view(backward, handle.alignment_heads, reading_prefix(result))


def score_line(view: ViewState, gold: GoldShown) -> None:
    t = tr(view)
    s, v = gold.scores.scores, gold.scores
    st.markdown(
        t(
            "corpus_gold_line",
            precision=format_value(s.precision),
            recall=format_value(s.recall),
            aer=format_value(s.aer),
            found=len(v.found),
            missed=len(v.missed),
            extra=len(v.extra),
        )
    )
    st.caption(
        t("corpus_gold_words", source=" · ".join(gold.words.source.words), target=" · ".join(gold.words.target.words))
    )
    if gold.both_directions:
        st.caption(t("corpus_reverse_line", model=view.gold_reverse))


def _open_selected_head() -> None:
    """Chart callback: the clicked cell's head becomes the view's (one head, that layer); a contributions map's
    cell, its layer."""
    points = st.session_state[HEAD_MAP]["selection"]["points"]
    if points:
        view = st.session_state[VIEW]
        per_layer = view.measure in CONTRIBUTIONS
        view.cross_aggregation = "layer" if per_layer else "head"
        view.layer, view.head = int(points[0]["y"]), 0 if per_layer else int(points[0]["x"])
        reset_widgets("cross_aggregation", "layer", "head")


def head_map(view: ViewState, gold: GoldShown) -> None:
    """The AER of each head of the pair (each layer, for a contributions measure), whose cells open what they
    score."""
    t = tr(view)
    layer, head = gold.heads.best()
    aer = format_value(gold.heads.aer[layer, head])
    per_layer = gold.measure in CONTRIBUTIONS
    if per_layer:
        st.subheader(t("corpus_layer_measure_aer_title", measure=t(f"measure_figure.{gold.measure}")))
        st.caption(t("corpus_layer_measure_aer_hint", layer=layer, aer=aer))
    else:
        st.subheader(t("corpus_head_aer_title"))
        st.caption(t("corpus_head_aer_hint", layer=layer, head=head, aer=aer))
    style = figures.FigureStyle(lang=view.lang)
    fig = figures.score_grid(gold.heads.aer, "aer", style=style, measure=gold.measure if per_layer else None)
    figure_export.figure(
        fig, "head-aer", HEAD_MAP.removeprefix("chart_"), view, model=view.model, on_select=_open_selected_head
    )
