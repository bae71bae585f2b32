"""How the static engine draws each kind of plotly trace with matplotlib: heatmaps and their colour bar, scatters
(markers and point texts), bars and their texts. `TraceDrawing` is a part of `static.StaticRenderer`, which gives it
the axes (`self._axes`), the figure and the canvas."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from attnviz.figures.fonts import plain_text

if TYPE_CHECKING:  # plotly is only read here (the figure it is given), never imported
    pass
from attnviz.export.static_style import PX_TO_PT, SYMBOLS, color_of, colormap_of, font_pt, label_color


class TraceDrawing:
    """The trace-drawing half of `StaticRenderer`."""

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
        cmap = colormap_of(colorscale)
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
                edgecolors=color_of(self.fig.layout.paper_bgcolor, "white"),
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
            size = font_pt(trace.textfont, 12)
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
        cax.tick_params(length=0, labelsize=font_pt(None, 11))
        if colorbar is not None and colorbar.tickvals is not None:
            text = colorbar.ticktext if colorbar.ticktext is not None else [str(v) for v in colorbar.tickvals]
            bar.set_ticks(list(colorbar.tickvals), labels=[plain_text(t) for t in text])
        if colorbar is not None and colorbar.title and colorbar.title.text:
            cax.set_title(plain_text(colorbar.title.text), fontsize=font_pt(None, 12), loc="left", pad=8)

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
                color=color_of(line.color),
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
        its colour bar when shown), round, diamond or open (`SYMBOLS`)."""
        from matplotlib import colors as mcolors  # matplotlib: loaded only when this engine draws

        size = float(marker.size or 6) * PX_TO_PT
        symbol = marker.symbol if isinstance(marker.symbol, str) else "circle"
        style = {"marker": SYMBOLS.get(symbol.removesuffix("-open"), "o"), "s": size**2, "alpha": opacity, "zorder": 3}
        color = marker.color
        numbers = color is not None and not isinstance(color, str) and not all(isinstance(v, str) for v in color)
        if numbers:
            values = np.asarray(color, dtype=np.float64)
            low = float(values.min()) if marker.cmin is None else float(marker.cmin)
            high = float(values.max()) if marker.cmax is None else float(marker.cmax)
            norm = mcolors.Normalize(vmin=low, vmax=high if high > low else low + 1.0)
            style.update(c=values, cmap=colormap_of(marker.colorscale), norm=norm)
        else:
            style["color"] = (
                color_of(color) if color is None or isinstance(color, str) else [color_of(c) for c in color]
            )
        edge = marker.line.color if marker.line is not None else None
        if symbol.endswith("-open"):  # the outline only, in the marker's colour
            style.update(
                facecolors="none", edgecolors=style.pop("color", None), linewidths=float(marker.line.width or 2)
            )
        elif edge is not None and not isinstance(edge, (list, tuple)):
            style.update(edgecolors=color_of(edge), linewidths=float(marker.line.width or 1) * PX_TO_PT)
        else:
            style["linewidths"] = 0
        points = ax.scatter(x, y, **style)
        if numbers and marker.showscale:
            self.pending_colorbar = (points, marker.colorbar)

    def _point_texts(self, ax, x, y, texts, position, font):
        colour = color_of(font.color if font else None)
        if isinstance(colour, tuple) and len(colour) == 4 and colour[3] == 0:
            return  # transparent text: a hover name, drawn apart as annotations (the alignment's labels)
        vertical, horizontal = (position.split() + ["center"])[:2]
        offset_px = 7.0
        dx = {"left": -offset_px, "right": offset_px}.get(horizontal, 0.0)
        dy = {"top": offset_px, "bottom": -offset_px}.get(vertical, 0.0)
        ha = {"left": "right", "right": "left"}.get(horizontal, "center")
        va = {"top": "bottom", "bottom": "top"}.get(vertical, "center")
        size = font_pt(font, self.fig.layout.font.size or 12)
        for xi, yi, label in zip(x, y, texts):
            colored = {"color": color_of(label_color(label))} if label_color(label) else {}  # an unknown token's
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
        colors = [color_of(c) for c in colors] if isinstance(colors, (list, tuple)) else color_of(colors, "#1f77b4")
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
        size = font_pt(None, 12)
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
