"""Alignment diagram: source tokens on one line, target tokens on another, links as strong as the weight."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from attnviz import analysis
from attnviz.errors import InputError
from attnviz.figures._common import clamp, format_value, selection_text, token_label, token_markers, unknown_notes
from attnviz.figures.style import DEFAULT_STYLE, FigureStyle
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


@dataclass(frozen=True)
class _Lines:
    """The two token lines: keys (source) on top, queries (target) below, with their x positions and labels."""

    key_x: np.ndarray
    query_x: np.ndarray
    key_labels: list[str]
    query_labels: list[str]

    @classmethod
    def of(cls, amap: AttentionMap) -> _Lines:
        return cls(
            key_x=_positions(len(amap.key_tokens)),
            query_x=_positions(len(amap.query_tokens)),
            key_labels=[token_label(t) for t in amap.key_tokens],
            query_labels=[token_label(t) for t in amap.query_tokens],
        )


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
    style: FigureStyle = DEFAULT_STYLE,
) -> go.Figure:
    """Keys (source) on the top line, queries (target) on the bottom line, a link per strong (query, key) pair.

    For cross-attention this is the translation alignment (早上好 → Good Morning); for self-attention both lines
    are the same sentence. Each link is its own trace: width `link_width(w)`, opacity `link_opacity(w)`, and its
    weight in `customdata`; a hover marker at each link's middle reads "query → key: weight".
    Links: for each target token, its `top_k` strongest keys (None = all) whose weight is at least `threshold`.
    """
    if not 0 <= threshold <= 1:
        raise InputError("figure_link_threshold", threshold=threshold)
    if top_k is not None and (not isinstance(top_k, (int, np.integer)) or isinstance(top_k, bool) or top_k < 1):
        raise InputError("figure_top_k", top_k=top_k)
    text = style.words()
    matrix = analysis.aggregate(amap, layers, heads, head_reduce, layer_reduce)  # (queries, keys)
    lines = _Lines.of(amap)
    links = strongest_links(matrix, threshold, top_k)
    fig = go.Figure([*_link_traces(links, lines, color), *_link_hovers(links, lines, color, text),
                     *_token_lines(lines)])  # fmt: skip
    notes = [
        text["links"].format(threshold=format_value(threshold), top_k=top_k)
        if top_k is not None
        else text["links_all"].format(threshold=format_value(threshold)),
        *unknown_notes([*amap.key_tokens, *amap.query_tokens], text),
    ]
    selection = selection_text(amap, layers, heads, head_reduce, layer_reduce, text)
    widest = max(len(lines.key_labels), len(lines.query_labels))
    fig.update_layout(
        **style.layout(
            style.heading(amap.kind, selection, notes),
            clamp(160 + 70 * widest, 520, 1600),
            380,
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


def _link_traces(links: list[tuple[int, int, float]], lines: _Lines, color: str) -> list[go.Scatter]:
    """One line per link, as wide and opaque as its weight; the strongest drawn last, on top."""
    return [
        go.Scatter(
            x=[lines.key_x[key], lines.query_x[query]],
            y=[1.0, 0.0],
            mode="lines",
            line=dict(width=link_width(weight), color=color),
            opacity=link_opacity(weight),
            customdata=[weight, weight],
            name=f"{lines.query_labels[query]} → {lines.key_labels[key]}",
            hoverinfo="skip",
            showlegend=False,
        )
        for query, key, weight in sorted(links, key=lambda link: link[2])
    ]


def _link_hovers(links, lines: _Lines, color: str, text: Mapping[str, str]) -> list[go.Scatter]:
    """An invisible marker at each link's middle that reads "query → key: weight" (a line has no hover of its own
    between its ends); none when there are no links."""
    if not links:
        return []
    hovers = [
        text["hover"].format(query=lines.query_labels[q], key=lines.key_labels[k], value=format_value(w))
        for q, k, w in links
    ]
    return [
        go.Scatter(
            x=[(lines.key_x[k] + lines.query_x[q]) / 2 for q, k, _ in links],
            y=[0.5] * len(links),
            mode="markers",
            marker=dict(size=10, color=color, opacity=0.0),
            text=hovers,
            hovertemplate="%{text}<extra></extra>",
            showlegend=False,
            name="hover",
        )
    ]


def _token_lines(lines: _Lines) -> list[go.Scatter]:
    """The source tokens on the top line (y = 1), the target tokens on the bottom one (y = 0)."""
    rows = [
        (lines.key_x, 1.0, lines.key_labels, "top center"),
        (lines.query_x, 0.0, lines.query_labels, "bottom center"),
    ]
    return [
        token_markers(x, [y] * len(x), labels, position, 7, textfont=dict(size=15)) for x, y, labels, position in rows
    ]
