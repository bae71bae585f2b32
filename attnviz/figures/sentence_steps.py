"""The explainer's four steps on one query token of a real head (`attention.walkthrough.sentence_walkthrough`):
the query vector, every key, q·k, the scaling, the softmax, the values and their weighted sum, every number hoverable.

Long vectors (head_dim values) are colour strips: one cell per value, blue below zero and red above, the exact
number in the hover. The per-key columns write their numbers in the cells."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from attnviz.figures.common import format_value, token_label
from attnviz.figures.qkspace import qk_words
from attnviz.figures.style import DEFAULT_STYLE, FigureStyle


def _strip(matrix: np.ndarray, names: Sequence[str], what: str, words: Mapping[str, str]) -> go.Heatmap:
    """Vectors as rows of colour cells (diverging around 0); hover: token, dimension, value."""
    top = float(np.abs(matrix).max()) or 1.0
    return go.Heatmap(
        z=matrix,
        zmin=-top,
        zmax=top,
        zmid=0,
        colorscale="RdBu_r",
        showscale=False,
        xgap=1,
        ygap=1,
        customdata=[[name] * matrix.shape[1] for name in names],
        hovertemplate=words["qk_fig_hover_vector"].replace("{what}", what) + "<extra></extra>",
    )


def _column(values: np.ndarray, names: Sequence[str], what: str, colorscale: str, words) -> go.Heatmap:
    """One number per key, written in its cell; masked keys (NaN) say so."""
    finite = values[np.isfinite(values)]
    low, high = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    text = [[format_value(v) if np.isfinite(v) else words["qk_fig_masked"]] for v in values]
    return go.Heatmap(
        z=np.where(np.isfinite(values), values, np.nan)[:, None],
        zmin=low,
        zmax=high if high > low else low + 1,
        colorscale=colorscale,
        showscale=False,
        xgap=1,
        ygap=1,
        text=text,
        texttemplate="%{text}",
        customdata=[[name] for name in names],
        hoverongaps=False,
        hovertemplate=words["qk_fig_hover_number"].replace("{what}", what) + "<extra></extra>",
    )


def _columns(walk, words) -> list[tuple[str, np.ndarray, str]]:
    """(title, values per key, colour scale) of each per-key step, masked keys NaN."""
    steps = walk.steps
    hidden = np.where(walk.allowed, 1.0, np.nan)
    columns = [
        (words["qk_fig_col_score"], steps.scores[0] * hidden, "Greys"),
        (words["qk_fig_col_scaled"].format(scale=f"{steps.scale:.4g}"), steps.scaled_scores[0] * hidden, "Greys"),
    ]
    if walk.bias is not None:
        columns.append((words["qk_fig_col_bias"], steps.masked_scores[0] * hidden, "Greys"))
    columns.append((words["qk_fig_col_weight"], np.where(walk.allowed, steps.weights[0], np.nan), "Blues"))
    if walk.captured is not None:
        columns.append((words["qk_fig_col_captured"], np.where(walk.allowed, walk.captured, np.nan), "Blues"))
    return columns


def sentence_steps(walk, *, style: FigureStyle = DEFAULT_STYLE) -> go.Figure:
    """Keys down the side; across: the keys' vectors, q·k, ·scaling (+ bias), softmax (and the captured row), the
    values; above the keys the query's own vector, above the values their weighted sum (the head's output)."""
    words = qk_words(style)
    vectors, steps = walk.vectors, walk.steps
    query_name = token_label(vectors.query_tokens[walk.row])
    key_names = [f"{i} {token_label(t)}" for i, t in enumerate(vectors.key_tokens)]
    columns = _columns(walk, words)
    has_values = steps.context is not None
    count = 1 + len(columns) + has_values
    d = vectors.head_dim
    widths = [max(d, 6) / 8] + [1.0] * len(columns) + ([max(d, 6) / 8] if has_values else [])
    titles = [words["qk_fig_query_vector"].format(token=query_name)] + ([words["qk_fig_output"]] * has_values)
    titles += [words["qk_fig_keys"]] + [title for title, _, _ in columns] + ([words["qk_fig_values"]] * has_values)
    keys = len(key_names)
    fig = make_subplots(
        rows=2,
        cols=count,
        column_widths=widths,
        row_heights=[1, max(keys, 2)],
        subplot_titles=titles,
        horizontal_spacing=0.02,
        vertical_spacing=0.16 if keys < 8 else 0.08,
        specs=[[{}] + [None] * len(columns) + ([{}] if has_values else []), [{}] * count],
    )
    fig.add_trace(_strip(steps.query, [query_name], words["qk_fig_q"], words), row=1, col=1)
    fig.add_trace(_strip(steps.key, key_names, words["qk_fig_k"], words), row=2, col=1)
    for index, (title, values, scale) in enumerate(columns, 2):
        fig.add_trace(_column(values, key_names, title, scale, words), row=2, col=index)
    if has_values:
        fig.add_trace(_strip(steps.context, [query_name], words["qk_fig_out"], words), row=1, col=count)
        fig.add_trace(_strip(steps.value, key_names, words["qk_fig_v"], words), row=2, col=count)
    fig.update_xaxes(showticklabels=False, showgrid=False, zeroline=False, ticks="")
    fig.update_yaxes(showticklabels=False, showgrid=False, zeroline=False, ticks="", autorange="reversed")
    fig.update_yaxes(
        showticklabels=True, tickmode="array", tickvals=list(range(keys)), ticktext=key_names, row=2, col=1
    )
    title = words["qk_fig_steps_title"].format(token=query_name, layer=vectors.layer, head=vectors.head, d=d)
    if walk.difference is not None:  # "equals" only where it does
        said = words["qk_fig_steps_equal" if walk.equal else "qk_fig_steps_differs"]
        title += "<br><sup>" + said.format(difference=f"{walk.difference:.1e}") + "</sup>"
    fig.update_layout(
        **style.layout(
            title,
            1100,
            max(440, 300 + 24 * keys),
            margin=dict(l=120, r=30, t=120, b=30),
            meta=dict(
                view="sentence_steps",
                kind=vectors.kind,
                layer=vectors.layer,
                head=vectors.head,
                row=walk.row,
                difference=walk.difference,
                keys=keys,
                head_dim=d,
            ),
        )
    )
    return fig
