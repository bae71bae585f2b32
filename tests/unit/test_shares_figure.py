"""The ALTI+ shares figure (attnviz.figures.shares): one stacked bar per target token, the numbers given."""

from __future__ import annotations

import numpy as np
import pytest

from attnviz.errors import InputError
from attnviz.figures import FigureStyle
from attnviz.figures.shares import translation_shares
from attnviz.types import Token

TOKENS = [Token("Good", 0, 4), Token("morning", 5, 12), Token("</s>", -1, -1, special=True)]


def test_bars_hold_the_shares_given_and_name_them_in_both_languages():
    source = np.array([0.7, 0.4, 0.1])
    figure = translation_shares(TOKENS, source, 1 - source, style=FigureStyle(lang="zh"))
    first, second = figure.data
    np.testing.assert_array_equal(first.y, source)
    np.testing.assert_array_equal(second.y, 1 - source)
    assert (first.name, second.name) == ("源文", "目标前缀") and figure.layout.barmode == "stack"
    assert list(first.x) == ["0: Good", "1: morning", "2: &lt;/s&gt;"]  # escaped: plotly reads labels as HTML
    assert "ALTI+" in translation_shares(TOKENS, source, 1 - source).layout.title.text


def test_shares_of_another_length_are_refused():
    with pytest.raises(InputError, match="one source and one target-prefix share per token"):
        translation_shares(TOKENS, np.ones(2), np.ones(2))
