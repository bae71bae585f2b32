"""The project's own multi-head attention (self and cross), written like the seed article's pseudo-code.

    q, k, v = map(multi_head_split, [q, k, v])   # (b, l, hdim) -> (b, heads, l, head_dim)
    output = attention(q, k, v)                  # softmax(q·kᵀ·scale + mask)·v, per head
    output = multi_head_merge(output)            # (b, heads, l, head_dim) -> (b, l, hdim)

The attention is `attention.math.attention_steps`, the one eager definition with every intermediate kept (the
explainer page shows the same steps). `MultiHeadAttention` wraps it with the four projections and returns the
output, the weights (float32, every head) and, when asked, the steps.

Its knobs follow Ascend ATB's ``atb::infer::SelfAttentionParam`` where the two mean the same thing:

| ATB SelfAttentionParam         | attnviz MultiHeadAttention     | note                                       |
|--------------------------------|--------------------------------|--------------------------------------------|
| headNum                        | num_heads                      | query heads                                |
| kvHeadNum (0 = headNum)        | num_kv_heads (None/0 = heads)  | fewer kv heads: grouped-query attention    |
| qkScale (tor, times Q·Kᵀ)      | scale (None = 1/√head_dim)     | ATB's default is 1: pass it explicitly     |
| qScale (times Q)               | q_scale (1.0)                  | folded in: scale used = q_scale · scale    |
| MASK_TYPE_UNDEFINED            | mask_type="none"               | no mask                                    |
| MASK_TYPE_NORM                 | mask_type="causal"             | lower triangle kept; self-attention only   |
| NORM_COMPRESS, isTriuMask=1    | mask_type="causal"             | same mask, stored compressed               |
| seqLen (lengths per sequence)  | "padding" + padding_mask       | padding_mask (b, k_len), True = token      |
| KERNELTYPE_HIGH_PRECISION      | always                         | the weights' softmax is float32            |
| inputLayout BSND / BNSD        | (b, l, hdim); BNSD after split |                                            |
| calcType ENCODER/DECODER/PA    | —                              | no KV cache; cross via key_value           |
| ALIBI*, SLIDING_WINDOW*, clamp | —                              | not provided (ALiBi: a float mask instead) |
| quantType, outDataType         | dtype= of the module           | no quantisation                            |

The same table, with sources, is in docs/ascend.md.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import NamedTuple

import torch
from torch import nn

from attnviz.attention.math import AttentionSteps, attention_steps, multi_head_merge, multi_head_split
from attnviz.errors import InputError
from attnviz.model.devices import resolve_device

MASK_TYPES = ("none", "causal", "padding")


class AttentionOutput(NamedTuple):
    output: torch.Tensor  # (b, lq, hidden), the module's dtype
    weights: torch.Tensor  # (b, heads, lq, lk), float32
    steps: AttentionSteps | None = None


class MultiHeadAttention(nn.Module):
    """Multi-head attention, self (key_value=None) or cross, with optional causal/padding masks and GQA.

    hidden_size = num_heads · head_dim. Key and value are projected to num_kv_heads · head_dim features, so
    num_kv_heads < num_heads is grouped-query attention (ATB's kvHeadNum). kv_hidden_size is the feature size of the
    cross-attention source (default hidden_size). device: "auto", "cpu", "npu:0", … resolved by attnviz.model.devices.
    """

    def __init__(
        self,
        hidden_size: int,
        num_heads: int,
        *,
        num_kv_heads: int | None = None,
        kv_hidden_size: int | None = None,
        scale: float | None = None,
        q_scale: float = 1.0,
        mask_type: str = "none",
        bias: bool = True,
        device: str | torch.device | None = "auto",
        dtype: torch.dtype = torch.float32,
    ):
        super().__init__()
        if num_heads <= 0 or hidden_size % num_heads:
            raise InputError("layer_heads_do_not_divide", hidden=hidden_size, heads=num_heads)
        num_kv_heads = num_heads if num_kv_heads in (None, 0) else num_kv_heads  # ATB: kvHeadNum 0 = headNum
        if num_kv_heads < 0 or num_heads % num_kv_heads:
            raise InputError("layer_kv_heads_do_not_divide", heads=num_heads, kv_heads=num_kv_heads)
        if mask_type not in MASK_TYPES:
            raise InputError("mask_type_unknown", mask_type=mask_type, choices=", ".join(MASK_TYPES))
        self.hidden_size = hidden_size
        self.num_heads = num_heads
        self.num_kv_heads = num_kv_heads
        self.head_dim = hidden_size // num_heads
        self.mask_type = mask_type
        self.scale = q_scale * (1.0 / math.sqrt(self.head_dim) if scale is None else float(scale))
        kv_hidden_size = hidden_size if kv_hidden_size is None else kv_hidden_size
        kv_features = num_kv_heads * self.head_dim
        factory = {"device": _resolve(device), "dtype": dtype}
        self.q_proj = nn.Linear(hidden_size, hidden_size, bias=bias, **factory)
        self.k_proj = nn.Linear(kv_hidden_size, kv_features, bias=bias, **factory)
        self.v_proj = nn.Linear(kv_hidden_size, kv_features, bias=bias, **factory)
        self.out_proj = nn.Linear(hidden_size, hidden_size, bias=bias, **factory)

    def forward(
        self,
        hidden_states: torch.Tensor,
        key_value: torch.Tensor | None = None,
        *,
        padding_mask: torch.Tensor | None = None,
        return_steps: bool = False,
    ) -> AttentionOutput:
        """hidden_states (b, lq, hidden); key_value (b, lk, kv_hidden) for cross-attention, None for self.

        padding_mask (b, lk) bool, True for real tokens (False keys are never attended to); required when
        mask_type="padding", allowed with the other mask types. Returns (output, weights, steps).
        """
        source = hidden_states if key_value is None else key_value
        if hidden_states.dim() != 3 or source.dim() != 3 or source.shape[0] != hidden_states.shape[0]:
            raise InputError(
                "layer_inputs_shape", hidden_shape=tuple(hidden_states.shape), source_shape=tuple(source.shape)
            )
        if self.mask_type == "causal" and key_value is not None:
            raise InputError("causal_mask_on_cross")
        mask = self._key_mask(padding_mask, source)
        q = multi_head_split(self.q_proj(hidden_states), self.num_heads)  # (b, heads, lq, d)
        k = multi_head_split(self.k_proj(source), self.num_kv_heads)  # (b, kv_heads, lk, d)
        v = multi_head_split(self.v_proj(source), self.num_kv_heads)  # (b, kv_heads, lk, d)
        causal = self.mask_type == "causal"
        steps = attention_steps(q, k, v, mask, scale=self.scale, is_causal=causal)
        merged = multi_head_merge(steps.context)  # (b, lq, hidden)
        output = self.out_proj(merged)
        kept = replace(steps, merged=merged, output=output) if return_steps else None
        return AttentionOutput(output, steps.weights, kept)

    def _key_mask(self, padding_mask: torch.Tensor | None, source: torch.Tensor) -> torch.Tensor | None:
        if padding_mask is None:
            if self.mask_type == "padding":
                raise InputError("padding_mask_missing")
            return None
        batch, k_len = source.shape[:2]
        if tuple(padding_mask.shape) != (batch, k_len):
            raise InputError("padding_mask_shape", shape=tuple(padding_mask.shape), batch=batch, keys=k_len)
        return padding_mask.to(device=source.device, dtype=torch.bool)[:, None, None, :]  # (b, 1, 1, lk)


def _resolve(device: str | torch.device | None) -> torch.device | None:
    if device is None or isinstance(device, torch.device):
        return device
    return resolve_device(device)
