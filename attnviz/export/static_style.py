"""What the static engine (`attnviz.export.static`) reads off a plotly figure before it draws: colours, colour maps,
font sizes in points, the canvas and margins, where the colour bar and legend go, and which axes a trace names."""

from __future__ import annotations

import re
import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # plotly is only read here (the figure it is given), never imported
    import plotly.graph_objects as go

DPI = 96.0  # CSS pixels per inch: plotly's px, Chromium's PDF pages and this engine's agree
PX_TO_PT = 72.0 / DPI
DEFAULT_MARGIN = dict(l=80, r=80, t=100, b=80)
COLORBAR_PX = 90  # room plotly's colour bar takes right of the plot area (automargin)
LEGEND_PX = 110
LOCK = threading.Lock()  # matplotlib's font list, font cache and rcParams are process-global
SUPPORTED = {"heatmap", "scatter", "bar"}
SYMBOLS = {"circle": "o", "diamond": "D", "square": "s", "triangle-up": "^", "cross": "P", "x": "X"}  # plotly -> mpl


SPAN_COLOR = re.compile(r"<span style=[\"']color:\s*([^;\"']+)")


def label_color(text: str | None) -> str | None:
    """The colour a label's HTML gives its text (<span style="color:…">, e.g. an unknown token's), or None."""
    match = SPAN_COLOR.search(str(text or ""))
    return match.group(1).strip() if match else None


def color_of(value, default: str = "#444444"):
    """A plotly colour string ('#abc', 'rgb(1,2,3)', 'rgba(1,2,3,0.5)', a name) as a matplotlib colour."""
    if value is None:
        return default
    if isinstance(value, str):
        match = re.fullmatch(r"\s*rgba?\(([^)]*)\)\s*", value)
        if match:
            parts = [float(p) for p in match.group(1).split(",")]
            rgb = tuple(p / 255.0 for p in parts[:3])
            return (*rgb, parts[3]) if len(parts) == 4 else rgb
    return value


def colormap_of(colorscale):
    from matplotlib.colors import LinearSegmentedColormap  # matplotlib: loaded only when this engine draws

    if not colorscale:
        import matplotlib  # matplotlib: loaded only when this engine draws

        cmap = matplotlib.colormaps["viridis"]
    else:
        stops = [(float(pos), color_of(col)) for pos, col in colorscale]
        cmap = LinearSegmentedColormap.from_list("plotly", stops, N=256)
    return cmap.with_extremes(bad=(0, 0, 0, 0))  # NaN (masked) cells let the plot background through, as in plotly


def font_pt(font, fallback_px: float) -> float:
    size = getattr(font, "size", None) if font is not None else None
    return float(size or fallback_px) * PX_TO_PT


class Canvas:
    """Figure geometry: plotly's paper/domain coordinates mapped to matplotlib figure fractions."""

    def __init__(self, fig: go.Figure, width: float, height: float):
        layout = fig.layout
        self.width, self.height = width, height
        margin = {k: (getattr(layout.margin, k, None) if layout.margin else None) for k in "lrtb"}
        self.margin = {k: float(v if v is not None else DEFAULT_MARGIN[k]) for k, v in margin.items()}
        right = self.margin["r"]
        if has_colorbar(fig) and not colorbar_below(fig):  # one under the plot sits in the bottom margin
            right += COLORBAR_PX
        if legend_entries(fig):
            right += LEGEND_PX
        left, right = fit_margins(self.margin["l"], right, width)
        bottom, top = fit_margins(self.margin["b"], self.margin["t"], height)
        self.x0, self.x1 = left / width, 1.0 - right / width
        self.y0, self.y1 = bottom / height, 1.0 - top / height

    def paper(self, x: float, y: float) -> tuple[float, float]:
        return self.x0 + x * (self.x1 - self.x0), self.y0 + y * (self.y1 - self.y0)


def fit_margins(low: float, high: float, side: float, least: float = 20.0) -> tuple[float, float]:
    """Margins shrunk in proportion when they would leave less than `least` px to plot in (a small export size),
    as plotly shrinks its own."""
    spare = max(side - least, 0.0)
    if low + high <= spare:
        return low, high
    shrink = spare / (low + high)
    return low * shrink, high * shrink


def colorbar_below(fig: go.Figure) -> bool:
    """Whether the figure's heatmap puts its colour bar under the plot (a heatmap laid out for print)."""
    return any(t.type == "heatmap" and t.colorbar is not None and t.colorbar.orientation == "h" for t in fig.data)


def has_colorbar(fig: go.Figure) -> bool:
    for trace in fig.data:
        if trace.type == "scatter" and trace.marker is not None and trace.marker.showscale:
            return True
        if trace.type != "heatmap":
            continue
        if trace.coloraxis:
            return fig.layout[trace.coloraxis].showscale is not False
        if trace.showscale is not False:
            return True
    return False


def legend_entries(fig: go.Figure) -> list:
    if fig.layout.showlegend is False:
        return []
    return [t for t in fig.data if t.type in ("scatter", "bar") and t.showlegend is True and t.name]


def axis_name(ref: str | None, letter: str) -> str:
    ref = ref or letter
    return f"{letter}axis{ref[1:]}"


def anchor_of(value: str | None, default: str) -> str:
    return default if value in (None, "auto") else value
