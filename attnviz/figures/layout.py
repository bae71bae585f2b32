"""How text fits a figure: how wide a label or title is, where a figure's labels stand, and a figure laid out again
for the width a file is drawn at.

Every width is measured one way, `text_width`: the text plotly draws, in the font figures are drawn with
(`attnviz.figures.fonts`). Two label plans use it: a heatmap's tick labels (`heatmap_axes`: thinned to what the axis shows
readably, slanted when they would overlap) and an alignment's token labels (`TokenLines`, `LabelPlan`: level,
staggered or upright, smaller only when nothing else fits). A file has no page column to stretch into, so
`fit_to_width` plans both again for the file's width and breaks a title too wide for it (`fit_title`); `as_file`
names the model in the title and widens the figure for it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np
import plotly.graph_objects as go

from attnviz.figures.common import clamp, hover_axis, tick_positions
from attnviz.figures.text_fit import TITLE_LINE, fit_title, label_widths, text_width

# ----------------------------------------------------------------------------------------------------------------------
# A heatmap's tick labels

TICK_SIZE = 12  # px: tick labels (`FigureStyle.layout`'s font)
LABEL_ROOM_PX = 20  # along its axis, a 12 px label (its box is ~16 px tall; slanted, ~17 px wide) reads clear
PLOT_MARGIN_PX = (250, 160)  # figure width and height the margins, colour bar and titles take from the plot
SLANT_SHARE = 0.9  # key labels slant when the widest drawn one takes more than this share of the room between two
SLANT_ANGLE = -60  # degrees: slanted key labels
AXIS_WORDS = ("key", "query", "labelled")  # the words of the axis titles, kept in meta for `fit_heatmap`


# A heatmap file narrower than PRINT_WIDTH_PX (a paper's column) is laid out for print: the colour bar moves under
# the plot, the margins shrink to the labels they hold, and tick labels get smaller down to PRINT_TICK_FLOOR px
# (6 pt at print size: still legible) and stand upright along the key axis, so a 15-key map keeps every label.
PRINT_WIDTH_PX = 520
PRINT_TICK_FLOOR = 8.0
PRINT_MARGINS_PX = dict(r=16, t=80, b=150)  # right, top (title), bottom (upright key labels, axis title, colour bar)
PRINT_LABEL_PITCH = 1.35  # along its axis, an upright label needs its font size times this (its line height)
# Under the plot of a print layout, from the top: the upright key labels, the key axis's title, then the colour bar
# with its title above it. The bottom margin is what these take (PRINT_MARGINS_PX["b"] at least), and the bar hangs
# from a point under the axis title: anchored to the page's bottom edge instead, by its top, it lay below the page
# and Chromium drew no bar at all.
PRINT_AXIS_TITLE_GAP = 8.0  # px between the key labels and the axis title
PRINT_BAR_GAP = 12.0  # px between the axis title and the colour bar's title
PRINT_BAR_PX = 80.0  # px the colour bar takes with its two-line title and its numbers


def room_for(labels: int, margin_px: int) -> int:
    """A figure side that draws every one of `labels` tick labels readably (`readable_labels`) when it may."""
    return margin_px + LABEL_ROOM_PX * (labels + 1)


def readable_labels(plot_px: float, wanted: int) -> int:
    """How many tick labels fit `plot_px` px of axis readably: at most `wanted`, at least one."""
    return max(1, min(wanted, int(plot_px // LABEL_ROOM_PX)))


def heatmap_axes(
    query_labels: Sequence[str],
    key_labels: Sequence[str],
    max_labels: int,
    size: tuple[int, int],
    text: Mapping[str, str],
) -> dict:
    """x (keys) and y (queries) axes: at most `max_labels` ticks and no more than the figure's `size` (width, height)
    shows readably, key labels slanted when they would overlap."""
    plot_width, plot_height = (max(side - margin, 1) for side, margin in zip(size, PLOT_MARGIN_PX))
    x_ticks = tick_positions(len(key_labels), readable_labels(plot_width, max_labels))
    y_ticks = tick_positions(len(query_labels), readable_labels(plot_height, max_labels))

    def title(axis: str, ticks: list, labels: Sequence[str]) -> str:  # a thinned axis says so: a file has no hover
        if len(ticks) == len(labels):
            return text[axis]
        return text["labelled"].format(axis=text[axis], shown=len(ticks), count=len(labels))

    spacing_px = (size[0] - PLOT_MARGIN_PX[0]) / max(len(x_ticks), 1)  # between two drawn labels
    slant = max((text_width(key_labels[i], TICK_SIZE) for i in x_ticks), default=0) > SLANT_SHARE * spacing_px
    return dict(
        xaxis=dict(
            title=dict(text=title("key", x_ticks, key_labels)),
            tickmode="array",
            tickvals=x_ticks,
            ticktext=[key_labels[i] for i in x_ticks],
            tickangle=SLANT_ANGLE if slant else 0,
            showgrid=False,
            zeroline=False,
            range=[-0.5, len(key_labels) - 0.5],
            **hover_axis(key_labels),
        ),
        yaxis=dict(
            title=dict(text=title("query", y_ticks, query_labels)),
            tickmode="array",
            tickvals=y_ticks,
            ticktext=[query_labels[i] for i in y_ticks],
            # the first query on top; a set range, as plotly pads the masked cells' outline (a scatter) when it
            # autoranges, which drew grey "masked" bands above the first row and below the last
            range=[len(query_labels) - 0.5, -0.5],
            showgrid=False,
            zeroline=False,
            **hover_axis(query_labels),
        ),
    )


def _print_tick_size(labels: int, plot_px: float) -> float:
    """The tick font size (px) at which `labels` upright labels fit `plot_px` px of axis, between the floor and the
    screen's size."""
    return float(min(TICK_SIZE, max(PRINT_TICK_FLOOR, plot_px / max(labels, 1) / PRINT_LABEL_PITCH)))


def _print_ticks(queries: Sequence[str], keys: Sequence[str], size: tuple[int, int]) -> tuple[int, float, list, list]:
    """(left margin px, tick font size px, drawn key ticks, drawn query ticks) of a heatmap laid out for print at
    `size` (`print_heatmap`)."""
    widest = max((text_width(label, PRINT_TICK_FLOOR) for label in queries), default=0.0)
    left = int(widest + 40)  # the labels, the axis title beside them, a little air
    plot_width = max(size[0] - left - PRINT_MARGINS_PX["r"], 1)
    plot_height = max(size[1] - PRINT_MARGINS_PX["t"] - PRINT_MARGINS_PX["b"], 1)
    tick = min(_print_tick_size(len(keys), plot_width), _print_tick_size(len(queries), plot_height))
    pitch = tick * PRINT_LABEL_PITCH
    x_ticks = tick_positions(len(keys), max(1, min(len(keys), int(plot_width // pitch))))
    y_ticks = tick_positions(len(queries), max(1, min(len(queries), int(plot_height // pitch))))
    return left, tick, x_ticks, y_ticks


def print_heatmap(fig: go.Figure, queries: Sequence[str], keys: Sequence[str], size: tuple[int, int]) -> go.Figure:
    """`fig` (a heatmap) laid out for a narrow file of `size`: colour bar under the plot, margins fitted to the
    query labels, tick labels as large as lets every one be drawn (down to PRINT_TICK_FLOOR), keys upright; an
    axis whose labels still do not all fit is thinned and says so, as on screen."""
    left, tick, x_ticks, y_ticks = _print_ticks(queries, keys, size)
    words = (fig.layout.meta or {}).get("axis_words") or {"key": "", "query": "", "labelled": "{axis}"}

    def title(axis: str, ticks: list, labels: Sequence[str]) -> str:
        if len(ticks) == len(labels):
            return words[axis]
        return words["labelled"].format(axis=words[axis], shown=len(ticks), count=len(labels))

    below_plot, bar_top = _print_bottom([keys[i] for i in x_ticks], tick)
    plot_height = max(size[1] - PRINT_MARGINS_PX["t"] - below_plot, 1)
    laid = go.Figure(fig).update_layout(
        width=size[0],
        height=size[1],
        margin=dict(l=left, **{**PRINT_MARGINS_PX, "b": below_plot}),
        meta={**(fig.layout.meta or {}), "print_ticks": {"size": tick, "keys": len(x_ticks), "queries": len(y_ticks)}},
    )
    laid.update_xaxes(
        tickvals=x_ticks, ticktext=[keys[i] for i in x_ticks], tickangle=-90, tickfont=dict(size=tick)
    ).update_xaxes(title=dict(text=title("key", x_ticks, keys), font=dict(size=tick + 1)))
    laid.update_yaxes(tickvals=y_ticks, ticktext=[queries[i] for i in y_ticks], tickfont=dict(size=tick)).update_yaxes(
        title=dict(text=title("query", y_ticks, queries), font=dict(size=tick + 1))
    )
    bar = dict(orientation="h", x=0.5, xanchor="center", yref="paper", y=-bar_top / plot_height, yanchor="top")
    bar.update(thickness=10, len=0.8, title=dict(side="top"))
    return laid.update_traces(colorbar=bar, selector=dict(type="heatmap"))


def _print_bottom(drawn_keys: Sequence[str], tick: float) -> tuple[int, float]:
    """(bottom margin px, px from the plot's bottom edge to the colour bar's title) of a print layout whose upright
    key labels `drawn_keys` are `tick` px: the labels, the axis title (tick + 1 px), then the colour bar."""
    labels = max((text_width(label, tick) for label in drawn_keys), default=0.0)
    bar_top = labels + PRINT_AXIS_TITLE_GAP + (tick + 1) * LINE_HEIGHT + PRINT_BAR_GAP
    return max(PRINT_MARGINS_PX["b"], math.ceil(bar_top + PRINT_BAR_PX)), bar_top


def _refitted_heatmap_labels(fig: go.Figure, width: int) -> tuple[list[str], list[str]] | None:
    """(query labels, key labels) of a heatmap that a file `width` px wide lays out again (`fit_heatmap`), else None."""
    meta = fig.layout.meta if isinstance(fig.layout.meta, dict) else {}
    if meta.get("view") != "heatmap" or width >= (fig.layout.width or width) or not fig.layout.xaxis.labelalias:
        return None
    queries, keys = (
        [axis.labelalias[str(i)] for i in range(len(axis.labelalias))] for axis in (fig.layout.yaxis, fig.layout.xaxis)
    )
    return queries, keys


def fit_heatmap(fig: go.Figure, width: int, height: int | None = None) -> go.Figure:
    """`fig` laid out again for an export `width` px wide (a paper's column) and `height` (None: its own, the room
    its rows need, rather than shrunk with the width): tick labels thinned and slanted for that size as `heatmap`
    places them, instead of crowded. Any other figure, or a heatmap exported at its own width or wider, is `fig`."""
    labels = _refitted_heatmap_labels(fig, width)
    if labels is None:
        return fig
    queries, keys = labels
    meta = fig.layout.meta if isinstance(fig.layout.meta, dict) else {}
    drawn = max(
        len(fig.layout.xaxis.tickvals or ()), len(fig.layout.yaxis.tickvals or ()), 1
    )  # its max_labels, or less
    size = (width, height or fig.layout.height or 500)
    if width < PRINT_WIDTH_PX:
        return print_heatmap(fig, queries, keys, size)
    words = meta.get("axis_words") or {  # the axis titles before any "(n of m labelled)"; a figure made before: as is
        "key": fig.layout.xaxis.title.text,
        "query": fig.layout.yaxis.title.text,
        "labelled": "{axis}",
    }
    return go.Figure(fig).update_layout(
        width=size[0], height=size[1], **heatmap_axes(queries, keys, drawn, size, words)
    )


# ----------------------------------------------------------------------------------------------------------------------
# A layers × heads grid of numbers

HEAD_CELL_PX = (56, 40)  # px a head (a column) and a layer (a row) take, its number written in the cell
HEAD_GRID_MARGIN_PX = (220, 180)  # px the margins, colour bar and axis titles add around the cells
HEAD_GRID_WIDTH, HEAD_GRID_HEIGHT = (420, 1400), (320, 1400)  # px: the smallest and largest such a figure is


def head_grid_size(layers: int, heads: int) -> tuple[int, int]:
    """The width and height (px) of a figure that writes a number for each of `layers` × `heads` heads."""
    return (
        clamp(HEAD_GRID_MARGIN_PX[0] + HEAD_CELL_PX[0] * heads, *HEAD_GRID_WIDTH),
        clamp(HEAD_GRID_MARGIN_PX[1] + HEAD_CELL_PX[1] * layers, *HEAD_GRID_HEIGHT),
    )


# ----------------------------------------------------------------------------------------------------------------------
# An alignment's token labels

LABEL_SIZE = 15.0  # px: the token labels' font size (smaller only when even upright labels would not fit)
LABEL_GAP = 6.0  # px kept free between two labels
LABEL_OFFSET = 8.0  # px from a token line to its labels
LABEL_CLEARANCE = 6.0  # px kept free beyond the labels' outer edge
LINE_SHARE = 0.3  # in a figure of a given height, the share of the plot kept between the two token lines
MIN_LABEL_SIZE = 4.0  # px: labels are drawn no smaller to make that room (the hover still reads them)
LINE_HEIGHT = 1.3  # one label's height, in font sizes
X_RANGE = (-0.02, 1.02)  # the x axis: token positions lie in (0, 1)
MARGINS = (90, 40)  # px left and right of the plot (FigureStyle.layout's)
VERTICAL_MARGINS = 160  # px above and below the plot (FigureStyle.layout's top and bottom margins)
ALIGNMENT_WIDTH = (520, 1600)  # px: the narrowest and widest an alignment chooses to be
MIN_HEIGHT = 380  # px: the lowest an alignment chooses to be
MIN_PAD = 0.45  # y axis units at least beyond each token line (the lines are 1 apart), for its labels
MIN_LABEL_ROOM = 20  # px of plot at least between the two lines' labels
# Labels are placed for a figure at most this wide, so that they stay apart wherever it is shown at least this wide:
# a page column stretches or shrinks a figure to its own width (a half column beside the app's sidebar on a
# 1,400 px window is about 450 px).
PLAN_WIDTH = 440
# An alignment whose labels cannot stand level (in one or two rows) in half a column stands alone, in a whole column
# of the page (`alignment_stands_alone`): its labels are placed for one this wide (a 1,280 px window, sidebar open).
WHOLE_PLAN_WIDTH = 880
LABEL_NAME = "token label"  # the name of the label annotations, which `fit_alignment` places again
# The stated minimums of token labels: on screen, a pair of up to STATED_PAIR_WORDS words per side stands its labels
# at SCREEN_LABEL_FLOOR px or more; in one column of print (336 px, 3.5 in), at PRINT_TICK_FLOOR px (6 pt) or more.
STATED_PAIR_WORDS = 16
SCREEN_LABEL_FLOOR = 12.0
PRINT_LABEL_GAP = 2.0  # px between two labels in print, where every px of a column counts
PRINT_SIDE_PX = (14, 8, 24)  # px in print: beside the side names (left), right of the plot, below it


@dataclass(frozen=True)
class Frame:
    """The room around an alignment's plot (px: left, right, top, bottom margins) and between two labels."""

    left: float
    right: float
    top: float
    bottom: float
    gap: float = LABEL_GAP

    @property
    def across(self) -> float:
        return self.left + self.right

    @property
    def along(self) -> float:
        return self.top + self.bottom


SCREEN = Frame(MARGINS[0], MARGINS[1], VERTICAL_MARGINS / 2, VERTICAL_MARGINS / 2)  # `FigureStyle.layout`'s


def print_frame(side_names: Sequence[str]) -> Frame:
    """The frame of an alignment in a column of print (narrower than PRINT_WIDTH_PX): margins fitted to the side
    names ("Source", "Target") at the tick size and to nothing more, labels closer together; the top as on screen
    (the title)."""
    names = max((text_width(name, TICK_SIZE) for name in side_names), default=0.0)
    left, right, bottom = PRINT_SIDE_PX
    return Frame(names + left, right, SCREEN.top, bottom, PRINT_LABEL_GAP)


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


def plan_labels(widths: Sequence[float], spacing: float, gap: float = LABEL_GAP) -> LabelPlan:
    """The plainest standing of labels `widths` px wide, `spacing` px apart, in which none overlaps another (`gap` px
    kept between two): level in one row, else staggered in two, else upright (smaller, when even upright ones are
    wider than the spacing)."""
    pairs = zip(widths, widths[1:])
    if all((a + b) / 2 + gap <= spacing for a, b in pairs):
        return LabelPlan(0, 1, LABEL_SIZE)
    if all((a + b) / 2 + gap <= 2 * spacing for a, b in zip(widths, widths[2:])):
        return LabelPlan(0, 2, LABEL_SIZE)
    size = min(LABEL_SIZE, (spacing - gap) / LINE_HEIGHT)
    return LabelPlan(-90, 1, max(size, 1.0))


def line_positions(count: int) -> np.ndarray:
    """Evenly spread x positions in (0, 1), so two lines of different lengths span the same width."""
    return (np.arange(count) + 0.5) / max(count, 1)


def label_centers(count: int, plot_px: float) -> list[float]:
    """The px positions of `count` tokens along a line of the plot, `plot_px` wide (see `line_positions`)."""
    return [(x - X_RANGE[0]) / (X_RANGE[1] - X_RANGE[0]) * plot_px for x in line_positions(count)]


@dataclass(frozen=True)
class TokenLines:
    """The two token lines: keys (source) on top, queries (target) below, with their x positions and labels."""

    key_x: np.ndarray
    query_x: np.ndarray
    key_labels: list[str]
    query_labels: list[str]

    def width_for(self, chosen: int | None) -> int:
        """The figure's width: `chosen` (the style's), else wide enough for level labels (`ALIGNMENT_WIDTH`)."""
        if chosen:
            return chosen
        need = 0.0
        for labels in (self.key_labels, self.query_labels):
            widths = label_widths(labels, LABEL_SIZE)
            pair = max(((a + b) / 2 + LABEL_GAP for a, b in zip(widths, widths[1:])), default=0.0)
            need = max(need, pair * len(labels) * (X_RANGE[1] - X_RANGE[0]))
        return clamp(need + sum(MARGINS), *ALIGNMENT_WIDTH)

    def plans(
        self, width: int, exact: bool = False, plan_width: int = PLAN_WIDTH, frame: Frame = SCREEN
    ) -> tuple[LabelPlan, LabelPlan]:
        """How the key labels and the query labels stand in a figure `width` px wide, or shown at `plan_width` (a
        page may shrink it to that); `exact`: drawn at `width` itself (a file), in `frame`."""
        plot_px = (width if exact else min(width, plan_width)) - frame.across
        chosen = []
        for labels in (self.key_labels, self.query_labels):
            spacing = plot_px / (X_RANGE[1] - X_RANGE[0]) / max(len(labels), 1)
            chosen.append(plan_labels(label_widths(labels, LABEL_SIZE), spacing, frame.gap))
        return chosen[0], chosen[1]

    def stands_alone(self) -> bool:
        """Whether a line's labels cannot stand level, in one row or two, in half a page's column (`PLAN_WIDTH`):
        the figure then takes a whole column (`WHOLE_PLAN_WIDTH`) rather than standing its labels upright and
        small beside another figure."""
        return any(plan.angle for plan in self.plans(PLAN_WIDTH))

    def plan_width(self) -> int:
        """The width its labels are placed for on a page: a half column, or a whole one when it stands alone."""
        return WHOLE_PLAN_WIDTH if self.stands_alone() else PLAN_WIDTH

    def reach(self, key_plan: LabelPlan, query_plan: LabelPlan) -> float:
        """How far (px) the farther-reaching of the two lines' labels stands from its line."""
        return max(
            plan.extent(label_widths(labels, plan.size))
            for plan, labels in ((key_plan, self.key_labels), (query_plan, self.query_labels))
        )

    def room(
        self, key_plan, query_plan, chosen_height: int | None, frame: Frame = SCREEN
    ) -> tuple[int, float, LabelPlan, LabelPlan]:
        """The figure's height (px: `chosen_height`, else what the labels need), the y axis' pad beyond each line
        (axis units), and the label plans at the size that fits: in a figure of a given height, labels that would
        squeeze the two token lines together (long upright words) are drawn smaller, so that the lines keep
        `LINE_SHARE` of the plot between them."""
        reach = self.reach(key_plan, query_plan)
        # the plot in which each line's labels (and their clearance) take exactly MIN_PAD of the lines' distance
        needed_plot = int((1 + 2 * MIN_PAD) * (reach + LABEL_CLEARANCE) / MIN_PAD)
        height = chosen_height or max(MIN_HEIGHT, int(needed_plot + frame.along))
        allowed = (1 - LINE_SHARE) * (height - frame.along) / 2 - LABEL_CLEARANCE  # px each line's labels reach
        if reach > allowed:
            scale = max(allowed - LABEL_OFFSET, 0.0) / (reach - LABEL_OFFSET)
            key_plan, query_plan = (
                replace(plan, size=max(plan.size * scale, MIN_LABEL_SIZE)) for plan in (key_plan, query_plan)
            )
            reach = self.reach(key_plan, query_plan)
        between = max(height - frame.along - 2 * (reach + LABEL_CLEARANCE), MIN_LABEL_ROOM)
        return height, max(MIN_PAD, (reach + LABEL_CLEARANCE) / between), key_plan, query_plan

    def annotations(self, key_plan: LabelPlan, query_plan: LabelPlan) -> list[dict]:
        """Both lines' labels as annotations standing as their plans say: keys above the top line, queries below
        the bottom one."""
        return [
            *_line_labels(self.key_x, self.key_labels, key_plan, top=True),
            *_line_labels(self.query_x, self.query_labels, query_plan, top=False),
        ]


def _line_labels(xs: np.ndarray, labels: list[str], plan: LabelPlan, top: bool) -> list[dict]:
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


def smallest_labels(fig: go.Figure) -> tuple[float, int] | None:
    """(font size px, labels on that line) of the line whose token labels an alignment figure draws smallest, or of
    the key axis of a heatmap laid out for print (`print_heatmap`); None for any other figure."""
    meta = fig.layout.meta if isinstance(fig.layout.meta, dict) else {}
    if meta.get("view") == "heatmap" and meta.get("print_ticks"):  # a heatmap laid out for print: its tick labels
        ticks = meta["print_ticks"]
        return float(ticks["size"]), int(ticks["keys"])
    if meta.get("view") != "alignment" or not meta.get("labels"):
        return None
    side, plan = min(meta["labels"].items(), key=lambda item: item[1]["size"])
    lines = _drawn_lines(fig)
    return float(plan["size"]), len(lines.key_labels if side == "keys" else lines.query_labels)


@dataclass(frozen=True)
class LabelFit:
    """An alignment's token labels planned again for a file: its lines, the file's width and height, the y axis'
    pad beyond each line, the two lines' plans (`TokenLines.room`) and the frame they were planned in."""

    lines: TokenLines
    width: int
    height: int
    pad: float
    key_plan: LabelPlan
    query_plan: LabelPlan
    frame: Frame = SCREEN


def _drawn_lines(fig: go.Figure) -> TokenLines:
    """The token lines an alignment figure draws, read from its label annotations as plain data (reading plotly's
    annotation objects one property at a time costs more than drawing the figure did)."""
    notes = [note for note in fig.layout.to_plotly_json().get("annotations", ()) if note.get("name") == LABEL_NAME]
    keys, queries = ([note for note in notes if note.get("y") == y] for y in (1.0, 0.0))
    return TokenLines(
        key_x=np.array([note["x"] for note in keys]),
        query_x=np.array([note["x"] for note in queries]),
        key_labels=[note["text"] for note in keys],
        query_labels=[note["text"] for note in queries],
    )


def _label_fit(fig: go.Figure, width: int, height: int | None) -> LabelFit | None:
    """How an alignment's labels stand in a file `width` px wide (and `height`, None: what they need), or None for
    any other figure, or an alignment whose labels would stand as they do (`fit_alignment`)."""
    meta = fig.layout.meta if isinstance(fig.layout.meta, dict) else {}
    if meta.get("view") != "alignment":
        return None
    lines = _drawn_lines(fig)
    frame = print_frame(fig.layout.yaxis.ticktext or ()) if width < PRINT_WIDTH_PX else SCREEN
    key_plan, query_plan = lines.plans(width, exact=True, frame=frame)
    own = fig.layout.width or width
    drawn_for = meta.get("plan_width", PLAN_WIDTH)  # the width the page placed its labels for
    as_drawn = (key_plan, query_plan) == lines.plans(own, plan_width=drawn_for)
    if width >= own and as_drawn and height in (None, fig.layout.height):
        return None  # as wide or wider, labels as they stand: the figure scales as drawn
    height, pad, key_plan, query_plan = lines.room(key_plan, query_plan, height, frame)
    return LabelFit(lines, width, height, pad, key_plan, query_plan, frame)


def fit_alignment(fig: go.Figure, width: int, height: int | None = None) -> go.Figure:
    """`fig` laid out again for an export `width` px wide (and `height`, None: what its labels need): an alignment's
    labels planned for exactly that width, so that a narrow print size (a paper's column) stands them upright or
    smaller instead of overlapping, and a wide one (a file at the figure's own width, which the page planned for a
    column as narrow as `PLAN_WIDTH`) stands them as large as it has room for. Any other figure, or an alignment
    whose labels would stand as they do, is `fig` itself."""
    fit = _label_fit(fig, width, height)
    if fit is None:
        return fig
    # Built from the figure's plain data: plotly's update_layout re-validates every annotation one property at a
    # time (nearly a second for two 40-token lines), the new figure validates them once.
    data = fig.to_plotly_json()
    laid = data["layout"]
    others = [note for note in laid.get("annotations", ()) if note.get("name") != LABEL_NAME]
    laid.update(
        width=fit.width,
        height=fit.height,
        annotations=[*others, *fit.lines.annotations(fit.key_plan, fit.query_plan)],
        meta={**laid["meta"], "labels": {"keys": vars(fit.key_plan), "queries": vars(fit.query_plan)}},
    )
    laid["yaxis"] = {**laid.get("yaxis", {}), "range": [-fit.pad, 1 + fit.pad]}
    if fit.frame is not SCREEN:  # a column of print: margins fitted to what they hold
        frame = fit.frame
        laid["margin"] = {**laid.get("margin", {}), "l": frame.left, "r": frame.right, "b": frame.bottom}
    return go.Figure(data)


def file_labels(fig: go.Figure, width: int, height: int | None = None) -> tuple[float, int] | None:
    """What `smallest_labels` says of `fig` laid out for a file `width` px wide and `height` high (None: what it
    needs) as `fit_to_width` lays it out, found without laying it out: a page says it beside its download buttons
    on every rerun, before any file is made."""
    fit = _label_fit(fig, width, height)
    if fit is not None:
        lines = {"keys": (fit.key_plan, fit.lines.key_labels), "queries": (fit.query_plan, fit.lines.query_labels)}
        plan, labels = min(lines.values(), key=lambda line: line[0].size)
        return float(plan.size), len(labels)
    labels = _refitted_heatmap_labels(fig, width)
    if labels is not None and width < PRINT_WIDTH_PX:
        queries, keys = labels
        _, tick, x_ticks, _ = _print_ticks(queries, keys, (width, height or fig.layout.height or 500))
        return float(tick), len(x_ticks)
    return smallest_labels(fig)


# ----------------------------------------------------------------------------------------------------------------------
# A figure laid out for a file's width


def fit_to_width(fig: go.Figure, width: int, height: int | None, own_height: int) -> tuple[go.Figure, int]:
    """`fig` laid out again for a file `width` px wide, and the height to draw it at: an alignment's labels planned
    for that width, a heatmap's ticks thinned for it, a title too wide for it broken into lines. The height is
    `height` when asked for; else what the re-planned labels need (or `own_height`, the figure's own at this width,
    when nothing was planned again), grown by the title's added lines."""
    laid = fit_heatmap(fit_alignment(fig, width, height), width, height)  # each leaves the other's figures as they are
    titled = fit_title(laid, width)
    if height is not None:
        return titled, height
    drawn_height = laid.layout.height if laid is not fig else own_height
    added = (titled.layout.title.text or "").count("<br>") - (laid.layout.title.text or "").count("<br>")
    return titled, drawn_height + added * TITLE_LINE
