"""The live step figure draws exactly the row given: one bar per key token, the mean over layers and heads, its axis
named by the row's kind (a translator's cross-attention, a decoder's self-attention) in both languages; a row that
does not fit its keys, or a kind it does not draw, is refused in a sentence."""

import numpy as np
import pytest

from attnviz.errors import InputError
from attnviz.figures.live import KINDS, step_row
from attnviz.figures.style import FigureStyle
from attnviz.i18n.live import STRINGS
from attnviz.types import Token

KEYS = (Token("<s>", -1, -1, special=True), Token("The", 0, 3), Token(" cat", 3, 7))
TOKEN = Token(" sat", 7, 11)


def _row(seed: int = 0) -> np.ndarray:
    """(layers 2, heads 3, keys 3), each head's row summing to 1."""
    weights = np.random.default_rng(seed).random((2, 3, len(KEYS)), dtype=np.float32)
    return weights / weights.sum(axis=-1, keepdims=True)


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("kind", KINDS)
def test_the_bars_are_the_rows_mean_and_the_axis_names_its_kind(kind, lang):
    weights = _row()
    figure = step_row(weights, KEYS, TOKEN, kind=kind, style=FigureStyle(lang=lang))
    (bars,) = figure.data
    np.testing.assert_array_equal(np.asarray(bars.y), weights.mean(axis=(0, 1)))
    assert len(bars.x) == len(KEYS) and bars.x[1].startswith("1: ")
    assert figure.layout.yaxis.title.text == STRINGS[lang][f"live_figure_axis_{kind}"]
    assert tuple(figure.layout.yaxis.range) == (0, 1) and figure.layout.meta["view"] == "live_step"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_kind_it_does_not_draw_is_refused_in_a_sentence(lang):
    with pytest.raises(InputError) as refused:
        step_row(_row(), KEYS, TOKEN, kind="encoder")
    said = refused.value.message(lang)
    assert "encoder" in said and all(kind in said for kind in KINDS) and "{" not in said


def test_a_row_that_does_not_fit_its_keys_is_refused():
    with pytest.raises(InputError, match="3 key tokens"):
        step_row(_row()[..., :2], KEYS, TOKEN, kind="self")
