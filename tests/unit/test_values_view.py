"""The value-weighted view (Kobayashi et al., 2020) right of capture: analysis, selection, figures and files."""

from dataclasses import replace

import numpy as np
import pytest

from attnviz.errors import InputError
from attnviz.export.schema import capture_from_dict, capture_from_npz, capture_to_dict, capture_to_npz
from attnviz.maps import analysis, word_merge
from attnviz.types import AttentionCapture
from attnviz.view import selection, viewing
from tests.support.maps import random_map, seed_pair_map, tokens_from


def _with_norms(amap, seed=1):
    rng = np.random.default_rng(seed)
    norms = rng.uniform(0.1, 3.0, size=(amap.num_layers, amap.num_heads, len(amap.key_tokens))).astype(np.float32)
    return replace(amap, value_norms=norms)


def test_value_weighted_is_weight_times_norm_with_rows_summing_to_one():
    amap = _with_norms(seed_pair_map())
    weighted = analysis.value_weighted(amap)
    raw = amap.weights * amap.value_norms[:, :, None, :]
    np.testing.assert_allclose(weighted.weights, raw / raw.sum(-1, keepdims=True), rtol=1e-6)
    np.testing.assert_allclose(weighted.weights.sum(-1), 1.0, atol=1e-6)
    assert (weighted.weights.argmax(-1) == raw.argmax(-1)).all()
    np.testing.assert_array_equal(weighted.value_norms, amap.value_norms)


def test_a_tiny_value_takes_the_weight_away():
    amap = _with_norms(seed_pair_map())
    norms = amap.value_norms.copy()
    norms[..., 0] = 1e-6  # the key the model reads almost nothing from
    weighted = analysis.value_weighted(replace(amap, value_norms=norms))
    assert (weighted.weights[..., 0] < 1e-4).all()
    assert (amap.weights[..., 0] > 1e-4).any()


def test_causal_cells_stay_zero_and_closed_rows_stay_zero():
    tokens = tokens_from(["a", "b", "c"])
    amap = _with_norms(random_map(tokens, causal=True))
    weights = amap.weights.copy()
    weights[:, :, 1] = 0.0  # a closed row (padding, say)
    weighted = analysis.value_weighted(replace(amap, weights=weights))
    assert (weighted.weights[..., np.triu(np.ones((3, 3), bool), 1)] == 0).all()
    assert (weighted.weights[:, :, 1] == 0).all()


def test_no_norms_is_an_input_error_and_bad_norms_are_refused():
    amap = seed_pair_map()
    with pytest.raises(InputError, match="value norms"):
        analysis.value_weighted(amap)
    with pytest.raises(InputError):
        replace(amap, value_norms=np.ones((1, 1, 1), np.float32))
    with pytest.raises(InputError):
        replace(amap, value_norms=np.full((2, 3, 4), np.nan, np.float32))


def test_norms_follow_the_keys_through_crop_hide_and_merge():
    amap = _with_norms(seed_pair_map())  # keys 早上 好 ！ </s>
    np.testing.assert_array_equal(analysis.crop(amap, keys=(1, 3)).value_norms, amap.value_norms[:, :, 1:3])
    hidden = analysis.hide_tokens(amap, special=True)
    np.testing.assert_array_equal(hidden.value_norms, amap.value_norms[:, :, :3])
    pieces = tokens_from(["早", "上", "好"], "早上好")
    pieced = _with_norms(random_map(tokens_from(["Good"]), pieces, kind="cross"))
    merged = word_merge.merge_words(pieced, key_text="早上好")
    assert len(merged.key_tokens) == merged.value_norms.shape[-1]
    assert analysis.rollout(_with_norms(random_map(pieces))).value_norms is None


def _capture(amap):
    return AttentionCapture("tiny", "cpu", {amap.kind: amap}, "早上好！", "Good Morning!")


def test_selection_weights_by_value_norm_and_says_so():
    amap = _with_norms(seed_pair_map())
    result = _capture(amap)
    plain = selection.show(result, viewing.ViewOptions(), names=("heatmap", "alignment", "grid"))
    options = viewing.ViewOptions(weighting="value-norm")
    shown = selection.show(result, options, names=("heatmap", "alignment", "grid"))
    expected = selection.prepare_map(_capture(analysis.value_weighted(amap)), "cross", hide=True, words=True)
    np.testing.assert_allclose(shown.amap.weights, expected.weights)
    heatmap = shown.figures["heatmap"]
    assert "weighted by value norm" in heatmap.layout.title.text
    assert "weighted by value norm" not in plain.figures["heatmap"].layout.title.text
    assert "weighted by value norm" in shown.figures["alignment"].layout.title.text
    assert heatmap.data[0].colorbar.title.text.startswith("α·‖f(x)‖")
    bars = [trace for trace in heatmap.data if trace.type == "bar"]
    assert len(bars) == 1 and len(bars[0].y) == len(shown.amap.key_tokens)
    assert heatmap.layout.meta["value_bar"]
    assert not [trace for trace in plain.figures["heatmap"].data if trace.type == "bar"]
    zh = selection.show(result, replace(options, lang="zh"))
    assert "按值向量范数加权" in zh.figures["heatmap"].layout.title.text


def test_the_bar_shows_the_mean_norm_of_the_heads_shown():
    amap = _with_norms(seed_pair_map())
    options = viewing.ViewOptions(weighting="value-norm", aggregation="head", layer=1, head=2, hide_special=False)
    shown = selection.show(_capture(amap), options)
    (bar,) = [trace for trace in shown.figures["heatmap"].data if trace.type == "bar"]
    np.testing.assert_allclose(bar.y, amap.value_norms[1, 2], rtol=1e-6)


def test_weighting_without_norms_or_unknown_is_refused():
    with pytest.raises(InputError, match="value norms"):
        selection.show(_capture(seed_pair_map()), viewing.ViewOptions(weighting="value-norm"))
    with pytest.raises(InputError, match="weighting"):
        selection.show(_capture(seed_pair_map()), viewing.ViewOptions(weighting="norms"))


def test_files_keep_the_value_norms():
    amap = _with_norms(seed_pair_map())
    for loaded in (capture_from_dict(capture_to_dict(amap)), capture_from_npz(capture_to_npz(amap))):
        np.testing.assert_array_equal(loaded["cross"].value_norms, amap.value_norms)
    assert capture_from_dict(capture_to_dict(seed_pair_map()))["cross"].value_norms is None
    data = capture_to_dict(amap)
    data["maps"]["cross"]["value_norms"][0][0][0] = -1.0
    with pytest.raises(InputError):
        capture_from_dict(data)
