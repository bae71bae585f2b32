"""Figures for the seed walk-through: QKᵀ → scale → softmax → A·V matrices, the 四不像 mixture, 早上好 → Good Morning.

The seed article's own figures (and the numbers in them) are lost; the matrices below are small illustrative values
with the seed's shapes (Q has 3 rows, K and V have 4, every vector has 2 elements). The 四不像 weights and the
早上好 → Good Morning pairs are the article's.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Protocol

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from attnviz.errors import InputError
from attnviz.figures.common import HEAD_COLORS, check_count
from attnviz.figures.style import DEFAULT_STYLE, FigureStyle
from attnviz.types import AttentionMap, Token

SEED_Q = np.array([[1.0, 2.0], [2.0, 1.0], [0.0, 1.0]])  # 3 queries, d = 2
SEED_K = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [2.0, 0.0]])  # 4 keys
SEED_V = np.array([[1.0, 1.0], [2.0, 0.0], [0.0, 2.0], [3.0, 1.0]])  # 4 values
SEED_MIXTURE = (("鹿", 1 / 3), ("牛", 1 / 6), ("羊", 1 / 4), ("驴", 1 / 4), ("青蛙", 0.0))  # query: 四不像
SEED_MIXTURE_QUERY = "四不像"
BESIDE, BAR_SHARE = 0.2, 0.38  # the mixture's weight and contribution bars: each this far from its key, this wide


def seed_alignment_map() -> AttentionMap:
    """The seed's 早上好！ → Good morning! example (written as the demo translator writes it) as a one-layer, one-head cross map (illustrative weights).

    As the article describes it: Good goes with 好, morning with 早上, ! with ！, each weaker with the rest.
    """
    source, target = "早上好！", "Good morning!"
    keys = [Token("早上", 0, 2), Token("好", 2, 3), Token("！", 3, 4)]
    queries = [Token("Good", 0, 4), Token("morning", 5, 12), Token("!", 12, 13)]
    assert all(source[t.start : t.end] == t.text for t in keys) and all(
        target[t.start : t.end] == t.text for t in queries
    )
    weights = np.array([[0.15, 0.75, 0.10], [0.80, 0.12, 0.08], [0.10, 0.08, 0.82]], dtype=np.float32)
    return AttentionMap("cross", weights[None, None], queries, keys, ["seed example"])


def _fraction(value: float) -> str:
    """1/3 rather than 0.33 when the weight is a simple fraction, as the seed writes them."""
    fraction = Fraction(value).limit_denominator(24)
    if abs(float(fraction) - value) > 1e-9:
        return f"{value:.2f}"
    return str(fraction.numerator) if fraction.denominator == 1 else f"{fraction.numerator}/{fraction.denominator}"


def _matrix_trace(matrix: np.ndarray, decimals: int, colorscale: str) -> go.Heatmap:
    return go.Heatmap(
        z=matrix,
        text=[[f"{v:.{decimals}f}" for v in row] for row in matrix],
        texttemplate="%{text}",
        textfont=dict(size=13),
        colorscale=colorscale,
        showscale=False,
        xgap=2,
        ygap=2,
        hovertemplate="[%{y}, %{x}] = %{z:.4f}<extra></extra>",
    )


class WalkedSteps(Protocol):
    """What `explainer` draws: the walk-through's steps as numpy matrices (`attention.walkthrough.walkthrough`
    returns them; `scale` multiplies the scores, 1.0 when they were not scaled)."""

    query: np.ndarray  # (queries, d)
    key: np.ndarray  # (keys, d)
    value: np.ndarray  # (keys, d_v)
    scores: np.ndarray  # (queries, keys): Q·Kᵀ
    scaled_scores: np.ndarray  # scores · scale
    weights: np.ndarray  # row softmax
    context: np.ndarray  # (queries, d_v): weights · V
    scale: float


EXPLAINER_WIDTH = 1000  # px
PANEL_COLUMNS = 4  # matrices side by side in one row of panels
FIRST_ROW_HEIGHT, NEXT_ROW_HEIGHT = 300, 230  # px: the first row of panels (with the title), each row below it


def explainer(
    steps: WalkedSteps,
    *,
    decimals: int = 2,
    colorscale: str = "Blues",
    style: FigureStyle = DEFAULT_STYLE,
) -> go.Figure:
    """Annotated small matrices, in reading order: Q, Kᵀ, Q·Kᵀ, ÷√d (when the steps scaled the scores), A = row
    softmax, V, A·V. `steps` come from `attention.walkthrough.walkthrough(q, k, v)` (the seed's: `SEED_Q`, `SEED_K`,
    `SEED_V`), so the figure itself only draws numbers.

    The matrices are no model's, so `style.model` is not named."""
    text = style.words()
    decimals = check_count(decimals, "decimals", minimum=0)
    scaled = steps.scale != 1.0
    panels = [
        (text["matrix_q"], steps.query),
        (text["matrix_kt"], steps.key.T),
        (text["matrix_scores"], steps.scores),
    ]
    if scaled:
        panels.append((text["matrix_scaled"].format(scale=f"{1 / steps.scale:.{decimals}f}"), steps.scaled_scores))
    panels += [
        (text["matrix_weights"], steps.weights),
        (text["matrix_v"], steps.value),
        (text["matrix_output"], steps.context),
    ]
    cols = PANEL_COLUMNS
    rows = -(-len(panels) // cols)
    fig = make_subplots(
        rows=rows,
        cols=cols,
        subplot_titles=[name for name, _ in panels],
        horizontal_spacing=0.06,
        vertical_spacing=0.16,
    )
    for index, (_, matrix) in enumerate(panels):
        fig.add_trace(_matrix_trace(matrix, decimals, colorscale), row=index // cols + 1, col=index % cols + 1)
    fig.update_xaxes(showticklabels=False, showgrid=False, zeroline=False, ticks="")
    fig.update_yaxes(showticklabels=False, showgrid=False, zeroline=False, ticks="", autorange="reversed")
    heading = text["explainer_figure_title"].format(
        queries=steps.query.shape[0], keys=steps.key.shape[0], d=steps.query.shape[1]
    )
    fig.update_layout(
        **style.layout(
            heading,
            EXPLAINER_WIDTH,
            FIRST_ROW_HEIGHT + NEXT_ROW_HEIGHT * (rows - 1),
            margin=dict(l=30, r=30, t=100, b=30),
            meta=dict(view="explainer", panels=[name for name, _ in panels]),
        )
    )
    return fig


def _mixture_parts(weights) -> tuple[list[str], np.ndarray]:
    """Key names and weights of a mixture, checked: (name, weight) pairs, finite, non-negative, summing to 1."""
    try:
        pairs = [(str(name), float(weight)) for name, weight in weights]
    except (TypeError, ValueError):
        raise InputError("mixture_not_pairs") from None
    values = np.array([w for _, w in pairs], dtype=np.float64)
    if values.size == 0 or not np.isfinite(values).all() or (values < 0).any() or abs(values.sum() - 1.0) > 1e-6:
        raise InputError("mixture_weights", weights=list(values))
    return [name for name, _ in pairs], values


def _checked_contributions(contributions, keys: int) -> np.ndarray:
    """One contribution per key, finite, non-negative, summing to 1 (or all 0: the output is the zero vector)."""
    try:
        values = np.asarray(contributions, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError):
        raise InputError("mixture_contributions", keys=keys, contributions=str(contributions)) from None
    ok = values.size == keys and np.isfinite(values).all() and (values >= 0).all()
    if not ok or not (np.isclose(values.sum(), 1.0) or (values == 0).all()):
        raise InputError("mixture_contributions", keys=keys, contributions=str(values.tolist()))
    return values


def mixture(
    weights: Sequence[tuple[str, float]],
    contributions: Sequence[float],
    query: str = SEED_MIXTURE_QUERY,
    *,
    style: FigureStyle = DEFAULT_STYLE,
) -> go.Figure:
    """The 四不像 example: where a query looks and what it uses, side by side. Its output is the mixture of the
    values in the proportions of its weights (x = Σ αⱼ vⱼ, the title); the top panel draws each key's weight (where
    it looks) beside its contribution (what the output really takes from it: value zeroing,
    `attnviz.view.looking`), the bottom one each as a whole bar split by key. A weight alone is never drawn as the
    make-up of the output.

    `weights`: (key name, weight) pairs, non-negative and summing to 1 like an attention row; `contributions`: one
    per key, summing to 1. The mixture is no model's, so `style.model` is not named.
    """
    names, values = _mixture_parts(weights)
    used = _checked_contributions(contributions, len(names))
    text = style.words()
    shown = [_fraction(w) for w in values]
    used_shown = [f"{c:.2f}" for c in used]
    formula = " + ".join(f"{s}·v({n})" for s, n in zip(shown, names))  # the values are mixed, not the keys
    colors = [HEAD_COLORS[i % len(HEAD_COLORS)] for i in range(len(names))]
    fig = make_subplots(
        rows=2,
        cols=1,
        row_heights=[0.66, 0.34],
        vertical_spacing=0.2,
        subplot_titles=["", text["mixture_parts"]],  # the top panel is named by its legend, which tells its bars apart
    )
    looked, uses = text["mixture_looked"], text["mixture_used"]
    _beside_bars(fig, names, colors, ((values, shown, looked, ""), (used, used_shown, uses, "/")))
    _split_bars(fig, names, colors, ((looked, values, shown), (uses, used, used_shown)))
    fig.update_yaxes(range=[0, max(values.max(), used.max()) * 1.25 + 0.02], row=1, col=1)
    fig.update_yaxes(autorange="reversed", row=2, col=1)  # "looks" above "uses", as in the panel above
    fig.update_xaxes(range=[0, 1], row=2, col=1)
    meta = dict(view="mixture", weights=[float(w) for w in values], contributions=[float(c) for c in used])
    fig.update_layout(
        **style.layout(
            text["mixture_title"].format(query=query, formula=formula),
            820,
            600,
            barmode="stack",  # the bottom bars stack; the top ones stand apart, either side of their key
            meta=meta,
            legend=dict(
                orientation="h",
                x=0.5,
                xanchor="center",
                y=1.04,
                yanchor="bottom",
                traceorder="normal",  # "looks" first, as the bars stand (stacked bars would list in reverse)
                title=dict(text=text["mixture_weights"], side="top"),
            ),
            margin=dict(l=90, r=40, t=150, b=60),  # the title, then the legend that names the top panel's bars
        )
    )
    return fig


def _beside_bars(fig: go.Figure, names: Sequence[str], colors: Sequence[str], series: Sequence[tuple]) -> None:
    """The top panel: per key, its weight's bar and its contribution's bar either side of its place."""
    positions = np.arange(len(names), dtype=np.float64)  # each key's place; its two bars either side of it
    for (values, labels, name, pattern), offset in zip(series, (-BESIDE, BESIDE)):
        fig.add_trace(
            go.Bar(
                x=(positions + offset).tolist(),
                y=values,
                width=BAR_SHARE,
                text=labels,
                textposition="outside",
                name=name,
                customdata=names,
                marker=dict(color=colors, pattern=dict(shape=pattern)),
                hovertemplate="%{customdata}: %{text}<extra>" + name + "</extra>",
            ),
            row=1,
            col=1,
        )
    fig.update_xaxes(tickvals=positions.tolist(), ticktext=list(names), row=1, col=1)


def _split_bars(fig: go.Figure, names: Sequence[str], colors: Sequence[str], rows: Sequence[tuple]) -> None:
    """The bottom panel: each of "looks" and "uses" as one whole bar split by key (a zero part has no width)."""
    for row_name, values, labels in rows:
        for name, value, label, color in zip(names, values, labels, colors):
            if value <= 0:
                continue
            fig.add_trace(
                go.Bar(
                    x=[value],
                    y=[row_name],
                    orientation="h",
                    name=name,
                    text=[f"{name} {label}"],
                    textposition="inside",
                    insidetextanchor="middle",
                    marker=dict(color=color),
                    showlegend=False,
                    hovertemplate=f"{name}: {label}<extra>{row_name}</extra>",
                ),
                row=2,
                col=1,
            )
