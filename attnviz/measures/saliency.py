"""Gradient × input saliency: which input tokens an output token depends on (Denil, Demiraj and de Freitas, 2014,
"Extraction of Salient Sentences from Labelled Documents", arXiv 1412.6815; Shrikumar et al., 2016, arXiv
1605.01713, name it gradient × input; the per-token L2 norm as in Inseq and Ferrando et al., 2022).

For an output token y explained at row r and each input token j with embedding e_j (what the model's input
embedding module gave, before positions are added):

    s_rj = ‖ ∂ log p(y | inputs) / ∂e_j  ⊙  e_j ‖₂

- translator (encoder-decoder): y is target token r, force-decoded (the decoder reads the start token and the
  target up to r); the inputs are the source tokens and the decoder's input tokens (`prefix`);
- decoder-only: row r is position r, and y the token after it — the text's own, or at the last position the
  model's most probable next token; the inputs are the text's tokens;
- encoder-only: the model writes no token, so there is nothing to explain: InputError says so (in English and 中文)
  rather than explaining some other quantity.

Several rows run at once: the input is repeated along the batch axis, batch row b explains row `rows[b]`, and one
backward pass of the sum of their log-probabilities gives every row's gradients (the batch rows do not mix).
`torch.autograd.grad` asks only for the embeddings' gradients: no weight gradient is computed or stored.
"""

from __future__ import annotations

from contextlib import contextmanager

import numpy as np
import torch

from attnviz.attention.batching import Batch, prepare_batch
from attnviz.errors import InputError
from attnviz.measures.saliency_scores import SaliencyScores
from attnviz.model.load import ModelHandle
from attnviz.provenance import build_provenance
from attnviz.types import Token, position

MEASURE = {
    "name": "saliency",
    "paper": "Denil, Demiraj and de Freitas (2014), Extraction of Salient Sentences from Labelled Documents; "
    "gradient × input as in Shrikumar et al. (2016)",
    "arxiv": "1412.6815",
    "definition": "s_rj = ||d log p(y_r) / d e_j * e_j||_2, e_j token j's input embedding",
}
ROWS_PER_PASS = 8  # explained rows per forward/backward pass (each repeats the whole input once)


def saliency(
    handle: ModelHandle,
    text: str,
    target: str | None = None,
    rows: int | list[int] | None = None,
    truncate: bool = False,
) -> SaliencyScores:
    """Gradient × input saliency of the output tokens at `rows` (one row, a list, or None: every row): for a
    translator the target rows of `target`, for a decoder-only model the positions of `text`.

    InputError for an encoder-only model (it writes no token) and for a translator without a target."""
    if handle.kind == "encoder":
        raise InputError("saliency_no_output", model=handle.name)
    if handle.is_seq2seq and target is None:
        raise InputError("saliency_needs_target", model=handle.name)
    batch = prepare_batch(handle, [text], None if target is None else [target], truncate)
    count = len(batch.decoded[0].ids) if handle.is_seq2seq else len(batch.sources[0].ids)
    picked = _picked(rows, count)
    parts = [_explain(handle, batch, picked[at : at + ROWS_PER_PASS]) for at in range(0, len(picked), ROWS_PER_PASS)]
    explained_ids = [token for part in parts for token in part[0]]
    scores = [np.concatenate([part[index] for part in parts]) for index in range(1, len(parts[0]))]
    seq2seq = handle.is_seq2seq
    options = {"rows": picked, "truncate": truncate}
    return SaliencyScores(
        handle.name,
        tuple(picked),
        _explained_tokens(handle, batch, picked, explained_ids),
        scores[0],
        batch.tokens(0, "source"),
        scores[1],
        batch.tokens(0, "decoder_input") if seq2seq else None,
        scores[2] if seq2seq else None,
        provenance={**build_provenance(handle, text, target, options), "measure": MEASURE},
    )


def _picked(rows, count: int) -> list[int]:
    if rows is None:
        return list(range(count))
    if isinstance(rows, (list, tuple)):
        return [position(row, count, "query row") for row in rows]
    return [position(rows, count, "query row")]


def _explain(handle: ModelHandle, batch: Batch, rows: list[int]) -> tuple:
    """(explained token ids, log-probabilities (rows,), source scores (rows, n), [prefix scores (rows, m)]) for
    `rows`, in one forward and one backward pass over the input repeated once per row."""
    model, size = handle.model, len(rows)
    inputs = {name: value.expand(size, *value.shape[1:]) for name, value in batch.inputs.items()}  # (size, …)
    picked = torch.tensor(rows, device=model.device)
    with embedded(model, handle.is_seq2seq) as embeddings, torch.enable_grad():
        logits = model(**inputs, use_cache=False).logits  # (size, tokens, vocab)
        if len(embeddings) != (2 if handle.is_seq2seq else 1) or not all(e.requires_grad for e in embeddings):
            raise InputError("saliency_not_differentiable", model=handle.name)
        log_probs = torch.log_softmax(logits[torch.arange(size), picked].float(), dim=-1)  # (size, vocab)
        tokens = _explained_ids(handle, batch, picked, log_probs)  # (size,)
        chosen = log_probs[torch.arange(size), tokens]  # (size,)
        gradients = torch.autograd.grad(chosen.sum(), embeddings)
    scores = [  # (size, tokens): ‖g ⊙ e‖₂ over the embedding
        torch.linalg.vector_norm(gradient.float() * embedding.detach().float(), dim=-1).cpu().numpy()
        for gradient, embedding in zip(gradients, embeddings)
    ]
    return (tokens.tolist(), chosen.detach().cpu().numpy(), *scores)


def _explained_ids(handle: ModelHandle, batch: Batch, picked: torch.Tensor, log_probs: torch.Tensor) -> torch.Tensor:
    """(size,) the token each row explains: a translator's target token at that row; for a decoder, the text's next
    token, or at the last position the model's most probable one."""
    if handle.is_seq2seq:
        return torch.tensor(batch.decoded[0].ids, device=picked.device)[picked]
    ids = batch.inputs["input_ids"][0]  # (tokens,)
    following = ids[(picked + 1).clamp_max(len(ids) - 1)]
    return torch.where(picked + 1 < len(ids), following, log_probs.argmax(-1))


def _explained_tokens(handle: ModelHandle, batch: Batch, picked: list[int], ids: list[int]) -> list[Token]:
    """The tokens explained, as a person reads them: a target or source token, or a predicted one (no offsets)."""
    if handle.is_seq2seq:
        target = batch.tokens(0, "target")
        return [target[row] for row in picked]
    source = batch.tokens(0, "source")
    return [
        source[row + 1] if row + 1 < len(source) else _predicted(handle.tokenizer.decode([token]))
        for row, token in zip(picked, ids)
    ]


@contextmanager
def embedded(model: torch.nn.Module, seq2seq: bool):
    """While the block runs, each input embedding module's output is replaced by a leaf tensor that requires
    gradients (a copy cut from the weights); yields them in call order: the source's, then a translator's decoder
    input's. The hooks are removed when the block ends, whatever happens in it."""
    stacks = (model.get_encoder(), model.get_decoder()) if seq2seq else (model,)
    modules = list({id(module): module for module in (stack.get_input_embeddings() for stack in stacks)}.values())
    outputs: list[torch.Tensor] = []

    def hook(_module, _args, output):
        leaf = output.detach().requires_grad_(True)
        outputs.append(leaf)
        return leaf

    handles = [module.register_forward_hook(hook) for module in modules]
    try:
        yield outputs
    finally:
        for handle in handles:
            handle.remove()


def _predicted(text: str) -> Token:
    """A token the model predicts beyond the text: no offsets; unknown when it is a piece of a character (bytes
    that decode to no text on their own)."""
    return Token(text, -1, -1, unknown="\ufffd" in text or not text)
