"""The vectors one attention head computed with, from the model's real forward pass: its queries and keys (what an
on-demand capture keeps anyway) and, when asked, its values.

`head_vectors(lazy, kind, layer, head)` reads one head's queries and keys out of a `LazyCapture` (for the query–key
space, O(n·d)); `capture_with_values(handle, text, target)` runs the on-demand pass once more with `ValueRecorder`,
which also keeps each call's value vectors, for the explainer's weighted sum. Everything returned is numpy.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch

from attnviz.attention.ondemand import LazyCapture, lazy_run
from attnviz.attention.recorder import Layer, QueryKeyRecorder
from attnviz.model.load import ModelHandle
from attnviz.types import Token, position


@dataclass
class ValueRecorder(QueryKeyRecorder):
    """A `QueryKeyRecorder` that also keeps the value vectors (batch, kv_heads, keys, d) of every call it keeps."""

    values: dict[Layer, torch.Tensor] = field(default_factory=dict)

    def forward(self, module, query, key, value, attention_mask, scaling=None, dropout=0.0, **kwargs):
        name = self.name_of(module)
        if name is not None:  # the call index this call will be kept under
            self.values[(name, len(self.calls.get(name, [])))] = value.detach().clone()
        return super().forward(module, query, key, value, attention_mask, scaling, dropout, **kwargs)


@dataclass(frozen=True)
class HeadVectors:
    """One head's vectors as the model computed them (float32 numpy), with what eager attention adds to q·kᵀ·scaling.

    `queries` (queries, d), `keys` (keys, d) — for grouped-query attention the key head this query head reads —
    `values` (keys, d) or None when the capture kept none. `scaling` multiplies q·k; `layer_name` is the module path.
    """

    kind: str
    layer: int
    head: int
    layer_name: str
    query_tokens: list[Token]
    key_tokens: list[Token]
    queries: np.ndarray
    keys: np.ndarray
    values: np.ndarray | None
    scaling: float
    softcap: float | None
    key_head: int  # the key/value head the query head reads (differs under grouped-query attention)

    @property
    def head_dim(self) -> int:
        return self.queries.shape[1]


@dataclass(frozen=True)
class ValueCapture:
    """A `LazyCapture` and, per map kind, each layer's value vectors (batch, kv_heads, keys, d)."""

    lazy: LazyCapture
    values: dict[str, list[torch.Tensor]]

    def head(self, kind: str, layer: int, head: int) -> HeadVectors:
        return head_vectors(self.lazy, kind, layer, head, self.values[kind])


def head_vectors(
    lazy: LazyCapture, kind: str, layer: int, head: int, values: list[torch.Tensor] | None = None
) -> HeadVectors:
    """One head's queries and keys (and values, from `values`: one tensor per layer of `kind`) out of `lazy`."""
    stack = lazy.stack(kind)
    index = position(layer, len(stack.layers), "layer")
    inputs = stack.layers[index]
    head_index = position(head, inputs.heads, "head")
    key_head = head_index // (inputs.heads // inputs.key.shape[1])  # query heads share a key head (GQA)
    kept_values = None
    if values is not None:
        kept_values = values[index][0, key_head].float().cpu().numpy()  # (keys, d)
    scaling = inputs.scaling if inputs.scaling is not None else inputs.query.shape[-1] ** -0.5
    query_tokens = stack.query_tokens
    if kind == "decoder" and len(query_tokens) == len(stack.key_tokens):
        query_tokens = stack.key_tokens  # each query named by the token it reads, as `selection.prepare_map` does
    return HeadVectors(
        kind,
        index,
        head_index,
        stack.layer_names[index],
        query_tokens,
        stack.key_tokens,
        inputs.query[0, head_index].float().cpu().numpy(),  # (queries, d)
        inputs.key[0, key_head].float().cpu().numpy(),  # (keys, d)
        kept_values,
        float(scaling),
        inputs.softcap,
        key_head,
    )


def capture_with_values(
    handle: ModelHandle, text: str, target: str | None = None, truncate: bool = False
) -> ValueCapture:
    """`capture_lazy` of `text` that also keeps every layer's value vectors (O(n·d) per layer, like the keys)."""
    lazy, recorder = lazy_run(handle, text, target, truncate, ValueRecorder)
    layers = recorder.layers_by_role(handle.is_seq2seq)
    values = {kind: [recorder.values[layer] for layer in layers[kind]] for kind in lazy.kinds}
    return ValueCapture(lazy, values)


def row_terms(lazy: LazyCapture, kind: str, layer: int, head: int, row: int) -> tuple[np.ndarray | None, ...]:
    """(additive mask, position bias) eager attention adds to query `row`'s scores in one head, each float64
    (keys,) or None: the mask is 0 where the model may look (and a very negative number where it may not)."""
    stack = lazy.stack(kind)
    inputs = stack.layers[position(layer, len(stack.layers), "layer")]
    row = position(row, inputs.queries, "query token")
    parts = inputs.mask_and_bias(position(head, inputs.heads, "head"), row, row + 1)  # each (1, keys) or None
    return tuple(None if part is None else part[0].double().cpu().numpy() for part in parts)
