"""The tokens a view draws along one axis (`attnviz.view.token_units`): words or pieces, special tokens hidden or
not, as a merged map's rows and columns are; per-piece values combined by mean, sum or L2."""

from __future__ import annotations

import numpy as np
import pytest

from attnviz.maps import analysis, word_merge
from attnviz.types import AttentionMap, Token
from attnviz.view.token_units import combined, drawn_units

TEXT = "Grandpa smiled"
TOKENS = [Token("Grand", 0, 5), Token("pa", 5, 7), Token("smiled", 8, 14), Token("</s>", -1, -1, special=True)]


def test_units_are_the_words_and_rows_a_merged_map_draws():
    weights = np.full((1, 1, 4, 4), 0.25, dtype=np.float32)
    amap = AttentionMap("self", weights, TOKENS, TOKENS, ["layers.0"])
    merged = word_merge.merge_words(analysis.hide_tokens(amap, special=True), TEXT)
    units = drawn_units(TOKENS, TEXT, words=True, hide_special=True)
    assert [u.token.text for u in units] == [t.text for t in merged.query_tokens] == ["Grandpa", "smiled"]
    assert [(u.start, u.stop) for u in units] == [(0, 2), (2, 3)]
    pieces = drawn_units(TOKENS, TEXT, words=False, hide_special=False)
    assert [u.token.text for u in pieces] == ["Grand", "pa", "smiled", "</s>"]


def test_a_side_of_special_tokens_alone_keeps_them():
    only = [Token("<s>", -1, -1, special=True), Token("</s>", -1, -1, special=True)]
    assert len(drawn_units(only, "", words=True, hide_special=True)) == 2


def test_values_combine_by_the_rule_that_fits_them():
    units = drawn_units(TOKENS, TEXT, words=True, hide_special=True)
    values = np.array([[3.0, 4.0, 2.0, 9.0], [1.0, 1.0, 0.5, 9.0]])  # (rows, pieces)
    np.testing.assert_allclose(combined(values, units, "l2"), [[5.0, 2.0], [np.sqrt(2), 0.5]])
    np.testing.assert_allclose(combined(values, units, "sum"), [[7.0, 2.0], [2.0, 0.5]])
    np.testing.assert_allclose(combined(values, units, "mean"), [[3.5, 2.0], [1.0, 0.5]])
    with pytest.raises(ValueError, match="unknown rule"):
        combined(values, units, "max")
