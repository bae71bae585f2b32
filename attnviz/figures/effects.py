"""Which heads matter, drawn: a layer × head grid coloured by each head's exact effect on the model's output when it
is removed (head ablation as in Michel, Levy & Neubig, NeurIPS 2019, arXiv 1905.10650; computed by
`attnviz.measures.head_effects`). A pure function of the numbers given (no torch)."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from attnviz.errors import InputError
from attnviz.figures.layout import head_grid_size
from attnviz.figures.style import DEFAULT_STYLE, FigureStyle
from attnviz.i18n.effects import STRINGS as EFFECT_WORDS

METRICS = ("log-prob", "cosine")  # as `HeadEffects.metric` names them
COLORSCALE = "RdBu"  # diverging: red below 0, white at 0, blue above


def _words(style: FigureStyle) -> dict[str, str]:
    """The effects' words in the style's language, under the style's own (its `labels` override either)."""
    return {**EFFECT_WORDS[style.lang], **style.words()}


def effect_grid(
    effects: np.ndarray, metric: str, *, kind: str | None = None, style: FigureStyle = DEFAULT_STYLE
) -> go.Figure:
    """Layers (rows) × heads (columns) coloured by `effects` (layers, heads), each value written in its cell.

    `metric` ("log-prob": the change in log-probability of the target; "cosine": 1 − cos of the pooled output) names
    the title and the colour bar. Effects can be negative or positive, so the scale diverges from 0 (white), red
    below and blue above, symmetric around 0 so that equal sizes have equal colours. `kind` names the map's kind in
    the title. `figures.clickable_heads` makes its heads clickable on screen."""
    values = np.asarray(effects, dtype=np.float64)  # (layers, heads)
    if values.ndim != 2 or 0 in values.shape:
        raise InputError("effects_figure_shape", shape=values.shape)
    if metric not in METRICS:
        raise InputError("effects_figure_metric", metric=metric, metrics=", ".join(METRICS))
    text = _words(style)
    key = metric.replace("-", "_")
    name = text[f"effects_axis_{key}"]
    finite = np.abs(values[np.isfinite(values)])
    reach = float(finite.max()) if finite.size and finite.max() > 0 else 1.0  # an all-zero grid stays white
    layers, heads = values.shape
    fig = go.Figure(
        go.Heatmap(
            z=values,
            text=[[_written(v) for v in row] for row in values],
            texttemplate="%{text}",
            colorscale=COLORSCALE,
            zmin=-reach,
            zmax=reach,
            zmid=0.0,
            colorbar=dict(title=dict(text=name)),
            hovertemplate=f"{text['layer']} %{{y}} · {text['head']} %{{x}}<br>{name}: %{{z:.4g}}<extra></extra>",
        )
    )
    axis = dict(tickmode="array", showgrid=False, zeroline=False)
    fig.update_layout(
        **style.layout(
            style.heading(kind, text[f"effects_figure_{key}"]),
            *head_grid_size(layers, heads),
            meta=dict(view="effects", metric=metric),
        ),
        xaxis=dict(title=dict(text=text["head"]), tickvals=list(range(heads)), ticktext=list(map(str, range(heads))))
        | axis,
        yaxis=dict(
            title=dict(text=text["layer"]),
            tickvals=list(range(layers)),
            ticktext=list(map(str, range(layers))),
            autorange="reversed",
        )
        | axis,
    )
    return fig


def _written(value: float) -> str:
    """A cell's number: two decimals, effects under 0.01 in scientific notation, "–" when not finite."""
    if not np.isfinite(value):
        return "–"
    return f"{value:.2f}" if value == 0 or abs(value) >= 0.01 else f"{value:.1e}"
