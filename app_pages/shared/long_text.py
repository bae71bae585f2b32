"""Long texts on the attention pages: the model a text longer than the chosen one opens on, the truncation choice
and what it cut, and the long view of one head (pooled whole, an exact block, head lines of a window of tokens)."""

from __future__ import annotations

import numpy as np
import streamlit as st

from app_pages.shared import caches, figure_export, session
from app_pages.shared.state import ViewState
from attnviz import figures
from attnviz.maps import analysis
from attnviz.model import long_texts
from attnviz.view import selection, viewing


def page_model(view: ViewState) -> str:
    """The model the Self-attention and Heads pages read the view's text with: the view's, or — when the text is
    longer than it reads and `view.long_model` is on — the catalogue model with the most positions that reads its
    language (`long_texts.reading_model`); the page says which, with a toggle to keep the chosen model."""
    if caches.without_model(view) is not None or not view.text.strip():
        return view.model
    handle = caches.model(view)
    tokens = caches.source_tokens(view)
    reader = long_texts.reading_model(caches.catalogue_entries(view.lang), view.text, tokens, handle.max_positions)
    if reader is None or reader.name == view.model:
        return view.model
    t = session.tr(view)
    label = t("long_model_toggle", model=reader.name, positions=reader.max_positions)
    session.bound(st.toggle, "long_model", label, help=t("long_model_help"))
    if not view.long_model:
        return view.model
    facts = {"tokens": tokens, "chosen": view.model, "limit": handle.max_positions}
    st.caption(t("long_model_note", model=reader.name, positions=reader.max_positions, **facts))
    return reader.name


def truncate_choice(view: ViewState, name: str | None = None) -> int:
    """The "truncate to the model's limit" toggle, shown when the view's text is longer than the model (the view's,
    or `name`) reads; returns the text's token count (before truncation)."""
    if caches.without_model(view) is not None or not view.text.strip():
        return 0
    handle = caches.model(view, name)
    tokens = caches.source_tokens(view, name)
    limit = handle.max_positions
    if limit is not None and tokens > limit:
        t = session.tr(view)
        help_text = t("long_truncate_help", tokens=tokens, model=handle.name, limit=limit)
        session.bound(st.toggle, "truncate", t("long_truncate", limit=limit), help=help_text)
    return tokens


def truncation_note(view: ViewState, result, tokens: int) -> None:
    """Under a truncated capture: how many tokens it kept of how many, and the text it cut from."""
    if not tokens or caches.without_model(view) is not None:
        return
    source = "self" if "self" in result.kinds else "encoder"
    kept = long_texts.truncation(result.tokens(source)[1], tokens, view.text)
    if kept.cut:
        t = session.tr(view)
        st.warning(
            t("long_truncated", kept=kept.kept, total=kept.total, cut=kept.cut_text), icon=":material/content_cut:"
        )


def long_map(view: ViewState, lazy, kind: str, name: str | None = None) -> None:
    """One head of a long text's map: pooled whole (every cell computed, tile by tile, none kept), one block of it
    exact, chosen by its first query row and first key, and the head lines of a window of tokens; the browser
    receives only these three."""
    t = session.tr(view)
    model = name or view.model
    layers, heads, queries, keys = lazy.shape(kind)
    layer, head = min(view.layer, layers - 1), min(view.head, heads - 1)
    window, bins = viewing.LONG_WINDOW, viewing.LONG_BINS
    st.info(t("long_note", tokens=max(queries, keys), window=window, bins=bins), icon=":material/info:")
    stack = lazy.stack(kind)
    if kind == "self" and view.mode == "generate" and stack.causal:
        st.caption(t("long_not_continued"))
    pooled = caches.pooled(view, kind, layer, head, name)
    labels = selection.weighting_labels(view.weighting, view.lang)
    scale = "head" if view.color_scale == "head" else "unit"  # no other head is computed here to share a maximum with
    pooled_figure = figures.pooled_heatmap(
        pooled,
        stack.query_tokens,
        stack.key_tokens,
        kind=kind,
        layer=layer,
        head=head,
        color_scale=scale,
        style=figures.FigureStyle(lang=view.lang, labels=labels),
    )
    figure_export.figure(pooled_figure, "long-heatmap-pooled", "long_pooled", view, model=model)
    st.subheader(t("long_block_title"))
    starts = st.columns(2)
    row = starts[0].number_input(t("long_first_row"), 0, queries - 1, 0, step=window // 2, key="w_long_row")
    key = starts[1].number_input(t("long_first_key"), 0, keys - 1, 0, step=window // 2, key="w_long_key")
    rows, columns = selection.token_window(queries, int(row)), selection.token_window(keys, int(key))
    if view.weighting == "weights":
        block = lazy.map(kind, layers=layer, heads=head, queries=rows, keys=columns)  # (1, 1, rows, columns), exact
    else:  # each row is scaled by its total over every key, so the block's rows need all their keys first
        whole_rows = lazy.map(kind, layers=layer, heads=head, queries=rows)  # (1, 1, rows, keys)
        block = analysis.crop(selection.weighted(whole_rows, view.weighting), keys=columns)
    spans = {"rows": f"{rows[0]}–{rows[1] - 1}", "keys": f"{columns[0]}–{columns[1] - 1}"}
    title = t("long_block_figure", layer=layer, head=head, **spans)
    block_style = figures.FigureStyle(lang=view.lang, title=title, labels=labels)
    block_figure = figures.heatmap(
        block, value_bar=view.weighting == "value-norm", color_scale=scale, style=block_style
    )
    figure_export.figure(
        block_figure,
        "long-heatmap-block",
        "long_block",
        view,
        figure_export.Source(block, provenance=lazy.provenance),
        model=model,
    )
    if queries == keys:  # self-attention: queries and keys are the same tokens, so a window of them has lines
        lines_window(view, lazy, kind, (layer, head), model)


def lines_window(view: ViewState, lazy, kind: str, chosen: tuple[int, int], model: str) -> None:
    """The head lines of one head over a window of LINES_WINDOW tokens, chosen by a slider: each query of the window
    linked to the keys of the window, and how much of its weight goes outside (never drawn as if it were inside)."""
    t = session.tr(view)
    layer, head = chosen
    tokens = lazy.shape(kind)[2]
    length = min(viewing.LINES_WINDOW, tokens)
    st.subheader(t("long_lines_title"))
    last = tokens - length
    view.lines_from = min(view.lines_from, last)
    if last > 0:
        help_text = t("long_lines_help", window=length)
        session.bound(st.slider, "lines_from", t("long_lines_from"), min_value=0, max_value=last, help=help_text)
    span = selection.token_window(tokens, view.lines_from, length)
    part = lazy.map(kind, layers=layer, heads=head, queries=span, keys=span)  # (1, 1, window, window), exact
    outside = float(np.mean(1.0 - part.weights[0, 0].sum(axis=-1)))  # each row sums to 1 over the whole text
    facts = {"start": span[0], "stop": span[1] - 1, "tokens": tokens, "layer": layer, "head": head}
    st.caption(t("long_lines_note", outside=max(outside, 0.0), **facts))
    threshold = max(view.threshold, 0.01)  # a line needs some weight
    spans = {"rows": f"{span[0]}–{span[1] - 1}", "keys": f"{span[0]}–{span[1] - 1}"}
    style = figures.FigureStyle(lang=view.lang, title=t("long_block_figure", layer=layer, head=head, **spans))
    lines = figures.head_lines(part, layers=0, heads=0, threshold=threshold, style=style)
    figure_export.figure(
        lines,
        "long-head-lines",
        "long_lines",
        view,
        figure_export.Source(part, provenance=lazy.provenance),
        model=model,
    )
