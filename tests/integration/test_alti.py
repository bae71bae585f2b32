"""ALTI and ALTI+ (attnviz.measures.alti) against independent paths, on tiny random models of every family and MiniLM:

- the decomposition Σ_j T_i(x_j) + b_i equals each block's real output, observed by hooks of this test on a second
  pass under the model's own attention implementation;
- each layer's contributions equal a direct loop over i and j written from the paper's formula with the model's own
  weights (W_V, b_V, W_O, the norm), in float64, for every family and ALTI+: tests/integration/test_alti_formula.py;
- maps have capture's layout, tokens and layer names, rows summing to 1; rollout is the product of the layer
  matrices; ALTI+ gives every target token a source and a target-prefix share that sum to 1;
- an architecture or a block attnviz cannot decompose is refused with a sentence in both languages.
"""

from __future__ import annotations

from functools import reduce

import numpy as np
import pytest
import torch
import transformers

from attnviz.attention.batching import prepare_batch
from attnviz.attention.capture import capture
from attnviz.errors import InputError
from attnviz.export import load_capture
from attnviz.measures import alti as alti_module
from attnviz.measures.alti import alti, block_passes, block_terms
from attnviz.measures.block_parts import find_blocks
from attnviz.model.load import load_model
from attnviz.view import selection, viewing
from attnviz.view.viewing import ViewOptions
from tests.support import needs, tiny
from tests.support.cli import one_line_error, run_cli
from tests.support.tiny import FAMILIES, SEQ2SEQ

TEXT = "早上好！I like studying."
TARGET = "Good morning, I like it."


def _observed(family: str, path: str) -> tuple[str, str]:
    """(module path, "input" | "output") where the block of attention module `path` shows its real output y,
    written per family from the models' source (not from attnviz's rules)."""
    parent, _, own = path.rpartition(".")
    if family == "bert":
        return parent, "output"  # BertAttention: LayerNorm(x + dense(context))
    if family == "gpt2":
        return f"{parent}.ln_2", "input"  # the next norm reads x + Attn(LN(x))
    if family == "llama":
        return f"{parent}.post_attention_layernorm", "input"
    if family in ("bart", "marian"):
        return f"{parent}.{own}_layer_norm", "output"
    return parent, "output"  # T5LayerSelfAttention / T5LayerCrossAttention: x + Attn(LN(x))


def _real_outputs(handle, batch, family: str, paths: list[str]) -> dict[str, torch.Tensor]:
    """Each block's output y from a plain forward pass (the model's own attention implementation), by hooks."""
    modules = dict(handle.model.named_modules())
    seen: dict[str, torch.Tensor] = {}
    hooks = []
    for path in paths:
        where, which = _observed(family, path)

        def keep(module, args, output, path=path, which=which):
            value = args[0] if which == "input" else output
            seen[path] = (value[0] if isinstance(value, tuple) else value)[0].detach().clone()  # (q, hidden)

        hooks.append(modules[where].register_forward_hook(keep))
    try:
        with torch.no_grad():
            if handle.is_seq2seq:
                handle.model(**batch.inputs, use_cache=False)
            else:
                handle.model(**batch.inputs)
    finally:
        for hook in hooks:
            hook.remove()
    return seen


def _check_reconstruction(handle, family: str, text: str, target: str | None) -> int:
    batch = prepare_batch(handle, [text], None if target is None else [target])
    _recorder, passes = block_passes(handle, batch)
    steps = [step for role_steps in passes.values() for step in role_steps]
    real = _real_outputs(handle, batch, family, [step.block.path for step in steps])
    for step in steps:
        terms, bias = block_terms(step)  # (q, keys, hidden), (q, hidden)
        rebuilt = terms.sum(dim=1) + bias
        torch.testing.assert_close(rebuilt, real[step.block.path].float(), atol=1e-5, rtol=1e-5)
    return len(steps)


@pytest.mark.parametrize("family", FAMILIES)
def test_decomposition_equals_each_blocks_real_output(tiny_folder, family):
    handle = load_model(tiny_folder(family), "cpu")
    blocks = _check_reconstruction(handle, family, TEXT, TARGET if family in SEQ2SEQ else None)
    assert blocks == (6 if family in SEQ2SEQ else 2)  # every stack: encoder, decoder and cross, 2 layers each


def test_decomposition_on_qwen2_with_its_value_biases(tmp_path):
    """Qwen2: a Llama block (pre-RMSNorm, grouped-query heads) whose q, k and v projections carry biases."""
    tiny.save_qwen2(tmp_path)
    handle = load_model(str(tmp_path), "cpu")
    assert _check_reconstruction(handle, "llama", TEXT, None) == 2
    np.testing.assert_allclose(alti(handle, TEXT)["self"].weights.sum(axis=-1), 1.0, atol=1e-5)


def test_decomposition_and_rows_on_the_real_minilm():
    needs.minilm()
    handle = load_model("minilm", "cpu")
    assert _check_reconstruction(handle, "bert", "The animal didn't cross the street because it was tired.", None) == 6
    result = alti(handle, "The animal didn't cross the street because it was tired.")
    np.testing.assert_allclose(result["self"].weights.sum(axis=-1), 1.0, atol=1e-5)


@pytest.mark.parametrize("family", FAMILIES)
def test_maps_have_captures_layout_and_rows_sum_to_one(tiny_folder, family):
    handle = load_model(tiny_folder(family), "cpu")
    target = TARGET if family in SEQ2SEQ else None
    plain = capture(handle, TEXT, target)
    for method in ("alti", "alti-rollout"):
        result = alti(handle, TEXT, target, method=method)
        assert result.kinds == plain.kinds and result.method == method
        assert result.provenance["measure"]["name"] == method and "2203.04212" in result.provenance["measure"]["arxiv"]
        for kind, amap in result.maps.items():
            layers, _heads, queries, keys = plain[kind].weights.shape
            assert amap.weights.shape == (layers, 1, queries, keys) and amap.weights.dtype == np.float32
            assert amap.query_tokens == plain[kind].query_tokens and amap.key_tokens == plain[kind].key_tokens
            assert amap.layer_names == plain[kind].layer_names and amap.causal == plain[kind].causal
            sums = amap.weights.sum(axis=-1)
            # a cross row is the source's part of its block spread over the source: 0 when the block took nothing
            assert np.all((np.abs(sums - 1) < 1e-5) | ((kind == "cross") & (sums == 0)))
            if amap.causal:
                assert not np.triu(amap.weights[:, 0], k=1).any()


@pytest.mark.parametrize("family", FAMILIES)
def test_rollout_is_the_product_of_the_layer_matrices(tiny_folder, family):
    handle = load_model(tiny_folder(family), "cpu")
    target = TARGET if family in SEQ2SEQ else None
    layers, rolled = alti(handle, TEXT, target), alti(handle, TEXT, target, method="alti-rollout")
    kind = "encoder" if family in SEQ2SEQ else "self"
    per_layer = layers[kind].weights[:, 0].astype(np.float64)
    for last in range(per_layer.shape[0]):
        product = reduce(np.matmul, per_layer[last::-1])  # C^last · … · C^0
        np.testing.assert_allclose(rolled[kind].weights[last, 0], product, atol=1e-6)


@pytest.mark.parametrize("family", SEQ2SEQ)
def test_alti_plus_shares_sum_to_one_per_target_token(tiny_folder, family):
    handle = load_model(tiny_folder(family), "cpu")
    result = alti(handle, TEXT, TARGET, method="alti-rollout")
    shares = result.shares
    targets = len(result["cross"].query_tokens)
    assert shares.source_share.shape == shares.target_share.shape == (targets,)
    np.testing.assert_allclose(shares.source_share + shares.target_share, 1.0, atol=1e-5)
    assert (shares.source_share > 0).all() and (shares.target_share > 0).all()
    # the maps are those parts, each row scaled to 1; the per-layer result carries the same shares
    last = shares.source[-1] / shares.source_share[:, None]
    np.testing.assert_allclose(result["cross"].weights[-1, 0], last, atol=1e-5)
    np.testing.assert_allclose(alti(handle, TEXT, TARGET).shares.source_share, shares.source_share, atol=1e-6)
    np.testing.assert_allclose(result.meta["source_share"], shares.source_share)


@pytest.mark.parametrize("family", ["bart", "llama"])
def test_rows_computed_in_chunks_give_the_same_contributions(tiny_folder, family, monkeypatch):
    handle = load_model(tiny_folder(family), "cpu")
    target = TARGET if family in SEQ2SEQ else None
    whole = alti(handle, TEXT, target)
    monkeypatch.setattr(alti_module, "CELLS_PER_CHUNK", 1)  # one query row at a time
    chunked = alti(handle, TEXT, target)
    for kind in whole.kinds:
        np.testing.assert_allclose(chunked[kind].weights, whole[kind].weights, atol=1e-6)


def test_every_figure_draws_the_contributions_of_every_stack(tiny_folder):
    result = alti(load_model(tiny_folder("marian"), "cpu"), TEXT, TARGET, method="alti-rollout")
    for kind in result.kinds:
        shown = selection.show(result, ViewOptions(kind=kind, aggregation="layer"), names=viewing.FIGURES)
        assert set(shown.figures) == set(viewing.FIGURES)
        assert shown.amap.weights.shape[1] == 1  # one "head": the layer's contributions


def test_an_architecture_without_known_blocks_is_refused_in_both_languages():
    config = transformers.DistilBertConfig(vocab_size=300, dim=32, n_layers=1, n_heads=4, hidden_dim=64)
    model = transformers.DistilBertModel(config)
    with pytest.raises(InputError) as caught:
        find_blocks(model, dict(model.named_modules()), "tiny-distilbert")
    assert "tiny-distilbert" in str(caught.value) and "distilbert" in str(caught.value)
    assert "ALTI 无法分解" in caught.value.message("zh")


def test_a_block_that_does_not_add_up_is_refused(tiny_folder):
    handle = load_model(tiny_folder("gpt2"), "cpu")
    attention = handle.model.transformer.h[1].attn
    # an extra step on the attention's output (as a norm after it would be) that the rules do not know
    hook = attention.register_forward_hook(lambda module, args, output: (output[0] * 2, *output[1:]))
    try:
        with pytest.raises(InputError, match="does not add up") as caught:
            alti(handle, TEXT)
        assert "transformer.h.1.attn" in str(caught.value)
    finally:
        hook.remove()
    with pytest.raises(InputError, match="alti-rollout"):
        alti(handle, TEXT, method="flow")


# ---------------------------------------------------------------------------------------------------------------------
# the command line


@pytest.mark.parametrize("suffix", ["npz", "json"])
def test_cli_writes_the_contributions_as_a_capture_file(capsys, tmp_path, tiny_folder, suffix):
    folder = tiny_folder("marian")
    path = tmp_path / f"c.{suffix}"
    argv = ["contributions", "--model", folder, "--text", TEXT, "--target", TARGET, "--device", "cpu"]
    code, out, _ = run_cli(capsys, *argv, "--method", "alti-rollout", "-o", str(path))
    assert code == 0 and out.strip() == str(path)
    written = load_capture(path)
    direct = alti(load_model(folder, "cpu"), TEXT, TARGET, method="alti-rollout")
    assert written.kinds == ["encoder", "decoder", "cross"]
    for kind in written.kinds:  # layer-major (layers, 1, queries, keys), rows = queries, tokens as capture writes
        np.testing.assert_allclose(written[kind].weights, direct[kind].weights, atol=1e-6)
        assert [t.text for t in written[kind].query_tokens] == [t.text for t in direct[kind].query_tokens]
    assert written.provenance["measure"]["arxiv"] == ["2203.04212", "2205.11631"]
    np.testing.assert_allclose(written.meta["source_share"], direct.shares.source_share, atol=1e-6)
    assert written.provenance["source_text"] == TEXT and written.provenance["target_text"] == TARGET


def test_cli_refuses_an_unknown_method_or_architecture_in_one_line(capsys, tmp_path, tiny_folder):
    argv = ["contributions", "--model", tiny_folder("gpt2"), "--text", TEXT, "--device", "cpu", "-o"]
    code, _, err = run_cli(capsys, *argv, str(tmp_path / "a.json"), "--method", "flow")
    assert code == 2 and "alti-rollout" in one_line_error(err)
    assert not (tmp_path / "a.json").exists()
