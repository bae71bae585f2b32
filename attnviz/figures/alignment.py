"""Alignment diagram: source tokens on one line, target tokens on another, links as strong as the weight."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

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
LABEL_SIZE = 15.0  # px: the token labels' font size (smaller only when even upright labels would not fit)
LABEL_GAP = 6.0  # px kept free between two labels
LABEL_OFFSET = 8.0  # px from a token line to its labels
LINE_SHARE = 0.3  # in a figure of a given height, the share of the plot kept between the two token lines
MIN_LABEL_SIZE = 4.0  # px: labels are drawn no smaller to make that room (the hover still reads them)
LINE_HEIGHT = 1.3  # one label's height, in font sizes
X_RANGE = (-0.02, 1.02)  # the x axis: token positions lie in (0, 1)
MARGINS = (90, 40)  # px left and right of the plot (FigureStyle.layout's)
# Labels are placed for a figure at most this wide, so that they stay apart wherever it is shown at least this wide:
# a page column stretches or shrinks a figure to its own width (a half column beside the app's sidebar on a
# 1,400 px window is about 450 px).
PLAN_WIDTH = 440
LABEL_NAME = "token label"  # the name of the label annotations, which `fit_width` places again


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
class LabelPlan:
    """How a line's token labels stand so that none touches another: `angle` 0 (level) or −90 (upright), in `rows`
    1 or 2 (every other label a line further out, staggered), at font size `size` px."""

    angle: int
    rows: int
    size: float

    def box(self, center: float, width: float, index: int) -> tuple[float, float, float, float]:
        """(x0, x1, d0, d1) px of label `index` (`width` px wide, centred at `center` px): its horizontal extent
        and how far from its token line it starts and ends."""
        height = LINE_HEIGHT * self.size
        if self.angle:
            return center - height / 2, center + height / 2, LABEL_OFFSET, LABEL_OFFSET + width
        row = index % self.rows
        start = LABEL_OFFSET + row * height
        return center - width / 2, center + width / 2, start, start + height

    def extent(self, widths: Sequence[float]) -> float:
        """How far from the line the labels reach, px."""
        return max((self.box(0.0, w, i)[3] for i, w in enumerate(widths)), default=LABEL_OFFSET)


def plan_labels(widths: Sequence[float], spacing: float) -> LabelPlan:
    """The plainest standing of labels `widths` px wide, `spacing` px apart, in which none overlaps another: level
    in one row, else staggered in two, else upright (smaller, when even upright ones are wider than the spacing)."""
    pairs = zip(widths, widths[1:])
    if all((a + b) / 2 + LABEL_GAP <= spacing for a, b in pairs):
        return LabelPlan(0, 1, LABEL_SIZE)
    if all((a + b) / 2 + LABEL_GAP <= 2 * spacing for a, b in zip(widths, widths[2:])):
        return LabelPlan(0, 2, LABEL_SIZE)
    size = min(LABEL_SIZE, (spacing - LABEL_GAP) / LINE_HEIGHT)
    return LabelPlan(-90, 1, max(size, 1.0))


def label_widths(labels: Sequence[str], size: float) -> list[float]:
    """Each label's width in px at `size`: of the text it draws (labels are plotly HTML: escaped, maybe styled)."""
    from attnviz.fonts import plain_text, text_width

    return [text_width(plain_text(label), size) for label in labels]


def label_centers(count: int, plot_px: float) -> list[float]:
    """The px positions of `count` tokens along a line of the plot, `plot_px` wide (see `_positions`)."""
    return [(x - X_RANGE[0]) / (X_RANGE[1] - X_RANGE[0]) * plot_px for x in _positions(count)]


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

    def width_for(self, style: FigureStyle) -> int:
        """The figure's width: the style's, else wide enough for level labels (between 520 and 1600 px)."""
        if style.width:
            return style.width
        need = 0.0
        for labels in (self.key_labels, self.query_labels):
            widths = label_widths(labels, LABEL_SIZE)
            pair = max(((a + b) / 2 + LABEL_GAP for a, b in zip(widths, widths[1:])), default=0.0)
            need = max(need, pair * len(labels) * (X_RANGE[1] - X_RANGE[0]))
        return clamp(need + sum(MARGINS), 520, 1600)

    def plans(self, width: int, exact: bool = False) -> tuple[LabelPlan, LabelPlan]:
        """How the key labels and the query labels stand in a figure `width` px wide, or shown at `PLAN_WIDTH` (a
        page may shrink it to that); `exact`: drawn at `width` itself (a file)."""
        plot_px = (width if exact else min(width, PLAN_WIDTH)) - sum(MARGINS)
        chosen = []
        for labels in (self.key_labels, self.query_labels):
            spacing = plot_px / (X_RANGE[1] - X_RANGE[0]) / max(len(labels), 1)
            chosen.append(plan_labels(label_widths(labels, LABEL_SIZE), spacing))
        return chosen[0], chosen[1]


def smallest_labels(fig: go.Figure) -> tuple[float, int] | None:
    """(font size px, labels on that line) of the line whose token labels an alignment figure draws smallest; None
    for any other figure."""
    meta = fig.layout.meta if isinstance(fig.layout.meta, dict) else {}
    if meta.get("view") != "alignment" or not meta.get("labels"):
        return None
    side, plan = min(meta["labels"].items(), key=lambda item: item[1]["size"])
    line_y = 1.0 if side == "keys" else 0.0  # keys on the top line
    count = sum(1 for note in fig.layout.annotations if note.name == LABEL_NAME and note.y == line_y)
    return float(plan["size"]), count


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
    fig = go.Figure(
        [*_link_traces(links, lines, color), *_link_hovers(links, lines, color, text), *_token_lines(lines)]
    )
    cross = amap.kind == "cross"  # a translation's two sides; any other map's lines are its keys and its queries
    notes = [_link_rule(threshold, top_k, text, cross), *unknown_notes([*amap.key_tokens, *amap.query_tokens], text)]
    selection = selection_text(amap, layers, heads, head_reduce, layer_reduce, text)
    width = lines.width_for(style)
    key_plan, query_plan = lines.plans(width)
    height, pad, key_plan, query_plan = _label_room(lines, key_plan, query_plan, style)
    plans = {"keys": vars(key_plan), "queries": vars(query_plan)}
    fig.update_layout(
        **style.layout(
            style.heading(amap.kind, selection, notes),
            width,
            height,
            meta=dict(view="alignment", threshold=threshold, top_k=top_k, links=len(links), labels=plans),
            annotations=[
                *_labels(lines.key_x, lines.key_labels, key_plan, top=True),
                *_labels(lines.query_x, lines.query_labels, query_plan, top=False),
            ],
        ),
        xaxis=dict(visible=False, range=list(X_RANGE)),
        yaxis=dict(
            tickmode="array",
            tickvals=[0.0, 1.0],
            ticktext=[text["target"], text["source"]] if cross else [text["query"], text["key"]],
            range=[-pad, 1 + pad],
            showgrid=False,
            zeroline=False,
        ),
    )
    return fig


def _link_rule(threshold: float, top_k: int | None, text: Mapping[str, str], cross: bool = True) -> str:
    """The subtitle line saying which links are drawn (per target token of a translation, else per query token)."""
    if top_k is None:
        return text["links_all"].format(threshold=format_value(threshold))
    return text["links" if cross else "links_self"].format(threshold=format_value(threshold), top_k=top_k)


def _reach(lines: _Lines, key_plan: LabelPlan, query_plan: LabelPlan) -> float:
    """How far (px) the farther-reaching of the two lines' labels stands from its line."""
    return max(
        plan.extent(label_widths(labels, plan.size))
        for plan, labels in ((key_plan, lines.key_labels), (query_plan, lines.query_labels))
    )


def _label_room(lines: _Lines, key_plan, query_plan, style: FigureStyle) -> tuple[int, float, LabelPlan, LabelPlan]:
    """The figure's height (px), the y axis' pad beyond each line (axis units), and the label plans at the size
    that fits: in a figure of a given height, labels that would squeeze the two token lines together (long upright
    words) are drawn smaller, so that the lines keep `LINE_SHARE` of the plot between them."""
    reach = _reach(lines, key_plan, query_plan)
    height = style.height or max(380, int(1.9 * (reach + 6) / 0.45) + 160)  # margins: 160 px
    allowed = (1 - LINE_SHARE) * (height - 160) / 2 - 6  # px each line's labels may reach
    if reach > allowed:
        scale = max(allowed - LABEL_OFFSET, 0.0) / (reach - LABEL_OFFSET)
        key_plan, query_plan = (
            replace(plan, size=max(plan.size * scale, MIN_LABEL_SIZE)) for plan in (key_plan, query_plan)
        )
        reach = _reach(lines, key_plan, query_plan)
    room = max(height - 160 - 2 * (reach + 6), 20)  # px of plot between the labels' outer edges
    return height, max(0.45, (reach + 6) / room), key_plan, query_plan


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
    """The source tokens on the top line (y = 1), the target tokens on the bottom one (y = 0): dots that name their
    token on hover, their text transparent (the labels are `_labels`, placed apart)."""
    rows = [
        (lines.key_x, 1.0, lines.key_labels, "top center"),
        (lines.query_x, 0.0, lines.query_labels, "bottom center"),
    ]
    hidden_text = dict(size=LABEL_SIZE, color="rgba(0,0,0,0)")
    return [
        token_markers(x, [y] * len(x), labels, position, 7, textfont=hidden_text) for x, y, labels, position in rows
    ]


def _labels(xs: np.ndarray, labels: list[str], plan: LabelPlan, top: bool) -> list[dict]:
    """The labels of one token line as annotations standing as `plan` says: above the top line, below the bottom."""
    notes = []
    for index, (x, label) in enumerate(zip(xs, labels)):
        start = plan.box(0.0, 0.0, index)[2]
        notes.append(
            dict(
                x=float(x),
                y=1.0 if top else 0.0,
                xref="x",
                yref="y",
                text=label,
                showarrow=False,
                xanchor="center",
                yanchor="bottom" if top else "top",
                yshift=start if top else -start,
                textangle=plan.angle,
                font=dict(size=plan.size),
                borderpad=0,
                name=LABEL_NAME,
            )
        )
    return notes


def fit_width(fig: go.Figure, width: int, height: int | None = None) -> go.Figure:
    """`fig` laid out again for an export `width` px wide (and `height`, None: what its labels need): an alignment's
    labels planned for exactly that width, so that a narrow print size (a paper's column) stands them upright or
    smaller instead of overlapping, and a wide one (a file at the figure's own width, which the page planned for a
    column as narrow as `PLAN_WIDTH`) stands them as large as it has room for. Any other figure, or an alignment
    whose labels would stand as they do, is `fig` itself."""
    meta = fig.layout.meta if isinstance(fig.layout.meta, dict) else {}
    if meta.get("view") != "alignment":
        return fig
    labels = [note for note in fig.layout.annotations if note.name == LABEL_NAME]
    keys, queries = ([note for note in labels if note.y == y] for y in (1.0, 0.0))
    lines = _Lines(
        key_x=np.array([note.x for note in keys]),
        query_x=np.array([note.x for note in queries]),
        key_labels=[note.text for note in keys],
        query_labels=[note.text for note in queries],
    )
    key_plan, query_plan = lines.plans(width, exact=True)
    own = fig.layout.width or width
    if width >= own and (key_plan, query_plan) == lines.plans(own) and height in (None, fig.layout.height):
        return fig  # as wide or wider, labels as they stand: the figure scales as drawn
    height, pad, key_plan, query_plan = _label_room(lines, key_plan, query_plan, FigureStyle(height=height))
    others = [note for note in fig.layout.annotations if note.name != LABEL_NAME]
    fitted = go.Figure(fig)
    fitted.update_layout(
        width=width,
        height=height,
        annotations=[
            *others,
            *_labels(lines.key_x, lines.key_labels, key_plan, top=True),
            *_labels(lines.query_x, lines.query_labels, query_plan, top=False),
        ],
        meta={**meta, "labels": {"keys": vars(key_plan), "queries": vars(query_plan)}},
    )
    fitted.update_yaxes(range=[-pad, 1 + pad])
    return fitted
