"""Alignment diagram: source tokens on one line, target tokens on another, links as strong as the weight."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from attnviz import analysis
from attnviz.errors import InputError
from attnviz.figures._common import (
    base_layout,
    clamp,
    figure_title,
    format_value,
    resolve_labels,
    selection_text,
    token_label,
)
from attnviz.types import AttentionMap

LINK_COLOR = "#1f4e9c"
MIN_WIDTH, MAX_WIDTH = 0.5, 10.0  # px at weight 0 and weight 1
MIN_OPACITY = 0.15


def link_width(weight: float) -> float:
    """Line width in px for a weight in [0, 1]; the same weight always draws the same width across figures."""
    return MIN_WIDTH + (MAX_WIDTH - MIN_WIDTH) * float(np.clip(weight, 0.0, 1.0))


def link_opacity(weight: float) -> float:
    return MIN_OPACITY + (1.0 - MIN_OPACITY) * float(np.clip(weight, 0.0, 1.0))


def strongest_links(matrix: np.ndarray, threshold: float, top_k: int | None) -> list[tuple[int, int, float]]:
    """(query, key, weight) links: per query row, the `top_k` largest weights that reach `threshold`."""
    links = []
    for query, row in enumerate(matrix):
        order = np.argsort(-row, kind="stable")
        chosen = order if top_k is None else order[:top_k]
        links.extend((query, int(key), float(row[key])) for key in chosen if row[key] >= threshold and row[key] > 0)
    return links


def _positions(count: int) -> np.ndarray:
    """Evenly spread x positions in (0, 1), so two lines of different lengths span the same width."""
    return (np.arange(count) + 0.5) / max(count, 1)


def alignment(
    amap: AttentionMap,
    *,
    layers: int | Sequence[int] | None = None,
    heads: int | Sequence[int] | None = None,
    head_reduce: str = "mean",
    layer_reduce: str = "mean",
    threshold: float = 0.1,
    top_k: int | None = 3,
    color: str = LINK_COLOR,
    model: str | None = None,
    title: str | None = None,
    lang: str = "en",
    labels: Mapping[str, str] | None = None,
    width: int | None = None,
    height: int | None = None,
) -> go.Figure:
    """Keys (source) on the top line, queries (target) on the bottom line, a link per strong (query, key) pair.

    For cross-attention this is the translation alignment (早上好 → Good Morning); for self-attention both lines
    are the same sentence. Each link is its own trace: width `link_width(w)`, opacity `link_opacity(w)`, and its
    weight in `customdata`; a hover marker at each link's middle reads "query → key: weight".
    Links: for each target token, its `top_k` strongest keys (None = all) whose weight is at least `threshold`.
    """
    if not 0 <= threshold <= 1:
        raise InputError(f"The link threshold must lie between 0 and 1; got {threshold}.")
    if top_k is not None and (not isinstance(top_k, (int, np.integer)) or isinstance(top_k, bool) or top_k < 1):
        raise InputError(f"top_k must be at least 1 (or None for every link); got {top_k}.")
    text = resolve_labels(lang, labels)
    matrix = analysis.aggregate(amap, layers, heads, head_reduce, layer_reduce)  # (queries, keys)
    key_x, query_x = _positions(len(amap.key_tokens)), _positions(len(amap.query_tokens))
    key_labels = [token_label(t) for t in amap.key_tokens]
    query_labels = [token_label(t) for t in amap.query_tokens]
    links = strongest_links(matrix, threshold, top_k)

    fig = go.Figure()
    for query, key, weight in sorted(links, key=lambda link: link[2]):  # strongest drawn last, on top
        fig.add_trace(
            go.Scatter(
                x=[key_x[key], query_x[query]],
                y=[1.0, 0.0],
                mode="lines",
                line=dict(width=link_width(weight), color=color),
                opacity=link_opacity(weight),
                customdata=[weight, weight],
                name=f"{query_labels[query]} → {key_labels[key]}",
                hoverinfo="skip",
                showlegend=False,
            )
        )
    if links:
        fig.add_trace(
            go.Scatter(
                x=[(key_x[k] + query_x[q]) / 2 for q, k, _ in links],
                y=[0.5] * len(links),
                mode="markers",
                marker=dict(size=10, color=color, opacity=0.0),
                text=[
                    text["hover"].format(query=query_labels[q], key=key_labels[k], value=format_value(w))
                    for q, k, w in links
                ],
                hovertemplate="%{text}<extra></extra>",
                showlegend=False,
                name="hover",
            )
        )
    for labels_, xs, y, position in (
        (key_labels, key_x, 1.0, "top center"),
        (query_labels, query_x, 0.0, "bottom center"),
    ):
        fig.add_trace(
            go.Scatter(
                x=list(xs),
                y=[y] * len(xs),
                mode="markers+text",
                text=labels_,
                textposition=position,
                textfont=dict(size=15),
                marker=dict(size=7, color="#444444"),
                hovertemplate="%{text}<extra></extra>",
                showlegend=False,
                name="tokens",
            )
        )
    notes = [
        text["links"].format(threshold=format_value(threshold), top_k=top_k)
        if top_k is not None
        else text["links_all"].format(threshold=format_value(threshold))
    ]
    selection = selection_text(amap, layers, heads, head_reduce, layer_reduce, text)
    widest = max(len(key_labels), len(query_labels))
    fig.update_layout(
        **base_layout(
            title if title is not None else figure_title(model, amap.kind, selection, text, notes),
            width or clamp(160 + 70 * widest, 520, 1600),
            height or 380,
            meta=dict(view="alignment", threshold=threshold, top_k=top_k, links=len(links)),
        ),
        xaxis=dict(visible=False, range=[-0.02, 1.02]),
        yaxis=dict(
            tickmode="array",
            tickvals=[0.0, 1.0],
            ticktext=[text["target"], text["source"]],
            range=[-0.45, 1.45],
            showgrid=False,
            zeroline=False,
        ),
    )
    return fig
