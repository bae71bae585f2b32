"""The hand-built maps of tests.support.maps are what they claim."""

import numpy as np

from tests.support.maps import random_map, tokens_from


def test_random_map_rows_sum_to_one_and_causal_cells_are_zero():
    amap = random_map(tokens_from(["a", "b", "c", "d"]), causal=True)
    np.testing.assert_allclose(amap.weights.sum(-1), 1.0, rtol=1e-5)
    assert np.all(amap.weights[..., np.triu_indices(4, 1)[0], np.triu_indices(4, 1)[1]] == 0)


def test_tokens_from_finds_offsets_and_specials():
    tokens = tokens_from(["早上", "好", "</s>"], "早上好", specials=("</s>",))
    assert [(t.start, t.end, t.special) for t in tokens] == [(0, 2, False), (2, 3, False), (-1, -1, True)]
