"""Which heads matter: the exact effect of removing each head on what the model outputs (head ablation).

A head's output is its slice of the input to the attention layer's output projection, columns h·d … (h+1)·d of the
heads' concatenated weighted sums. Ablating head h sets that slice to zero, so the head adds nothing (its share of
the projection's bias is not its own and stays). It must act there, between the weighted sum and the projection:
the weights are already spent inside the attention function by the time a hook on the attention module runs.
This follows the head-ablation experiments of Michel, Levy & Neubig (NeurIPS 2019, "Are Sixteen Heads Really Better
than One?", arXiv 1905.10650) and Voita et al. (ACL 2019, arXiv 1905.09418), with the head's output set to zero.

The effect on the model's output (`HeadEffects.metric`):
- "log-prob", translators and decoders: the change in log-probability of each target token (given, or written by
  the model) when the head is removed, log p_ablated − log p_clean; the total is the sum over target tokens.
  Negative: the head helped the model say that token.
- "cosine", encoder-only models: 1 − cos(ablated, clean) of the last hidden state, mean-pooled over the text's
  tokens for the total and token by token for the per-token effect.

Every head of every stack (encoder self, decoder self, cross) is ablated in one batch (`rows_per_pass` rows a pass):
the input is repeated once per row and a forward pre-hook on each output projection zeroes a different head in each
row, so the model runs a few times instead of once per head. The hooks are removed in a `finally`.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
import torch

from attnviz.attention import values
from attnviz.attention.batching import decoder_start, pad_id_of, prepare_batch
from attnviz.attention.forcing import decoding_beams
from attnviz.attention.math import eager_attention
from attnviz.attention.recorder import Recorder, recording
from attnviz.errors import InputError
from attnviz.model import usage
from attnviz.model.load import ModelHandle
from attnviz.provenance import build_provenance
from attnviz.text.tokens import tokens_for_ids
from attnviz.types import Token

METRICS = ("log-prob", "cosine")
ROW_BUDGET_BYTES = 512 * 2**20  # what one pass's logits (or hidden states) may take; sets the rows per pass


@dataclass(frozen=True)
class HeadEffects:
    """The effect of every head of every stack on the model's output, as numpy arrays.

    `total[stack]`: float64 (layers, heads); `per_token[stack]`: float64 (layers, heads, tokens) over
    `target_tokens` (the text's own tokens for an encoder-only model), or None where the method gives no per-token
    effect. `method`: "ablation" (exact) or "attribution-patching" (the estimate, `head_estimate`)."""

    method: str
    metric: str  # "log-prob" | "cosine" (see the module docstring)
    total: dict[str, np.ndarray]
    per_token: dict[str, np.ndarray] | None
    source_tokens: list[Token]
    target_tokens: list[Token]
    layer_names: dict[str, list[str]]
    provenance: dict


@dataclass(frozen=True)
class Scoring:
    """One example made ready to score: batch-1 model inputs and what the metric reads of the output."""

    metric: str
    inputs: dict[str, torch.Tensor]  # (1, n) each
    target_ids: torch.Tensor | None  # (T,) the ids whose log-probability is measured
    positions: torch.Tensor | None  # (T,) the logit rows that predict them
    source_tokens: list[Token]
    target_tokens: list[Token]
    source_text: str
    target_text: str | None
    generated: bool  # the target was written by the model, not given
    options: dict  # keyword arguments of every forward pass


@dataclass(frozen=True)
class HeadSite:
    """One attention layer whose heads can be ablated: its stack and layer, module path, output projection."""

    stack: str
    layer: int
    path: str
    projection: torch.nn.Module
    heads: int
    head_dim: int


# ----------------------------------------------------------------------------------------------------------------------
# The example and the metric


def prepare_scoring(handle: ModelHandle, text: str, target: str | None = None, max_new_tokens: int = 32) -> Scoring:
    """Check and tokenize `text` (and `target`, or the target the model writes when None) for scoring."""
    given = None if target is None or handle.kind == "decoder" else [target]  # an encoder's is refused there
    batch = prepare_batch(handle, [text], given)
    source_tokens = batch.sources[0].tokens
    text = batch.texts[0]
    if handle.kind == "encoder":  # (prepare_batch refused a target already)
        return Scoring("cosine", batch.inputs, None, None, source_tokens, source_tokens, text, None, False, {})
    options = {"use_cache": False}
    if handle.is_seq2seq:
        if target is not None:
            target_ids = batch.decoded[0].ids
            targets = batch.tokens(0, "target")
            decoder_ids = batch.inputs["decoder_input_ids"]
        else:
            written = _written(handle, batch, text, max_new_tokens)  # the start token, then what was written
            target_ids, decoder_ids = written[1:], torch.tensor([written[:-1]], device=handle.model.device)
            target = handle.tokenizer.decode(target_ids, skip_special_tokens=True)
            targets = tokens_for_ids(handle.tokenizer, target_ids, target, target=True)
        inputs = {
            **batch.inputs,
            "decoder_input_ids": decoder_ids,
            "decoder_attention_mask": torch.ones_like(decoder_ids),
        }
        positions = torch.arange(len(target_ids))  # teacher forcing: decoder row i writes target token i
        generated = "decoder_input_ids" not in batch.inputs
    else:
        prompt = batch.sources[0].ids
        generated = target is None
        if generated:
            target_ids = _written(handle, batch, text, max_new_tokens)[len(prompt) :]
            target = handle.tokenizer.decode(target_ids, skip_special_tokens=True)
        else:
            target_ids = handle.tokenizer(target, add_special_tokens=False)["input_ids"]
        _check_length(handle, len(prompt) + len(target_ids))
        targets = tokens_for_ids(handle.tokenizer, target_ids, target)
        ids = torch.tensor([prompt + list(target_ids)], device=handle.model.device)
        inputs = {"input_ids": ids, "attention_mask": torch.ones_like(ids)}
        positions = torch.arange(len(prompt) - 1, ids.shape[1] - 1)  # row p predicts token p + 1
    if not len(target_ids):
        raise InputError("head_effects_no_target", model=handle.name)
    ids = torch.tensor(list(target_ids), device=handle.model.device)
    return Scoring("log-prob", inputs, ids, positions, source_tokens, targets, text, target, generated, options)


def _written(handle: ModelHandle, batch, text: str, max_new_tokens: int) -> list[int]:
    """The ids the model writes after `text` (decoded as its generation config says, as `attnviz.generate` does):
    seq2seq from its decoder start token, decoder-only after the prompt."""
    if not isinstance(max_new_tokens, int) or max_new_tokens < 1:
        raise InputError("max_new_tokens_invalid", value=max_new_tokens)
    model = handle.model
    if not handle.is_seq2seq:
        _check_length(handle, batch.inputs["input_ids"].shape[1] + max_new_tokens)
    options = dict(
        input_ids=batch.inputs["input_ids"],
        attention_mask=batch.inputs["attention_mask"],
        max_new_tokens=max_new_tokens,
        **usage.reading(handle, text).generate_options(),
        do_sample=False,
        num_beams=decoding_beams(model, None),
        num_return_sequences=1,
        pad_token_id=pad_id_of(handle.tokenizer, model),
    )
    if handle.is_seq2seq:
        options["decoder_start_token_id"] = decoder_start(model)
    with torch.no_grad():
        return model.generate(**options)[0].tolist()


def _check_length(handle: ModelHandle, count: int) -> None:
    if handle.max_positions is not None and count > handle.max_positions:
        raise InputError(
            "text_too_many_tokens", what="text", count=count, model=handle.name, limit=handle.max_positions
        )


def model_output(handle: ModelHandle, scoring: Scoring, rows: int) -> torch.Tensor:
    """The model run on `rows` copies of the example: float32 (rows, T) log-probabilities of the target ids, or
    (rows, n, hidden) last hidden states for the "cosine" metric."""
    inputs = {name: tensor.repeat(rows, 1) for name, tensor in scoring.inputs.items()}  # (rows, n) each
    if scoring.metric == "cosine":
        output = handle.model(**inputs, output_hidden_states=True, **scoring.options)
        return output.hidden_states[-1].float()  # (rows, n, hidden)
    logits = handle.model(**inputs, **scoring.options).logits[:, scoring.positions.to(inputs["input_ids"].device)]
    chosen = scoring.target_ids.to(logits.device).expand(rows, -1).unsqueeze(-1)  # (rows, T, 1)
    return torch.log_softmax(logits.float(), dim=-1).gather(-1, chosen).squeeze(-1)  # (rows, T)


def effects_of(metric: str, clean: torch.Tensor, ablated: torch.Tensor) -> tuple[np.ndarray, np.ndarray]:
    """(rows,) total and (rows, tokens) per-token effects of `ablated` (rows, …) against `clean` (1, …)."""
    clean, ablated = clean.double(), ablated.double()
    if metric == "log-prob":  # (rows, T)
        per_token = ablated - clean
        return per_token.sum(dim=-1).cpu().numpy(), per_token.cpu().numpy()
    per_token = 1.0 - torch.nn.functional.cosine_similarity(ablated, clean, dim=-1)  # (rows, n)
    pooled = 1.0 - torch.nn.functional.cosine_similarity(ablated.mean(dim=1), clean.mean(dim=1), dim=-1)  # (rows,)
    return pooled.cpu().numpy(), per_token.cpu().numpy()


# ----------------------------------------------------------------------------------------------------------------------
# Where the heads are


@dataclass
class _HeadShapes(Recorder):
    """Learns which modules call attention, and their (heads, head_dim), from one plain eager pass."""

    def forward(self, module, query, key, value, attention_mask, scaling=None, dropout=0.0, **kwargs):
        name = self.name_of(module)
        if name is not None:
            self.keep(name, (query.shape[1], value.shape[-1]), query.device)
        position_bias, softcap = kwargs.get("position_bias"), kwargs.get("softcap")
        return eager_attention(query, key, value, attention_mask, scaling, 0.0, position_bias, softcap)


def head_sites(handle: ModelHandle, scoring: Scoring) -> dict[str, list[HeadSite]]:
    """The attention layers of every stack, in call order, each with its output projection; an InputError when
    attnviz cannot find a projection, or a module runs more than once in a pass (layers that share weights)."""
    with recording(handle.model, _HeadShapes) as recorder:
        handle.model(**scoring.inputs, **scoring.options)
    sites: dict[str, list[HeadSite]] = {}
    for stack, layers in recorder.layers_by_role(handle.is_seq2seq).items():
        for index, (path, call) in enumerate(layers):
            if call or len(recorder.calls[path]) > 1:
                raise InputError("head_effects_shared_layers", model=handle.name, module=path)
            projection = values.output_projection(recorder.state.modules[path], recorder.state.modules, path)
            if projection is None:
                raise InputError("head_effects_no_projection", model=handle.name, module=path)
            heads, head_dim = recorder.calls[path][0]
            sites.setdefault(stack, []).append(HeadSite(stack, index, path, projection, heads, head_dim))
    return sites


# ----------------------------------------------------------------------------------------------------------------------
# Ablation


Row = tuple[HeadSite, int]  # (layer, head) ablated in one batch row


@contextmanager
def ablating(rows: list[Row | None]) -> Iterator[None]:
    """Zero head h's slice of its output projection's input in each batch row (None: a row left whole), through
    forward pre-hooks on the projections; the hooks are removed however the block ends."""
    with ablating_sets([[] if chosen is None else [chosen] for chosen in rows]):
        yield


@contextmanager
def ablating_sets(rows: list[list[Row]]) -> Iterator[None]:
    """`ablating` with any number of heads removed together in each batch row (an empty list: a row left whole)."""
    by_site: dict[int, tuple[HeadSite, list[tuple[int, int]]]] = {}
    for row, chosen in enumerate(rows):
        for site, head in chosen:
            by_site.setdefault(id(site), (site, []))[1].append((row, head))
    hooks = []
    try:
        for site, chosen_heads in by_site.values():
            hooks.append(site.projection.register_forward_pre_hook(_zeroing(site, chosen_heads, len(rows))))
        yield
    finally:
        for hook in hooks:
            hook.remove()


def _zeroing(site: HeadSite, chosen: list[tuple[int, int]], rows: int):
    """A pre-hook that zeroes, in each (row, head) of `chosen`, the head's columns of the projection's input."""
    width = site.heads * site.head_dim
    zero = torch.zeros((rows, 1, width), dtype=torch.bool)  # (rows, 1, heads·d)
    for row, head in chosen:
        zero[row, 0, head * site.head_dim : (head + 1) * site.head_dim] = True

    def hook(module, args):
        heads_output = args[0]  # (rows, n, heads·d): the heads' weighted sums, side by side
        if heads_output.dim() != 3 or heads_output.shape[0] != rows or heads_output.shape[-1] != width:
            raise InputError("head_effects_projection_input", module=site.path, width=width)
        return (heads_output.masked_fill(zero.to(heads_output.device), 0.0), *args[1:])

    return hook


def rows_per_pass(handle: ModelHandle, scoring: Scoring) -> int:
    """How many ablated copies of the example one pass holds: its logits (or hidden states) within ROW_BUDGET_BYTES."""
    width = sum(scoring.inputs[name].shape[1] for name in ("input_ids", "decoder_input_ids") if name in scoring.inputs)
    config = handle.model.config
    per_token = getattr(config, "vocab_size", 0) or 0
    per_token += 8 * (getattr(config, "hidden_size", 0) or getattr(config, "d_model", 0) or 0)
    return max(1, ROW_BUDGET_BYTES // max(1, 4 * width * per_token))


@torch.inference_mode()
def head_effects(
    handle: ModelHandle,
    text: str,
    target: str | None = None,
    *,
    max_new_tokens: int = 32,
    rows: int | None = None,
    scoring: Scoring | None = None,
) -> HeadEffects:
    """The exact effect of ablating each head of every stack, one at a time (see the module docstring).

    `target`: the translation (or, for a decoder, the continuation) whose log-probability is measured; None lets
    the model write it (up to `max_new_tokens`). `rows`: ablated copies per forward pass (default: what fits
    ROW_BUDGET_BYTES); 1 runs one forward per head. The model is left as it was."""
    scoring = scoring or prepare_scoring(handle, text, target, max_new_tokens)
    sites = head_sites(handle, scoring)
    every = [(site, head) for stack in sites.values() for site in stack for head in range(site.heads)]
    rows = min(rows or rows_per_pass(handle, scoring), len(every))
    clean = model_output(handle, scoring, 1)
    totals, per_tokens = [], []
    for start in range(0, len(every), rows):
        chunk = every[start : start + rows]
        with ablating(chunk):
            total, per_token = effects_of(scoring.metric, clean, model_output(handle, scoring, len(chunk)))
        totals.append(total)
        per_tokens.append(per_token)
    total, per_token = np.concatenate(totals), np.concatenate(per_tokens)  # (every head,), (every head, tokens)
    options = {"passes": math.ceil(len(every) / rows), "rows_per_pass": rows}
    return assembled(handle, scoring, sites, "ablation", total, per_token, options)


def assembled(handle, scoring, sites, method, total, per_token, options) -> HeadEffects:
    """A `HeadEffects` from flat per-head arrays in `sites` order (stack by stack, layer by layer, head by head)."""
    totals, per_tokens, start = {}, {}, 0
    for stack, layers in sites.items():
        heads = layers[0].heads
        count = len(layers) * heads
        totals[stack] = total[start : start + count].reshape(len(layers), heads)  # (layers, heads)
        if per_token is not None:
            per_tokens[stack] = per_token[start : start + count].reshape(len(layers), heads, -1)
        start += count
    provenance = build_provenance(
        handle,
        scoring.source_text,
        scoring.target_text,
        {"measure": "head-effects", "method": method, "metric": scoring.metric, "generated": scoring.generated}
        | options,
    )
    return HeadEffects(
        method,
        scoring.metric,
        totals,
        per_tokens if per_token is not None else None,
        scoring.source_tokens,
        scoring.target_tokens,
        {stack: [site.path for site in layers] for stack, layers in sites.items()},
        provenance,
    )
