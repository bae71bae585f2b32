"""The lens figures draw exactly the numbers and tokens given: one cell per (layer, position) with its token and
probability, one line per position; unknown tokens marked; both languages; a shape that does not fit is refused."""

from types import SimpleNamespace

import numpy as np
import pytest

from attnviz.errors import InputError
from attnviz.figures.lens import (
    CELL_PX,
    GRID_MARGINS_PX,
    LEGEND_ROW_PX,
    decoder_lens_grid,
    lens_grid,
    lens_lines,
    logit_lens_figures,
)
from attnviz.figures.style import FigureStyle
from attnviz.figures.text_fit import text_width
from attnviz.i18n.lens import STRINGS
from attnviz.measures.lens_results import DecoderLens, LogitLens, layer_labels, logit_lens_rows, reading_labels
from attnviz.types import Token
from attnviz.view.lenses import LENS_WINDOW, lens_window

POSITIONS = [Token("<s>", -1, -1, special=True), Token("早上", 0, 2), Token("好", 2, 3)]
CELLS = [
    [Token("早上", -1, -1), Token("好", -1, -1), Token("</s>", -1, -1, special=True)],
    [Token("<unk>", -1, -1, unknown=True), Token("好", -1, -1), Token("！", -1, -1)],
]
PROBABILITIES = np.array([[0.1, 0.5, 0.9], [0.2, 0.95, 0.4]], dtype=np.float32)


def test_the_grid_holds_every_cell_as_given():
    layers = layer_labels(range(2), STRINGS["en"])
    fig = lens_grid(CELLS, PROBABILITIES, layers, POSITIONS)
    (trace,) = fig.data
    np.testing.assert_array_equal(np.asarray(trace.z), PROBABILITIES)
    assert trace.text[0][2] == "&lt;/s&gt;"  # plotly reads labels as HTML: escaped, never swallowed
    assert "?" in trace.text[1][0]  # an unknown token is marked, never drawn as text the model read
    assert list(fig.layout.yaxis.ticktext) == ["embeddings", "after layer 0"]
    assert list(fig.layout.xaxis.ticktext)[1] == "早上 #1"
    assert (trace.zmin, trace.zmax) == (0.0, 1.0)


def test_the_grid_speaks_chinese():
    layers = layer_labels(range(2), STRINGS["zh"])
    fig = lens_grid(CELLS, PROBABILITIES, layers, POSITIONS, style=FigureStyle(lang="zh"))
    assert list(fig.layout.yaxis.ticktext) == ["嵌入", "第 0 层之后"]
    assert "每一层会写出的下一个词元" in fig.layout.title.text


def test_a_line_per_position_across_layers():
    finals = [Token("早上", -1, -1), Token("好", -1, -1), Token("！", -1, -1)]
    fig = lens_lines(PROBABILITIES, ["embeddings", "after layer 0"], POSITIONS, finals)
    assert len(fig.data) == len(POSITIONS)
    for i, trace in enumerate(fig.data):
        np.testing.assert_array_equal(np.asarray(trace.y), PROBABILITIES[:, i])


def test_a_shape_that_does_not_fit_is_refused():
    with pytest.raises(InputError):
        lens_grid(CELLS, PROBABILITIES[:, :2], ["a", "b"], POSITIONS)
    with pytest.raises(InputError):
        lens_lines(PROBABILITIES, ["a", "b"], POSITIONS, POSITIONS[:2])


def test_the_decoder_lens_grid_holds_each_writing_and_leaves_a_shorter_ones_cells_empty():
    def step(text: str, probability: float, special: bool = False):
        return SimpleNamespace(token=Token(text, -1, -1, special=special), probability=probability)

    readings = [
        SimpleNamespace(steps=[step("Good", 0.6), step("</s>", 0.3, special=True)]),
        SimpleNamespace(steps=[step("Good", 0.9), step("morning", 0.8), step("</s>", 0.7, special=True)]),
    ]
    lens = DecoderLens("m", [0, 2], ["embeddings", "model.encoder.layers.1"], readings)
    fig = decoder_lens_grid(lens, FigureStyle(lang="zh"))
    (trace,) = fig.data
    np.testing.assert_array_equal(np.asarray(trace.z), [[0.6, 0.3, np.nan], [0.9, 0.8, 0.7]])
    assert [list(row) for row in trace.text] == [["Good", "&lt;/s&gt;", ""], ["Good", "morning", "&lt;/s&gt;"]]
    assert list(fig.layout.yaxis.ticktext) == ["嵌入", "第 1 层之后"]  # the encoder layers read, as heads number them
    assert STRINGS["zh"]["lens_decoder_title"] in fig.layout.title.text and fig.layout.meta["view"] == "decoder-lens"


def test_one_labeller_names_both_lenses_rows_by_the_layer_read():
    assert layer_labels([0, 2, 5], STRINGS["en"]) == ["embeddings", "after layer 1", "after layer 4"]
    assert layer_labels([0, 1], STRINGS["zh"]) == ["嵌入", "第 0 层之后"]
    lens = DecoderLens("m", [0, 3], ["embeddings", "model.encoder.layers.2"], [None, None])
    assert reading_labels(lens, STRINGS["zh"]) == layer_labels([0, 3], STRINGS["zh"]) == ["嵌入", "第 2 层之后"]


def test_lens_rows_are_numbered_as_the_heads_and_the_module_paths_are():
    """One numbering: a row read after the module `layers.n` is "after layer n" (the heads' Ln), in the figure, in
    both languages, and in the table's rows; the embeddings are named, never numbered."""

    names = ["embeddings", "model.layers.0", "model.layers.1"]
    top_ids = np.zeros((3, 3, 1), dtype=np.int64)
    lens = LogitLens(
        "m",
        "self",
        names,
        POSITIONS,
        top_ids,
        np.full((3, 3, 1), 0.5, dtype=np.float32),
        top_ids[-1, :, 0],
        np.zeros((3, 3), dtype=np.float32),
        np.ones((3, 3), dtype=np.int64),
        {0: Token("好", -1, -1)},
    )
    for lang, label in (("en", "after layer {n}"), ("zh", "第 {n} 层之后")):
        grid, lines = logit_lens_figures(lens, FigureStyle(lang=lang))
        expected = [STRINGS[lang]["lens_layer_embeddings"], label.format(n=0), label.format(n=1)]
        assert list(grid.layout.yaxis.ticktext) == expected == list(lines.layout.xaxis.ticktext)
    for row in logit_lens_rows(lens):
        name = row["layer_name"]
        assert row["after_layer"] == (None if name == "embeddings" else int(name.rsplit(".", 1)[1]))


def _long_lens(positions: int):

    words = ["morning", "grandmother", "好", "</s>", "the"]
    tokens = [Token(words[i % len(words)], i, i + 1, special=words[i % len(words)] == "</s>") for i in range(positions)]
    vocabulary = {i: Token(word, -1, -1) for i, word in enumerate(words)}
    top_ids = np.tile(np.arange(positions) % len(words), (4, 1))[:, :, None]  # (rows, positions, 1)
    return LogitLens(
        "m",
        "self",
        ["embeddings", "layers.0", "layers.1", "layers.2"],
        tokens,
        top_ids,
        np.full((4, positions, 1), 0.5, dtype=np.float32),
        top_ids[-1, :, 0],
        np.full((4, positions), 0.5, dtype=np.float32),
        np.ones((4, positions), dtype=np.int64),
        vocabulary,
    )


def test_a_long_lens_is_drawn_a_window_at_a_time_with_readable_cells():

    lens = _long_lens(52)
    window = lens_window(52, 30)
    assert window == (30, 30 + LENS_WINDOW) and lens_window(LENS_WINDOW, 5) is None
    grid, lines = logit_lens_figures(lens, window=window)
    (trace,) = grid.data
    assert np.asarray(trace.z).shape == (4, LENS_WINDOW)
    assert list(grid.layout.xaxis.ticktext)[0].endswith("#30")  # a window keeps the positions' numbers
    size = trace.textfont.size
    assert size is not None and size >= 11  # fixed: plotly would shrink text in small cells to ~5 px
    cell = (grid.layout.width - GRID_MARGINS_PX[0]) / LENS_WINDOW
    assert cell >= CELL_PX[0] - 1
    texts = [text for row in trace.text for text in row]
    assert all(text_width(text, size) <= cell for text in texts)  # written only as far as it fits
    assert all(text for text in texts)  # and in a window's cells, every token fits (shortened if long)
    assert len(lines.data) == LENS_WINDOW and lines.data[0].name.startswith("30")


def test_the_whole_lens_in_a_file_writes_text_only_where_it_fits_and_the_legend_is_never_cut():

    grid, lines = logit_lens_figures(_long_lens(60))  # no window: every position, as the CLI's file draws them
    (trace,) = grid.data
    cell = (grid.layout.width - GRID_MARGINS_PX[0]) / 60  # narrowed by the widest size a figure takes
    assert all(text_width(text, trace.textfont.size) <= cell for row in trace.text for text in row)
    assert len(lines.data) == 60
    assert lines.layout.height >= 60 * LEGEND_ROW_PX  # one legend row per line, each with its room
    longest = max(text_width(trace.name, 12) for trace in lines.data)
    assert lines.layout.width >= 720 + longest  # the plot keeps its width beside the legend
