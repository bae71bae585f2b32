"""The logit lens drawn (nostalgebraist 2020; `attnviz.measures.logit_lens` computes it): a layer × position grid
of each layer's most probable next token coloured by its probability, and a line per position of the probability
of the model's final prediction across layers. Pure functions of the numbers and tokens given (no torch)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from attnviz.errors import InputError
from attnviz.figures.common import HEAD_COLORS, clamp, token_label, unknown_notes
from attnviz.figures.style import DEFAULT_STYLE, FigureStyle
from attnviz.figures.text_fit import text_width
from attnviz.i18n.lens import STRINGS as LENS_WORDS
from attnviz.measures.lens_results import DecoderLens, LogitLens, layer_labels, reading_labels
from attnviz.types import Token

CELL_PX = (72, 34)  # px a cell takes: wide enough for a short word at CELL_FONT_PX, tall enough for one line
CELL_FONT_PX = 12  # the cells' text, fixed: plotly would shrink text to fit a small cell until it is unreadable
CELL_PADDING_PX = 8  # px kept free around a cell's text
GRID_MARGINS_PX = (260, 200)  # px the axes' labels, the colour bar and the title add
GRID_SIZE = ((480, 2400), (320, 1600))  # px: the least and most width, then height
LEGEND_ROW_PX = 22  # px one legend entry of the lines takes
LINES_SIZE_PX = (720, 460)  # the lines' least width and height


def _words(style: FigureStyle) -> dict[str, str]:
    """The lens's words in the style's language, under the style's own (its `labels` override either)."""
    return {**LENS_WORDS[style.lang], **style.words()}


def _position_labels(tokens: Sequence[Token], first: int = 0) -> list[str]:
    """Unique column labels: the token and its index ("#i" alone for a column that names no token, a step),
    counted from `first` (a window's first position keeps its number in the whole text)."""
    return [
        f"{token_label(token, 12)} #{first + i}" if token.text else f"#{first + i}" for i, token in enumerate(tokens)
    ]


def fitted_label(token: Token | None, cell_px: float) -> str:
    """A cell's text: the token, shortened (with "…") until it fits `cell_px` at CELL_FONT_PX, or nothing when not
    even one character does (the hover still names it)."""
    if token is None:
        return ""
    for limit in range(10, 1, -1):
        label = token_label(token, limit)
        if text_width(label, CELL_FONT_PX) <= cell_px - CELL_PADDING_PX:
            return label
    return ""


def lens_grid(
    cells: Sequence[Sequence[Token | None]],
    probabilities: np.ndarray,
    layers: Sequence[str],
    positions: Sequence[Token],
    *,
    axes: tuple[str, str] = ("lens_axis_position", "lens_axis_layer"),
    title: str = "lens_grid_title",
    view: str = "lens",
    first: int = 0,
    style: FigureStyle = DEFAULT_STYLE,
) -> go.Figure:
    """`cells[l][i]`: the token row l predicts after position i, `probabilities[l, i]` its probability (0–1); rows
    are `layers` (labels, the first at the bottom), columns the tokens read at `positions` (numbered from `first`).
    A None cell (with a NaN probability) is left empty. Cells are CELL_PX where the size allows; their text is
    CELL_FONT_PX, written only as far as it fits its cell. `axes`: the word keys of the x and y axis titles,
    `title` the title's; `view`: the figure's name in its meta."""
    values = np.asarray(probabilities, dtype=np.float64)  # (layers, positions)
    shape = (len(layers), len(positions))
    if values.shape != shape or len(cells) != shape[0] or any(len(row) != shape[1] for row in cells):
        raise InputError("lens_figure_shape", shape=values.shape, layers=shape[0], positions=shape[1])
    text = _words(style)
    columns = _position_labels(positions, first)
    width = clamp(GRID_MARGINS_PX[0] + CELL_PX[0] * shape[1], *GRID_SIZE[0])
    height = clamp(GRID_MARGINS_PX[1] + CELL_PX[1] * shape[0], *GRID_SIZE[1])
    cell_px = (width - GRID_MARGINS_PX[0]) / max(shape[1], 1)  # a clamped width narrows the cells
    trace = go.Heatmap(
        z=values,
        x=list(range(shape[1])),  # numbered, labelled by the axes: every export engine draws numbers
        y=list(range(shape[0])),
        customdata=[[[layer, column] for column in columns] for layer in layers],
        text=[[fitted_label(token, cell_px) for token in row] for row in cells],
        texttemplate="%{text}",
        textfont=dict(size=CELL_FONT_PX),
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
    first: int = 0,
    style: FigureStyle = DEFAULT_STYLE,
) -> go.Figure:
    """A line per position i (numbered from `first`): the probability each layer (x) gives `finals[i]`, the token
    the model predicts there in the end (`final_probabilities[l, i]`). The figure grows with its legend, one entry
    per line, so that none is cut."""
    values = np.asarray(final_probabilities, dtype=np.float64)  # (layers, positions)
    if values.shape != (len(layers), len(positions)) or len(finals) != len(positions):
        raise InputError("lens_figure_shape", shape=values.shape, layers=len(layers), positions=len(positions))
    text = _words(style)
    fig, names = go.Figure(), []
    for i, (token, final) in enumerate(zip(positions, finals)):
        words = {"position": first + i, "token": token_label(token, 12), "final": token_label(final, 12)}
        name = text["lens_line_name"].format(**words)
        names.append(name)
        color = HEAD_COLORS[i % len(HEAD_COLORS)]
        rows = list(range(len(layers)))  # numbered, labelled by the axis: every engine draws numbers
        fig.add_trace(go.Scatter(x=rows, y=values[:, i], mode="lines+markers", name=name, line_color=color))
    notes = unknown_notes([*positions, *finals], text)
    legend_px = max((text_width(name, 12) for name in names), default=0) + 60  # an entry's text, its line, padding
    width = LINES_SIZE_PX[0] + int(legend_px)  # the plot keeps its width beside the legend
    height = max(LINES_SIZE_PX[1], 180 + LEGEND_ROW_PX * len(names))  # every entry, one under the other
    layout = style.layout(style.heading(None, text["lens_lines_title"], notes), width, height)
    fig.update_layout(**layout, meta=dict(view="lens-lines"), showlegend=True, legend=dict(font=dict(size=12)))
    fig.update_xaxes(title_text=text["lens_axis_layer"], tickvals=list(range(len(layers))), ticktext=list(layers))
    fig.update_yaxes(title_text=text["lens_axis_probability"], range=[0, 1.02])
    return fig


def logit_lens_figures(
    lens: LogitLens, style: FigureStyle = DEFAULT_STYLE, window: tuple[int, int] | None = None
) -> tuple[go.Figure, go.Figure]:
    """A computed lens's grid and lines, of the positions [start, stop) of `window` (None: every position); the
    positions keep their numbers in the whole text."""
    start, stop = window or (0, len(lens.tokens))
    layers = layer_labels(range(len(lens.layer_names)), _words(style))  # row s: the embeddings, then after layer s − 1
    cells = [row[start:stop] for row in lens.top_tokens(0)]
    shown = lens.tokens[start:stop]
    probabilities = lens.top_probabilities[:, start:stop, 0]  # (rows, window)
    grid = lens_grid(cells, probabilities, layers, shown, first=start, style=style)
    finals = [lens.vocabulary[int(i)] for i in lens.final_ids[start:stop]]
    lines = lens_lines(lens.final_probabilities[:, start:stop], layers, shown, finals, first=start, style=style)
    return grid, lines


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
