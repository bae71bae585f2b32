"""The lens figures draw exactly the numbers and tokens given: one cell per (layer, position) with its token and
probability, one line per position; unknown tokens marked; both languages; a shape that does not fit is refused."""

from types import SimpleNamespace

import numpy as np
import pytest

from attnviz.errors import InputError
from attnviz.figures.lens import decoder_lens_grid, lens_grid, lens_lines
from attnviz.figures.style import FigureStyle
from attnviz.i18n.lens import STRINGS
from attnviz.measures.lens_results import DecoderLens, layer_labels, reading_labels
from attnviz.types import Token

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
    from attnviz.figures.lens import logit_lens_figures
    from attnviz.measures.lens_results import LogitLens, logit_lens_rows

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
