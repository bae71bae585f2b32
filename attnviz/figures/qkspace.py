"""The query–key space of one head (`attnviz.maps.projection`): queries and keys as points of one plane, and the heatmap
row or column of a point picked there."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import plotly.graph_objects as go

from attnviz.errors import InputError
from attnviz.figures.common import HEAD_COLORS, token_label
from attnviz.figures.style import DEFAULT_STYLE, FigureStyle
from attnviz.i18n.qkspace import STRINGS as QK_WORDS
from attnviz.maps.projection import QueryKeyProjection
from attnviz.types import Token

COLOR_BY = ("position", "token")  # colour a point by its token's position in the text, or by the token itself
ROLES = ("query", "key")
SYMBOLS = {"query": "circle", "key": "diamond"}


def qk_words(style: FigureStyle) -> dict[str, str]:
    """The words of this module's figures in the style's language (the style's own labels override them)."""
    return {**QK_WORDS[style.lang], **style.words()}


def _colours(tokens: Sequence[Token], offset: int, color_by: str, palette: Mapping[str, str]) -> list:
    if color_by == "position":
        return [offset + i for i in range(len(tokens))]
    return [palette[t.text] for t in tokens]


def _trace(role, points, tokens, colours, color_by, total, words, showscale) -> go.Scatter:
    labels = [token_label(t) for t in tokens]
    marker = dict(
        symbol=SYMBOLS[role], size=10 if role == "query" else 11, color=colours, line=dict(width=1, color="#333333")
    )
    if color_by == "position":
        marker.update(
            colorscale="Viridis",
            cmin=0,
            cmax=max(total - 1, 1),
            showscale=showscale,
            colorbar=dict(title=dict(text=words["qk_fig_position"]), thickness=14),
        )
    return go.Scatter(
        x=points[:, 0],
        y=points[:, 1],
        mode="markers",
        name=words["qk_fig_queries" if role == "query" else "qk_fig_keys_legend"],
        marker=marker,
        customdata=[[role, i, label] for i, label in enumerate(labels)],
        hovertemplate=words[f"qk_fig_hover_{role}"] + "<extra></extra>",
    )


def qk_space(
    projection: QueryKeyProjection,
    query_tokens: Sequence[Token],
    key_tokens: Sequence[Token],
    *,
    color_by: str = "position",
    selected: tuple[str, int] | None = None,
    kind: str = "self",
    layer: int = 0,
    head: int = 0,
    style: FigureStyle = DEFAULT_STYLE,
) -> go.Figure:
    """Queries (circles) and keys (diamonds) of one head in one plane, coloured by position or by token; hover names
    the token and its position. `selected` ("query" | "key", index): that point ringed. `fig.layout.meta` says which
    point is which (`customdata` = [role, index, label] per point)."""
    _check(projection, query_tokens, key_tokens, color_by)
    words = qk_words(style)
    traces = _points(projection, query_tokens, key_tokens, color_by, words)
    if selected is not None:
        traces.append(_ring(projection, selected, words))
    notes = (
        words["qk_fig_symbols"]
        + " · "
        + words["qk_fig_explained"].format(first=projection.explained[0] * 100, second=projection.explained[1] * 100)
    )
    if projection.normalised:
        notes += " · " + words["qk_fig_normalised"]
    title = words["qk_fig_title"].format(kind=words.get(f"kind_{kind}", kind), layer=layer, head=head)
    fig = go.Figure(traces)
    fig.update_layout(
        **style.layout(
            f"{title}<br><sup>{notes}</sup>",
            760,
            600,
            legend=dict(orientation="h", x=0.0, y=-0.12),
            clickmode="event+select",
            xaxis=dict(title=dict(text="PC 1"), zeroline=False),
            yaxis=dict(title=dict(text="PC 2"), zeroline=False),
            meta=dict(
                view="qk_space",
                kind=kind,
                layer=layer,
                head=head,
                color_by=color_by,
                queries=len(query_tokens),
                keys=len(key_tokens),
                explained=[float(e) for e in projection.explained],
            ),
        )
    )
    return fig


def _check(projection: QueryKeyProjection, query_tokens: Sequence[Token], key_tokens: Sequence[Token], color_by: str):
    if color_by not in COLOR_BY:
        raise InputError("qk_color_unknown", color_by=color_by, choices=", ".join(COLOR_BY))
    if len(projection.queries) != len(query_tokens) or len(projection.keys) != len(key_tokens):
        raise InputError(
            "qk_projection_tokens",
            points=(len(projection.queries), len(projection.keys)),
            tokens=(len(query_tokens), len(key_tokens)),
        )


def _points(projection: QueryKeyProjection, query_tokens, key_tokens, color_by: str, words) -> list[go.Scatter]:
    """The queries' and the keys' points, coloured by position or by token (one colour per distinct text)."""
    distinct = dict.fromkeys(t.text for t in [*query_tokens, *key_tokens])
    palette = {text: HEAD_COLORS[i % len(HEAD_COLORS)] for i, text in enumerate(distinct)}
    total = max(len(query_tokens), len(key_tokens))
    return [
        _trace(role, points, tokens, _colours(tokens, 0, color_by, palette), color_by, total, words, role == "query")
        for role, points, tokens in (
            ("query", projection.queries, query_tokens),
            ("key", projection.keys, key_tokens),
        )
    ]


def _ring(projection: QueryKeyProjection, selected: tuple[str, int], words: Mapping[str, str]) -> go.Scatter:
    role, index = selected
    if role not in ROLES:
        raise InputError("qk_role_unknown", role=role)
    points = projection.queries if role == "query" else projection.keys
    index = min(max(int(index), 0), len(points) - 1)
    return go.Scatter(
        x=[points[index, 0]],
        y=[points[index, 1]],
        mode="markers",
        name=words["qk_fig_picked"],
        hoverinfo="skip",
        marker=dict(symbol="circle-open", size=22, color="#d62728", line=dict(width=3)),
    )


def highlight(fig: go.Figure, role: str, index: int) -> go.Figure:
    """A heatmap (`figures.heatmap`, unpooled) with query row `index` (role "query") or key column `index` (role
    "key") outlined: where the point picked in the query–key space sits in the map."""
    if role not in ROLES:
        raise InputError("qk_role_unknown", role=role)
    meta = fig.layout.meta or {}
    rows, columns = meta.get("query_count", 0), meta.get("key_count", 0)
    if role == "query":
        box = dict(x0=-0.5, x1=columns - 0.5, y0=index - 0.5, y1=index + 0.5)
    else:
        box = dict(x0=index - 0.5, x1=index + 0.5, y0=-0.5, y1=rows - 0.5)
    outlined = go.Figure(fig)
    outlined.add_shape(type="rect", xref="x", yref="y", line=dict(color="#d62728", width=3), **box)
    return outlined


def picked_point(selection: Mapping | None) -> tuple[str, int] | None:
    """(role, index) of the first point a Streamlit plotly selection holds (`st.plotly_chart(on_select=…)`), from
    the points' customdata; None when nothing is picked."""
    points = (selection or {}).get("points") or []
    for point in points:
        data = point.get("customdata")
        if isinstance(data, Sequence) and len(data) >= 2 and data[0] in ROLES:
            return str(data[0]), int(data[1])
    return None
