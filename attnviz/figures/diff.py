"""The difference of two attention maps, A − B, as a heatmap on a diverging scale centred on 0 (red: A gives more,
blue: B gives more); rows and columns only one side has are labelled "+" (only in B) or "−" (only in A) and framed,
so that an added word's row, which shows −B, is not read as B's change of mind. Numbers in, figure out: the
comparison itself is `attnviz.compare`."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from attnviz import i18n
from attnviz.errors import InputError
from attnviz.figures.common import format_value, text_label
from attnviz.figures.heatmap import HEATMAP_HEIGHT, HEATMAP_WIDTH
from attnviz.figures.layout import PLOT_MARGIN_PX, heatmap_axes, room_for
from attnviz.figures.style import DEFAULT_STYLE, FigureStyle

DIFF_COLORSCALE = "RdBu_r"  # blue below 0, white at 0, red above: diverging, readable in grey and by most eyes
STATUS_MARKS = {"both": "", "removed": "− ", "added": "+ "}
STATUS_FRAMES = {"removed": "#b2182b", "added": "#2166ac"}  # the ends of the colour scale: A's side, B's side
DIFF_WORDS = ("compare_diff_weight", "compare_diff_note", "compare_diff_hover")


def _marked(labels: Sequence[str], statuses: Sequence[str]) -> list[str]:
    """Each segment's text as a label (escaped: a special token's "</s>" is drawn, not read as a tag), marked + or −
    when only one side has it."""
    return [STATUS_MARKS[status] + text_label(label) for label, status in zip(labels, statuses)]


def _frames(statuses: Sequence[str], axis: str) -> list[dict]:
    """A dashed frame around each row (axis "y") or column ("x") only one side has."""
    shapes = []
    for index, status in enumerate(statuses):
        if status in STATUS_FRAMES:
            band = dict(x0=index - 0.5, x1=index + 0.5) if axis == "x" else dict(y0=index - 0.5, y1=index + 0.5)
            whole = dict(y0=0, y1=1, yref="paper") if axis == "x" else dict(x0=0, x1=1, xref="paper")
            line = dict(color=STATUS_FRAMES[status], width=1.5, dash="dot")
            shapes.append(dict(type="rect", line=line, fillcolor="rgba(0,0,0,0)", layer="above", **band, **whole))
    return shapes


def diff_heatmap(
    values: np.ndarray,
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    row_status: Sequence[str],
    col_status: Sequence[str],
    *,
    kind: str | None = None,
    selection: str | None = None,
    zmax: float | None = None,
    max_labels: int = 64,
    style: FigureStyle = DEFAULT_STYLE,
) -> go.Figure:
    """A − B (rows, cols) as a diverging heatmap centred on 0, symmetric to ±`zmax` (default: the largest |A − B|).

    `row_status`/`col_status`: "both", "removed" (only in A) or "added" (only in B) per row and column
    (`attnviz.compare.TokenMatch.statuses`); `kind` and `selection` name the map and the heads in the title."""
    values = np.asarray(values, dtype=np.float32)
    if values.ndim != 2 or values.shape != (len(row_labels), len(col_labels)):
        raise InputError("map_tokens_mismatch", shape=values.shape, queries=len(row_labels), keys=len(col_labels))
    if (len(row_status), len(col_status)) != values.shape:
        raise InputError("map_tokens_mismatch", shape=values.shape, queries=len(row_status), keys=len(col_status))
    rows, cols = _marked(row_labels, row_status), _marked(col_labels, col_status)
    words = {**style.words(), **{key: i18n.t(key, style.lang) for key in DIFF_WORDS}, **(style.labels or {})}
    largest = float(np.abs(values).max()) if values.size else 0.0
    limit = max(zmax if zmax is not None else largest, 1e-6)  # an all-zero map still has a scale
    width = int(np.clip(room_for(len(cols), PLOT_MARGIN_PX[0]), *HEATMAP_WIDTH))
    height = int(np.clip(room_for(len(rows), PLOT_MARGIN_PX[1]), *HEATMAP_HEIGHT))
    size = (style.width or width, style.height or height)
    hover = words["compare_diff_hover"].format(query="%{y}", key="%{x}", value="%{z:.4f}") + "<extra></extra>"
    trace = go.Heatmap(
        z=values,
        x=list(range(len(cols))),
        y=list(range(len(rows))),
        colorscale=DIFF_COLORSCALE,
        zmid=0.0,
        zmin=-limit,
        zmax=limit,
        colorbar=dict(title=dict(text=words["compare_diff_weight"])),
        hovertemplate=hover,
    )
    title = style.heading(kind, selection, [words["compare_diff_note"], f"max |A − B| {format_value(largest)}"])
    fig = go.Figure(trace)
    fig.update_layout(
        **style.layout(title, width, height, meta={"view": "diff"}),
        **heatmap_axes(rows, cols, max_labels, size, words),
        shapes=_frames(row_status, "y") + _frames(col_status, "x"),
    )
    return fig
