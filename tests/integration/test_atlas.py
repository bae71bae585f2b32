"""The atlas equals transformers' own eager attention computed in float64: block masses, sink mass and windows within
1e-5, on tiny random models of every family with a fused path (GPT-2, Llama with grouped queries, BERT, BART and
Marian with decoder self- and cross-attention), with padding (left and right) and causal masks; the model's output
is the one it computes with SDPA; a route that disagrees with float64 is refused and said."""

import copy
import math

import numpy as np
import pytest
import torch

from attnviz.atlas import capture_atlas, capture_atlas_batch, routes
from attnviz.atlas.recorder import AtlasRecorder
from attnviz.attention.batching import prepare_batch
from attnviz.attention.recorder import recording
from attnviz.errors import InputError
from attnviz.model.load import load_model
from tests.support.tiny import SEQ2SEQ

TEXTS = [
    "The cat sat on the mat, and the dog looked at the cat. 早上好！我喜欢学习。Attention lets every token look.",
    "Good morning! I like studying.",
]
TARGETS = ["Good morning! 我喜欢 studying and reading books.", "晚上好，晚安。"]
FAMILIES = ("gpt2", "llama", "bert", "bart", "marian")
BLOCK = 5  # does not divide the lengths: partial blocks on both axes; head width 8 → 40 keys per block-pass call
TOLERANCE = 1e-5


def _reference_weights(handle, inputs) -> dict[str, np.ndarray]:
    """kind -> float64 (layers, batch, heads, q, k): transformers' eager attention of a float64 copy of the model.

    A left-padded decoder's padding rows see no key: eager attention makes them NaN, which reaches every real row
    through the keys of the next layer. Here they see themselves instead (a 4-d mask), which changes no real row."""
    model = copy.deepcopy(handle.model).double()
    model.set_attn_implementation("eager")
    if handle.kind == "decoder":
        keep = inputs["attention_mask"].bool()  # (batch, n)
        width = keep.shape[1]
        seen = torch.ones(width, width, dtype=torch.bool).tril() & keep[:, None, None, :]
        seen |= torch.eye(width, dtype=torch.bool)
        additive = torch.zeros(seen.shape, dtype=torch.float64).masked_fill(~seen, float("-inf"))
        inputs = {**inputs, "attention_mask": additive}
    with torch.no_grad():
        out = model(**inputs, output_attentions=True)
    if handle.is_seq2seq:
        found = {"encoder": out.encoder_attentions, "decoder": out.decoder_attentions, "cross": out.cross_attentions}
    else:
        found = {"self": out.attentions}
    return {kind: torch.stack(list(layers)).numpy() for kind, layers in found.items()}


def _blocks_of(weights: np.ndarray, block: int) -> np.ndarray:
    """float64 (layers, heads, I, J): the mean over each query block's rows of each key block's summed weights."""
    layers, heads, queries, keys = weights.shape
    row_blocks, key_blocks = -(-queries // block), -(-keys // block)
    padded = np.zeros((layers, heads, row_blocks * block, key_blocks * block))
    padded[..., :queries, :keys] = weights
    sums = padded.reshape(layers, heads, row_blocks, block, key_blocks, block).sum(axis=(3, 5))
    rows = np.minimum(block, queries - block * np.arange(row_blocks))
    return sums / rows[:, None]


def _cells(batch, row: int, sequence: str) -> slice:
    length, width, left = batch.span(row, sequence)
    start = width - length if left else 0
    return slice(start, start + length)


def _compare(handle, texts, targets, block=BLOCK):
    """Every map of every example of the atlas against float64 eager on the same padded batch."""
    atlases = capture_atlas_batch(handle, texts, targets, block=block)
    batch = prepare_batch(handle, texts, targets, mode="atlas")
    reference = _reference_weights(handle, batch.inputs)
    specs = {"self": ("source", "source"), "encoder": ("source", "source")}
    specs |= {"decoder": ("target", "decoder_input"), "cross": ("target", "source")}
    for row, atlas in enumerate(atlases):
        assert atlas.kinds == list(reference)
        for kind in atlas.kinds:
            queries, keys = (_cells(batch, row, sequence) for sequence in specs[kind])
            weights = reference[kind][:, row][:, :, queries, keys]  # (layers, heads, q, k) of this example
            amap = atlas[kind]
            assert len(amap.query_tokens) == weights.shape[2] and len(amap.key_tokens) == weights.shape[3]
            np.testing.assert_allclose(amap.blocks, _blocks_of(weights, block), atol=TOLERANCE, rtol=0)
            sink = weights[:, :, amap.sink_tokens :, : amap.sink_tokens].sum(-1).mean(-1)
            np.testing.assert_allclose(amap.sink_mass, sink, atol=TOLERANCE, rtol=0)
            last = amap.num_layers - 1
            np.testing.assert_allclose(
                atlas.window(kind, last, 1, rows=(2, 9), keys=(1, 7)), weights[last, 1, 2:9, 1:7], atol=TOLERANCE
            )
            np.testing.assert_allclose(atlas.row(kind, 0, 0, -1), weights[0, 0, -1], atol=TOLERANCE, rtol=0)
            np.testing.assert_allclose(atlas.head_map(kind, 0, 3), weights[0, 3], atol=TOLERANCE, rtol=0)
    return atlases


@pytest.mark.parametrize("family", FAMILIES)
def test_blocks_sinks_and_windows_equal_float64_eager(tiny_folder, family):
    handle = load_model(tiny_folder(family), "cpu")
    target = TARGETS[:1] if family in SEQ2SEQ else None
    (atlas,) = _compare(handle, TEXTS[:1], target)
    assert {entry["used"] for entry in atlas.atlas.provenance["routes"]} == {"cpu-flash"}
    for kind in atlas.kinds:  # each block row sums to 1: every query sees a key
        np.testing.assert_allclose(atlas[kind].blocks.sum(-1), 1.0, atol=1e-5)


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("side", ["right", "left"])
def test_padded_batches_equal_float64_eager(tiny_folder, family, side):
    handle = load_model(tiny_folder(family), "cpu")
    handle.tokenizer.padding_side = side
    try:
        _compare(handle, TEXTS, TARGETS if family in SEQ2SEQ else None)
    finally:
        handle.tokenizer.padding_side = "right"


@pytest.mark.parametrize("family", FAMILIES)
def test_the_model_computes_what_it_computes_with_sdpa(tiny_folder, family):
    handle = load_model(tiny_folder(family), "cpu")
    batch = prepare_batch(handle, TEXTS, TARGETS if family in SEQ2SEQ else None, mode="atlas")
    model = handle.model
    before = model.config._attn_implementation
    model.set_attn_implementation("sdpa")
    try:
        with torch.no_grad():
            plain = model(**batch.inputs)[0]
        with recording(model, AtlasRecorder):
            atlas_pass = model(**batch.inputs)[0]
    finally:
        model.set_attn_implementation(before)
    assert torch.equal(atlas_pass, plain)  # the same kernel, the same masks: bit for bit


def _shifted_lse(query, key, value, mask, is_causal, scale):
    output, lse = routes.cpu_flash(query, key, value, mask, is_causal, scale)
    return output, lse + math.log(2)  # the error pytorch#181645 reports of flex_attention's FLASH backend


def _missing_kernel(*args):
    raise RuntimeError("no kernel for this device")


@pytest.mark.parametrize("wrong", [_shifted_lse, _missing_kernel])
def test_a_route_that_disagrees_is_refused_and_said(tiny_folder, monkeypatch, wrong):
    monkeypatch.setattr(routes, "route_for", lambda query, masked: routes.Route("cpu-flash", wrong, True))
    handle = load_model(tiny_folder("llama"), "cpu")
    (atlas,) = _compare(handle, TEXTS[:1], None)  # still exact: through the fallback
    record = atlas.atlas.provenance["routes"]
    assert record and all(entry["refused"] == "cpu-flash" for entry in record)
    assert all(entry["used"] == "chunked-eager" for entry in record)
    if wrong is _shifted_lse:
        assert all(entry["check"]["lse_error"] == pytest.approx(math.log(2), abs=1e-4) for entry in record)
        assert all("disagrees" in entry["reason"] for entry in record)
    else:
        assert all("no kernel for this device" in entry["reason"] for entry in record)


def test_a_relative_position_bias_is_refused_with_a_sentence(tiny_folder):
    handle = load_model(tiny_folder("t5"), "cpu")
    with pytest.raises(InputError, match="relative position bias"):
        capture_atlas(handle, TEXTS[1])


def test_windows_need_the_kept_queries(tiny_folder):
    handle = load_model(tiny_folder("gpt2"), "cpu")
    atlas = capture_atlas(handle, TEXTS[0], block=4, keep_inputs=False)
    assert atlas.window_bytes == atlas.layers["self"][0].lse.numel() * 4 * len(atlas.layers["self"])
    with pytest.raises(InputError, match="kept no queries"):
        atlas.window("self", 0, 0, rows=(0, 2))
    tokens = len(atlas["self"].query_tokens)
    assert atlas["self"].blocks.shape == (2, 4, -(-tokens // 4), -(-tokens // 4))


def test_progress_counts_every_attention_call(tiny_folder):
    handle = load_model(tiny_folder("bart"), "cpu")
    seen = []
    capture_atlas(handle, TEXTS[1], TARGETS[1], block=4, progress=lambda done, total: seen.append((done, total)))
    assert seen == [(done, 6) for done in range(1, 7)]  # encoder 2 + decoder 2 + cross 2 calls
