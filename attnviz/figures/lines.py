"""Head view for self-attention: tokens in two columns, links coloured by head, any set of heads overlaid."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from attnviz import analysis
from attnviz.errors import InputError
from attnviz.figures._common import (
    HEAD_COLORS,
    base_layout,
    check_count,
    clamp,
    figure_title,
    resolve_labels,
    selection_text,
    token_label,
)
from attnviz.types import AttentionMap


def _level_edges(threshold: float, levels: int) -> np.ndarray:
    return np.linspace(threshold, 1.0, levels + 1)


def _segments(matrix: np.ndarray, low: float, high: float, query: int | None, last: bool):
    """x/y lists for every link with low ≤ weight < high (≤ for the last level), None-separated."""
    upper = matrix <= high if last else matrix < high
    chosen = np.argwhere((matrix >= low) & upper & (matrix > 0))  # (links, 2): query, key
    if query is not None:
        chosen = chosen[chosen[:, 0] == query]
    xs, ys = [], []
    for q, k in chosen:
        xs += [0.0, 1.0, None]
        ys += [-float(q), -float(k), None]
    return xs, ys, len(chosen)


def head_lines(
    amap: AttentionMap,
    *,
    layers: int | Sequence[int] | None = 0,
    heads: int | Sequence[int] | None = None,
    layer_reduce: str = "mean",
    combine: str | None = None,
    query: int | None = None,
    threshold: float = 0.05,
    levels: int = 5,
    model: str | None = None,
    title: str | None = None,
    lang: str = "en",
    labels: Mapping[str, str] | None = None,
    width: int | None = None,
    height: int | None = None,
) -> go.Figure:
    """Queries in the left column, keys in the right; a line per (query, key) weight ≥ `threshold`.

    Each selected head draws in its own colour (legend entries toggle heads on screen); `combine` = "mean" or "max"
    draws the selected heads as one set of links instead. `query` keeps only that token's links. Weights are
    drawn in `levels` bands between the threshold and 1: one trace per head and band, whose opacity and width
    grow with the band (traces carry the band in `meta`), which keeps large maps to a few traces.
    """
    if not 0 < threshold < 1:
        raise InputError(f"The line threshold must lie strictly between 0 and 1; got {threshold}.")
    levels = check_count(levels, "levels")
    if combine not in (None, "mean", "max"):
        raise InputError(f"combine must be None, 'mean' or 'max'; got {combine!r}.")
    analysis.require_content(amap)
    if query is not None and (
        not isinstance(query, (int, np.integer)) or not -len(amap.query_tokens) <= query < len(amap.query_tokens)
    ):
        raise InputError(f"Query {query} does not exist; the map has {len(amap.query_tokens)} query tokens.")
    query = None if query is None else query % len(amap.query_tokens)
    text = resolve_labels(lang, labels)
    _, head_idx = analysis.select_indices(amap, None, heads)
    if combine:
        groups = [(text["combined"].format(reduce=text[combine], heads=", ".join(map(str, head_idx))), head_idx, 0)]
    else:
        groups = [(text["head_legend"].format(head=h), [h], h) for h in head_idx]

    fig = go.Figure()
    edges = _level_edges(threshold, levels)
    for name, group_heads, color_index in groups:
        matrix = analysis.aggregate(amap, layers, group_heads, combine or "mean", layer_reduce)  # (queries, keys)
        color = HEAD_COLORS[color_index % len(HEAD_COLORS)]
        shown_legend = False
        for level in range(levels):
            low, high = edges[level], edges[level + 1]
            xs, ys, count = _segments(matrix, low, high, query, last=level == levels - 1)
            if not count:
                continue
            strength = (low + high) / 2
            fig.add_trace(
                go.Scatter(
                    x=xs,
                    y=ys,
                    mode="lines",
                    line=dict(width=0.5 + 4.5 * strength, color=color),
                    opacity=0.15 + 0.85 * strength,
                    name=name,
                    legendgroup=name,
                    showlegend=not shown_legend,
                    hoverinfo="skip",
                    meta=dict(heads=list(group_heads), low=float(low), high=float(high), links=count),
                )
            )
            shown_legend = True
    for tokens, x, position in ((amap.query_tokens, 0.0, "middle left"), (amap.key_tokens, 1.0, "middle right")):
        fig.add_trace(
            go.Scatter(
                x=[x] * len(tokens),
                y=[-float(i) for i in range(len(tokens))],
                mode="markers+text",
                text=[token_label(t) for t in tokens],
                textposition=position,
                marker=dict(size=5, color="#444444"),
                hovertemplate="%{text}<extra></extra>",
                showlegend=False,
                name="tokens",
            )
        )
    rows = max(len(amap.query_tokens), len(amap.key_tokens))
    selection = selection_text(amap, layers, head_idx, combine or "mean", layer_reduce, text, overlaid=not combine)
    fig.update_layout(
        **base_layout(
            title if title is not None else figure_title(model, amap.kind, selection, text),
            width or 620,
            height or clamp(160 + 22 * rows, 360, 2400),
            meta=dict(view="lines", threshold=threshold, levels=levels, combine=combine, query=query),
            legend=dict(orientation="v", x=1.02, y=1.0),
        ),
        xaxis=dict(visible=False, range=[-0.6, 1.6]),
        yaxis=dict(visible=False, range=[-rows + 0.5, 0.8]),
    )
    return fig
