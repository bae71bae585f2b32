"""Alignment diagram: source tokens on one line, target tokens on another, links as strong as the weight."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from attnviz.errors import InputError
from attnviz.figures.common import format_value, selection_text, token_label, token_markers, unknown_notes
from attnviz.figures.layout import LABEL_SIZE, PLAN_WIDTH, X_RANGE, TokenLines, line_positions
from attnviz.figures.style import DEFAULT_STYLE, FigureStyle
from attnviz.maps import analysis
from attnviz.types import AttentionMap

LINK_COLOR = "#1f4e9c"
MIN_WIDTH, MAX_WIDTH = 0.5, 10.0  # px at weight 0 and weight 1
MIN_OPACITY = 0.15
TOKEN_DOT_PX = 7  # px: the dot of each token on its line
HOVER_DOT_PX = 10  # px: the invisible marker at a link's middle that its hover answers to


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


def _lines_of(amap: AttentionMap) -> TokenLines:
    """The map's keys (top line) and queries (bottom line), spread evenly and labelled with their tokens."""
    return TokenLines(
        key_x=line_positions(len(amap.key_tokens)),
        query_x=line_positions(len(amap.query_tokens)),
        key_labels=[token_label(t) for t in amap.key_tokens],
        query_labels=[token_label(t) for t in amap.query_tokens],
    )


def alignment_width(amap: AttentionMap) -> int:
    """The width (px) `alignment` draws `amap` at when its style sets none: wide enough for its token labels."""
    return _lines_of(amap).width_for(None)


def alignment_stands_alone(amap: AttentionMap) -> bool:
    """Whether `amap`'s alignment takes a whole column of a page rather than half of one beside another figure: its
    labels cannot stand level in half a column (`TokenLines.stands_alone`), as a pair of 13 words or more on a side
    often cannot. Its figure then places its labels for a whole column, at its own height."""
    return _lines_of(amap).stands_alone()


def _check_link_rule(threshold: float, top_k: int | None) -> None:
    """An InputError for a threshold outside [0, 1] or a top_k that is not a whole number of at least 1."""
    if not 0 <= threshold <= 1:
        raise InputError("figure_link_threshold", threshold=threshold)
    if top_k is not None and (not isinstance(top_k, (int, np.integer)) or isinstance(top_k, bool) or top_k < 1):
        raise InputError("figure_top_k", top_k=top_k)


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
    _check_link_rule(threshold, top_k)
    text = style.words()
    matrix = analysis.aggregate(amap, layers, heads, head_reduce, layer_reduce)  # (queries, keys)
    lines = _lines_of(amap)
    links = strongest_links(matrix, threshold, top_k)
    fig = go.Figure(
        [*_link_traces(links, lines, color), *_link_hovers(links, lines, color, text), *_token_lines(lines)]
    )
    cross = amap.kind == "cross"  # a translation's two sides; any other map's lines are its keys and its queries
    notes = [_link_rule(threshold, top_k, text, cross), *unknown_notes([*amap.key_tokens, *amap.query_tokens], text)]
    selection = selection_text(amap, layers, heads, head_reduce, layer_reduce, text)
    width = lines.width_for(style.width)
    plan_width = lines.plan_width()  # half a column, or a whole one for labels that cannot stand level in half
    key_plan, query_plan = lines.plans(width, plan_width=plan_width)
    height, pad, key_plan, query_plan = lines.room(key_plan, query_plan, style.height)
    plans = {"keys": vars(key_plan), "queries": vars(query_plan)}
    alone = plan_width != PLAN_WIDTH
    fig.update_layout(
        **style.layout(
            style.heading(amap.kind, selection, notes),
            width,
            height,
            meta=dict(
                view="alignment",
                threshold=threshold,
                top_k=top_k,
                links=len(links),
                labels=plans,
                plan_width=plan_width,
                column="whole" if alone else "half",  # where a page draws it: beside another figure, or alone
            ),
            annotations=lines.annotations(key_plan, query_plan),
        ),
        xaxis=dict(visible=False, range=list(X_RANGE)),
        yaxis=_line_axis(text, cross, pad),
    )
    return fig


def _line_axis(text: Mapping[str, str], cross: bool, pad: float) -> dict:
    """The y axis: the two token lines named (target and source of a translation, else query and key)."""
    names = [text["target"], text["source"]] if cross else [text["query"], text["key"]]
    return dict(
        tickmode="array", tickvals=[0.0, 1.0], ticktext=names, range=[-pad, 1 + pad], showgrid=False, zeroline=False
    )


def _link_rule(threshold: float, top_k: int | None, text: Mapping[str, str], cross: bool = True) -> str:
    """The subtitle line saying which links are drawn (per target token of a translation, else per query token)."""
    if top_k is None:
        return text["links_all"].format(threshold=format_value(threshold))
    return text["links" if cross else "links_self"].format(threshold=format_value(threshold), top_k=top_k)


def _link_traces(links: list[tuple[int, int, float]], lines: TokenLines, color: str) -> list[go.Scatter]:
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


def _link_hovers(links, lines: TokenLines, color: str, text: Mapping[str, str]) -> list[go.Scatter]:
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
            marker=dict(size=HOVER_DOT_PX, color=color, opacity=0.0),
            text=hovers,
            hovertemplate="%{text}<extra></extra>",
            showlegend=False,
            name="hover",
        )
    ]


def _token_lines(lines: TokenLines) -> list[go.Scatter]:
    """The source tokens on the top line (y = 1), the target tokens on the bottom one (y = 0): dots that name their
    token on hover, their text transparent (the labels are `_labels`, placed apart)."""
    rows = [
        (lines.key_x, 1.0, lines.key_labels, "top center"),
        (lines.query_x, 0.0, lines.query_labels, "bottom center"),
    ]
    hidden_text = dict(size=LABEL_SIZE, color="rgba(0,0,0,0)")
    return [
        token_markers(x, [y] * len(x), labels, position, TOKEN_DOT_PX, textfont=hidden_text)
        for x, y, labels, position in rows
    ]
