"""The atlas as a poster: every head's block map on one figure, layers down, heads across (one heatmap of a mosaic, so
that hundreds of heads stay one light trace, for the screen and for print)."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from attnviz import i18n
from attnviz.figures.style import DEFAULT_STYLE, FigureStyle
from attnviz.figures.text_fit import NOTE_SHARE, TITLE_END_PX, TITLE_LINE, TITLE_X, wrap_notes
from attnviz.maps import analysis, atlas_stats
from attnviz.maps.atlas import AtlasMap

SMALLEST = 1e-6  # block masses below this are drawn as this (the colour scale is logarithmic)
POSTER_WIDTH = (560, 2400)  # px: the narrowest and widest a poster is laid out
MASKED = "#d9d9d9"  # what shows through where nothing is drawn: masked blocks, heads left out, gaps
MARGIN = dict(l=70, r=110, t=130, b=30)
NOTE_LINE = round(TITLE_LINE * NOTE_SHARE) + 2  # px a note line of the heading takes


def poster_tiles(amap: AtlasMap, cells: int = 64) -> tuple[np.ndarray, int]:
    """(float32 (layers, heads, rows, cols) log₁₀ of each head's block map pooled to at most `cells` per side by the
    mean of the blocks a cell holds, NaN where every block is masked; the blocks per cell along each side)."""
    row_blocks, key_blocks = amap.blocks.shape[2:]
    factor = max(1, -(-max(row_blocks, key_blocks) // cells))
    hidden = ~atlas_stats.visible_blocks(amap)  # (I, J)
    tiles = []
    for layer in range(amap.num_layers):
        for head in range(amap.num_heads):
            shown = np.where(hidden, np.nan, amap.blocks[layer, head].astype(np.float64))
            tiles.append(analysis.downsample(shown, factor, factor, "mean"))
    stacked = np.stack(tiles).reshape(amap.num_layers, amap.num_heads, *tiles[0].shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log10(np.maximum(stacked, SMALLEST)).astype(np.float32), factor


def _poster_heading(amap: AtlasMap, model: str, shape: tuple[int, int], factor: int, style: FigureStyle, width: int):
    """The poster's title (model, layers × heads, tokens) and, below it, what a square and its colour mean, its notes
    broken to the poster's `width` px; and how many note lines that added."""
    lang, (layers, heads) = style.lang, shape
    title = i18n.t("atlas.poster_title", lang, model=model, layers=layers, heads=heads, tokens=len(amap.query_tokens))
    kind = style.words()[f"kind_{amap.kind}"]
    subtitle = f"{kind} · " + i18n.t("atlas.poster_subtitle", lang, block=amap.block * factor)
    room = width * (1 - TITLE_X) - TITLE_END_PX
    notes = wrap_notes([subtitle, i18n.t("atlas.poster_scale", lang)], room)
    return f"{title}<br><sup>{'<br>'.join(notes)}</sup>", len(notes) - 2


def atlas_poster(
    amap: AtlasMap,
    *,
    cells: int = 64,
    model: str | None = None,
    shown: np.ndarray | None = None,
    colorscale: str = "Viridis",
    style: FigureStyle = DEFAULT_STYLE,
) -> go.Figure:
    """Every head of `amap` (an atlas's map): a square per head, rows = layers, columns = heads; in each, query blocks
    down and key blocks across, coloured by log₁₀ of the block mass (the mean share of a query's attention; `cells`
    per side at most, each the mean of the blocks it pools). Grey: blocks every query of which is masked, and the
    heads `shown` (bool (layers, heads), None: all) leaves out."""
    tiles, factor = poster_tiles(amap, cells)
    if shown is not None:
        tiles[~np.asarray(shown, dtype=bool)] = np.nan
    layers, heads, rows, cols = tiles.shape
    mosaic, gap = _mosaic(tiles)
    lang = style.lang
    fig = go.Figure(_log_heatmap(mosaic, colorscale, lang, hovertemplate="%{z:.2f}<extra></extra>"))
    width, height = _size(mosaic.shape, style)
    heading, added = _poster_heading(amap, model or style.model or "", (layers, heads), factor, style, width)
    margin = {**MARGIN, "t": MARGIN["t"] + added * NOTE_LINE}
    centres = {"x": [h * (cols + gap) + cols / 2 - 0.5 for h in range(heads)]}
    centres["y"] = [layer * (rows + gap) + rows / 2 - 0.5 for layer in range(layers)]
    fig.update_layout(
        **style.layout(
            heading,
            width,
            height + added * NOTE_LINE,
            margin=margin,
            meta=dict(view="atlas"),
            plot_bgcolor=MASKED,  # masked blocks and the gaps between heads
        ),
        xaxis=dict(
            side="top",
            tickmode="array",
            tickvals=centres["x"],
            ticktext=[i18n.t("atlas.poster_head", lang, head=head) for head in range(heads)],
            showgrid=False,
            zeroline=False,
            constrain="domain",
        ),
        yaxis=dict(
            autorange="reversed",
            tickmode="array",
            tickvals=centres["y"],
            ticktext=[i18n.t("atlas.poster_layer", lang, layer=layer) for layer in range(layers)],
            showgrid=False,
            zeroline=False,
            scaleanchor="x",
        ),
    )
    return fig


def _mosaic(tiles: np.ndarray) -> tuple[np.ndarray, int]:
    """(float32 (layers·(rows + gap) − gap, heads·(cols + gap) − gap) of the tiles (layers, heads, rows, cols) side
    by side with NaN gaps, the gap in cells)."""
    layers, heads, rows, cols = tiles.shape
    gap = max(1, max(rows, cols) // 16)
    mosaic = np.full((layers * (rows + gap) - gap, heads * (cols + gap) - gap), np.nan, dtype=np.float32)
    for layer in range(layers):
        for head in range(heads):
            top, left = layer * (rows + gap), head * (cols + gap)
            mosaic[top : top + rows, left : left + cols] = tiles[layer, head]
    return mosaic, gap


def _log_heatmap(values: np.ndarray, colorscale: str, lang: str, **trace) -> go.Heatmap:
    """A heatmap of log₁₀ block masses on the atlas's one colour scale, SMALLEST to 1."""
    lowest = int(np.log10(SMALLEST))
    return go.Heatmap(
        z=values,
        colorscale=colorscale,
        zmin=lowest,
        zmax=0.0,
        colorbar=dict(
            title=dict(text=i18n.t("atlas.poster_colorbar", lang), side="right"),
            tickvals=list(range(lowest, 1)),
            ticktext=[_power_of_ten(power) for power in range(lowest, 1)],
        ),
        hoverongaps=False,
        **trace,
    )


def _power_of_ten(power: int) -> str:
    """ "10⁻⁶" … "1": a tick of the logarithmic colour bar."""
    return "1" if power == 0 else "10" + str(power).translate(str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"))


def _size(shape: tuple[int, int], style: FigureStyle) -> tuple[int, int]:
    """(width, height) px: square cells, the mosaic at least POSTER_WIDTH[0] and at most POSTER_WIDTH[1] wide."""
    height_cells, width_cells = shape
    if style.width:
        scale = (style.width - MARGIN["l"] - MARGIN["r"]) / width_cells
    else:
        scale = min(max(POSTER_WIDTH[0] / width_cells, 1.0), POSTER_WIDTH[1] / width_cells, 4.0)
    width = int(width_cells * scale) + MARGIN["l"] + MARGIN["r"]
    height = int(height_cells * scale) + MARGIN["t"] + MARGIN["b"]
    return max(width, POSTER_WIDTH[0]), height  # a few heads: the squares keep their size, the heading its room


def block_map(amap: AtlasMap, layer: int, head: int, *, style: FigureStyle = DEFAULT_STYLE) -> go.Figure:
    """One head's block masses at full block resolution: query blocks down, key blocks across, on the poster's
    log₁₀ colour scale; axes in tokens (each block's first token). Grey: masked blocks."""
    lang = style.lang
    shown = np.where(atlas_stats.visible_blocks(amap), amap.blocks[layer, head].astype(np.float64), np.nan)
    with np.errstate(invalid="ignore"):
        values = np.log10(np.maximum(shown, SMALLEST))
    rows, cols = values.shape
    fig = go.Figure(
        _log_heatmap(
            values,
            "Viridis",
            lang,
            x=np.arange(cols) * amap.block,
            y=np.arange(rows) * amap.block,
            customdata=shown,
            hovertemplate=i18n.t("atlas.block_hover", lang) + "<extra></extra>",
        )
    )
    words = style.words()
    title = i18n.t("atlas.block_title", lang, layer=layer, head=head, block=amap.block)
    size = min(900, max(360, 3 * max(rows, cols))) + 80
    fig.update_layout(
        **style.layout(
            style.heading(amap.kind, title), size + 60, size + 60, meta=dict(view="atlas-head"), plot_bgcolor=MASKED
        ),
        xaxis=dict(title=dict(text=words["key"]), side="top", showgrid=False, constrain="domain"),
        yaxis=dict(title=dict(text=words["query"]), autorange="reversed", showgrid=False, scaleanchor="x"),
    )
    return fig
