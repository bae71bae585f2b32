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
import warnings
from typing import TYPE_CHECKING

from attnviz.errors import AttnvizError
from attnviz.export import fontsubset
from attnviz.figures import fonts
from attnviz.figures.fonts import plain_text

if TYPE_CHECKING:  # plotly is only read here (the figure it is given), never imported
    import plotly.graph_objects as go

from attnviz.export.static_style import (
    DPI,
    LOCK,
    PX_TO_PT,
    SUPPORTED,
    Canvas,
    anchor_of,
    axis_name,
    color_of,
    font_pt,
    label_color,
    legend_entries,
)
from attnviz.export.static_traces import TraceDrawing


class StaticRenderer(TraceDrawing):
    def __init__(self, fig: go.Figure, width: int | None = None, height: int | None = None):
        for trace in fig.data:
            if trace.type not in SUPPORTED:
                raise AttnvizError("static_trace_unsupported", trace=trace.type)
        self.fig = fig
        self.width = float(width or fig.layout.width or 700)
        self.height = float(height or fig.layout.height or 450)
        self.canvas = Canvas(fig, self.width, self.height)
        self.axes: dict[tuple[str, str], object] = {}
        self.pending_colorbar = None
        self.stack: dict[tuple[int, str, object], float] = {}

    # -- axes ------------------------------------------------------------------------------------------------------

    def _axes(self, xref: str | None, yref: str | None):
        key = (axis_name(xref, "x"), axis_name(yref, "y"))
        if key in self.axes:
            return self.axes[key]
        layout = self.fig.layout
        xaxis, yaxis = layout[key[0]], layout[key[1]]
        xd = list(xaxis.domain) if xaxis.domain else [0.0, 1.0]
        yd = list(yaxis.domain) if yaxis.domain else [0.0, 1.0]
        left, bottom = self.canvas.paper(xd[0], yd[0])
        right, top = self.canvas.paper(xd[1], yd[1])
        ax = self.mfig.add_axes((left, bottom, right - left, top - bottom))
        ax.set_facecolor(color_of(layout.plot_bgcolor, "white"))
        for spine in ax.spines.values():
            spine.set_visible(False)
        ax.tick_params(length=0, labelsize=font_pt(None, 12), colors=color_of(layout.font.color, "#222222"))
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
                plain_text(title), fontsize=font_pt(None, 14), labelpad=pad_pt if axis.tickvals is not None else None
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

        size = font_pt(None, size_px or 12)
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
                **({"color": color_of(color)} if color else {}),
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

    def _title(self):
        title = self.fig.layout.title
        text = plain_text(title.text) if title and title.text else ""
        if not text:
            return
        main, *notes = text.split("\n")
        x = float(title.x if title.x is not None else 0.05)
        size = font_pt(title.font, 17)
        top = 1.0 - 22.0 / self.height
        self.mfig.text(x, top, main, ha=anchor_of(title.xanchor, "left"), va="top", fontsize=size)
        if notes:
            below = top - (size / PX_TO_PT + 6) / self.height
            self.mfig.text(
                x,
                below,
                "\n".join(notes),
                ha=anchor_of(title.xanchor, "left"),
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
        va = {"top": "top", "bottom": "bottom", "middle": "center"}.get(anchor_of(note.yanchor, "middle"), "center")
        ha = {"left": "left", "right": "right", "center": "center"}.get(anchor_of(note.xanchor, "center"), "center")
        bbox = None
        if note.bgcolor:
            bbox = dict(
                facecolor=color_of(note.bgcolor),
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
                fontsize=font_pt(note.font, 13),
                bbox=bbox,
                color=color_of(note.font.color if note.font else None, "#222222"),
                annotation_clip=False,
            )
        )

    def _legend(self):
        handles = []
        from matplotlib.lines import Line2D  # matplotlib: loaded only when this engine draws

        for trace in legend_entries(self.fig):
            color = trace.line.color if trace.type == "scatter" else trace.marker.color
            handles.append(Line2D([0], [0], color=color_of(color), linewidth=3, label=plain_text(trace.name)))
        if handles:
            left = self.canvas.x1 + 20.0 / self.width
            self.mfig.legend(
                handles=handles,
                loc="upper left",
                bbox_to_anchor=(left, self.canvas.y1),
                frameon=False,
                fontsize=font_pt(None, 12),
            )

    # -- entry point -----------------------------------------------------------------------------------------------

    def draw(self):
        from matplotlib.backends.backend_agg import FigureCanvasAgg  # matplotlib: loaded only when this engine draws
        from matplotlib.figure import Figure  # matplotlib: loaded only when this engine draws

        layout = self.fig.layout
        self.mfig = Figure(figsize=(self.width / DPI, self.height / DPI), dpi=DPI)
        FigureCanvasAgg(self.mfig)
        self.mfig.patch.set_facecolor(color_of(layout.paper_bgcolor, "white"))
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
    with LOCK:  # matplotlib's font list and rcParams are process-global
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
