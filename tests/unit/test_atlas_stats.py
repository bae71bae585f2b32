"""Head statistics of an atlas on maps built by hand: each pattern is recognised, and local mass and block entropy
equal a direct loop over the rows."""

import numpy as np
import pytest

from attnviz.errors import InputError
from attnviz.maps import atlas_stats
from attnviz.maps.atlas import AtlasMap
from tests.support.maps import tokens_from

SIZE = 64  # blocks of one token: the block map is the attention map itself


def _amap(weights: np.ndarray, kind: str = "self", causal: bool = True, block: int = 1) -> AtlasMap:
    layers, heads, row_blocks, key_blocks = weights.shape
    queries = tokens_from([f"q{i}" for i in range(row_blocks * block)])
    keys = tokens_from([f"k{i}" for i in range(key_blocks * block)])
    return AtlasMap(
        kind,
        weights.astype(np.float32),
        block,
        queries,
        keys,
        [f"layers.{i}" for i in range(layers)],
        causal,
        np.zeros((layers, heads), dtype=np.float32),
        4,
    )


def _rows(choose) -> np.ndarray:
    """(1, 1, SIZE, SIZE) causal map whose row i spreads evenly over the keys `choose(i)` (those ≤ i)."""
    weights = np.zeros((SIZE, SIZE))
    for row in range(SIZE):
        keys = sorted({key for key in choose(row) if 0 <= key <= row}) or [row]
        weights[row, keys] += 1 / len(keys)
    return weights[None, None]


def a_shape(row):
    return [0, row]


def vertical_slash(row):
    return [10, 20, row - 7, row - 30]


def block_sparse(row):
    return list(np.random.default_rng(row).choice(row + 1, size=min(3, row + 1), replace=False))


def dense(row):
    return list(range(row + 1))


@pytest.mark.parametrize(
    ("choose", "label"),
    [(a_shape, "a-shape"), (vertical_slash, "vertical-slash"), (block_sparse, "block-sparse"), (dense, "dense")],
)
def test_each_pattern_is_recognised(choose, label):
    amap = _amap(_rows(choose))
    assert atlas_stats.pattern_labels(amap)[0, 0] == label


def test_recalls_are_the_covered_share():
    amap = _amap(_rows(a_shape))
    recalls = atlas_stats.pattern_recalls(amap)
    assert recalls["a-shape"][0, 0] == pytest.approx(1.0)
    budget = atlas_stats.pattern_budget(SIZE)
    assert budget == 8
    # the vertical-slash cover of an A-shape head: column 0 and the main diagonal are its heaviest
    assert recalls["vertical-slash"][0, 0] == pytest.approx(1.0)
    uniform = _amap(_rows(dense))
    expected = np.mean([min(budget, row + 1) / (row + 1) for row in range(SIZE)])
    assert atlas_stats.pattern_recalls(uniform)["block-sparse"][0, 0] == pytest.approx(expected)


def test_local_mass_and_entropy_equal_a_loop():
    rng = np.random.default_rng(0)
    weights = np.tril(rng.random((SIZE, SIZE)))
    weights /= weights.sum(-1, keepdims=True)
    stats = atlas_stats.head_statistics(_amap(weights[None, None]))
    local = np.mean([weights[i, max(i - 1, 0) : i + 1].sum() for i in range(SIZE)])
    assert stats["local"][0, 0] == pytest.approx(local)
    entropy = [-(w := weights[i, : i + 1])[w > 0].dot(np.log(w[w > 0])) for i in range(SIZE)]
    assert stats["entropy"][0, 0] == pytest.approx(np.mean(entropy))
    ratio = [0.0] + [entropy[i] / np.log(i + 1) for i in range(1, SIZE)]
    assert stats["entropy_ratio"][0, 0] == pytest.approx(np.mean(ratio))


def test_statistics_weight_each_block_by_its_rows():
    # 10 tokens in blocks of 4: rows 4, 4, 2; a causal map's row block 0 sees only key block 0
    amap = _amap(np.zeros((1, 1, 3, 3)), causal=True, block=4)
    amap = AtlasMap(**{**amap.__dict__, "query_tokens": amap.query_tokens[:10], "key_tokens": amap.key_tokens[:10]})
    np.testing.assert_array_equal(amap.block_rows(), [4, 4, 2])
    np.testing.assert_array_equal(
        atlas_stats.visible_blocks(amap), [[True, False, False], [True, True, False], [True, True, True]]
    )
    blocks = np.array([[1.0, 0, 0], [0.5, 0.5, 0], [0.2, 0.3, 0.5]])
    amap = AtlasMap(**{**amap.__dict__, "blocks": blocks[None, None].astype(np.float32)})
    local = (4 * 1.0 + 4 * 1.0 + 2 * 0.8) / 10  # own block and the one before
    assert atlas_stats.head_statistics(amap)["local"][0, 0] == pytest.approx(local)


def test_cross_attention_and_short_maps_get_no_pattern():
    cross = _amap(np.full((1, 2, SIZE, SIZE), 1 / SIZE), kind="cross", causal=False)
    assert (atlas_stats.pattern_labels(cross) == atlas_stats.NO_PATTERN).all()
    assert np.isnan(atlas_stats.head_statistics(cross)["local"]).all()
    short = _amap(_rows(a_shape)[..., :4, :4])
    assert (atlas_stats.pattern_labels(short) == atlas_stats.NO_PATTERN).all()


def test_a_map_of_the_wrong_shape_is_refused():
    with pytest.raises(InputError, match="do not fit"):
        AtlasMap(**{**_amap(np.zeros((1, 1, 4, 4))).__dict__, "block": 2})
