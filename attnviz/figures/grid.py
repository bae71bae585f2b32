"""Model view: every layer × head as a small heatmap, and a layer × head heatmap of any head statistic."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from attnviz.errors import InputError, Phrase
from attnviz.figures.common import (
    MASKED_COLOR,
    Pooling,
    check_count,
    check_kind,
    clamp,
    color_range,
    hover_axis,
    hover_template,
)
from attnviz.figures.layout import head_grid_size
from attnviz.figures.style import DEFAULT_STYLE, FigureStyle
from attnviz.maps import analysis, head_stats
from attnviz.types import AttentionMap

MAP_GRID_MARGIN_PX = (140, 130)  # px the margins (`margin` below) and the colour bar add around the small maps
MAP_GRID_WIDTH, MAP_GRID_HEIGHT = (360, 2400), (300, 2400)  # px: the smallest and largest a grid of maps is


def grid(
    amap: AttentionMap,
    *,
    layers: int | Sequence[int] | None = None,
    heads: int | Sequence[int] | None = None,
    max_cells: int = 48,
    pool: str = "max",
    colorscale: str = "Viridis",
    color_scale: str = "shared",
    cell_px: int = 96,
    clickable: bool = False,
    layer_titles: str = "numbers",
    style: FigureStyle = DEFAULT_STYLE,
) -> go.Figure:
    """One small queries × keys heatmap per (layer, head): rows are layers, columns heads; each token a square cell,
    whatever the grid's shape (one column of layers stays a column of squares, not of strips).

    Colours (`analysis.COLOR_SCALES`): one scale for every thumbnail, 0–1 ("unit") or 0 to the largest weight of any
    head of the map ("shared"), or each thumbnail its own ("head"); the colour bar (or the subtitle) says which.
    Thumbnails above `max_cells` tokens per side are pooled (`pool`, see `analysis.downsample`); open one head in
    `heatmap` for its exact values. Masked cells show grey as in the heatmap. `clickable`: its heads answer a click
    on screen (`clickable_heads`). `layer_titles`: "numbers" ("layer 3") or "names" (the map's layer names, for maps
    whose layers are not the model's, such as a rollout's "rollout L0–L3").
    """
    if layer_titles not in ("numbers", "names"):
        raise InputError("grid_layer_titles", given=layer_titles)
    text = style.words()
    max_cells = check_count(max_cells, "max_cells")
    cell_px = check_count(cell_px, "cell_px")
    layer_idx, head_idx = analysis.select_indices(amap, layers, heads)
    pooling = Pooling.fitting(len(amap.query_tokens), len(amap.key_tokens), max_cells, pool)
    fig = make_subplots(
        rows=len(layer_idx),
        cols=len(head_idx),
        horizontal_spacing=min(0.02, 0.5 / max(len(head_idx), 1)),
        vertical_spacing=min(0.02, 0.5 / max(len(layer_idx), 1)),
        column_titles=[text["head_one"].format(head=amap.head_number(h)) for h in head_idx],
        row_titles=[
            amap.layer_names[layer]
            if layer_titles == "names"
            else text["layer_one"].format(layer=amap.layer_number(layer))
            for layer in layer_idx
        ],
    )
    each = color_scale == "head"
    own = _add_cells(fig, amap, layer_idx, head_idx, pooling, text, colorscale if each else None)
    top, scale_title = color_range(color_scale, own, float(amap.weights.max()), amap.num_layers * amap.num_heads, text)
    meta = dict(view="grid", layers=layer_idx, heads=head_idx, color_scale=color_scale)
    _lay_out(fig, amap, pooling, style, (len(layer_idx), len(head_idx), cell_px), meta, (colorscale, top, scale_title))
    return clickable_heads(fig, style) if clickable else fig


def _lay_out(
    fig: go.Figure,
    amap: AttentionMap,
    pooling: Pooling,
    style: FigureStyle,
    sizes: tuple[int, int, int],
    meta: dict,
    colors: tuple[str, float, str],
) -> None:
    """Hover axes, size (`sizes`: rows, columns, cell px), heading and the colour axis (`colors`: scale, top, title)
    of a grid figure."""
    rows, cols, cell_px = sizes
    colorscale, top, scale_title = colors
    text = style.words()
    each = meta["color_scale"] == "head"
    # Hover names the tokens (or token ranges of pooled cells) through each axis' labels, not a string per cell.
    query_labels, key_labels = pooling.labels(amap.query_tokens, amap.key_tokens, text)
    fig.update_xaxes(
        showticklabels=False, showgrid=False, zeroline=False, ticks="", constrain="domain", **hover_axis(key_labels)
    )
    for index in range(1, rows * cols + 1):  # every thumbnail's token cells square: y follows its own x
        suffix = "" if index == 1 else str(index)
        fig.update_layout({f"yaxis{suffix}": dict(scaleanchor=f"x{suffix}", scaleratio=1, constrain="domain")})
    fig.update_yaxes(
        showticklabels=False, showgrid=False, zeroline=False, ticks="", autorange="reversed", **hover_axis(query_labels)
    )
    notes = pooling.notes(text) + ([text["find_scale_each_note"]] if each else [])
    fig.update_layout(
        **style.layout(
            style.heading(amap.kind, None, notes),
            clamp(MAP_GRID_MARGIN_PX[0] + cell_px * cols, *MAP_GRID_WIDTH),
            clamp(MAP_GRID_MARGIN_PX[1] + cell_px * rows, *MAP_GRID_HEIGHT),
            plot_bgcolor=MASKED_COLOR,
            margin=dict(l=30, r=90, t=100, b=30),
            meta=dict(
                **meta,
                query_factor=pooling.query_factor,
                key_factor=pooling.key_factor,
            ),
        ),
        coloraxis=dict(
            colorscale=colorscale, cmin=0.0, cmax=top, colorbar=dict(title=dict(text=scale_title)), showscale=not each
        ),
    )


def _add_cells(
    fig: go.Figure,
    amap: AttentionMap,
    layer_idx: list[int],
    head_idx: list[int],
    pooling: Pooling,
    text: Mapping[str, str],
    each: str | None = None,
) -> float:
    """One heatmap per (layer, head) in its subplot, masked cells NaN, in `pooling`'s cells, on the shared colour
    axis (or, `each` naming a colour scale, on its own from 0 to its own largest weight); returns the largest
    weight drawn."""
    mask = analysis.causal_mask(amap)
    top = 0.0
    for row, layer in enumerate(layer_idx, start=1):
        for col, head in enumerate(head_idx, start=1):
            values = pooling.apply(np.where(mask, np.nan, amap.weights[layer, head]))  # (query cells, key cells)
            top = max(top, float(np.nanmax(values)) if np.isfinite(values).any() else 0.0)
            prefix = text["grid_cell"].format(layer=layer, head=head) + "<br>"
            own = float(np.nanmax(values)) if np.isfinite(values).any() else 0.0
            scale = dict(zmin=0.0, zmax=own or 1.0, colorscale=each, showscale=False) if each else {}
            cell = go.Heatmap(
                z=values,
                coloraxis=None if each else "coloraxis",
                hoverongaps=False,
                hovertemplate=hover_template(text, prefix=prefix),
                **scale,
            )
            fig.add_trace(cell, row=row, col=col)
    return top


def clickable_heads(fig: go.Figure, style: FigureStyle = DEFAULT_STYLE) -> go.Figure:
    """A `grid`, `statistic_grid` or `effects.effect_grid` whose heads can be clicked on screen: an invisible marker
    on every head with [layer, head] in its `customdata`, which Streamlit's `on_select` reports (a heatmap cell gives
    no selection there). A new figure; the one given (and the files made from it) stays as it was."""
    meta = fig.layout.meta if isinstance(fig.layout.meta, dict) else {}
    text = style.words()
    clickable = go.Figure(fig)
    if meta.get("view") in ("statistic", "effects"):  # one (layers, heads) heatmap, a number per head
        values = np.asarray(fig.data[0].z, dtype=float)  # (layers, heads)
        pairs = [
            (layer, head, values[layer, head]) for layer in range(values.shape[0]) for head in range(values.shape[1])
        ]
        hover = fig.data[0].hovertemplate.replace("%{y}", "%{customdata[0]}").replace("%{x}", "%{customdata[1]}")
        hover = hover.replace("%{z", "%{customdata[2]")
        clickable.add_trace(_targets([h for _, h, _ in pairs], [lay for lay, _, _ in pairs], pairs, 36, hover))
        return clickable
    if meta.get("view") != "grid":
        raise InputError("find_not_a_grid")
    rows, cols = np.asarray(fig.data[0].z).shape  # cells of one thumbnail
    for row, layer in enumerate(meta["layers"], start=1):
        for col, head in enumerate(meta["heads"], start=1):
            hover = text["grid_cell"].format(layer=layer, head=head) + "<extra></extra>"
            target = _targets([(cols - 1) / 2], [(rows - 1) / 2], [(layer, head)], 40, hover)
            clickable.add_trace(target, row=row, col=col)
    return clickable


def _targets(x, y, pairs, size: int, hover: str) -> go.Scatter:
    """Invisible markers at (x, y), one per (layer, head, …) of `pairs` (their `customdata`), hovering `hover`."""
    return go.Scatter(
        x=list(x),
        y=list(y),
        mode="markers",
        customdata=[[float(v) for v in pair] for pair in pairs],
        marker=dict(size=size, opacity=0),
        selected=dict(marker=dict(opacity=0)),
        unselected=dict(marker=dict(opacity=0)),
        showlegend=False,
        name="open",
        hovertemplate=hover,
    )


def statistic_grid(
    amap: AttentionMap | None = None,
    statistic: str = "entropy",
    *,
    values: Mapping[str, np.ndarray] | None = None,
    kind: str | None = None,
    colorscale: str = "Viridis",
    style: FigureStyle = DEFAULT_STYLE,
) -> go.Figure:
    """Layers (rows) × heads (columns) coloured by one head statistic (`head_stats.STATISTICS`), values written in.

    `values`: statistics already computed, as `head_stats.head_statistics` returns them (a LazyCapture's streamed
    `head_statistics` for a map too large to hold), drawn instead of computing them from `amap`; `kind` then names
    the map's kind in the title (default: `amap`'s, or none).
    """
    kind = kind if kind is not None else amap.kind if amap is not None else None
    matrix = _statistic(amap, statistic, values, kind)
    text = style.words()
    check_kind(kind, text)
    name = text[f"stat_{statistic}"]
    layers, heads = matrix.shape
    fig = go.Figure(
        go.Heatmap(
            z=matrix,
            text=[[f"{v:.2f}" if np.isfinite(v) else "–" for v in row] for row in matrix],
            texttemplate="%{text}",
            colorscale=colorscale,
            colorbar=dict(title=dict(text=name)),
            hovertemplate=f"{text['layer']} %{{y}} · {text['head']} %{{x}}<br>{name}: %{{z:.3f}}<extra></extra>",
        )
    )
    fig.update_layout(
        **style.layout(
            style.heading(kind, name),
            *head_grid_size(layers, heads),
            meta=dict(view="statistic", statistic=statistic),
        ),
        xaxis=dict(
            title=dict(text=text["head"]),
            tickmode="array",
            tickvals=list(range(heads)),
            ticktext=[str(h) for h in range(heads)],
            showgrid=False,
            zeroline=False,
        ),
        yaxis=dict(
            title=dict(text=text["layer"]),
            tickmode="array",
            tickvals=list(range(layers)),
            ticktext=[str(i) for i in range(layers)],
            autorange="reversed",
            showgrid=False,
            zeroline=False,
        ),
    )
    return fig


def _statistic(
    amap: AttentionMap | None, statistic: str, values: Mapping[str, np.ndarray] | None, kind: str | None
) -> np.ndarray:
    """The (layers, heads) values of `statistic`: from `values` when given, else computed from `amap`; checked."""
    if statistic not in head_stats.STATISTICS:
        raise InputError("statistic_unknown", statistic=statistic, statistics=", ".join(head_stats.STATISTICS))
    if values is None:
        if amap is None:
            raise InputError("statistic_grid_needs_input")
        values = head_stats.head_statistics(amap)
    if statistic not in values:
        raise InputError("statistic_not_in_values", statistic=statistic)
    matrix = np.asarray(values[statistic])
    if matrix.ndim != 2 or 0 in matrix.shape or not np.issubdtype(matrix.dtype, np.number):
        raise InputError("statistic_values_shape", statistic=statistic, shape=matrix.shape)
    if not np.isfinite(matrix).any():
        attention = Phrase("figure.kind_attention", kind=kind) if kind else Phrase("figure.this_attention")
        raise InputError("statistic_undefined", statistic=statistic, attention=attention)
    return matrix
