"""Queries × keys heatmap of one head or an aggregation, with token labels, masked cells and large-map pooling;
the same figure from a head pooled block by block (`pooled_heatmap`, for maps too large to hold)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from attnviz import i18n
from attnviz.errors import InputError
from attnviz.figures.common import (
    MASKED_COLOR,
    Pooling,
    check_count,
    check_kind,
    clamp,
    color_range,
    format_value,
    hover_template,
    selection_text,
    unknown_notes,
)
from attnviz.figures.layout import AXIS_WORDS, PLOT_MARGIN_PX, heatmap_axes, room_for
from attnviz.figures.style import DEFAULT_STYLE, FigureStyle
from attnviz.maps import analysis
from attnviz.types import AttentionMap, Token

VALUE_BAR_COLOR = "#4c4c4c"  # the value-norm bars: dark, apart from the colour scale and the masked grey


HEATMAP_WIDTH = (520, 1200)  # px: the narrowest and widest a heatmap chooses to be
HEATMAP_HEIGHT = (420, 1200)  # px: the lowest and highest
VALUE_BAR_ROOM = 60  # px the value-norm strip adds to the figure's height


def masked_outline(values: np.ndarray, text: Mapping[str, str]) -> go.Scatter:
    """The masked (NaN) cells of a heatmap as one invisible filled staircase that says "masked" on hover.

    Plotly shows no hover on a heatmap's gaps; a hover string per cell would cost n² strings. Masked cells are the
    keys after each query, so in every row they are the cells after its last finite one (after pooling or cropping
    too): the outline has two corners per row.
    """
    rows, cols = values.shape
    finite = np.isfinite(values)
    last_finite = np.where(finite.any(axis=1), cols - 1 - np.argmax(finite[:, ::-1], axis=1), -1)  # (rows,)
    edges = np.repeat(last_finite + 0.5, 2)  # x of each row's masked run, at its top and bottom
    row_sides = np.stack([np.arange(rows) - 0.5, np.arange(rows) + 0.5], axis=1).ravel()  # (2 * rows,)
    return go.Scatter(
        x=np.concatenate([[cols - 0.5], edges, [cols - 0.5]]),
        y=np.concatenate([[-0.5], row_sides, [rows - 0.5]]),
        mode="none",
        fill="toself",
        fillcolor="rgba(0,0,0,0)",
        hoveron="fills",
        text=text["masked"],
        hoverinfo="text",
        showlegend=False,
        name=text["masked"],
    )


def heatmap(
    amap: AttentionMap,
    *,
    layers: int | Sequence[int] | None = None,
    heads: int | Sequence[int] | None = None,
    head_reduce: str = "mean",
    layer_reduce: str = "mean",
    colorscale: str = "Viridis",
    log_scale: bool = False,
    log_floor: float = 1e-4,
    zmax: float | None = None,
    color_scale: str = "head",
    query_range: tuple[int, int] | None = None,
    key_range: tuple[int, int] | None = None,
    max_tokens: int = 256,
    pool: str = "max",
    max_labels: int = 64,
    value_bar: bool = False,
    style: FigureStyle = DEFAULT_STYLE,
) -> go.Figure:
    """Queries (rows, top to bottom) × keys (columns) for the chosen layers/heads (see `analysis.aggregate`).

    - Masked cells (keys after the query in a causal map) are NaN and show the grey background, never a colour.
    - `log_scale` colours log10(weight) (weights below `log_floor` share the lowest colour); hover shows the weight.
    - Colours run from 0 to `zmax` when given, else as `color_scale` says (`analysis.COLOR_SCALES`: 0–1, the
      largest weight of any head of `amap`, or this figure's own largest); the colour bar's title says which.
    - `query_range`/`key_range` crop to [start, stop) first: exact values of any part of a large map.
    - Above `max_tokens` per side the map is pooled in blocks (`pool` = "max" keeps peaks visible, "mean" keeps
      mass); the subtitle says so and `fig.layout.meta` holds the factors and offsets to map a selection back.
    - At most `max_labels` tick labels per axis, and never more than its length can show readably
      (`readable_labels`); hover always names the exact tokens (or token ranges of pooled cells) and the weight, from
      one label per token (`hover_axis`), and says "masked" on masked cells.
    - `value_bar`: each key's value norm ‖f(x)‖ (`AttentionMap.value_norms`, the mean over the chosen layers and
      heads) as a small bar above its column; a map captured without value norms is an InputError.
    """
    text = style.words()
    shared = (float(amap.weights.max()) if amap.weights.size else 0.0, amap.num_layers * amap.num_heads)
    colours = _Colours(colorscale, log_scale, log_floor, zmax, color_scale, *shared)
    max_tokens = check_count(max_tokens, "max_tokens")
    amap, values, offsets = _masked_part(amap, query_range, key_range, layers, heads, head_reduce, layer_reduce)
    pooling = Pooling.fitting(*values.shape, max_tokens, pool)
    selection = selection_text(amap, layers, heads, head_reduce, layer_reduce, text)
    frame = _frame(amap.query_tokens, amap.key_tokens, pooling, offsets, amap.kind, selection, colours, text)
    fig = _draw(pooling.apply(values), frame, pooling, colours, max_labels, style, text)
    if value_bar:
        norms = analysis.key_value_norms(amap, layers, heads)
        if norms is None:
            raise InputError("values_missing", kind=amap.kind)
        pooled = analysis.downsample(norms[None], 1, pooling.key_factor, "mean")[0]  # (key bins,)
        _add_value_bar(fig, pooled, frame.key_labels, style)
    return fig


def _add_value_bar(fig: go.Figure, norms: np.ndarray, key_labels: Sequence[str], style: FigureStyle) -> None:
    """Each key's value norm as a bar above its column, on a strip of its own (x2, y2; x2 follows the keys' axis);
    the figure grows to make room unless its style sets the height."""
    title = i18n.t("values_bar", style.lang)
    hover = i18n.t("values_bar_hover", style.lang, key="%{customdata}", value="%{y:.3g}")
    fig.add_trace(
        go.Bar(
            x=np.arange(len(norms)),
            y=norms,
            xaxis="x2",
            yaxis="y2",
            marker_color=VALUE_BAR_COLOR,
            name=title,
            showlegend=False,
            customdata=list(key_labels),
            hovertemplate=hover + "<extra></extra>",
        )
    )
    fig.update_layout(
        yaxis=dict(domain=[0.0, 0.84]),
        xaxis2=dict(
            anchor="y2",
            matches="x",
            range=list(fig.layout.xaxis.range),
            showticklabels=False,
            showgrid=False,
            zeroline=False,
        ),
        yaxis2=dict(
            domain=[0.87, 1.0],
            anchor="x2",
            rangemode="tozero",
            showgrid=False,
            zeroline=False,
            nticks=3,
            title=dict(text=title, font=dict(size=11)),
        ),
        height=style.height or fig.layout.height + VALUE_BAR_ROOM,
        meta={**fig.layout.meta, "value_bar": True},
    )


def _masked_part(amap: AttentionMap, query_range, key_range, *selection) -> tuple[AttentionMap, np.ndarray, tuple]:
    """The cropped map, its values aggregated over `selection` (layers, heads, head_reduce, layer_reduce) with masked
    cells NaN, and the crop's offsets."""
    mask = analysis.causal_mask(amap)  # of the whole map: a cropped range keeps its masked cells
    query_offset = query_range[0] if query_range else 0
    key_offset = key_range[0] if key_range else 0
    if query_range or key_range:
        amap = analysis.crop(amap, query_range, key_range)
        mask = mask[
            query_offset : query_offset + len(amap.query_tokens), key_offset : key_offset + len(amap.key_tokens)
        ]
    matrix = analysis.aggregate(amap, *selection)
    return amap, np.where(mask, np.nan, matrix), (query_offset, key_offset)  # (queries, keys); NaN = masked


def pooled_heatmap(
    pooled: analysis.Pooled,
    query_tokens: Sequence[Token],
    key_tokens: Sequence[Token],
    *,
    kind: str = "self",
    layer: int | None = None,
    head: int | None = None,
    colorscale: str = "Viridis",
    log_scale: bool = False,
    log_floor: float = 1e-4,
    zmax: float | None = None,
    color_scale: str = "head",
    max_labels: int = 64,
    style: FigureStyle = DEFAULT_STYLE,
) -> go.Figure:
    """One head of a map too large to hold, pooled block by block (`LazyCapture.downsampled`), drawn as `heatmap`
    draws a pooled map: bins labelled with their token ranges, the pooling in the subtitle, masked blocks grey.

    `query_tokens`/`key_tokens` are the whole map's (`LazyCapture.stack(kind)`); `layer`/`head` name the head in
    the title. A box selected on the figure maps back to tokens through `selected_ranges`, and
    `LazyCapture.map(kind, layer, head, queries=…, keys=…)` computes that part exactly. `color_scale` as in
    `heatmap`, but no other head is computed here: "shared" draws 0–1, and its colour bar says so.
    """
    text = style.words()
    colours = _Colours(colorscale, log_scale, log_floor, zmax, color_scale)
    pooling = Pooling(pooled.query_factor, pooled.key_factor, pooled.pool)
    check_kind(kind, text)
    values = np.asarray(pooled.values, dtype=np.float32)
    bins = (-(-len(query_tokens) // pooling.query_factor), -(-len(key_tokens) // pooling.key_factor))  # ceil division
    if values.shape != bins:
        raise InputError(
            "pooled_shape_mismatch",
            shape=values.shape,
            queries=len(query_tokens),
            keys=len(key_tokens),
            query_factor=pooling.query_factor,
            key_factor=pooling.key_factor,
            rows=bins[0],
            columns=bins[1],
        )
    heading = [
        text["layer_one"].format(layer=layer) if layer is not None else None,
        text["head_one"].format(head=head) if head is not None else None,
    ]
    selection = " · ".join(part for part in heading if part) or None
    frame = _frame(query_tokens, key_tokens, pooling, (0, 0), kind, selection, colours, text)
    return _draw(values, frame, pooling, colours, max_labels, style, text)


@dataclass(frozen=True)
class _Colours:
    """How weights become colours: the scale, linear or log10 from `log_floor`, and the weight at the top (`zmax`,
    else as `scale` says: `analysis.COLOR_SCALES`, with the largest weight of the map's `heads` heads, `shared`)."""

    colorscale: str
    log_scale: bool
    log_floor: float
    zmax: float | None
    scale: str = "head"
    shared: float | None = None
    heads: int = 1

    def top(self, own: float, text: Mapping[str, str]) -> tuple[float, str]:
        """The weight at the top of the scale for a figure whose own largest weight is `own`, and the colour bar's
        title saying what that top is."""
        if self.zmax is not None:
            return float(self.zmax), text["weight"]
        return color_range(self.scale, own, self.shared, self.heads, text)

    def __post_init__(self) -> None:
        if not self.log_floor > 0:
            raise InputError("heatmap_log_floor")
        if self.zmax is not None and not (np.isfinite(self.zmax) and self.zmax > 0):
            raise InputError("heatmap_zmax", zmax=self.zmax)


@dataclass(frozen=True)
class _Layout:
    """What a heatmap figure says about its values: axis labels, `fig.layout.meta`, map kind and selection."""

    query_labels: list[str]  # one per row of values
    key_labels: list[str]  # one per column
    meta: dict  # view, factors, offsets and counts (for `selected_ranges`), pool (None when not pooled), log_scale
    kind: str
    selection: str | None
    notes: list[str]  # what the labels need said (unknown tokens)


def _frame(
    query_tokens: Sequence[Token],
    key_tokens: Sequence[Token],
    pooling: Pooling,
    offsets: tuple[int, int],
    kind: str,
    selection: str | None,
    colours: _Colours,
    text: Mapping[str, str],
) -> _Layout:
    """The labels and meta of `query_tokens` × `key_tokens` (the first at `offsets` in the whole map) drawn in
    `pooling`'s cells."""
    query_labels, key_labels = pooling.labels(query_tokens, key_tokens, text, offsets)
    return _Layout(
        query_labels=query_labels,
        key_labels=key_labels,
        meta=dict(
            view="heatmap",
            query_factor=pooling.query_factor,
            key_factor=pooling.key_factor,
            query_offset=offsets[0],
            key_offset=offsets[1],
            query_count=len(query_tokens),
            key_count=len(key_tokens),
            pool=pooling.pool if pooling.pooled else None,
            log_scale=colours.log_scale,
        ),
        kind=kind,
        selection=selection,
        notes=unknown_notes([*query_tokens, *key_tokens], text),
    )


def _draw(
    values: np.ndarray,
    layout: _Layout,
    pooling: Pooling,
    colours: _Colours,
    max_labels: int,
    style: FigureStyle,
    text: Mapping[str, str],
) -> go.Figure:
    """The figure of (rows, columns) `values` (NaN = masked): colour scale, ticks, hover, masked cells, title."""
    max_labels = check_count(max_labels, "max_labels")
    notes = pooling.notes(text)
    if colours.log_scale:
        notes.append(text["log_scale"])
    notes += layout.notes
    fig_width = style.width or clamp(room_for(len(layout.key_labels), PLOT_MARGIN_PX[0]), *HEATMAP_WIDTH)
    fig_height = style.height or clamp(room_for(len(layout.query_labels), PLOT_MARGIN_PX[1]), *HEATMAP_HEIGHT)
    has_masked = bool(np.isnan(values).any())
    trace = _trace(values, colours, text)
    fig = go.Figure([trace, masked_outline(values, text)] if has_masked else trace)
    fig.update_layout(
        **style.layout(
            style.heading(layout.kind, layout.selection, notes),
            fig_width,
            fig_height,
            plot_bgcolor=MASKED_COLOR,
            annotations=[_masked_legend(text)] if has_masked else [],
            meta={**layout.meta, "axis_words": {key: text[key] for key in AXIS_WORDS}},
        ),
        **heatmap_axes(layout.query_labels, layout.key_labels, max_labels, (fig_width, fig_height), text),
    )
    return fig


def _trace(values: np.ndarray, colours: _Colours, text: Mapping[str, str]) -> go.Heatmap:
    """The heatmap trace: linear weights, or log10 weights coloured with the weights themselves in the hover."""
    finite = values[np.isfinite(values)]
    top, title = colours.top(float(finite.max()) if finite.size else 0.0, text)
    colorbar = dict(title=dict(text=title), thickness=14)
    if colours.log_scale:
        floor = colours.log_floor
        z = np.log10(np.clip(values, floor, None))  # NaN stays NaN
        low, high = np.log10(floor), np.log10(max(top, floor * 10))
        exponents = list(range(int(np.ceil(low)), int(np.floor(high)) + 1))
        colorbar.update(tickvals=exponents, ticktext=[format_value(10.0**e) for e in exponents])
    else:
        z, low, high = values, 0.0, top
    return go.Heatmap(
        z=z,
        zmin=low,
        zmax=high,
        colorscale=colours.colorscale,
        colorbar=colorbar,
        customdata=values if colours.log_scale else None,  # the weights, for the hover of a map coloured by their log
        hovertemplate=hover_template(text, "customdata" if colours.log_scale else "z"),
        hoverongaps=False,  # masked cells hover through `masked_outline`
        xgap=0,
        ygap=0,
    )


def _masked_legend(text: Mapping[str, str]) -> dict:
    return dict(
        text=text["masked_legend"],
        bgcolor=MASKED_COLOR,
        borderpad=3,
        x=1.0,
        y=1.0,
        xref="paper",
        yref="paper",
        xanchor="right",
        yanchor="bottom",
        showarrow=False,
        font=dict(size=11),
    )


def selected_ranges(
    fig: go.Figure, x: tuple[float, float], y: tuple[float, float]
) -> tuple[tuple[int, int], tuple[int, int]]:
    """Token ranges ((q0, q1), (k0, k1)) under a box selected on a `heatmap` figure (axis units, e.g. Streamlit's
    box-select `x`/`y` ranges): pass them back as `query_range`/`key_range` for the exact values of that part.

    Works on pooled and cropped heatmaps alike (it reads the factors and offsets from `fig.layout.meta`).
    """
    meta = fig.layout.meta
    if not isinstance(meta, dict) or meta.get("view") != "heatmap":
        raise InputError("selected_ranges_not_a_heatmap")

    def tokens(span, factor, offset, count):
        first_bin = max(0, int(np.floor(min(span) + 0.5)))
        last_bin = max(first_bin, int(np.floor(max(span) + 0.5)))
        start = min(offset + first_bin * factor, offset + count - 1)
        stop = min(offset + (last_bin + 1) * factor, offset + count)
        return start, max(stop, start + 1)

    return (
        tokens(y, meta["query_factor"], meta["query_offset"], meta["query_count"]),
        tokens(x, meta["key_factor"], meta["key_offset"], meta["key_count"]),
    )
