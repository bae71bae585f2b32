"""Gold links on the alignment diagram (found, missed, extra), and a layer × head map of a link score.

`gold_links` draws over `alignment`'s figure: a found link solid green, a missed (sure) link dashed orange, an extra
link dotted purple, each between the words' tokens as that figure places them. `score_grid` is a layer × head heatmap
(AER, precision or recall) whose every cell also carries an invisible marker, so that clicking a cell selects a point
(Streamlit's plotly charts report no selection for heatmap cells).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from attnviz import i18n
from attnviz.figures.common import format_value
from attnviz.figures.layout import head_grid_size, line_positions
from attnviz.figures.style import DEFAULT_STYLE, FigureStyle
from attnviz.types import AttentionMap

VERDICTS = {  # how each kind of link is drawn
    "found": dict(color="#2ca02c", dash="solid", width=3.0),
    "missed": dict(color="#ff7f0e", dash="dash", width=2.5),
    "extra": dict(color="#9467bd", dash="dot", width=2.5),
}


def _word_x(owners: Sequence[int | None], x: np.ndarray) -> dict[int, float]:
    """Where each word sits on its line: the mean x of its drawn tokens."""
    placed: dict[int, list[float]] = {}
    for position, owner in zip(x, owners, strict=True):
        if owner is not None:
            placed.setdefault(owner, []).append(float(position))
    return {word: float(np.mean(xs)) for word, xs in placed.items()}


def gold_links(
    fig: go.Figure,
    amap: AttentionMap,
    links: dict[str, frozenset[tuple[int, int]]],
    source_owners: Sequence[int | None],
    target_owners: Sequence[int | None],
    style: FigureStyle = DEFAULT_STYLE,
    both_directions: bool = False,
) -> go.Figure:
    """`fig` (an `alignment` figure of `amap`) with the gold verdicts drawn over it: `links` maps "found", "missed"
    and "extra" to (source word, target word) links; the owners give the word of each key and query token drawn.
    A link whose word has no token drawn (hidden, not yet written in a replay, or sharing its token with a
    neighbour) is left out, and its verdict's legend entry says how many were. `both_directions`:
    the links are those a model reading the pair backwards also finds, and the legend says so."""
    key_x = _word_x(source_owners, line_positions(len(amap.key_tokens)))
    query_x = _word_x(target_owners, line_positions(len(amap.query_tokens)))
    out = go.Figure(fig)
    for verdict, drawn in VERDICTS.items():
        placed = [(s, t) for s, t in sorted(links.get(verdict, ())) if s in key_x and t in query_x]
        xs, ys = [], []
        for s, t in placed:
            xs += [key_x[s], query_x[t], None]
            ys += [1.0, 0.0, None]
        name = i18n.t(f"corpus_gold_{verdict}", style.lang)
        unplaced = len(links.get(verdict, ())) - len(placed)  # counted in the score line, so said here too
        count = f"{len(placed)}" + (
            f"; {i18n.t('corpus_gold_not_drawn', style.lang, count=unplaced)}" if unplaced else ""
        )
        out.add_trace(
            go.Scatter(
                x=xs or [None],
                y=ys or [None],
                mode="lines",
                line=dict(color=drawn["color"], dash=drawn["dash"], width=drawn["width"]),
                name=f"{name} ({count})",
                legendgroup="gold",
                hoverinfo="skip",
                showlegend=True,
                meta=dict(verdict=verdict, links=len(placed)),
            )
        )
    legend = dict(orientation="h", y=-0.05, x=0.0)
    if both_directions:
        legend["title"] = dict(text=i18n.t("corpus_gold_both_legend", style.lang))
    return out.update_layout(showlegend=True, legend=legend)


def _cell_words(values: np.ndarray, cells: np.ndarray, lang: str, measure: str | None, head_word: str) -> tuple:
    """(each cell's hover line, the columns' names or None, the column axis's title): a contributions map's one
    column is named by its measure and has no head."""
    if measure is None:
        hover = [
            i18n.t("corpus_fig_hover", lang, layer=lay, head=h, value=format_value(values[lay, h])) for lay, h in cells
        ]
        return hover, None, head_word
    measured = i18n.t(f"measure_figure.{measure}", lang)
    hover = [
        i18n.t("corpus_fig_layer_hover", lang, layer=lay, measure=measured, value=format_value(values[lay, h]))
        for lay, h in cells
    ]
    return hover, [measured] * values.shape[1], ""


def score_grid(
    values: np.ndarray, statistic: str = "aer", style: FigureStyle = DEFAULT_STYLE, measure: str | None = None
) -> go.Figure:
    """Layers (rows) × heads (columns) coloured by `statistic` ("aer", "precision" or "recall"), values written in,
    and a clickable marker on every cell (`customdata` = [layer, head]). `measure`: the values score a contributions
    map (`attnviz.measures.names.CONTRIBUTIONS`), one map per layer: its one column is named by the measure, never
    "head 0"."""
    values = np.asarray(values, dtype=np.float64)
    layers, heads = values.shape
    lang = style.lang
    name = i18n.t(f"corpus_stat_{statistic}", lang)
    layer_word, head_word = i18n.t("corpus_fig_layer", lang), i18n.t("corpus_fig_head", lang)
    cells = np.array([(layer, head) for layer in range(layers) for head in range(heads)])  # (cells, 2)
    hover, column_names, head_word = _cell_words(values, cells, lang, measure, head_word)
    fig = go.Figure(
        [
            go.Heatmap(
                z=values,
                text=[[format_value(v) for v in row] for row in values],
                texttemplate="%{text}",
                colorscale="Viridis_r" if statistic == "aer" else "Viridis",  # the best heads are always bright
                zmin=0.0,
                zmax=1.0,
                colorbar=dict(title=dict(text=name)),
                hoverinfo="skip",
            ),
            go.Scatter(
                x=cells[:, 1].tolist(),  # plain lists: a click reports the cell as x (head) and y (layer)
                y=cells[:, 0].tolist(),
                mode="markers",
                marker=dict(size=28, symbol="square", color="rgba(0,0,0,0)"),
                customdata=cells.tolist(),
                text=hover,
                hovertemplate="%{text}<extra></extra>",
                showlegend=False,
                name="cells",
            ),
        ]
    )
    title = style.title if style.title is not None else name
    fig.update_layout(
        **style.layout(
            title,
            *head_grid_size(layers, heads),
            meta=dict(view="score_grid", statistic=statistic, measure=measure or "weights"),
        ),
        clickmode="event+select",
        dragmode=False,
        **_grid_axes(layers, heads, layer_word, head_word, column_names),
    )
    return fig


def _grid_axes(layers: int, heads: int, layer_word: str, head_word: str, column_names: list[str] | None) -> dict:
    """The grid's axes: a tick for every head (or the measure's one column) and every layer, layer 0 on top."""
    return dict(
        xaxis=dict(
            title=dict(text=head_word),
            tickmode="array",
            tickvals=list(range(heads)),
            **({"ticktext": column_names} if column_names else {}),
            showgrid=False,
            zeroline=False,
            range=[-0.5, heads - 0.5],
        ),
        yaxis=dict(
            title=dict(text=layer_word),
            tickmode="array",
            tickvals=list(range(layers)),
            showgrid=False,
            zeroline=False,
            autorange="reversed",
        ),
    )
