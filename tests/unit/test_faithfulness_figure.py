"""The scoreboard's figures draw the numbers they are given, in both languages, and the notebook shows them; a file of
them carries its provenance (numpy and plotly only: a hand-made scoreboard, no model)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from attnviz.errors import InputError
from attnviz.export.faithfulness_file import scores_bytes
from attnviz.export.figure_file import figure_file_bytes
from attnviz.figures.faithfulness import deletion_figure, scoreboard_figure
from attnviz.figures.style import FigureStyle
from attnviz.maps.faithfulness_scores import Curves, Scoreboard
from attnviz.maps.faithfulness_verdict import verdict
from attnviz.notebook.faithfulness import show_faithfulness
from attnviz.types import Token

DELETIONS = {  # order -> deletion curve (f(x) = 0, three removable tokens); insertion curves mirror them
    "weights": [0.0, -0.5, -1.0, -3.0],
    "alti": [0.0, -2.0, -2.5, -3.0],
    "random-0": [0.0, -0.2, -1.5, -3.0],
    "random-1": [0.0, -0.4, -1.0, -3.0],
}


def _board() -> Scoreboard:
    curves = {name: Curves(np.array(values), np.array(values[::-1])) for name, values in DELETIONS.items()}
    tokens = [Token(text, i, i + 1) for i, text in enumerate("早上好")] + [Token("</s>", -1, -1, special=True)]
    relevance = {"weights": np.array([0.1, 0.5, 0.2, 0.9]), "alti": np.array([0.7, 0.2, 0.1, 0.0])}
    orders = {"weights": np.array([1, 2, 0]), "alti": np.array([0, 1, 2])}
    removable = np.array([True, True, True, False])
    return Scoreboard(
        "m",
        "log-prob",
        "morning",
        (1,),
        tokens,
        removable,
        0.0,
        relevance,
        orders,
        {"mask": curves, "random": dict(curves)},
        {},
        {},
        provenance={"measure": {"name": "faithfulness"}},
    )


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_scoreboard_figure_draws_each_margin_best_first(lang):
    board = _board()
    found = verdict(board)
    figure = scoreboard_figure(board, found, style=FigureStyle(lang=lang))
    assert [bar.name for bar in figure.data] == (
        ["replaced by the mask token", "replaced by a random token"]
        if lang == "en"
        else ["替换为掩码词元", "替换为随机词元"]
    )
    mask = figure.data[0]
    assert list(mask.y) == (
        ["ALTI contributions", "attention weights"] if lang == "en" else ["ALTI 贡献", "注意力权重"]
    )
    np.testing.assert_allclose(mask.x, [found.margins["alti"]["mask"], found.margins["weights"]["mask"]])
    assert ("morning" in figure.layout.title.text) and figure.layout.meta["view"] == "faithfulness"


def test_deletion_figure_draws_every_curve_and_the_random_mean():
    board = _board()
    figure = deletion_figure(board, "mask", style=FigureStyle(lang="zh"))
    assert [trace.name for trace in figure.data] == ["注意力权重", "ALTI 贡献", "随机顺序（基线）"]
    np.testing.assert_allclose(figure.data[1].y, DELETIONS["alti"])
    np.testing.assert_allclose(figure.data[2].y, np.mean([DELETIONS["random-0"], DELETIONS["random-1"]], axis=0))
    np.testing.assert_allclose(figure.data[0].x, [0, 1 / 3, 2 / 3, 1])


def test_files_carry_provenance_and_every_number():
    board = _board()
    found = verdict(board)
    figure = figure_file_bytes(scoreboard_figure(board, found), "json", "faithfulness", provenance=board.provenance)
    said = json.loads(figure)["layout"]["meta"]["provenance"]
    assert said["measure"]["name"] == "faithfulness" and said["view"]["name"] == "faithfulness"
    scores = json.loads(scores_bytes(board, found, "json", lang="zh"))
    assert scores["verdict"]["ranking"] == found.ranking and scores["curves"]["mask"]["alti"]["deletion"] == [
        0.0,
        -2.0,
        -2.5,
        -3.0,
    ]
    assert "判断" in scores["verdict"]["sentence"]
    csv_text = scores_bytes(board, found, "csv").decode()
    assert csv_text.splitlines()[0].startswith("baseline,measure,comprehensiveness") and len(csv_text.splitlines()) == 7


def test_notebook_shows_the_verdict_and_both_figures():
    shown = show_faithfulness(_board(), lang="zh", display=False)
    assert set(shown.figures) == {"scoreboard", "deletion"} and shown.sentence.startswith("在这个输入上")
    with pytest.raises(InputError):
        show_faithfulness(_board(), baseline="zeros", display=False)
    with pytest.raises(InputError, match="show_faithfulness"):
        show_faithfulness("not a board", display=False)
