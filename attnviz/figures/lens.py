"""The logit lens drawn (nostalgebraist 2020; `attnviz.measures.logit_lens` computes it): a layer × position grid
of each layer's most probable next token coloured by its probability, and a line per position of the probability
of the model's final prediction across layers. Pure functions of the numbers and tokens given (no torch)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from attnviz.errors import InputError
from attnviz.figures._common import HEAD_COLORS, clamp, token_label, unknown_notes
from attnviz.figures.style import DEFAULT_STYLE, FigureStyle
from attnviz.i18n.lens import STRINGS as LENS_WORDS
from attnviz.measures.lens_results import DecoderLens, LogitLens, layer_labels, reading_labels
from attnviz.types import Token

CELL_PX = (64, 30)  # px a cell takes: wide enough for a short word, tall enough for one line
GRID_MARGINS_PX = (260, 200)  # px the axes' labels, the colour bar and the title add
GRID_SIZE = ((480, 2400), (320, 1600))  # px: the least and most width, then height


def _words(style: FigureStyle) -> dict[str, str]:
    """The lens's words in the style's language, under the style's own (its `labels` override either)."""
    return {**LENS_WORDS[style.lang], **style.words()}


def _position_labels(tokens: Sequence[Token]) -> list[str]:
    """Unique column labels: the token and its index ("#i" alone for a column that names no token, a step)."""
    return [f"{token_label(token, 12)} #{i}" if token.text else f"#{i}" for i, token in enumerate(tokens)]


def lens_grid(
    cells: Sequence[Sequence[Token | None]],
    probabilities: np.ndarray,
    layers: Sequence[str],
    positions: Sequence[Token],
    *,
    axes: tuple[str, str] = ("lens_axis_position", "lens_axis_layer"),
    title: str = "lens_grid_title",
    view: str = "lens",
    style: FigureStyle = DEFAULT_STYLE,
) -> go.Figure:
    """`cells[l][i]`: the token row l predicts after position i, `probabilities[l, i]` its probability (0–1); rows
    are `layers` (labels, the first at the bottom), columns the tokens read at `positions`. A None cell (with a NaN
    probability) is left empty. `axes`: the word keys of the x and y axis titles, `title` the title's; `view`: the figure's name in its meta."""
    values = np.asarray(probabilities, dtype=np.float64)  # (layers, positions)
    shape = (len(layers), len(positions))
    if values.shape != shape or len(cells) != shape[0] or any(len(row) != shape[1] for row in cells):
        raise InputError("lens_figure_shape", shape=values.shape, layers=shape[0], positions=shape[1])
    text = _words(style)
    columns = _position_labels(positions)
    trace = go.Heatmap(
        z=values,
        x=list(range(shape[1])),  # numbered, labelled by the axes: every export engine draws numbers
        y=list(range(shape[0])),
        customdata=[[[layer, column] for column in columns] for layer in layers],
        text=[["" if token is None else token_label(token, 10) for token in row] for row in cells],
        texttemplate="%{text}",
        colorscale="Blues",
        zmin=0.0,
        zmax=1.0,
        xgap=1,
        ygap=1,
        colorbar=dict(title=dict(text=text["lens_axis_probability"])),
        hovertemplate=text["lens_hover_cell"] + "<extra></extra>",
    )
    fig = go.Figure(trace)
    notes = unknown_notes([*positions, *(token for row in cells for token in row if token is not None)], text)
    width = clamp(GRID_MARGINS_PX[0] + CELL_PX[0] * shape[1], *GRID_SIZE[0])
    height = clamp(GRID_MARGINS_PX[1] + CELL_PX[1] * shape[0], *GRID_SIZE[1])
    fig.update_layout(**style.layout(style.heading(None, text[title], notes), width, height, meta=dict(view=view)))
    fig.update_xaxes(title_text=text[axes[0]], tickvals=list(range(shape[1])), ticktext=columns, tickangle=-45)
    fig.update_yaxes(title_text=text[axes[1]], tickvals=list(range(shape[0])), ticktext=list(layers))
    return fig


def lens_lines(
    final_probabilities: np.ndarray,
    layers: Sequence[str],
    positions: Sequence[Token],
    finals: Sequence[Token],
    *,
    style: FigureStyle = DEFAULT_STYLE,
) -> go.Figure:
    """A line per position i: the probability each layer (x) gives `finals[i]`, the token the model predicts there
    in the end (`final_probabilities[l, i]`)."""
    values = np.asarray(final_probabilities, dtype=np.float64)  # (layers, positions)
    if values.shape != (len(layers), len(positions)) or len(finals) != len(positions):
        raise InputError("lens_figure_shape", shape=values.shape, layers=len(layers), positions=len(positions))
    text = _words(style)
    fig = go.Figure()
    for i, (token, final) in enumerate(zip(positions, finals)):
        name = text["lens_line_name"].format(position=i, token=token_label(token, 12), final=token_label(final, 12))
        color = HEAD_COLORS[i % len(HEAD_COLORS)]
        rows = list(range(len(layers)))  # numbered, labelled by the axis: every engine draws numbers
        fig.add_trace(go.Scatter(x=rows, y=values[:, i], mode="lines+markers", name=name, line_color=color))
    notes = unknown_notes([*positions, *finals], text)
    fig.update_layout(
        **style.layout(
            style.heading(None, text["lens_lines_title"], notes),
            720,
            460,
            meta=dict(view="lens-lines"),
            showlegend=True,
        )
    )
    fig.update_xaxes(title_text=text["lens_axis_layer"], tickvals=list(range(len(layers))), ticktext=list(layers))
    fig.update_yaxes(title_text=text["lens_axis_probability"], range=[0, 1.02])
    return fig


def logit_lens_figures(lens: LogitLens, style: FigureStyle = DEFAULT_STYLE) -> tuple[go.Figure, go.Figure]:
    """A computed lens's grid and lines."""
    layers = layer_labels(range(len(lens.layer_names)), _words(style))  # row s: the embeddings, then after layer s − 1
    grid = lens_grid(lens.top_tokens(0), lens.top_probabilities[:, :, 0], layers, lens.tokens, style=style)
    finals = [lens.vocabulary[int(i)] for i in lens.final_ids]
    return grid, lens_lines(lens.final_probabilities, layers, lens.tokens, finals, style=style)


def decoder_lens_grid(lens: DecoderLens, style: FigureStyle = DEFAULT_STYLE) -> go.Figure:
    """DecoderLens as a grid: rows the encoder layers read, columns the steps, each cell the token written there
    coloured by its probability (a shorter writing leaves its last cells empty)."""
    steps = max(len(reading.steps or []) for reading in lens.readings)
    cells = [[step.token for step in reading.steps or []] for reading in lens.readings]
    values = [[step.probability for step in reading.steps or []] for reading in lens.readings]
    cells = [row + [None] * (steps - len(row)) for row in cells]
    values = np.array([row + [float("nan")] * (steps - len(row)) for row in values], dtype=np.float64).reshape(
        len(lens.readings), steps
    )  # (readings, steps)
    steps_read = [Token("", -1, -1) for _ in range(steps)]  # labelled by their number alone
    axes = ("lens_axis_step", "lens_axis_encoder_layer")
    labels = reading_labels(lens, _words(style))
    return lens_grid(
        cells, values, labels, steps_read, axes=axes, title="lens_decoder_title", view="decoder-lens", style=style
    )
