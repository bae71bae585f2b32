"""Value zeroing (Mohebbi, Zuidema, Chrupała and Alishahi, EACL 2023, "Quantifying Context Mixing in Transformers",
arXiv 2301.12971): how much each token's output in one layer depends on each other token.

For layer l and key token j, token j's value vector is set to zero in every head of layer l's attention — nothing
else changes: j's query and key still decide the weights, its residual still flows — and the whole block is computed
again (attention, residual, norms, feed-forward, as in the paper). Query token i's output then moves from x_i to x̃_i:

    C_ij = 1 − cos(x̃_i, x_i),      each row divided by its sum.

For cross-attention (a translator's decoder reading the source), source token j's value vector is zeroed in the
cross-attention of decoder layer l, and x_i is the decoder layer's output for target row i.

Batched: one pass of layer l's block computes every j at once. The real forward pass (a plain `capture`, with
forward pre-hooks) records what each block was called with; the block then runs once on those inputs repeated
keys + 1 times along the batch axis, batch row r zeroing key r's value vector (`ZeroingRecorder`, an attention
implementation switched on as every capture switches it) and the last row zeroing nothing (x itself, computed
alike). Long inputs split the rows into passes that fit `ROW_BYTES`.

The result has the layout of attention weights: an `AttentionCapture` whose maps are `AttentionMap`s
(layers, 1, queries, keys) — one "head", the layer's — float32, rows summing to 1, with the tokens and layer names of
`capture`. A causal map's cells above the diagonal are 0: token i never reads a later token's value.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from attnviz.attention.capture import capture
from attnviz.attention.math import eager_attention
from attnviz.attention.recorder import Recorder, recording
from attnviz.errors import Phrase
from attnviz.measures.blocks import BlockCall, hidden_output, recorded_blocks, repeated
from attnviz.model.load import ModelHandle
from attnviz.types import AttentionCapture, AttentionMap

MEASURE = {
    "name": "value-zeroing",
    "paper": "Mohebbi, Zuidema, Chrupała and Alishahi (2023), Quantifying Context Mixing in Transformers, EACL",
    "arxiv": "2301.12971",
    "definition": "C_ij = 1 - cos(x̃_i, x_i), x̃ the layer output with token j's value vector zeroed; rows sum to 1",
}
NAME = Phrase("measure_name.value_zeroing")
ROW_BYTES = 512 * 2**20  # what one pass of a block over many zeroed rows may hold, roughly


@dataclass(frozen=True)
class Zeroing:
    """Which attention module zeroes which keys: batch row r zeroes key `first + r`, for r < `rows`."""

    path: str
    first: int
    rows: int


@dataclass
class ZeroingRecorder(Recorder):
    """Eager attention for every call; calls of the planned module see their batch row r's key `first + r` with a
    zero value vector (in every head: under grouped-query attention, every key/value head)."""

    plan: Zeroing | None = None

    def forward(self, module, query, key, value, attention_mask, scaling=None, dropout=0.0, **kwargs):
        plan = self.plan
        if plan is not None and self.name_of(module) == plan.path:
            value = value.clone()  # (batch, kv_heads, keys, d); GPT-2's is a view into its fused q|k|v
            rows = torch.arange(plan.rows, device=value.device)
            value[rows, :, plan.first + rows, :] = 0
        return eager_attention(
            query, key, value, attention_mask, scaling, 0.0, kwargs.get("position_bias"), kwargs.get("softcap")
        )


def value_zeroing(
    handle: ModelHandle,
    text: str,
    target: str | None = None,
    truncate: bool = False,
    kinds: Sequence[str] | None = None,
) -> AttentionCapture:
    """Value zeroing of every layer of every map `capture(handle, text, target)` gives ("self"; or "encoder", and
    with a target "decoder" and "cross"), or of the maps `kinds` only (each costs its own passes): an
    `AttentionCapture` of (layers, 1, queries, keys) maps, rows summing to 1.

    InputError (a sentence in English and 中文) for a model whose layers attnviz cannot find, or whose layers share
    weights (ALBERT). The model is left as it was: the hooks and the attention switch are undone, even on an error."""
    with recorded_blocks(handle.model) as blocks:
        weights = capture(handle, text, target, truncate)  # the real pass: tokens, layer names, each block's inputs
    maps = {}
    for kind in weights.kinds if kinds is None else kinds:
        amap = weights[kind]  # (an InputError naming the kinds there are, for one that is not)
        scores = np.stack([_layer_scores(handle, blocks, name, len(amap.key_tokens)) for name in amap.layer_names])
        maps[kind] = AttentionMap(
            kind,
            normalised(scores, amap.causal)[:, None],
            amap.query_tokens,
            amap.key_tokens,
            amap.layer_names,
            amap.causal,
        )
    provenance = {**weights.provenance, "measure": MEASURE}
    meta = {"measure": MEASURE["name"]}  # what the maps hold is not attention weights: titles and files say so
    return AttentionCapture(
        handle.name, handle.device, maps, weights.source_text, weights.target_text, meta=meta, provenance=provenance
    )


def _layer_scores(handle: ModelHandle, blocks, path: str, keys: int) -> np.ndarray:
    """float64 (queries, keys) 1 − cos(x̃_i, x_i) of the layer whose attention module is at `path`."""
    model = handle.model
    block_path, call = blocks.call(path, NAME, handle.name)
    block = model.get_submodule(block_path)
    columns = []
    with recording(model, ZeroingRecorder) as zeroing:
        step = _rows_per_pass(call, handle.num_heads, keys)
        for first in range(0, keys, step):
            rows = min(step, keys - first)
            zeroing.plan = Zeroing(path, first, rows)
            hidden = _run(block, call, rows + 1)  # (rows + 1, queries, hidden): the last row zeroes nothing
            columns.append(one_minus_cosine(hidden[:rows], hidden[rows]))  # (rows, queries)
    return torch.cat(columns).T.numpy()  # (queries, keys)


def _run(block: torch.nn.Module, call: BlockCall, rows: int) -> torch.Tensor:
    """The block's output hidden states on its recorded inputs repeated `rows` times: float64 on the CPU."""
    output = block(*repeated(call.args, rows), **repeated(call.kwargs, rows))
    return hidden_output(output).to(device="cpu", dtype=torch.float64)


def _rows_per_pass(call: BlockCall, heads: int, keys: int) -> int:
    """How many zeroed rows one pass of the block holds within `ROW_BYTES`: each row costs a few copies of its
    attention scores (heads, queries, keys) and of its hidden states (queries, hidden), in float32."""
    hidden = next(value for value in (*call.args, *call.kwargs.values()) if isinstance(value, torch.Tensor))
    queries, width = hidden.shape[-2], hidden.shape[-1]
    per_row = 4 * (3 * heads * queries * keys + 16 * queries * width)
    return max(1, min(keys, ROW_BYTES // per_row))


def one_minus_cosine(changed: torch.Tensor, original: torch.Tensor) -> torch.Tensor:
    """1 − cos between each row of `changed` (rows, queries, hidden) and `original` (queries, hidden): (rows, queries).
    A zero vector has cosine 0 with anything (it kept nothing of the original)."""
    dot = (changed * original).sum(-1)  # (rows, queries)
    norms = torch.linalg.vector_norm(changed, dim=-1) * torch.linalg.vector_norm(original, dim=-1)
    cosine = torch.where(norms > 0, dot / norms.clamp_min(torch.finfo(norms.dtype).tiny), torch.zeros_like(dot))
    return 1.0 - cosine


def normalised(scores: np.ndarray, causal: bool) -> np.ndarray:
    """float32 (layers, queries, keys) rows summing to 1 from raw 1 − cos scores: rounding's tiny negatives are 0, a
    causal map's cells above the diagonal are 0 (that key's value is never read there); a row of zeros (nothing
    changed) stays zeros."""
    scores = np.clip(scores, 0.0, None)
    if causal:
        queries, keys = scores.shape[-2:]
        scores = np.where(np.tri(queries, keys, k=keys - queries, dtype=bool), scores, 0.0)
    sums = scores.sum(-1, keepdims=True)
    return np.divide(scores, sums, out=np.zeros_like(scores), where=sums > 0).astype(np.float32)
