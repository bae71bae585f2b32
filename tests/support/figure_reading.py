"""Reading plotly figures as a person sees them: hover labels, axis texts, and a small zh/en map."""

import base64
import json
import math

import numpy as np

from attnviz.figures.common import token_label  # how a diagram names a token (spaces shown)
from attnviz.types import AttentionMap
from tests.support.maps import tokens_from


def en_zh_map() -> AttentionMap:
    """Target 早上 好 (queries) over source Good morning (keys); 早上 → morning is 0.62 in every head."""
    queries = tokens_from(["早上", "好"], "早上好")
    keys = tokens_from(["Good", "morning"], "Good morning")
    weights = np.array([[0.38, 0.62], [0.9, 0.1]], dtype=np.float32)
    return AttentionMap("cross", np.broadcast_to(weights, (1, 2, 2, 2)).copy(), queries, keys, ["decoder.0.cross"])


# ---------------------------------------------------------------------------------------------------------------------
# heatmap


def _axis(fig, trace, letter: str):
    name = getattr(trace, f"{letter}axis") or letter
    return fig.layout[f"{letter}axis{name[1:]}"]


def _axis_text(axis, position: int) -> str:
    """What plotly writes for a hovered position of a numeric axis: the tick text at a tick, else the position
    formatted with `hoverformat` and looked up in `labelalias`."""
    ticks = list(axis.tickvals) if axis.tickvals is not None else []
    if position in ticks:
        return axis.ticktext[ticks.index(position)]
    assert axis.hoverformat == "d"
    return axis.labelalias.get(str(position), str(position))


def hover_label(fig, row: int, col: int, trace: int = 0) -> str:
    """The hover label a person sees on cell (row, col) of heatmap `fig.data[trace]`, worked out as plotly.js does
    (tests/browser/test_figures_browser.py checks it against plotly.js in chromium): the template's %{y}/%{x} through the
    axes, its d3 ".3~g" weight as Python's ".3g" (the same text for weights ≥ 1e-4), a masked (NaN) cell through
    the filled outline that covers it, or "" when nothing covers it."""
    from matplotlib.path import Path as Polygon

    heat = fig.data[trace]
    if not np.isfinite(np.asarray(heat.z, dtype=float)[row, col]):
        for outline in fig.data:
            if outline.type == "scatter" and outline.hoveron == "fills":
                if Polygon(np.column_stack([outline.x, outline.y])).contains_point((col, row)):
                    return outline.text
        return ""
    template = heat.hovertemplate.removesuffix("<extra></extra>")
    template = template.replace("%{y}", _axis_text(_axis(fig, heat, "y"), row))
    template = template.replace("%{x}", _axis_text(_axis(fig, heat, "x"), col))
    for source in ("z", "customdata"):
        values = getattr(heat, source)
        if values is not None:
            template = template.replace("%{" + source + ":.3~g}", format(float(np.asarray(values)[row, col]), ".3g"))
    return template


def plotly_array(value) -> np.ndarray:
    """A plotly JSON array: a nested list (null = NaN) or a typed array {"dtype", "bdata", "shape"}."""
    if isinstance(value, dict) and "bdata" in value:
        flat = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        shape = value.get("shape")
        if isinstance(shape, str):
            shape = [int(n) for n in shape.split(",")]
        return flat.reshape(shape).astype(float) if shape else flat.astype(float)
    if value and not isinstance(value[0], list):  # one dimension
        return np.array([math.nan if v is None else v for v in value], dtype=float)
    return np.array([[math.nan if v is None else v for v in row] for row in value], dtype=float)


def html_figure(page: str) -> dict:
    """The data and layout of the figure an HTML export draws (the arguments of its Plotly.newPlot call)."""
    decoder = json.JSONDecoder()
    position = page.rindex("Plotly.newPlot(") + len("Plotly.newPlot(")
    values = []
    for _ in range(3):  # the div id, the data, the layout
        while page[position] in " \n\t,":
            position += 1
        value, position = decoder.raw_decode(page, position)
        values.append(value)
    return {"data": values[1], "layout": values[2]}


def links_by_hand(amap: AttentionMap, matrix: np.ndarray, threshold: float = 0.1, top_k: int = 3):
    """The links an alignment diagram should draw, taken by numpy from a (queries, keys) matrix: per row, the top_k
    weights at least `threshold`, as ("query → key", weight) sorted."""
    found = []
    for query, row in enumerate(matrix):
        for key in np.argsort(-row, kind="stable")[:top_k]:
            if row[key] >= threshold and row[key] > 0:
                name = f"{token_label(amap.query_tokens[query])} → {token_label(amap.key_tokens[key])}"
                found.append((name, round(float(row[key]), 6)))
    return sorted(found)
