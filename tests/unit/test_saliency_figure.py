"""The saliency figure (attnviz.figures.saliency): one bar per input token holding the scores given, the explained
token, the method and its definition in the title, in both languages."""

from __future__ import annotations

import numpy as np
import pytest

from attnviz.errors import InputError
from attnviz.figures import FigureStyle
from attnviz.figures.saliency import saliency_bars
from attnviz.types import Token

SOURCE = [Token("早上", 0, 2), Token("好", 2, 3), Token("</s>", -1, -1, special=True)]
PREFIX = [Token("<pad>", -1, -1, special=True), Token("Good", 0, 4)]
MORNING = Token("morning", 5, 12)


def test_a_translators_bars_hold_source_then_prefix_scores_and_the_title_names_token_and_method():
    source, prefix = np.array([0.5, 0.25, 0.0]), np.array([0.125, 1.5])
    figure = saliency_bars(MORNING, 1, SOURCE, source, PREFIX, prefix)
    first, second = figure.data
    np.testing.assert_array_equal(first.y, source)
    np.testing.assert_array_equal(second.y, prefix)
    assert list(first.x) == ["0: 早上", "1: 好", "2: &lt;/s&gt;"]  # escaped: plotly reads labels as HTML
    assert list(second.x) == ["3: &lt;pad&gt;", "4: Good"]  # numbered on: no label of the source repeats
    assert (first.name, second.name) == ("source", "target written so far")
    title = figure.layout.title.text
    assert "“morning”" in title and "output token 1" in title and "gradient × input, L2 per token" in title
    assert figure.layout.meta["view"] == "saliency" and figure.layout.showlegend


def test_a_decoders_bars_are_one_text_in_chinese():
    scores = np.array([0.3, 0.2, 0.1])
    figure = saliency_bars(MORNING, 2, SOURCE, scores, style=FigureStyle(lang="zh"))
    (bars,) = figure.data
    np.testing.assert_array_equal(bars.y, scores)
    assert bars.name == "文本" and not figure.layout.showlegend
    assert "梯度 × 输入，每个词元取 L2 范数" in figure.layout.title.text and "输出词元 2" in figure.layout.title.text
    assert "显著性" in figure.layout.yaxis.title.text


def test_scores_of_another_length_are_refused_in_both_languages():
    with pytest.raises(InputError, match="one score per token") as caught:
        saliency_bars(MORNING, 0, SOURCE, np.ones(2))
    assert "每个词元需要一个分数" in caught.value.message("zh")
