"""The logit lens (nostalgebraist, 2020, "interpreting GPT: the logit lens", LessWrong): at every layer and position,
the next token the model would predict from that layer's residual stream.

Each state is read through the model's OWN last steps: its final norm (where its stack has one), its output embedding
(lm_head), and what its forward adds there: BART's and Marian's `final_logits_bias`, T5's d_model**-0.5 rescaling
when the embedding is tied (`scale_decoder_outputs`), soft-capping where a config asks for it. For decoder-only models
and the decoders of translators (their target force-decoded, or first written by the model). The last row must equal
the model's real output distribution; every run checks it, so a head this module cannot reproduce is said, never drawn.
"""

from __future__ import annotations

import numpy as np
import torch

from attnviz.attention.batching import prepare_batch
from attnviz.attention.generation import generate
from attnviz.errors import AttnvizError, InputError
from attnviz.measures.lens_results import LogitLens
from attnviz.measures.residual import final_norm, residual_stream
from attnviz.model.load import ModelHandle
from attnviz.provenance import build_provenance
from attnviz.text.tokens import vocabulary_token

TOP_K = 5  # the most probable tokens kept per (layer, position)
MAX_TOP_K = 50
# How far the last row may sit from the model's own logits: float rounding of the same operations, not another head
HEAD_TOLERANCE = 1e-4


def output_embedding(handle: ModelHandle) -> torch.nn.Module:
    """The model's output embedding (lm_head); an encoder-only model has none, and no next-token prediction."""
    head = None if handle.kind == "encoder" else handle.model.get_output_embeddings()
    if head is None:
        raise InputError("lens_no_next_token", model=handle.name)
    return head


def next_token_logits(model, head: torch.nn.Module, normed: torch.Tensor) -> torch.Tensor:
    """(batch, positions, hidden) states after the final norm → (batch, positions, vocab) logits, as the model's own
    forward makes them from its last state."""
    config = model.config
    if getattr(config, "scale_decoder_outputs", False):  # T5: a tied embedding reads states scaled by d_model**-0.5
        normed = normed * (config.d_model**-0.5)
    logits = head(normed)
    bias = getattr(model, "final_logits_bias", None)  # BART, Marian: a (1, vocab) buffer added to every position
    if bias is not None:
        logits = logits + bias.to(logits.device)
    cap = getattr(config, "final_logit_softcapping", None)  # Gemma 2: logits squashed into (-cap, cap)
    if cap:
        logits = torch.tanh(logits / cap) * cap
    return logits


def logit_lens(
    handle: ModelHandle,
    text: str,
    target: str | None = None,
    top_k: int = TOP_K,
    max_new_tokens: int = 32,
    truncate: bool = False,
) -> LogitLens:
    """Every layer's next-token prediction at every position of `text` (decoder-only models) or of the translation
    of `text` (translators: `target` force-decoded; without one the model writes it first, up to `max_new_tokens`,
    and its text is read back). Raises InputError for a model without an output embedding (MiniLM)."""
    head = output_embedding(handle)
    if isinstance(top_k, bool) or not isinstance(top_k, int) or not 1 <= top_k <= MAX_TOP_K:
        raise InputError("lens_top_k_invalid", value=top_k, limit=MAX_TOP_K)
    if handle.is_seq2seq and target is None:
        target = generate(handle, text, max_new_tokens=max_new_tokens, truncate=truncate).target_text
        if not target.strip():
            raise InputError("lens_nothing_written", model=handle.name)
    batch = prepare_batch(handle, [text], None if target is None else [target], truncate)
    model, stack = handle.model, handle.model.get_decoder()
    with torch.no_grad():
        with residual_stream(model, stack) as stream:
            real = model(**batch.inputs, use_cache=False).logits[0].float()  # (positions, vocab)
        readings = _read(model, head, final_norm(stack), stream.states, real, handle.name, top_k)
    top_ids, top_probabilities, final_ids, final_probabilities, final_ranks = readings
    seen = np.unique(np.concatenate([top_ids.ravel(), final_ids]))
    options = {"mode": "logit-lens", "top_k": top_k, "target_given": batch.targets is not None or None}
    return LogitLens(
        handle.name,
        "decoder" if handle.is_seq2seq else "self",
        stream.names,
        batch.tokens(0, "decoder_input" if handle.is_seq2seq else "source"),
        top_ids,
        top_probabilities,
        final_ids,
        final_probabilities,
        final_ranks,
        {int(i): vocabulary_token(handle.tokenizer, int(i)) for i in seen},
        batch.tokens(0, "source") if handle.is_seq2seq else None,
        build_provenance(handle, batch.texts[0], target, options),
    )


def _read(model, head, norm, states: list[torch.Tensor], real: torch.Tensor, name: str, top_k: int) -> tuple:
    """Each state (1, positions, hidden) through the norm and the head, one row at a time (a row of logits is
    positions × vocab: the whole stack of them need not fit at once). Returns numpy (top ids, top probabilities,
    final ids, final probabilities, final ranks)."""

    def logits_of(state: torch.Tensor) -> torch.Tensor:  # (positions, vocab), float32
        return next_token_logits(model, head, state if norm is None else norm(state))[0].float()

    last = logits_of(states[-1])
    difference = float((last - real).abs().max())
    if not difference <= HEAD_TOLERANCE * max(1.0, float(real.abs().max())):
        raise AttnvizError("lens_head_differs", model=name, difference=difference)
    final_ids = real.argmax(dim=-1)  # (positions,): the model's own prediction
    rows = []
    for state in states:
        logits = last if state is states[-1] else logits_of(state)
        probabilities = torch.softmax(logits, dim=-1)  # (positions, vocab)
        values, ids = probabilities.topk(min(top_k, probabilities.shape[-1]), dim=-1)  # (positions, k)
        chosen = logits.gather(-1, final_ids[:, None])  # (positions, 1)
        rank = (logits > chosen).sum(dim=-1) + 1  # 1: this row's first choice is the final prediction
        rows.append((ids, values, probabilities.gather(-1, final_ids[:, None])[:, 0], rank))
    ids, values, final_probabilities, ranks = (torch.stack(part).cpu().numpy() for part in zip(*rows))
    return (
        ids.astype(np.int64),
        values.astype(np.float32),
        final_ids.cpu().numpy().astype(np.int64),
        final_probabilities.astype(np.float32),
        ranks.astype(np.int64),
    )
