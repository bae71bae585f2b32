"""On-demand attention equals the full capture (itself proven equal to eager attention), head by head and row by row,
leaves the model's outputs unchanged, keeps O(n·d) instead of O(n²), and streams statistics and pooled views."""

import numpy as np
import pytest
import torch

from attnviz import figures
from attnviz.attention import tiles
from attnviz.attention.capture import capture
from attnviz.attention.compact import CompactMask, LayerInputs, RelativeBias
from attnviz.attention.ondemand import capture_lazy
from attnviz.attention.recorder import QueryKeyRecorder, WeightRecorder, recording, state_of
from attnviz.errors import InputError, ResourceLimitError
from attnviz.maps import analysis, head_stats
from attnviz.model.load import load_model
from attnviz.types import MAP_SPECS, AttentionResult, map_specs
from tests.support import needs
from tests.support.tiny import FAMILIES, SEQ2SEQ

TEXT = "早上好！Good morning, I like studying 我喜欢学习."
TARGET = "Good morning! 我喜欢"


def _pair(tiny_folder, family):
    handle = load_model(tiny_folder(family), "cpu")
    target = TARGET if family in SEQ2SEQ else None
    return handle, capture(handle, TEXT, target), capture_lazy(handle, TEXT, target)


@pytest.fixture
def small_tiles(monkeypatch):
    """Tiles of a few rows, so that every tiled path really crosses tile boundaries on tiny inputs."""
    monkeypatch.setattr(tiles, "TILE_CELLS", 64)


@pytest.mark.parametrize("family", FAMILIES)
def test_every_map_equals_the_full_capture(tiny_folder, family, small_tiles):
    _, full, lazy = _pair(tiny_folder, family)
    assert lazy.kinds == list(full.maps)
    for kind, expected in full.maps.items():
        got = lazy.map(kind)
        assert lazy.shape(kind) == expected.weights.shape
        np.testing.assert_allclose(got.weights, expected.weights, atol=1e-5, rtol=0)
        assert got.query_tokens == expected.query_tokens and got.key_tokens == expected.key_tokens
        assert got.layer_names == expected.layer_names and got.causal == expected.causal
        if got.causal:
            assert (got.weights[..., analysis.causal_mask(got)] == 0).all()


@pytest.mark.parametrize("family", ["gpt2", "llama", "t5"])
def test_one_head_and_a_range_of_rows_cost_only_themselves(tiny_folder, family, small_tiles):
    _, full, lazy = _pair(tiny_folder, family)
    kind = next(iter(full.maps))
    expected = full[kind].weights  # (layers, heads, q, k)
    layer, head = 1, 3
    np.testing.assert_allclose(lazy.head(kind, layer, head), expected[layer, head], atol=1e-5, rtol=0)
    np.testing.assert_allclose(
        lazy.head(kind, layer, head, rows=(4, 9), keys=(2, 7)), expected[layer, head, 4:9, 2:7], atol=1e-5, rtol=0
    )
    np.testing.assert_allclose(lazy.head(kind, -1, -1, rows=5), expected[-1, -1, 5:6], atol=1e-5, rtol=0)
    np.testing.assert_allclose(lazy.layer(kind, 0), expected[0], atol=1e-5, rtol=0)
    part = lazy.map(kind, layers=[1], heads=[2, 0], queries=(3, 8))
    np.testing.assert_allclose(part.weights, expected[1:2][:, [2, 0], 3:8], atol=1e-5, rtol=0)
    assert part.query_tokens == full[kind].query_tokens[3:8]


@pytest.mark.parametrize("family", FAMILIES)
def test_model_outputs_are_unchanged_by_the_recorder(tiny_folder, family):
    handle = load_model(tiny_folder(family), "cpu")
    model = handle.model
    kwargs = {"input_ids": torch.tensor([[5, 6, 7, 8, 9, 10, 11, 1]])}
    if family in SEQ2SEQ:
        kwargs["decoder_input_ids"] = torch.tensor([[0, 11, 12, 13, 14]])
    implementation = model.config._attn_implementation
    with torch.no_grad():
        before = model(**kwargs)[0]
    with recording(model, QueryKeyRecorder) as recorder:
        during = model(**kwargs)[0]
    assert recorder.calls and all(isinstance(c[0], LayerInputs) for c in recorder.calls.values())
    assert model.config._attn_implementation == implementation
    torch.testing.assert_close(during, before, atol=1e-5, rtol=0)


@pytest.mark.parametrize("family", ["gpt2", "llama", "bart"])
@pytest.mark.parametrize("padding_side", ["right", "left"])
def test_padded_batches_recompute_exactly(tiny_folder, family, padding_side):
    """Padding + causal masks are kept compact (keys seen per example + causal flag) and rebuilt bit for bit."""
    handle = load_model(tiny_folder(family), "cpu")
    handle.tokenizer.padding_side = padding_side
    batch = handle.tokenizer(["好", "早上好！Good morning, I like it."], padding=True, return_tensors="pt")
    run = handle.model.get_encoder() if family in SEQ2SEQ else handle.model
    with recording(handle.model) as full:
        run(**batch)
    with recording(handle.model, QueryKeyRecorder) as lazy:
        run(**batch)
    for name, calls in full.calls.items():
        inputs = lazy.calls[name][0]
        if family != "bart":
            assert isinstance(inputs.mask, CompactMask) and inputs.mask.causal
        for row in range(2):
            got = inputs.probabilities(range(inputs.heads), 0, inputs.queries, batch=row)
            np.testing.assert_allclose(got.numpy(), calls[0][row].numpy(), atol=1e-6, rtol=0)


def test_masks_that_are_not_padding_or_causal_are_kept_whole():
    n = 6
    causal = torch.ones(n, n, dtype=torch.bool).tril()
    window = causal & ~torch.ones(n, n, dtype=torch.bool).tril(-3)  # sliding window of 3
    fill = torch.finfo(torch.float32).min

    def as_mask(keep):
        return torch.where(keep, 0.0, fill)[None, None]

    compact = CompactMask.of(as_mask(causal), n, n)
    assert compact is not None and compact.plain_causal
    assert torch.equal(compact.rows(0, 2, 5), as_mask(causal)[:, :, 2:5])
    assert CompactMask.of(as_mask(window), n, n) is None
    assert CompactMask.of(torch.randn(1, 1, n, n), n, n) is None


def test_relative_bias_is_kept_per_offset_and_other_biases_whole():
    queries, keys, heads = 5, 7, 3
    table = torch.randn(heads, queries + keys - 1)
    offsets = torch.arange(keys)[None, :] - torch.arange(queries)[:, None] + queries - 1
    toeplitz = table[:, offsets][None]  # (1, heads, q, k): depends on key − query only
    compact = RelativeBias.of(toeplitz)
    assert compact is not None and compact.diagonals.shape == (1, heads, queries + keys - 1)
    assert torch.equal(compact.rows(0, [2, 0], 1, 4), toeplitz[:, [2, 0], 1:4])
    assert RelativeBias.of(torch.randn(1, heads, queries, keys)) is None


class _Module(torch.nn.Module):
    pass


@pytest.mark.parametrize("case", ["softcap", "dense_bias", "gqa_mask"])
def test_recorder_forward_matches_eager_on_every_path(case):
    """Soft-capping (eager output), a non-relative bias (kept dense) and GQA with a padding mask (SDPA output)."""
    torch.manual_seed(0)
    batch, heads, kv_heads, n, d = 2, 4, 2 if case == "gqa_mask" else 4, 9, 8
    query, key, value = (
        torch.randn(batch, heads, n, d),
        torch.randn(batch, kv_heads, n, d),
        torch.randn(batch, kv_heads, n, d),
    )
    kwargs, mask = {}, None
    if case == "softcap":
        kwargs["softcap"] = 2.0
    if case == "dense_bias":
        kwargs["position_bias"] = torch.randn(1, heads, n, n)
    if case == "gqa_mask":
        keep = torch.ones(batch, n, dtype=torch.bool)
        keep[0, :3] = False
        mask = torch.where(keep[:, None, None, :].expand(batch, 1, n, n), 0.0, torch.finfo(torch.float32).min)
    holder = torch.nn.Module()
    holder.attn = module = _Module().eval()
    eager, lazy = WeightRecorder(state_of(holder)), QueryKeyRecorder(state_of(holder))
    expected, _ = eager.forward(module, query, key, value, mask, 0.3, **kwargs)
    output, weights = lazy.forward(module, query, key, value, mask, 0.3, **kwargs)
    assert weights is None
    torch.testing.assert_close(output, expected, atol=1e-5, rtol=0)
    inputs = lazy.calls["attn"][0]
    if case == "dense_bias":
        assert isinstance(inputs.bias, torch.Tensor)
    if case == "gqa_mask":
        assert isinstance(inputs.mask, CompactMask) and not inputs.mask.causal and inputs.key.shape[1] == kv_heads
    for row in range(batch):
        got = inputs.probabilities(range(heads), 0, n, batch=row)
        torch.testing.assert_close(got, eager.calls["attn"][0][row], atol=1e-6, rtol=0)


@pytest.mark.parametrize("family", ["bert", "gpt2", "marian"])
def test_streamed_statistics_equal_the_full_map_statistics(tiny_folder, family, small_tiles):
    _, full, lazy = _pair(tiny_folder, family)
    for kind, amap in full.maps.items():
        expected = head_stats.head_statistics(amap)
        got = lazy.head_statistics(kind)
        assert list(got) == list(expected)
        for name in expected:
            np.testing.assert_allclose(got[name], expected[name], atol=1e-5, rtol=0, equal_nan=True)
        partial = lazy.head_statistics(kind, layers=[1], heads=[3, 1])
        np.testing.assert_allclose(partial["entropy"], expected["entropy"][1:2][:, [3, 1]], atol=1e-5)
    table = lazy.head_statistics_table(lazy.kinds[0])
    expected_table = head_stats.head_statistics_table(full[lazy.kinds[0]])
    assert [(r["layer"], r["head"], r["layer_name"]) for r in table] == [
        (r["layer"], r["head"], r["layer_name"]) for r in expected_table
    ]


@pytest.mark.parametrize("family", ["gpt2", "marian"])
@pytest.mark.parametrize("pool", ["max", "mean"])
def test_downsampled_head_equals_pooling_the_full_map(tiny_folder, family, pool, small_tiles):
    _, full, lazy = _pair(tiny_folder, family)
    for kind, amap in full.maps.items():
        pooled = lazy.downsampled(kind, 1, 2, max_tokens=5, pool=pool)
        values = np.where(analysis.causal_mask(amap), np.nan, amap.weights[1, 2])
        expected = analysis.downsample(values, pooled.query_factor, pooled.key_factor, pool)
        assert pooled.values.shape == expected.shape and max(expected.shape) <= 5
        np.testing.assert_allclose(pooled.values, expected, atol=1e-5, equal_nan=True)


@pytest.mark.parametrize("family", ["gpt2", "marian"])
def test_streamed_results_draw_as_the_full_map_draws(tiny_folder, family, small_tiles):
    """A lazy capture's pooled head and streamed statistics make the figures the full map makes."""
    _, full, lazy = _pair(tiny_folder, family)
    for kind, amap in full.maps.items():
        stack = lazy.stack(kind)
        drawn = figures.pooled_heatmap(
            lazy.downsampled(kind, 1, 2, max_tokens=5), stack.query_tokens, stack.key_tokens, kind=kind, layer=1, head=2
        )
        expected = figures.heatmap(amap, layers=1, heads=2, max_tokens=5)
        np.testing.assert_allclose(
            np.array(drawn.data[0].z, float), np.array(expected.data[0].z, float), atol=1e-5, equal_nan=True
        )
        assert drawn.layout.title.text == expected.layout.title.text and drawn.layout.meta == expected.layout.meta
        assert drawn.layout.xaxis.labelalias == expected.layout.xaxis.labelalias
        streamed = figures.statistic_grid(values=lazy.head_statistics(kind), kind=kind, statistic="sink")
        whole = figures.statistic_grid(amap, "sink")
        np.testing.assert_allclose(streamed.data[0].z, whole.data[0].z, atol=1e-5)
        assert streamed.layout.title.text == whole.layout.title.text


def test_kept_memory_grows_linearly_with_tokens(tiny_folder):
    handle = load_model(tiny_folder("llama"), "cpu")
    short = capture_lazy(handle, "word " * 4)
    long = capture_lazy(handle, "word " * 20)
    n_short, n_long = short.shape("self")[2], long.shape("self")[2]
    assert long.nbytes / short.nbytes < 1.2 * n_long / n_short  # O(n·d), where full weights grow as n²
    full_bytes = capture(handle, "word " * 20)["self"].weights.nbytes
    assert long.nbytes < full_bytes


def test_inputs_and_limits_are_refused_with_a_sentence(tiny_folder, monkeypatch):
    handle = load_model(tiny_folder("bert"), "cpu")
    with pytest.raises(InputError, match="no target side"):
        capture_lazy(handle, "hello", target="world")
    with pytest.raises(InputError, match="empty"):
        capture_lazy(handle, "  ")
    lazy = capture_lazy(handle, TEXT)
    with pytest.raises(InputError, match="no 'cross' map"):
        lazy.head("cross", 0, 0)
    with pytest.raises(InputError, match="Head 9 does not exist"):
        lazy.head("self", 0, 9)
    with pytest.raises(InputError, match="range"):
        lazy.head("self", 0, 0, rows=(5, 2))
    monkeypatch.setenv("ATTNVIZ_MEMORY_BUDGET_MB", "0.0001")
    with pytest.raises(ResourceLimitError, match="ATTNVIZ_MEMORY_BUDGET_MB"):
        lazy.layer("self", 0)
    with pytest.raises(ResourceLimitError, match="fewer tokens"):
        capture_lazy(handle, TEXT)
    monkeypatch.setenv("ATTNVIZ_MEMORY_BUDGET_MB", "4096")
    monkeypatch.setenv("ATTNVIZ_MAX_CHARS", "10")
    with pytest.raises(ResourceLimitError, match="ATTNVIZ_MAX_CHARS"):
        capture_lazy(handle, TEXT)


def test_to_capture_gives_what_capture_gives(tiny_folder):
    _, full, lazy = _pair(tiny_folder, "t5")
    everything = lazy.to_capture()
    assert everything.source_text == full.source_text and everything.target_text == full.target_text
    for kind, amap in full.maps.items():
        np.testing.assert_allclose(everything[kind].weights, amap.weights, atol=1e-5, rtol=0)


def test_real_minilm_equals_the_full_capture():
    needs.minilm()
    handle = load_model("minilm", "cpu")
    text = "Attention lets every token look at every other token, and a head is opened only when it is looked at. " * 3
    full, lazy = capture(handle, text)["self"], capture_lazy(handle, text)
    np.testing.assert_allclose(lazy.map("self").weights, full.weights, atol=1e-5, rtol=0)


@pytest.mark.parametrize("family", ["bert", "llama", "marian"])
def test_full_and_lazy_results_answer_the_same_protocol(tiny_folder, family):
    """`AttentionCapture` and `LazyCapture` are both `AttentionResult`s: the same answers, whichever a caller holds."""
    _, full, lazy = _pair(tiny_folder, family)
    assert isinstance(full, AttentionResult) and isinstance(lazy, AttentionResult)
    assert full.is_complete and not lazy.is_complete
    assert full.kinds == lazy.kinds == [spec.kind for spec in map_specs(family in SEQ2SEQ, family in SEQ2SEQ)]
    assert (full.model, full.source_text, full.target_text) == (lazy.model, lazy.source_text, lazy.target_text)
    for kind in full.kinds:
        assert full.shape(kind) == lazy.shape(kind)
        assert full.tokens(kind) == lazy.tokens(kind)
        assert full.layer_names(kind) == lazy.layer_names(kind)
        assert (
            full.causal(kind)
            == lazy.causal(kind)
            == MAP_SPECS[kind].is_causal(load_model(tiny_folder(family), "cpu").kind)
        )
        for rows in (None, 2, (1, 3), -1):
            np.testing.assert_allclose(full.head(kind, 1, 2, rows), lazy.head(kind, 1, 2, rows), atol=1e-5, rtol=0)
        assert full.head(kind, -1, -1).shape == full.shape(kind)[2:]
        for bad in (dict(layer=5), dict(head=9), dict(rows=(3, 1))):
            arguments = dict(kind=kind, layer=0, head=0) | bad
            with pytest.raises(InputError) as from_full:
                full.head(**arguments)
            with pytest.raises(InputError) as from_lazy:
                lazy.head(**arguments)
            assert str(from_full.value) == str(from_lazy.value)
