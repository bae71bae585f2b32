"""The static engine: attnviz's plotly figures drawn with matplotlib, PNG/SVG/PDF without a browser, Chinese from
the packaged font.

It reads the plotly figure itself (traces, axes, colour scales, annotations, title), so the file shows the same
tokens, values, colour scale and title as the screen. It covers what attnviz's figures use: heatmaps (with a colour
bar or a shared colour axis, cell text and gaps), scatter lines/markers/text (None breaks lines), bars (vertical,
horizontal, stacked), paper- and axis-anchored annotations, subplot domains, tick values/text and reversed axes.
Anything else raises an error that names the kaleido engine instead.

Sizes: a plotly pixel is a CSS pixel, 1/96 inch, as in a browser: a PNG has `scale` pixels per plotly pixel (its
pHYs says 96 × scale dpi), and a PDF or SVG page is width/96 inches wide (fonts convert px → pt by 72/96).

Text in files for print:
- PDF keeps text as text: each font is embedded as a TrueType subset in a CID-keyed Type 0 font with a ToUnicode map
  (`pdf.fonttype` 42; the CJK font's subset is made by `attnviz.export.fontsubset`), so Chinese copies and searches
  as the labels read and no Type 3 font is left for a submission checker to flag.
- SVG turns text into glyph outlines (each label is also kept in an XML comment beside its glyphs). An SVG goes into
  Inkscape, Illustrator, Word, LaTeX converters and browsers, and many of them ignore a font embedded in an SVG
  (@font-face data) and substitute a system font — boxes where no CJK font is installed. Outlines look the same
  everywhere; the text itself, for searching and copying, is what the PDF is for.
"""

from __future__ import annotations

import io
import re
import threading
import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from attnviz.errors import AttnvizError
from attnviz.export import fontsubset
from attnviz.figures import fonts
from attnviz.figures.fonts import plain_text

if TYPE_CHECKING:  # plotly is only read here (the figure it is given), never imported
    import plotly.graph_objects as go

DPI = 96.0  # CSS pixels per inch: plotly's px, Chromium's PDF pages and this engine's agree
PX_TO_PT = 72.0 / DPI
DEFAULT_MARGIN = dict(l=80, r=80, t=100, b=80)
COLORBAR_PX = 90  # room plotly's colour bar takes right of the plot area (automargin)
LEGEND_PX = 110
_LOCK = threading.Lock()  # matplotlib's font list, font cache and rcParams are process-global
_SUPPORTED = {"heatmap", "scatter", "bar"}
_SYMBOLS = {"circle": "o", "diamond": "D", "square": "s", "triangle-up": "^", "cross": "P", "x": "X"}  # plotly -> mpl


_SPAN_COLOR = re.compile(r"<span style=[\"']color:\s*([^;\"']+)")


def label_color(text: str | None) -> str | None:
    """The colour a label's HTML gives its text (<span style="color:…">, e.g. an unknown token's), or None."""
    match = _SPAN_COLOR.search(str(text or ""))
    return match.group(1).strip() if match else None


def _color(value, default: str = "#444444"):
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


def _colormap(colorscale):
    from matplotlib.colors import LinearSegmentedColormap  # matplotlib: loaded only when this engine draws

    if not colorscale:
        import matplotlib  # matplotlib: loaded only when this engine draws

        cmap = matplotlib.colormaps["viridis"]
    else:
        stops = [(float(pos), _color(col)) for pos, col in colorscale]
        cmap = LinearSegmentedColormap.from_list("plotly", stops, N=256)
    return cmap.with_extremes(bad=(0, 0, 0, 0))  # NaN (masked) cells let the plot background through, as in plotly


def _font_pt(font, fallback_px: float) -> float:
    size = getattr(font, "size", None) if font is not None else None
    return float(size or fallback_px) * PX_TO_PT


class _Canvas:
    """Figure geometry: plotly's paper/domain coordinates mapped to matplotlib figure fractions."""

    def __init__(self, fig: go.Figure, width: float, height: float):
        layout = fig.layout
        self.width, self.height = width, height
        margin = {k: (getattr(layout.margin, k, None) if layout.margin else None) for k in "lrtb"}
        self.margin = {k: float(v if v is not None else DEFAULT_MARGIN[k]) for k, v in margin.items()}
        right = self.margin["r"]
        if _has_colorbar(fig) and not _colorbar_below(fig):  # one under the plot sits in the bottom margin
            right += COLORBAR_PX
        if _legend_entries(fig):
            right += LEGEND_PX
        left, right = _fit_margins(self.margin["l"], right, width)
        bottom, top = _fit_margins(self.margin["b"], self.margin["t"], height)
        self.x0, self.x1 = left / width, 1.0 - right / width
        self.y0, self.y1 = bottom / height, 1.0 - top / height

    def paper(self, x: float, y: float) -> tuple[float, float]:
        return self.x0 + x * (self.x1 - self.x0), self.y0 + y * (self.y1 - self.y0)


def _fit_margins(low: float, high: float, side: float, least: float = 20.0) -> tuple[float, float]:
    """Margins shrunk in proportion when they would leave less than `least` px to plot in (a small export size),
    as plotly shrinks its own."""
    spare = max(side - least, 0.0)
    if low + high <= spare:
        return low, high
    shrink = spare / (low + high)
    return low * shrink, high * shrink


def _colorbar_below(fig: go.Figure) -> bool:
    """Whether the figure's heatmap puts its colour bar under the plot (a heatmap laid out for print)."""
    return any(t.type == "heatmap" and t.colorbar is not None and t.colorbar.orientation == "h" for t in fig.data)


def _has_colorbar(fig: go.Figure) -> bool:
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


def _legend_entries(fig: go.Figure) -> list:
    if fig.layout.showlegend is False:
        return []
    return [t for t in fig.data if t.type in ("scatter", "bar") and t.showlegend is True and t.name]


def _axis_name(ref: str | None, letter: str) -> str:
    ref = ref or letter
    return f"{letter}axis{ref[1:]}"


def _anchor(value: str | None, default: str) -> str:
    return default if value in (None, "auto") else value


class StaticRenderer:
    def __init__(self, fig: go.Figure, width: int | None = None, height: int | None = None):
        for trace in fig.data:
            if trace.type not in _SUPPORTED:
                raise AttnvizError("static_trace_unsupported", trace=trace.type)
        self.fig = fig
        self.width = float(width or fig.layout.width or 700)
        self.height = float(height or fig.layout.height or 450)
        self.canvas = _Canvas(fig, self.width, self.height)
        self.axes: dict[tuple[str, str], object] = {}
        self.pending_colorbar = None
        self.stack: dict[tuple[int, str, object], float] = {}

    # -- axes ------------------------------------------------------------------------------------------------------

    def _axes(self, xref: str | None, yref: str | None):
        key = (_axis_name(xref, "x"), _axis_name(yref, "y"))
        if key in self.axes:
            return self.axes[key]
        layout = self.fig.layout
        xaxis, yaxis = layout[key[0]], layout[key[1]]
        xd = list(xaxis.domain) if xaxis.domain else [0.0, 1.0]
        yd = list(yaxis.domain) if yaxis.domain else [0.0, 1.0]
        left, bottom = self.canvas.paper(xd[0], yd[0])
        right, top = self.canvas.paper(xd[1], yd[1])
        ax = self.mfig.add_axes((left, bottom, right - left, top - bottom))
        ax.set_facecolor(_color(layout.plot_bgcolor, "white"))
        for spine in ax.spines.values():
            spine.set_visible(False)
        ax.tick_params(length=0, labelsize=_font_pt(None, 12), colors=_color(layout.font.color, "#222222"))
        self.axes[key] = ax
        return ax

    def _finish_axes(self):
        for (xname, yname), ax in self.axes.items():
            for letter, axis in (("x", self.fig.layout[xname]), ("y", self.fig.layout[yname])):
                self._style_axis(ax, letter, axis)

    def _style_axis(self, ax, letter: str, axis):
        set_lim = ax.set_xlim if letter == "x" else ax.set_ylim
        set_ticks = ax.set_xticks if letter == "x" else ax.set_yticks
        set_label = ax.set_xlabel if letter == "x" else ax.set_ylabel
        if axis.range is not None:
            set_lim(*axis.range)
        if axis.autorange == "reversed":
            (ax.invert_xaxis if letter == "x" else ax.invert_yaxis)()
        if axis.visible is False:
            (ax.get_xaxis() if letter == "x" else ax.get_yaxis()).set_visible(False)
            return
        pad_pt = 4.0
        if axis.tickvals is not None:
            set_ticks([])
            if axis.showticklabels is not False:
                text = axis.ticktext if axis.ticktext is not None else [str(v) for v in axis.tickvals]
                pad_pt += self._tick_texts(
                    ax,
                    letter,
                    list(axis.tickvals),
                    [plain_text(t) for t in text],
                    axis.tickangle,
                    [label_color(t) for t in text],
                    axis.tickfont.size if axis.tickfont else None,
                )
        elif axis.showticklabels is False:
            ax.tick_params(axis=letter, labelbottom=False, labelleft=False)
        title = axis.title.text if axis.title else None
        if title:
            set_label(
                plain_text(title), fontsize=_font_pt(None, 14), labelpad=pad_pt if axis.tickvals is not None else None
            )
        gridded = axis.showgrid is True or (axis.showgrid is None and hasattr(ax, "_attnviz_value_axis"))
        if gridded and getattr(ax, "_attnviz_value_axis", letter) == letter:
            ax.grid(True, axis=letter, color="#e5e5e5", linewidth=0.8)
            ax.set_axisbelow(True)

    def _tick_texts(
        self, ax, letter: str, values: list, labels: list[str], angle, colors=None, size_px: float | None = None
    ) -> float:
        """Tick labels as plain text artists (matplotlib's Tick objects cost ~1 ms each: 64×64 maps need 128).

        Returns how far (points) they reach from the axis, so the axis title can sit beyond them.
        """
        from matplotlib import transforms  # matplotlib: loaded only when this engine draws

        size = _font_pt(None, size_px or 12)
        gap = 3.0  # points between the plot and a label
        rotation = -float(angle) if angle not in (None, "auto") else 0.0
        if letter == "x":
            base = transforms.blended_transform_factory(ax.transData, ax.transAxes)
            where = transforms.offset_copy(base, fig=self.mfig, y=-gap, units="points")
            ha = "center" if not rotation else ("right" if rotation > 0 else "left")
            place = [((v, 0.0), label) for v, label in zip(values, labels)]
            style = {"ha": ha, "va": "top", "rotation": rotation, "rotation_mode": "anchor"}
        else:
            base = transforms.blended_transform_factory(ax.transAxes, ax.transData)
            where = transforms.offset_copy(base, fig=self.mfig, x=-gap, units="points")
            place = [((0.0, v), label) for v, label in zip(values, labels)]
            style = {"ha": "right", "va": "center"}
        colors = colors or [None] * len(place)
        texts = [
            ax.text(
                *xy,
                label,
                transform=where,
                fontsize=size,
                clip_on=False,
                **style,
                **({"color": _color(color)} if color else {}),
            )  # an unknown token's label keeps its colour
            for (xy, label), color in zip(place, colors)
        ]
        if not texts:
            return 0.0
        renderer = self.mfig.canvas.get_renderer()
        boxes = [t.get_window_extent(renderer) for t in texts]
        reach_px = max(b.height for b in boxes) if letter == "x" else max(b.width for b in boxes)
        return gap + reach_px * PX_TO_PT

    def _automargin(self):
        """Grow the left/bottom margins when tick labels would fall off the figure, as plotly's automargin does."""
        renderer = self.mfig.canvas.get_renderer()
        pad = 4.0
        left = min(ax.get_tightbbox(renderer).x0 for ax in self.axes.values())
        bottom = min(ax.get_tightbbox(renderer).y0 for ax in self.axes.values())
        grow_x = max(0.0, pad - left) / self.width
        grow_y = max(0.0, pad - bottom) / self.height
        if not grow_x and not grow_y:
            return
        old = (self.canvas.x0, self.canvas.y0)
        self.canvas.x0 = min(self.canvas.x0 + grow_x, self.canvas.x1 - 0.1)
        self.canvas.y0 = min(self.canvas.y0 + grow_y, self.canvas.y1 - 0.1)
        sx = (self.canvas.x1 - self.canvas.x0) / (self.canvas.x1 - old[0])
        sy = (self.canvas.y1 - self.canvas.y0) / (self.canvas.y1 - old[1])
        for ax in self.axes.values():
            box = ax.get_position()
            ax.set_position(
                (
                    self.canvas.x0 + (box.x0 - old[0]) * sx,
                    self.canvas.y0 + (box.y0 - old[1]) * sy,
                    box.width * sx,
                    box.height * sy,
                )
            )

    # -- traces ----------------------------------------------------------------------------------------------------

    def _heatmap(self, trace):
        from matplotlib import colors as mcolors  # matplotlib: loaded only when this engine draws

        ax = self._axes(trace.xaxis, trace.yaxis)
        z = np.array(trace.z, dtype=np.float64)  # (rows, cols); NaN = masked
        rows, cols = z.shape
        if trace.coloraxis:
            caxis = self.fig.layout[trace.coloraxis]
            colorscale, low, high, colorbar = caxis.colorscale, caxis.cmin, caxis.cmax, caxis.colorbar
            show = caxis.showscale is not False
        else:
            colorscale, low, high, colorbar = trace.colorscale, trace.zmin, trace.zmax, trace.colorbar
            show = trace.showscale is not False
        finite = z[np.isfinite(z)]
        low = float(low) if low is not None else float(finite.min()) if finite.size else 0.0
        high = float(high) if high is not None else float(finite.max()) if finite.size else 1.0
        cmap = _colormap(colorscale)
        norm = mcolors.Normalize(vmin=low, vmax=high if high > low else low + 1.0)
        gap = max(trace.xgap or 0, trace.ygap or 0)
        masked = np.ma.masked_invalid(z)
        if gap:
            edges_x, edges_y = np.arange(cols + 1) - 0.5, np.arange(rows + 1) - 0.5
            image = ax.pcolormesh(
                edges_x,
                edges_y,
                masked,
                cmap=cmap,
                norm=norm,
                edgecolors=_color(self.fig.layout.paper_bgcolor, "white"),
                linewidth=gap * PX_TO_PT,
            )
        else:
            image = ax.imshow(
                masked,
                cmap=cmap,
                norm=norm,
                origin="lower",
                aspect="auto",
                interpolation="nearest",
                extent=(-0.5, cols - 0.5, -0.5, rows - 0.5),
            )
        if trace.texttemplate == "%{text}" and trace.text is not None:
            size = _font_pt(trace.textfont, 12)
            for r in range(rows):
                for c in range(cols):
                    shade = cmap(norm(z[r, c])) if np.isfinite(z[r, c]) else (1, 1, 1, 1)
                    dark = 0.299 * shade[0] + 0.587 * shade[1] + 0.114 * shade[2] < 0.55
                    ax.text(
                        c,
                        r,
                        plain_text(trace.text[r][c]),
                        ha="center",
                        va="center",
                        fontsize=size,
                        color="white" if dark else "#222222",
                    )
        if show and self.pending_colorbar is None:
            self.pending_colorbar = (image, colorbar)  # drawn after the margins are final

    def _colorbar(self):
        if self.pending_colorbar is None:
            return
        image, colorbar = self.pending_colorbar
        thickness = float(colorbar.thickness or 24) if colorbar else 24.0
        right_titles = any(
            n.textangle not in (None, "auto", 0) and (n.x or 0) >= 0.9 for n in self.fig.layout.annotations or ()
        )  # subplot row titles sit between the plot and the colour bar
        gap = (16.0 + (34.0 if right_titles else 0.0)) / self.width
        below = colorbar is not None and colorbar.orientation == "h"
        if below:  # along the bottom edge, under the key labels and the axis title
            wide = (self.canvas.x1 - self.canvas.x0) * 0.8
            place = (self.canvas.x0 + wide / 8, 30.0 / self.height, wide, thickness / self.height)
        else:
            place = (
                self.canvas.x1 + gap,
                self.canvas.y0,
                thickness / self.width,
                (self.canvas.y1 - self.canvas.y0) * 0.9,
            )
        cax = self.mfig.add_axes(place)
        bar = self.mfig.colorbar(image, cax=cax, orientation="horizontal" if below else "vertical")
        bar.outline.set_visible(False)
        cax.tick_params(length=0, labelsize=_font_pt(None, 11))
        if colorbar is not None and colorbar.tickvals is not None:
            text = colorbar.ticktext if colorbar.ticktext is not None else [str(v) for v in colorbar.tickvals]
            bar.set_ticks(list(colorbar.tickvals), labels=[plain_text(t) for t in text])
        if colorbar is not None and colorbar.title and colorbar.title.text:
            cax.set_title(plain_text(colorbar.title.text), fontsize=_font_pt(None, 12), loc="left", pad=8)

    def _scatter(self, trace):
        ax = self._axes(trace.xaxis, trace.yaxis)
        x = np.array([np.nan if v is None else v for v in trace.x], dtype=np.float64)
        y = np.array([np.nan if v is None else v for v in trace.y], dtype=np.float64)
        mode = trace.mode or "lines+markers"
        opacity = 1.0 if trace.opacity is None else float(trace.opacity)
        if "lines" in mode:
            line = trace.line
            ax.plot(
                x,
                y,
                color=_color(line.color),
                linewidth=float(line.width or 2) * PX_TO_PT,
                alpha=opacity,
                solid_capstyle="round",
                label=plain_text(trace.name) if trace.showlegend else None,
            )
        marker = trace.marker
        marker_opacity = opacity * (1.0 if marker.opacity is None else float(np.min(marker.opacity)))
        if "markers" in mode and marker_opacity > 0:
            self._markers(ax, x, y, marker, marker_opacity)
        if "text" in mode and trace.text is not None:
            texts = [trace.text] * len(x) if isinstance(trace.text, str) else list(trace.text)
            self._point_texts(ax, x, y, texts, trace.textposition or "middle center", trace.textfont)

    def _markers(self, ax, x, y, marker, opacity: float):
        """Markers of one colour or one per point (colour strings, or numbers on the marker's colour scale, with
        its colour bar when shown), round, diamond or open (`_SYMBOLS`)."""
        from matplotlib import colors as mcolors  # matplotlib: loaded only when this engine draws

        size = float(marker.size or 6) * PX_TO_PT
        symbol = marker.symbol if isinstance(marker.symbol, str) else "circle"
        style = {"marker": _SYMBOLS.get(symbol.removesuffix("-open"), "o"), "s": size**2, "alpha": opacity, "zorder": 3}
        color = marker.color
        numbers = color is not None and not isinstance(color, str) and not all(isinstance(v, str) for v in color)
        if numbers:
            values = np.asarray(color, dtype=np.float64)
            low = float(values.min()) if marker.cmin is None else float(marker.cmin)
            high = float(values.max()) if marker.cmax is None else float(marker.cmax)
            norm = mcolors.Normalize(vmin=low, vmax=high if high > low else low + 1.0)
            style.update(c=values, cmap=_colormap(marker.colorscale), norm=norm)
        else:
            style["color"] = _color(color) if color is None or isinstance(color, str) else [_color(c) for c in color]
        edge = marker.line.color if marker.line is not None else None
        if symbol.endswith("-open"):  # the outline only, in the marker's colour
            style.update(
                facecolors="none", edgecolors=style.pop("color", None), linewidths=float(marker.line.width or 2)
            )
        elif edge is not None and not isinstance(edge, (list, tuple)):
            style.update(edgecolors=_color(edge), linewidths=float(marker.line.width or 1) * PX_TO_PT)
        else:
            style["linewidths"] = 0
        points = ax.scatter(x, y, **style)
        if numbers and marker.showscale:
            self.pending_colorbar = (points, marker.colorbar)

    def _point_texts(self, ax, x, y, texts, position, font):
        colour = _color(font.color if font else None)
        if isinstance(colour, tuple) and len(colour) == 4 and colour[3] == 0:
            return  # transparent text: a hover name, drawn apart as annotations (the alignment's labels)
        vertical, horizontal = (position.split() + ["center"])[:2]
        offset_px = 7.0
        dx = {"left": -offset_px, "right": offset_px}.get(horizontal, 0.0)
        dy = {"top": offset_px, "bottom": -offset_px}.get(vertical, 0.0)
        ha = {"left": "right", "right": "left"}.get(horizontal, "center")
        va = {"top": "bottom", "bottom": "top"}.get(vertical, "center")
        size = _font_pt(font, self.fig.layout.font.size or 12)
        for xi, yi, label in zip(x, y, texts):
            colored = {"color": _color(label_color(label))} if label_color(label) else {}  # an unknown token's
            ax.annotate(
                plain_text(label),
                (xi, yi),
                xytext=(dx * PX_TO_PT, dy * PX_TO_PT),
                textcoords="offset points",
                ha=ha,
                va=va,
                fontsize=size,
                annotation_clip=False,
                **colored,
            )

    def _bar(self, trace):
        ax = self._axes(trace.xaxis, trace.yaxis)
        horizontal = trace.orientation == "h"
        ax._attnviz_value_axis = "x" if horizontal else "y"  # plotly grids the value axis of a bar chart only
        categories = list(trace.y if horizontal else trace.x)
        values = np.array(trace.x if horizontal else trace.y, dtype=np.float64)
        positions = self._category_positions(ax, categories, horizontal)
        stacked = self.fig.layout.barmode == "stack"
        bases = np.array([self.stack.get((id(ax), horizontal, c), 0.0) if stacked else 0.0 for c in categories])
        colors = trace.marker.color
        colors = [_color(c) for c in colors] if isinstance(colors, (list, tuple)) else _color(colors, "#1f77b4")
        if horizontal:
            bars = ax.barh(positions, values, left=bases, height=0.8, color=colors)
        else:
            bars = ax.bar(positions, values, bottom=bases, width=0.8, color=colors)
        if stacked:
            for c, base, value in zip(categories, bases, values):
                self.stack[(id(ax), horizontal, c)] = base + value
        if trace.text is not None:
            texts = [trace.text] * len(values) if isinstance(trace.text, str) else list(trace.text)
            inside = trace.textposition == "inside"
            for bar, label in zip(bars, texts):
                self._bar_text(ax, bar, plain_text(label), horizontal, inside)

    def _bar_text(self, ax, bar, label, horizontal, inside):
        size = _font_pt(None, 12)
        x, y, w, h = bar.get_x(), bar.get_y(), bar.get_width(), bar.get_height()
        if inside:
            ax.text(x + w / 2, y + h / 2, label, ha="center", va="center", fontsize=size, color="white")
        elif horizontal:
            ax.annotate(
                label, (x + w, y + h / 2), xytext=(3, 0), textcoords="offset points", va="center", fontsize=size
            )
        else:
            ax.annotate(
                label, (x + w / 2, y + h), xytext=(0, 3), textcoords="offset points", ha="center", fontsize=size
            )

    def _category_positions(self, ax, categories: Sequence, horizontal: bool) -> list[float]:
        known = getattr(ax, "_attnviz_categories", None)
        if known is None:
            known = []
            ax._attnviz_categories = known  # categories in first-seen order, as plotly orders them
        for c in categories:
            if c not in known:
                known.append(c)
        (ax.set_yticks if horizontal else ax.set_xticks)(range(len(known)), [plain_text(str(c)) for c in known])
        if horizontal:
            ax.set_ylim(-0.6, len(known) - 0.4)
        else:
            ax.set_xlim(-0.6, len(known) - 0.4)
        return [known.index(c) for c in categories]

    # -- layout text -----------------------------------------------------------------------------------------------

    def _title(self):
        title = self.fig.layout.title
        text = plain_text(title.text) if title and title.text else ""
        if not text:
            return
        main, *notes = text.split("\n")
        x = float(title.x if title.x is not None else 0.05)
        size = _font_pt(title.font, 17)
        top = 1.0 - 22.0 / self.height
        self.mfig.text(x, top, main, ha=_anchor(title.xanchor, "left"), va="top", fontsize=size)
        if notes:
            below = top - (size / PX_TO_PT + 6) / self.height
            self.mfig.text(
                x,
                below,
                "\n".join(notes),
                ha=_anchor(title.xanchor, "left"),
                va="top",
                fontsize=size * 0.72,
                color="#444444",
            )

    def _annotation(self, note):
        if not note.text:
            return
        xref, yref = note.xref or "paper", note.yref or "paper"
        x, y = float(note.x or 0), float(note.y or 0)
        if xref == "paper" and yref == "paper":
            fx, fy = self.canvas.paper(x, y)
            transform = self.mfig.transFigure
            point = (fx, fy)
        else:
            ax = self._axes(xref.split()[0], yref.split()[0])
            transform = ax.transData
            point = (x, y)
            if xref.endswith("domain") or yref.endswith("domain"):
                transform, point = ax.transAxes, (x, y)
        angle = -float(note.textangle) if note.textangle not in (None, "auto") else 0.0
        va = {"top": "top", "bottom": "bottom", "middle": "center"}.get(_anchor(note.yanchor, "middle"), "center")
        ha = {"left": "left", "right": "right", "center": "center"}.get(_anchor(note.xanchor, "center"), "center")
        bbox = None
        if note.bgcolor:
            bbox = dict(
                facecolor=_color(note.bgcolor),
                edgecolor="none",
                boxstyle=f"square,pad={0.1 + (note.borderpad or 1) / 20}",
            )
        shift = ((note.xshift or 0) * PX_TO_PT, (note.yshift or 0) * PX_TO_PT)
        from matplotlib.text import Annotation  # matplotlib: loaded only when this engine draws

        self.mfig.add_artist(
            Annotation(
                plain_text(note.text),
                point,
                xycoords=transform,
                xytext=shift,
                textcoords="offset points",
                ha=ha,
                va=va,
                rotation=angle,
                fontsize=_font_pt(note.font, 13),
                bbox=bbox,
                color=_color(note.font.color if note.font else None, "#222222"),
                annotation_clip=False,
            )
        )

    def _legend(self):
        handles = []
        from matplotlib.lines import Line2D  # matplotlib: loaded only when this engine draws

        for trace in _legend_entries(self.fig):
            color = trace.line.color if trace.type == "scatter" else trace.marker.color
            handles.append(Line2D([0], [0], color=_color(color), linewidth=3, label=plain_text(trace.name)))
        if handles:
            left = self.canvas.x1 + 20.0 / self.width
            self.mfig.legend(
                handles=handles,
                loc="upper left",
                bbox_to_anchor=(left, self.canvas.y1),
                frameon=False,
                fontsize=_font_pt(None, 12),
            )

    # -- entry point -----------------------------------------------------------------------------------------------

    def draw(self):
        from matplotlib.backends.backend_agg import FigureCanvasAgg  # matplotlib: loaded only when this engine draws
        from matplotlib.figure import Figure  # matplotlib: loaded only when this engine draws

        layout = self.fig.layout
        self.mfig = Figure(figsize=(self.width / DPI, self.height / DPI), dpi=DPI)
        FigureCanvasAgg(self.mfig)
        self.mfig.patch.set_facecolor(_color(layout.paper_bgcolor, "white"))
        for trace in self.fig.data:
            getattr(self, f"_{trace.type}")(trace)
        self._finish_axes()
        if self.axes:
            self._automargin()
        self._colorbar()
        for note in layout.annotations or ():
            self._annotation(note)
        self._title()
        self._legend()
        return self.mfig


_CJK = re.compile("[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef\U00020000-\U0002ebef]")


def _draws_cjk(mfig) -> bool:
    from matplotlib.text import Text  # matplotlib: loaded only when this engine draws

    return any(_CJK.search(t.get_text()) for t in mfig.findobj(Text))


def render(
    fig: go.Figure, fmt: str = "png", *, width: int | None = None, height: int | None = None, scale: float = 1.0
) -> bytes:
    """PNG, SVG or PDF bytes of a plotly figure, drawn with matplotlib and the packaged CJK font."""
    import matplotlib  # matplotlib: loaded only when this engine draws

    if fmt not in ("png", "svg", "pdf"):
        raise AttnvizError("static_format", fmt=fmt)
    with _LOCK:  # matplotlib's font list and rcParams are process-global
        # PDF text needs TrueType outlines (see the module docstring): a subset of the CJK font made for this figure.
        subset = fontsubset.truetype_subset(fontsubset.figure_text(fig)) if fmt == "pdf" else None
        families = fonts.matplotlib_families(subset)
        settings = {
            "font.family": families,
            "svg.fonttype": "path",  # outlines: the SVG shows Chinese on machines without the font
            "pdf.fonttype": 42,  # TrueType in a CID font: real text, no Type 3
            "text.parse_math": False,  # a token like "$5" is text, not mathtext
            "svg.hashsalt": "attnviz",  # stable ids: the same figure gives the same SVG
        }
        with matplotlib.rc_context(settings), warnings.catch_warnings():
            if len(families) == 1:  # no CJK font: any Chinese is caught below, not warned about glyph by glyph
                warnings.filterwarnings("ignore", message="Glyph .* missing from font")
            mfig = StaticRenderer(fig, width, height).draw()
            if len(families) == 1 and _draws_cjk(mfig):
                fonts.require_cjk_font()  # raise with the install hint rather than draw boxes
            buffer = io.BytesIO()
            metadata = {"Creator": "attnviz"} if fmt != "png" else {"Software": "attnviz"}
            if fmt == "svg":
                metadata["Date"] = None
            mfig.savefig(buffer, format=fmt, dpi=DPI * scale, facecolor=mfig.get_facecolor(), metadata=metadata)
    return buffer.getvalue()
