"""Gradient × input saliency equals a direct autograd computation written independently: the embeddings looked up by
hand and passed as `inputs_embeds`, one row at a time, `.backward()` on that row's log-probability — and the model is
left as it was (no hooks, no gradients on its weights, the same outputs)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from attnviz.attention.batching import prepare_batch
from attnviz.errors import InputError
from attnviz.measures import saliency as sal
from attnviz.model.load import load_model
from tests.support.tiny import SEQ2SEQ

TEXT = "早上好！Good morning!"
TARGET = "Good morning, 我喜欢学习。"
FAMILIES = ("gpt2", "llama", "bart", "marian", "t5")


def _embeddings(model, family: str, ids: torch.Tensor, decoder: bool) -> torch.Tensor:
    """The token embeddings of `ids` as a leaf that requires gradients, looked up in the embedding matrix."""
    stack = (model.get_decoder() if decoder else model.get_encoder()) if family in SEQ2SEQ else model
    weight = stack.get_input_embeddings().weight
    scale = getattr(stack.get_input_embeddings(), "embed_scale", None) or 1.0  # BART scales inside the module
    if family == "marian" and not decoder:  # Marian's encoder scales after the lookup, and not given embeddings
        scale = model.get_encoder().embed_scale
    return (weight[ids].detach() * scale).requires_grad_(True)


def _direct(handle, family: str, row: int) -> tuple[float, np.ndarray, np.ndarray | None]:
    """(log-probability, source scores, prefix scores) of one row by autograd on `inputs_embeds`."""
    model = handle.model
    batch = prepare_batch(handle, [TEXT], [TARGET] if family in SEQ2SEQ else None)
    ids = batch.inputs["input_ids"]
    source = _embeddings(model, family, ids, decoder=False)
    if family in SEQ2SEQ:
        decoder_ids = batch.inputs["decoder_input_ids"]
        prefix = _embeddings(model, family, decoder_ids, decoder=True)
        logits = model(inputs_embeds=source, decoder_inputs_embeds=prefix, use_cache=False).logits
        reference = model(input_ids=ids, decoder_input_ids=decoder_ids, use_cache=False).logits
        token = batch.decoded[0].ids[row]
    else:
        prefix = None
        logits = model(inputs_embeds=source, use_cache=False).logits
        reference = model(input_ids=ids, use_cache=False).logits
        token = int(ids[0, row + 1]) if row + 1 < ids.shape[1] else int(logits[0, row].argmax())
    torch.testing.assert_close(logits, reference)  # the hand-made embeddings are what the model computes from ids
    log_prob = torch.log_softmax(logits[0, row], dim=-1)[token]
    log_prob.backward()
    scores = [None if e is None else (e.grad * e).norm(dim=-1)[0].detach().numpy() for e in (source, prefix)]
    return float(log_prob.detach()), scores[0], scores[1]


@pytest.mark.parametrize("family", FAMILIES)
def test_saliency_equals_direct_autograd(tiny_folder, family):
    handle = load_model(tiny_folder(family))
    target = TARGET if family in SEQ2SEQ else None
    result = sal.saliency(handle, TEXT, target)  # every row, several per pass
    assert len(result.rows) == len(result.explained) > sal.ROWS_PER_PASS
    for index, row in enumerate(result.rows):
        log_prob, source, prefix = _direct(handle, family, row)
        assert result.log_probabilities[index] == pytest.approx(log_prob, abs=1e-5)
        np.testing.assert_allclose(result.source[index], source, rtol=1e-4, atol=1e-7)
        if prefix is not None:
            np.testing.assert_allclose(result.prefix[index], prefix, rtol=1e-4, atol=1e-7)
            assert (result.prefix[index, row + 1 :] == 0).all()  # the decoder never reads ahead
        else:
            assert (result.source[index, row + 1 :] == 0).all()
    assert result.source.any() and result.provenance["measure"]["name"] == "saliency"
    batch = prepare_batch(handle, [TEXT], None if target is None else [TARGET])
    assert result.source_tokens == batch.tokens(0, "source")
    if target is not None:
        assert result.explained == batch.tokens(0, "target")
        assert result.prefix_tokens == batch.tokens(0, "decoder_input")
        share = result.source_share()  # 1 where the decoder reads only a start token embedded as zeros (Marian's pad)
        assert ((share >= 0) & (share <= 1)).all() and ((share > 0) & (share < 1)).any()


def test_one_chosen_row_and_the_model_left_as_it_was(tiny_folder):
    handle = load_model(tiny_folder("bart"))
    model = handle.model
    batch = prepare_batch(handle, [TEXT], [TARGET])
    with torch.no_grad():
        before = model(**batch.inputs, use_cache=False).logits.clone()
    one = sal.saliency(handle, TEXT, TARGET, rows=-1)
    every = sal.saliency(handle, TEXT, TARGET)
    assert one.rows == (len(every.rows) - 1,)
    np.testing.assert_allclose(one.source[0], every.source[-1], rtol=1e-5, atol=1e-8)
    assert all(p.grad is None for p in model.parameters())
    assert sum(len(m._forward_hooks) + len(m._forward_pre_hooks) for m in model.modules()) == 0
    with torch.no_grad():
        assert torch.equal(model(**batch.inputs, use_cache=False).logits, before)


def test_what_saliency_cannot_explain_is_said(tiny_folder):
    encoder = load_model(tiny_folder("bert"))
    with pytest.raises(InputError) as raised:
        sal.saliency(encoder, TEXT)
    assert raised.value.key == "saliency_no_output" and "编码器" in raised.value.message("zh")
    translator = load_model(tiny_folder("t5"))
    with pytest.raises(InputError) as raised:
        sal.saliency(translator, TEXT)
    assert raised.value.key == "saliency_needs_target"
    with pytest.raises(InputError):
        sal.saliency(translator, TEXT, TARGET, rows=99)


def test_an_error_midway_leaves_no_hook(tiny_folder, monkeypatch):
    handle = load_model(tiny_folder("gpt2"))

    def failing(*args):
        raise RuntimeError("stopped midway")

    monkeypatch.setattr(sal, "_explained_ids", failing)  # after the forward pass, before the backward one
    with pytest.raises(RuntimeError, match="midway"):
        sal.saliency(handle, TEXT, rows=3)
    assert sum(len(m._forward_hooks) + len(m._forward_pre_hooks) for m in handle.model.modules()) == 0
    assert all(p.grad is None for p in handle.model.parameters())
