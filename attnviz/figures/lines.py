"""Head view for self-attention: tokens in two columns, links coloured by head, any set of heads overlaid."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from attnviz.errors import InputError
from attnviz.figures.common import (
    HEAD_COLORS,
    check_count,
    clamp,
    selection_text,
    token_label,
    token_markers,
    unknown_notes,
)
from attnviz.figures.style import DEFAULT_STYLE, FigureStyle
from attnviz.maps import analysis
from attnviz.types import AttentionMap

LINES_WIDTH = 620  # px: two token columns and the links between them
ROW_PX = 22  # px a token takes in its column
LINES_MARGIN_PX = 160  # px the margins and the title add above and below the columns
LINES_HEIGHT = (360, 2400)  # px: the lowest and highest the figure is


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
    style: FigureStyle = DEFAULT_STYLE,
) -> go.Figure:
    """Queries in the left column, keys in the right; a line per (query, key) weight ≥ `threshold`.

    Each selected head draws in its own colour (legend entries toggle heads on screen); `combine` = "mean" or "max"
    draws the selected heads as one set of links instead. `query` keeps only that token's links. Weights are
    drawn in `levels` bands between the threshold and 1: one trace per head and band, whose opacity and width
    grow with the band (traces carry the band in `meta`), which keeps large maps to a few traces.
    """
    levels, query = _checked(amap, threshold, levels, combine, query)
    text = style.words()
    _, head_idx = analysis.select_indices(amap, None, heads)
    edges = _level_edges(threshold, levels)
    fig = go.Figure()
    strongest = 0.0  # the largest weight of the drawn rows: said when no line reaches the threshold
    for name, group_heads, color_index in _groups(head_idx, combine, text):
        matrix = analysis.aggregate(amap, layers, group_heads, combine or "mean", layer_reduce)  # (queries, keys)
        color = HEAD_COLORS[color_index % len(HEAD_COLORS)]
        fig.add_traces(_band_traces(matrix, edges, query, name, group_heads, color))
        rows = matrix if query is None else matrix[query : query + 1]
        strongest = max(strongest, float(np.nanmax(rows)) if rows.size else 0.0)
    notes = unknown_notes([*amap.query_tokens, *amap.key_tokens], text)
    if not fig.data:  # a figure of dots alone would look like a head that attends nowhere
        notes.append(text["lines_none"].format(threshold=f"{threshold:g}", strongest=f"{strongest:.2f}"))
    columns = (("query", amap.query_tokens, 0.0, "middle left"), ("key", amap.key_tokens, 1.0, "middle right"))
    for side, tokens, x, position in columns:  # customdata [side, index]: what a click on a token reports
        fig.add_trace(
            token_markers(
                [x] * len(tokens),
                [-float(i) for i in range(len(tokens))],
                [token_label(t) for t in tokens],
                position,
                8,
                customdata=[[side, i] for i in range(len(tokens))],
            )
        )
    rows = max(len(amap.query_tokens), len(amap.key_tokens))
    selection = selection_text(amap, layers, head_idx, combine or "mean", layer_reduce, text, overlaid=not combine)
    fig.update_layout(
        **style.layout(
            style.heading(amap.kind, selection, notes),
            LINES_WIDTH,
            clamp(LINES_MARGIN_PX + ROW_PX * rows, *LINES_HEIGHT),
            meta=dict(view="lines", threshold=threshold, levels=levels, combine=combine, query=query),
            legend=dict(orientation="v", x=1.02, y=1.0),
        ),
        xaxis=dict(visible=False, range=[-0.6, 1.6]),
        yaxis=dict(visible=False, range=[-rows + 0.5, 0.8]),
    )
    return fig


def _checked(amap: AttentionMap, threshold: float, levels: int, combine: str | None, query) -> tuple[int, int | None]:
    """The options checked against the map: `levels` as a count, and `query` as a non-negative index (or None)."""
    if not 0 < threshold < 1:
        raise InputError("lines_threshold", threshold=threshold)
    levels = check_count(levels, "levels")
    if combine not in (None, "mean", "max"):
        raise InputError("lines_combine", combine=combine)
    analysis.require_content(amap)
    if query is not None and (
        not isinstance(query, (int, np.integer)) or not -len(amap.query_tokens) <= query < len(amap.query_tokens)
    ):
        raise InputError("lines_query_missing", query=query, count=len(amap.query_tokens))
    return levels, None if query is None else query % len(amap.query_tokens)


def _groups(head_idx: list[int], combine: str | None, text: Mapping[str, str]) -> list[tuple[str, list[int], int]]:
    """(legend name, heads, colour index) per set of links: one per head, or one for all heads combined."""
    if combine:
        return [(text["combined"].format(reduce=text[combine], heads=", ".join(map(str, head_idx))), head_idx, 0)]
    return [(text["head_legend"].format(head=h), [h], h) for h in head_idx]


def _band_traces(
    matrix: np.ndarray, edges: np.ndarray, query: int | None, name: str, heads: list[int], color: str
) -> list[go.Scatter]:
    """One trace per weight band that holds links, wider and more opaque for stronger bands; the first one stands
    for the whole group in the legend."""
    traces = []
    levels = len(edges) - 1
    for level in range(levels):
        low, high = edges[level], edges[level + 1]
        xs, ys, count = _segments(matrix, low, high, query, last=level == levels - 1)
        if not count:
            continue
        strength = (low + high) / 2
        traces.append(
            go.Scatter(
                x=xs,
                y=ys,
                mode="lines",
                line=dict(width=0.5 + 4.5 * strength, color=color),
                opacity=0.15 + 0.85 * strength,
                name=name,
                legendgroup=name,
                showlegend=not traces,
                hoverinfo="skip",
                meta=dict(heads=list(heads), low=float(low), high=float(high), links=count),
            )
        )
    return traces
