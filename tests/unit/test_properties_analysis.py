"""Property-based: every analysis function keeps the attention invariants on any valid map, and refuses bad
selections with an InputError that names the valid range — never another exception."""

import math

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from attnviz.errors import InputError
from attnviz.maps import analysis, head_stats, word_merge
from tests.support.strategies import drawn_maps, property_settings

ATOL = 2e-5  # float32 rows of up to 20 keys


def selections(size: int):
    """What a caller may pass as `layers`/`heads`: None, one index (negative counts from the end), or a list."""
    index = st.integers(-size, size - 1)
    return st.none() | index | st.lists(index, min_size=1, max_size=4)


def _masked_cells_are_zero(amap) -> None:
    assert (amap.weights[..., analysis.causal_mask(amap)] == 0).all()


# ----------------------------------------------------------------------------------------------------------------------
# aggregation and selections


@property_settings(100)
@given(drawn=drawn_maps(), data=st.data())
def test_aggregate_is_a_row_distribution_or_its_peak(drawn, data):
    amap = drawn.amap
    layers = data.draw(selections(amap.num_layers), "layers")
    heads = data.draw(selections(amap.num_heads), "heads")
    head_reduce = data.draw(st.sampled_from(analysis.REDUCTIONS), "head_reduce")
    layer_reduce = data.draw(st.sampled_from(analysis.REDUCTIONS), "layer_reduce")
    matrix = analysis.aggregate(amap, layers, heads, head_reduce, layer_reduce)
    assert matrix.shape == (len(amap.query_tokens), len(amap.key_tokens)) and matrix.dtype == np.float32
    assert np.isfinite(matrix).all() and (matrix >= 0).all() and (matrix <= 1 + ATOL).all()
    assert (matrix[analysis.causal_mask(amap)] == 0).all()
    sums = matrix.sum(-1)
    if head_reduce == layer_reduce == "mean":
        np.testing.assert_allclose(sums, 1.0, atol=ATOL)
    else:  # an elementwise max of distributions holds each of them: its rows sum to at least 1
        assert (sums >= 1 - ATOL).all()
    layer_idx, head_idx = analysis.select_indices(amap, layers, heads)
    chosen = amap.weights[np.ix_(layer_idx, head_idx)]  # (layers', heads', queries, keys)
    assert (chosen.min(axis=(0, 1)) - 1e-6 <= matrix).all() and (matrix <= chosen.max(axis=(0, 1)) + 1e-6).all()
    if head_reduce == layer_reduce == "max":
        np.testing.assert_array_equal(matrix, chosen.max(axis=(0, 1)))
    if len(layer_idx) == len(head_idx) == 1:
        np.testing.assert_array_equal(matrix, amap.weights[layer_idx[0], head_idx[0]])


@property_settings(60)
@given(drawn=drawn_maps(max_tokens=4), data=st.data())
def test_out_of_range_layers_and_heads_name_the_valid_range(drawn, data):
    amap = drawn.amap
    what = data.draw(st.sampled_from(["layer", "head"]))
    size = amap.num_layers if what == "layer" else amap.num_heads
    bad = data.draw(st.integers(-1000, -size - 1) | st.integers(size, 1000) | st.just([]) | st.just(1.5))
    selection = bad if not isinstance(bad, int) or data.draw(st.booleans()) else [0, bad]
    with pytest.raises(InputError) as caught:
        analysis.aggregate(amap, **{f"{what}s": selection})
    message = str(caught.value)
    if isinstance(bad, int) or bad == []:
        assert f"{size} {what}s" in message and f"0–{size - 1}" in message
    assert message.endswith(".")


# ----------------------------------------------------------------------------------------------------------------------
# crop and downsample


@property_settings(60)
@given(drawn=drawn_maps(), data=st.data())
def test_crop_keeps_values_tokens_and_masked_zeros(drawn, data):
    amap = drawn.amap
    queries, keys = len(amap.query_tokens), len(amap.key_tokens)
    q0 = data.draw(st.integers(0, queries - 1))
    q1 = data.draw(st.integers(q0 + 1, queries))
    k0 = data.draw(st.integers(0, keys - 1))
    k1 = data.draw(st.integers(k0 + 1, keys))
    part = analysis.crop(amap, (q0, q1), (k0, k1))
    np.testing.assert_array_equal(part.weights, amap.weights[:, :, q0:q1, k0:k1])
    assert part.query_tokens == amap.query_tokens[q0:q1] and part.key_tokens == amap.key_tokens[k0:k1]
    _masked_cells_are_zero(part)
    if amap.causal and amap.kind != "cross" and (q0, q1) == (k0, k1):
        assert part.causal  # the same range on both sides is still a causal map
    with pytest.raises(InputError, match="range"):
        analysis.crop(amap, (q0, queries + data.draw(st.integers(1, 5))))


@property_settings(60)
@given(drawn=drawn_maps(max_layers=2, max_heads=2), query_factor=st.integers(1, 6), key_factor=st.integers(1, 6))
def test_downsample_pools_blocks_and_keeps_masked_blocks_empty(drawn, query_factor, key_factor):
    amap = drawn.amap
    values = np.where(analysis.causal_mask(amap), np.nan, analysis.aggregate(amap))  # (queries, keys); NaN = masked
    peak = analysis.downsample(values, query_factor, key_factor, "max")
    mean = analysis.downsample(values, query_factor, key_factor, "mean")
    rows, cols = math.ceil(values.shape[0] / query_factor), math.ceil(values.shape[1] / key_factor)
    assert peak.shape == mean.shape == (rows, cols)
    for row in range(rows):
        for col in range(cols):
            block = values[row * query_factor : (row + 1) * query_factor, col * key_factor : (col + 1) * key_factor]
            if np.isnan(block).all():
                assert np.isnan(peak[row, col]) and np.isnan(mean[row, col])
            else:
                assert peak[row, col] == np.float32(np.nanmax(block))
                assert np.nanmin(block) - 1e-6 <= mean[row, col] <= peak[row, col] + 1e-6
    np.testing.assert_array_equal(analysis.downsample(values, 1, 1), values.astype(np.float32))


# ----------------------------------------------------------------------------------------------------------------------
# words and hidden tokens


@property_settings(80)
@given(drawn=drawn_maps())
def test_merge_words_keeps_rows_summing_to_one_over_word_groups(drawn):
    amap = drawn.amap
    merged = word_merge.merge_words(amap, drawn.query_text, drawn.key_text)
    query_groups = word_merge.word_groups(amap.query_tokens, drawn.query_text)
    key_groups = word_merge.word_groups(amap.key_tokens, drawn.key_text)
    for groups, count in ((query_groups, len(amap.query_tokens)), (key_groups, len(amap.key_tokens))):
        assert [i for first, stop in groups for i in range(first, stop)] == list(range(count))  # cover, in order
    assert merged.weights.shape == (amap.num_layers, amap.num_heads, len(query_groups), len(key_groups))
    assert len(merged.query_tokens) == len(query_groups) and len(merged.key_tokens) == len(key_groups)
    np.testing.assert_allclose(merged.weights.sum(-1), 1.0, atol=ATOL)
    for word, (first, stop) in zip(merged.key_tokens, key_groups, strict=True):
        if stop - first == 1:
            assert word == amap.key_tokens[first]
        else:  # a word of several pieces is the text they cover
            assert word.text == drawn.key_text[word.start : word.end] and not word.special
    singles = [i for i, (first, stop) in enumerate(key_groups) if stop - first == 1]
    single_queries = [i for i, (first, stop) in enumerate(query_groups) if stop - first == 1]
    np.testing.assert_allclose(
        merged.weights[:, :, single_queries][..., singles],
        amap.weights[:, :, [query_groups[i][0] for i in single_queries]][..., [key_groups[i][0] for i in singles]],
        atol=1e-6,
    )
    if amap.causal:  # no word attends to a later word
        assert (np.triu(np.ones(merged.weights.shape[-2:], bool), 1) <= (merged.weights == 0)).all()


@property_settings(80)
@given(
    drawn=drawn_maps(),
    special=st.booleans(),
    first=st.booleans(),
    renormalize=st.booleans(),
    data=st.data(),
)
def test_hide_tokens_removes_exactly_the_chosen_tokens(drawn, special, first, renormalize, data):
    amap = drawn.amap
    num_keys = len(amap.key_tokens)
    keys = data.draw(st.lists(st.integers(-num_keys, num_keys - 1), max_size=3))
    hidden = {k % num_keys for k in keys} | ({0} if first else set())
    hidden |= {i for i, t in enumerate(amap.key_tokens) if special and t.special}
    kept_keys = [i for i in range(num_keys) if i not in hidden]
    square = amap.kind != "cross"
    kept_queries = kept_keys if square else [i for i, t in enumerate(amap.query_tokens) if not (special and t.special)]
    if not kept_keys or not kept_queries:
        with pytest.raises(InputError, match="hide fewer|keep special"):
            analysis.hide_tokens(amap, special=special, first=first, keys=keys, renormalize=renormalize)
        return
    shown = analysis.hide_tokens(amap, special=special, first=first, keys=keys, renormalize=renormalize)
    assert shown.key_tokens == [amap.key_tokens[i] for i in kept_keys]
    assert shown.query_tokens == [amap.query_tokens[i] for i in kept_queries]
    original = amap.weights[:, :, kept_queries][..., kept_keys]  # (layers, heads, queries', keys')
    sums = shown.weights.sum(-1)
    if renormalize:
        assert np.all((np.abs(sums - 1) < ATOL) | (sums == 0))
        totals = original.sum(-1, keepdims=True)
        np.testing.assert_allclose(shown.weights * totals, original, atol=1e-6)
    else:
        np.testing.assert_array_equal(shown.weights, original)
        assert (sums <= 1 + ATOL).all()
    _masked_cells_are_zero(shown)


# ----------------------------------------------------------------------------------------------------------------------
# rollout and head statistics


@property_settings(50)
@given(drawn=drawn_maps(), residual=st.booleans())
def test_rollout_rows_stay_distributions_and_causal_maps_stay_causal(drawn, residual):
    amap = drawn.amap
    if amap.kind == "cross":
        with pytest.raises(InputError, match="self-attention"):
            analysis.rollout(amap)
        return
    rolled = analysis.rollout(amap, residual=residual)
    n = len(amap.query_tokens)
    assert rolled.weights.shape == (amap.num_layers, 1, n, n) and np.isfinite(rolled.weights).all()
    assert (rolled.weights >= 0).all()
    np.testing.assert_allclose(rolled.weights.sum(-1), 1.0, atol=1e-4)
    first = amap.weights[0].astype(np.float64).mean(axis=0)  # (n, n): layer 0, mean of heads
    expected = 0.5 * first + 0.5 * np.eye(n) if residual else first
    np.testing.assert_allclose(rolled.weights[0, 0], expected / expected.sum(-1, keepdims=True), atol=1e-5)
    if amap.causal:
        assert (rolled.weights[..., np.triu(np.ones((n, n), bool), 1)] == 0).all()


@property_settings(60)
@given(drawn=drawn_maps())
def test_head_statistics_lie_in_their_ranges(drawn):
    amap = drawn.amap
    stats = head_stats.head_statistics(amap)
    queries, keys = len(amap.query_tokens), len(amap.key_tokens)
    assert list(stats) == list(head_stats.STATISTICS)
    for name, values in stats.items():
        assert values.shape == (amap.num_layers, amap.num_heads) and values.dtype == np.float32, name
    assert ((stats["entropy"] >= -1e-6) & (stats["entropy"] <= math.log(keys) + 1e-4)).all()
    for name in ("sink", "diagonal"):
        assert ((stats[name] >= 0) & (stats[name] <= 1 + ATOL)).all(), name
    if amap.kind == "cross":
        assert np.isnan(stats["distance"]).all() and np.isnan(stats["previous_token"]).all()
    else:
        assert ((stats["distance"] >= 0) & (stats["distance"] <= max(queries - 1, 0) + 1e-4)).all()
        assert ((stats["previous_token"] >= 0) & (stats["previous_token"] <= 1 + ATOL)).all()
    table = head_stats.head_statistics_table(amap)
    assert len(table) == amap.num_layers * amap.num_heads
    row = table[-1]
    assert (row["layer"], row["head"]) == (amap.num_layers - 1, amap.num_heads - 1)
    assume(np.isfinite(row["entropy"]))
    assert row["entropy"] == pytest.approx(float(stats["entropy"][-1, -1]))


@property_settings(60)
@given(drawn=drawn_maps(), data=st.data())
def test_statistics_summed_over_any_row_tiles_equal_the_whole_map(drawn, data):
    """Streaming (statistic_sums per tile, added up) gives what head_statistics gives on the whole map."""
    amap = drawn.amap
    queries = len(amap.query_tokens)
    cuts = sorted(data.draw(st.sets(st.integers(1, max(queries - 1, 1)), max_size=4), "cuts") - {queries})
    known = head_stats.statistic_inputs(amap.kind, amap.query_tokens, amap.key_tokens)
    induction = known.pop("induction")
    sinks = known["sinks"]
    assert sinks[0] and all(sinks[i] for i, t in enumerate(amap.key_tokens) if t.special)
    totals: dict = {}
    for first, stop in zip([0, *cuts], [*cuts, queries]):
        rows_induction = None if induction is None else induction[first:stop]
        part = head_stats.statistic_sums(amap.weights[:, :, first:stop], first, induction=rows_induction, **known)
        for name, (total, count) in part.items():
            running = totals.setdefault(name, [0.0, 0])
            running[0], running[1] = running[0] + total, running[1] + count
    streamed = head_stats.statistic_means(totals, amap.weights.shape[:2])
    for name, expected in head_stats.head_statistics(amap).items():
        np.testing.assert_allclose(streamed[name], expected, rtol=1e-6, atol=1e-7, equal_nan=True, err_msg=name)
