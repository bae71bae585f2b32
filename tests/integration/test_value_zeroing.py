"""Value zeroing (Mohebbi et al., 2023) equals an independent implementation: the whole model run once per zeroed
token with the model's own attention, a forward hook on the value projection zeroing that token's value vector and
another reading the layer's output — and the model is left as it was, even when an error stops the measure midway."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import transformers

from attnviz.attention.batching import prepare_batch
from attnviz.attention.capture import capture
from attnviz.errors import InputError
from attnviz.measures import value_zeroing as vz
from attnviz.model.load import load_model
from tests.support.tiny import FAMILIES, SEQ2SEQ, byte_level_tokenizer, save_qwen2

TEXT = "早上好！Good morning!"
TARGET = "Good morning, 我喜欢学习。"


def _paths(family: str, kind: str, layer: int) -> tuple[str, str, slice]:
    """(value projection path, layer (block) path, the columns of the projection's output that are values)."""
    every = slice(None)
    if family == "bert":
        return f"encoder.layer.{layer}.attention.self.value", f"encoder.layer.{layer}", every
    if family == "gpt2":  # one fused q|k|v projection: the values are its last third
        return f"transformer.h.{layer}.attn.c_attn", f"transformer.h.{layer}", slice(64, 96)
    if family == "llama":
        return f"model.layers.{layer}.self_attn.v_proj", f"model.layers.{layer}", every
    if family == "t5":
        stack = "encoder" if kind == "encoder" else "decoder"
        attention = "layer.1.EncDecAttention" if kind == "cross" else "layer.0.SelfAttention"
        return f"{stack}.block.{layer}.{attention}.v", f"{stack}.block.{layer}", every
    stack = "encoder" if kind == "encoder" else "decoder"
    attention = "encoder_attn" if kind == "cross" else "self_attn"
    return f"model.{stack}.layers.{layer}.{attention}.v_proj", f"model.{stack}.layers.{layer}", every


def _layer_output(model, inputs: dict, block: str, value_path: str | None = None, token: int = 0, columns=None):
    """Layer `block`'s output (tokens, hidden) in one full forward pass of the model, with token `token`'s value
    vector zeroed at the output of the value projection `value_path` (None: nothing zeroed)."""
    modules = dict(model.named_modules())
    seen = {}

    def zero(_module, _args, output):
        output = output.clone()
        output[:, token, columns] = 0
        return output

    def keep(_module, _args, output):
        seen["out"] = (output if isinstance(output, torch.Tensor) else output[0]).detach()

    hooks = [modules[block].register_forward_hook(keep)]
    if value_path is not None:
        hooks.append(modules[value_path].register_forward_hook(zero))
    try:
        with torch.no_grad():
            model(**inputs, use_cache=False)
    finally:
        for hook in hooks:
            hook.remove()
    return seen["out"][0].double()  # (tokens, hidden)


def _reference(family, handle, kind: str, keys: int) -> np.ndarray:
    """(layers, queries, keys) value zeroing, one full forward pass per (layer, key), rows normalised."""
    batch = prepare_batch(handle, [TEXT], [TARGET] if family in SEQ2SEQ else None)
    layers = []
    for layer in range(2):
        value_path, block, columns = _paths(family, kind, layer)
        clean = _layer_output(handle.model, batch.inputs, block)
        scores = []
        for token in range(keys):
            zeroed = _layer_output(handle.model, batch.inputs, block, value_path, token, columns)
            scores.append(1 - torch.nn.functional.cosine_similarity(zeroed, clean, dim=-1))  # (queries,)
        scores = torch.stack(scores, dim=1).clamp_min(0).numpy()  # (queries, keys)
        if kind in ("decoder",) or family in ("gpt2", "llama"):
            scores = np.tril(scores)
        layers.append(scores / scores.sum(-1, keepdims=True))
    return np.stack(layers)


@pytest.mark.parametrize("family", FAMILIES)
def test_value_zeroing_equals_one_forward_per_token(tiny_folder, family):
    handle = load_model(tiny_folder(family))
    target = TARGET if family in SEQ2SEQ else None
    weights = capture(handle, TEXT, target)
    result = vz.value_zeroing(handle, TEXT, target)
    assert result.kinds == weights.kinds == (["encoder", "decoder", "cross"] if target else ["self"])
    for kind in result.kinds:
        amap, reference = result[kind], weights[kind]
        assert amap.weights.dtype == np.float32
        assert amap.weights.shape == (2, 1, *reference.weights.shape[2:])
        assert amap.query_tokens == reference.query_tokens and amap.key_tokens == reference.key_tokens
        assert amap.layer_names == reference.layer_names and amap.causal == reference.causal
        np.testing.assert_allclose(amap.weights.sum(-1), 1, atol=1e-6)
        expected = _reference(family, handle, kind, len(amap.key_tokens))
        np.testing.assert_allclose(amap.weights[:, 0], expected, atol=1e-5, rtol=0)
    assert result.provenance["measure"]["arxiv"] == "2301.12971"
    assert result.provenance["source_text"] == TEXT


def test_value_zeroing_splits_long_inputs_into_passes(tiny_folder, monkeypatch):
    """Rows split over several passes of a layer (a long text) give the same scores as one pass."""
    handle = load_model(tiny_folder("bart"))
    whole = vz.value_zeroing(handle, TEXT, TARGET)
    monkeypatch.setattr(vz, "ROW_BYTES", 1)  # one zeroed row per pass
    split = vz.value_zeroing(handle, TEXT, TARGET)
    for kind in whole.kinds:
        np.testing.assert_allclose(split[kind].weights, whole[kind].weights, atol=1e-6)


def test_value_zeroing_of_chosen_maps(tiny_folder):
    handle = load_model(tiny_folder("marian"))
    whole = vz.value_zeroing(handle, TEXT, TARGET)
    cross = vz.value_zeroing(handle, TEXT, TARGET, kinds=["cross"])
    assert cross.kinds == ["cross"]
    np.testing.assert_array_equal(cross["cross"].weights, whole["cross"].weights)
    with pytest.raises(InputError) as raised:
        vz.value_zeroing(handle, TEXT, kinds=["cross"])  # no target: only the encoder's map
    assert raised.value.key == "capture_no_map"


def _hooks(model) -> int:
    return sum(len(m._forward_hooks) + len(m._forward_pre_hooks) for m in model.modules())


def _outputs(handle) -> torch.Tensor:
    batch = prepare_batch(handle, [TEXT], [TARGET])
    with torch.no_grad():
        return handle.model(**batch.inputs, use_cache=False).logits.clone()


@pytest.mark.parametrize("fail", [False, True])
def test_value_zeroing_leaves_the_model_as_it_was(tiny_folder, monkeypatch, fail):
    handle = load_model(tiny_folder("t5"))
    before, implementation, hooks = _outputs(handle), handle.model.config._attn_implementation, _hooks(handle.model)
    if fail:  # an error in the middle of the measure, while a layer is being recomputed
        original, calls = vz.one_minus_cosine, []

        def failing(*args):
            calls.append(1)
            if len(calls) == 3:
                raise RuntimeError("stopped midway")
            return original(*args)

        monkeypatch.setattr(vz, "one_minus_cosine", failing)
        with pytest.raises(RuntimeError, match="midway"):
            vz.value_zeroing(handle, TEXT, TARGET)
    else:
        vz.value_zeroing(handle, TEXT, TARGET)
    assert _hooks(handle.model) == hooks
    assert handle.model.config._attn_implementation == implementation
    assert torch.equal(_outputs(handle), before)


def test_qwen2_biased_values_and_grouped_heads(tmp_path):
    """Qwen2: grouped-query heads (4 query heads, 2 key/value heads) whose value projection has a bias — the whole
    value vector, bias included, is what zeroing sets to 0."""
    save_qwen2(tmp_path)
    handle = load_model(str(tmp_path))
    result = vz.value_zeroing(handle, TEXT)
    expected = _reference("llama", handle, "self", len(result["self"].key_tokens))  # Qwen2 names modules as Llama
    np.testing.assert_allclose(result["self"].weights[:, 0], expected, atol=1e-5, rtol=0)


def test_shared_layers_are_refused_in_both_languages(tmp_path):
    """ALBERT runs one layer several times per pass: a layer of value zeroing would be ambiguous, so it says so."""
    config = transformers.AlbertConfig(
        vocab_size=300,
        embedding_size=16,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=64,
    )
    torch.manual_seed(0)
    transformers.AlbertModel(config).save_pretrained(tmp_path)
    byte_level_tokenizer().save_pretrained(tmp_path)
    handle = load_model(str(tmp_path))
    with pytest.raises(InputError) as raised:
        vz.value_zeroing(handle, TEXT)
    assert raised.value.key == "block_shared_layers"
    assert "ALBERT" in str(raised.value) and "值置零" in raised.value.message("zh")
