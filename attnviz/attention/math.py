"""The one eager attention: what attnviz computes wherever it computes attention weights.

    scores  = q·kᵀ · scaling              (…, heads, q, k); scaling defaults to 1/√head_dim
    scores  = tanh(scores / cap) · cap     logit soft-capping (Gemma 2), when asked
    scores += position_bias                a relative position bias (T5)
    scores += mask                         additive (0, finfo.min, −∞), or boolean (True = may attend → 0 / −∞)
    weights = softmax(scores)              in float32 (float64 stays float64)
    output  = weights · v

Up to the softmax the steps are eager attention's own, in its order and in the inputs' dtype, so that what full
capture records equals transformers' eager attention bit for bit; callers that want float32 scores (the project's
own layer, on-demand recomputation) pass float32 queries and keys. Keys and values may have fewer heads than the
query (grouped-query attention): key/value head j serves query heads j·g … j·g + g − 1.

NaN policy, the same everywhere: a query row the mask closes — −∞ on every key, or False on every key of a boolean
mask — may attend to nothing, and its weights are exactly 0 (a plain softmax gives NaN). Transformers' own masks fill
with finfo.min, never −∞, so a row they close is computed as eager attention computes it. Any other NaN (an
overflowing score, a NaN input) stays, for the caller's finite check to refuse.

Causal masks are built one way, `causal_keep`. A fused kernel that hands out each row's log-sum-exp instead of the
weights gets them back exactly from the same scores: `probabilities_from_lse`.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, fields

import numpy as np
import torch

from attnviz.errors import InputError

CAUSAL_ALIGNMENTS = ("top_left", "bottom_right")


# ----------------------------------------------------------------------------------------------------------------------
# Heads


def expand_kv_heads(tensor: torch.Tensor, num_heads: int) -> torch.Tensor:
    """(..., kv_heads, l, d) -> (..., heads, l, d): key/value head j serves query heads j·g … j·g + g − 1."""
    kv_heads = tensor.shape[-3]
    if kv_heads == num_heads:
        return tensor
    if kv_heads == 0 or num_heads % kv_heads:
        raise InputError("kv_heads_do_not_divide", heads=num_heads, kv_heads=kv_heads)
    return tensor.repeat_interleave(num_heads // kv_heads, dim=-3)  # (..., heads, l, d)


def multi_head_split(x: torch.Tensor, num_heads: int) -> torch.Tensor:
    """(b, l, hdim) -> (b, num_heads, l, hdim // num_heads), as in the seed's pseudo-code."""
    if x.dim() != 3:
        raise InputError("split_heads_input_shape", shape=tuple(x.shape))
    b, length, hdim = x.shape
    if num_heads <= 0 or hdim % num_heads:
        raise InputError("walkthrough_heads_do_not_divide", hidden=hdim, heads=num_heads)
    return x.reshape(b, length, num_heads, hdim // num_heads).transpose(1, 2)  # (b, num_heads, l, head_dim)


def multi_head_merge(x: torch.Tensor) -> torch.Tensor:
    """(b, num_heads, l, head_dim) -> (b, l, num_heads * head_dim): the inverse of `multi_head_split`."""
    if x.dim() != 4:
        raise InputError("merge_heads_input_shape", shape=tuple(x.shape))
    b, num_heads, length, head_dim = x.shape
    return x.transpose(1, 2).reshape(b, length, num_heads * head_dim)  # (b, l, hdim)


# ----------------------------------------------------------------------------------------------------------------------
# Masks


def causal_keep(
    queries: int, keys: int, alignment: str = "top_left", *, rows: tuple[int, int] | None = None, device=None
) -> torch.Tensor:
    """bool (rows, keys), True where query i may attend to key j: on and below the diagonal, which starts at the
    top-left corner or ends at the bottom-right one (the last query on the last key, as transformers aligns a
    causal mask over cached keys). `rows` (start, stop) builds only those query rows."""
    if alignment not in CAUSAL_ALIGNMENTS:
        raise InputError("causal_alignment_unknown", alignment=alignment)
    start, stop = (0, queries) if rows is None else rows
    offset = 0 if alignment == "top_left" else keys - queries
    return torch.ones(stop - start, keys, dtype=torch.bool, device=device).tril(diagonal=start + offset)


def with_causal(
    attention_mask: torch.Tensor | None, queries: int, keys: int, alignment: str = "top_left", device=None
) -> torch.Tensor:
    """`attention_mask` (boolean or additive) that also hides the keys after each query."""
    triangle = causal_keep(queries, keys, alignment, device=device)  # (queries, keys)
    if attention_mask is None:
        return triangle
    if attention_mask.dtype == torch.bool:
        return attention_mask & triangle
    return torch.where(triangle, attention_mask, float("-inf"))  # broadcast: (…, queries, keys)


def additive(attention_mask: torch.Tensor | None, dtype: torch.dtype, keys: int) -> torch.Tensor | None:
    """The mask as eager attention adds it: a float mask cut to the keys (transformers may pass it longer), a
    boolean one (True = may attend) as 0 / −∞ in `dtype`."""
    if attention_mask is None:
        return None
    if attention_mask.dtype == torch.bool:
        return torch.zeros(attention_mask.shape, dtype=dtype, device=attention_mask.device).masked_fill_(
            ~attention_mask, float("-inf")
        )
    if not attention_mask.is_floating_point():
        raise InputError("mask_dtype", dtype=str(attention_mask.dtype))
    return attention_mask[..., :keys]


# One mask serves every layer of a pass: it is read once. id(mask) -> (weak reference, version, keys, closed rows).
_READ_MASKS: dict[int, tuple] = {}


def closed_rows(attention_mask: torch.Tensor | None, keys: int) -> torch.Tensor | None:
    """bool (…, q, 1): the query rows a mask closes (False, or −∞, on every one of the `keys`), or None when it
    closes none."""
    if attention_mask is None or keys == 0:
        return None
    seen = _READ_MASKS.get(id(attention_mask))
    version = _version(attention_mask)
    if seen is not None and seen[0]() is attention_mask and seen[1:3] == (version, keys):
        return seen[3]
    closed = _closed_rows(attention_mask[..., :keys])
    if len(_READ_MASKS) > 64:  # masks of finished passes
        _READ_MASKS.clear()
    _READ_MASKS[id(attention_mask)] = (weakref.ref(attention_mask), version, keys, closed)
    return closed


def _version(tensor: torch.Tensor) -> int:
    """How often `tensor` was changed in place; an inference tensor (made in a recorded pass) keeps no count, and
    no code changes a pass's mask in place while the pass runs."""
    return -1 if tensor.is_inference() else tensor._version


def _closed_rows(mask: torch.Tensor) -> torch.Tensor | None:
    if mask.dtype == torch.bool:
        closed = ~mask.any(dim=-1, keepdim=True)
    elif mask.numel() == 0 or mask.min().item() > float("-inf"):  # transformers' masks: finfo.min, never −∞
        return None
    else:
        closed = torch.isneginf(mask.amax(dim=-1, keepdim=True))  # no (q, k) temporary
    return closed if bool(closed.any()) else None


# ----------------------------------------------------------------------------------------------------------------------
# Scores, weights, output


def _broadcasts_into(term: torch.Size, scores: torch.Size) -> bool:
    """Whether a term of shape `term` can be added to `scores` in place (it broadcasts without growing them)."""
    return len(term) <= len(scores) and all(t in (1, s) for t, s in zip(reversed(term), reversed(scores)))


def _add(scores: torch.Tensor, term: torch.Tensor, fresh: bool) -> torch.Tensor:
    """scores + term, in place unless a kept step must survive (`fresh`) or dtypes or shapes need a new tensor."""
    if not fresh and term.dtype == scores.dtype and _broadcasts_into(term.shape, scores.shape):
        return scores.add_(term)
    try:
        return scores + term
    except RuntimeError:
        raise InputError(
            "mask_not_addable",
            shape=tuple(term.shape),
            scores=tuple(scores.shape),
            queries=scores.shape[-2],
            keys=scores.shape[-1],
        ) from None


def attention_scores(
    query: torch.Tensor,
    key: torch.Tensor,
    attention_mask: torch.Tensor | None = None,
    scaling: float | None = None,
    position_bias: torch.Tensor | None = None,
    softcap: float | None = None,
    *,
    keep_steps: bool = False,
):
    """Eager attention's scores before the softmax: q·kᵀ·scaling, soft-capped, + position bias, + mask.

    query (…, heads, q, d), key (…, heads or kv_heads, k, d). The scores are one new tensor, scaled and added to in
    place, so no more (…, q, k) buffers exist than needed. With `keep_steps` the three steps come back as their own
    tensors: (q·kᵀ, scaled and soft-capped, masked) — the same values.
    """
    if scaling is None:
        scaling = query.shape[-1] ** -0.5
    if query.dim() >= 3 and key.shape[-3] != query.shape[-3]:
        key = expand_kv_heads(key, query.shape[-3])  # (…, heads, k, d)
    products = torch.matmul(query, key.transpose(-2, -1))  # (…, q, k)
    scaled = products * scaling if keep_steps else products.mul_(scaling)
    if softcap:  # soft-capping comes before the mask, as in Gemma 2's eager attention
        scaled = torch.tanh(scaled / softcap) * softcap
    masked = scaled
    # position bias first, then the mask: eager attention's order (T5)
    for term in (position_bias, additive(attention_mask, scaled.dtype, key.shape[-2])):
        if term is not None:
            masked = _add(masked, term, fresh=keep_steps and masked is scaled)
    return (products, scaled, masked) if keep_steps else masked


def softmax_rows(
    scores: torch.Tensor, attention_mask: torch.Tensor | None = None, out: torch.Tensor | None = None
) -> torch.Tensor:
    """Row softmax in float32 (float64 stays float64), with the NaN policy of this module: the rows `attention_mask`
    closes are 0. `out`: a float32 tensor of the result's shape to write into (the same values, no later copy)."""
    dtype = torch.float64 if scores.dtype == torch.float64 else torch.float32
    if out is not None:
        probabilities = torch.ops.aten._softmax.out(scores.to(dtype), -1, False, out=out)
    else:
        probabilities = torch.softmax(scores, dim=-1, dtype=dtype)
    closed = closed_rows(attention_mask, scores.shape[-1])
    return probabilities if closed is None else probabilities.masked_fill_(closed, 0.0)


def attention_probabilities(
    query: torch.Tensor,
    key: torch.Tensor,
    attention_mask: torch.Tensor | None = None,
    scaling: float | None = None,
    position_bias: torch.Tensor | None = None,
    softcap: float | None = None,
    *,
    is_causal: bool = False,
    causal_alignment: str = "top_left",
    out: torch.Tensor | None = None,
) -> torch.Tensor:
    """softmax(q·kᵀ·scaling + bias + mask) in float32: the weights of eager attention. query (…, heads, q, d),
    key (…, heads or kv_heads, k, d); `is_causal` also hides the keys after each query (`causal_keep`)."""
    if is_causal:
        attention_mask = with_causal(attention_mask, query.shape[-2], key.shape[-2], causal_alignment, query.device)
    scores = attention_scores(query, key, attention_mask, scaling, position_bias, softcap)
    return softmax_rows(scores, attention_mask, out)


def attention_output(probabilities: torch.Tensor, value: torch.Tensor, dropout: float = 0.0) -> torch.Tensor:
    """weights · v as eager attention does it, in the values' dtype: (b, heads, q, k) × (b, heads, k, d) ->
    (b, q, heads, d), the layout transformers' attention functions return."""
    if probabilities.dtype != value.dtype:
        probabilities = probabilities.to(value.dtype)
    if dropout:
        probabilities = torch.nn.functional.dropout(probabilities, p=dropout)
    return torch.matmul(probabilities, value).transpose(1, 2).contiguous()  # (b, q, heads, d)


def eager_attention(
    query: torch.Tensor,
    key: torch.Tensor,
    value: torch.Tensor,
    attention_mask: torch.Tensor | None = None,
    scaling: float | None = None,
    dropout: float = 0.0,
    position_bias: torch.Tensor | None = None,
    softcap: float | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Eager attention in one call: (output (b, q, heads, d), weights float32 (b, heads, q, k))."""
    probabilities = attention_probabilities(query, key, attention_mask, scaling, position_bias, softcap)
    return attention_output(probabilities, expand_kv_heads(value, query.shape[-3]), dropout), probabilities


def probabilities_from_lse(scores: torch.Tensor, lse: torch.Tensor) -> torch.Tensor:
    """The weights exp(scores − LSE) from each row's log-sum-exp (…, q), as a fused kernel hands it out instead of
    the weights: float32 (…, q, k). A row of LSE −∞ attended to nothing: its weights are 0 (the NaN policy)."""
    finite = lse.float().masked_fill(torch.isneginf(lse), 0.0)
    return torch.exp(scores.float() - finite.unsqueeze(-1))  # (…, q, k)


# ----------------------------------------------------------------------------------------------------------------------
# Every step kept, for the own layer and the explainer


@dataclass(frozen=True)
class AttentionSteps:
    """Every intermediate of one attention computation, in the order the explainer shows them.

    `scale` multiplies the scores: scaled_scores = scores · scale, 1/√d unless given (1.0 for the seed's unscaled
    first example); a person divides by 1 / scale (√d). Shapes: query (…, lq, d), key/value (…, lk, d) — for the
    layer (b, heads, lq, d) and (b, kv_heads, lk, d) — scores … weights (…, lq, lk), context (…, lq, dv); merged
    and output (b, lq, hdim) only for the layer. Arrays are torch tensors (`attention_steps`) or float64 numpy ones
    (`numpy`, for figures).
    """

    query: torch.Tensor | np.ndarray
    key: torch.Tensor | np.ndarray
    value: torch.Tensor | np.ndarray
    scores: torch.Tensor | np.ndarray  # q·kᵀ
    scaled_scores: torch.Tensor | np.ndarray  # scores · scale
    masked_scores: torch.Tensor | np.ndarray  # scaled + mask: −∞ where attention is forbidden
    weights: torch.Tensor | np.ndarray  # row softmax; rows sum to 1, masked cells exactly 0
    context: torch.Tensor | np.ndarray  # weights · v
    scale: float
    merged: torch.Tensor | np.ndarray | None = None  # multi_head_merge(context)
    output: torch.Tensor | np.ndarray | None = None  # after the output projection

    def shapes(self) -> list[tuple[str, tuple[int, ...]]]:
        """(step name, shape) in order, skipping steps this computation did not have."""
        steps = [(f.name, getattr(self, f.name)) for f in fields(self) if f.name != "scale"]
        return [(name, tuple(array.shape)) for name, array in steps if array is not None]

    def numpy(self) -> AttentionSteps:
        """The same steps as numpy arrays (right of capture everything is numpy)."""
        arrays = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "scale"}
        converted = {name: None if a is None else a.detach().cpu().numpy() for name, a in arrays.items()}
        return AttentionSteps(**converted, scale=self.scale)


def attention_steps(
    query: torch.Tensor,
    key: torch.Tensor,
    value: torch.Tensor,
    attention_mask: torch.Tensor | None = None,
    *,
    scale: float | None = None,
    is_causal: bool = False,
) -> AttentionSteps:
    """softmax(q·kᵀ·scale + mask)·v with each step kept; on plain matrices as well as batched heads.

    q (…, lq, d), k (…, lk, d), v (…, lk, dv); 4-d (b, heads, l, d) k/v may have fewer heads (GQA). mask: bool
    (True = attend) or additive float, broadcastable to (…, lq, lk). scale None = 1/√d. Scores and weights are
    float32 whatever the input dtype (float64 inputs stay float64); the context has the query's dtype.
    """
    if query.dim() < 2 or key.dim() != query.dim() or value.dim() != query.dim():
        raise InputError("qkv_dimensions", query=tuple(query.shape), key=tuple(key.shape), value=tuple(value.shape))
    if query.shape[-1] != key.shape[-1] or key.shape[-2] != value.shape[-2]:
        raise InputError("qkv_sizes", query=tuple(query.shape), key=tuple(key.shape), value=tuple(value.shape))
    scale = query.shape[-1] ** -0.5 if scale is None else float(scale)
    if is_causal:
        attention_mask = with_causal(attention_mask, query.shape[-2], key.shape[-2], device=query.device)
    precise = torch.float64 if query.dtype == torch.float64 else torch.float32
    scores, scaled, masked = attention_scores(
        query.to(precise), key.to(precise), attention_mask, scale, keep_steps=True
    )
    weights = softmax_rows(masked, attention_mask)
    values = value if query.dim() < 3 else expand_kv_heads(value, query.shape[-3])  # (…, heads, lk, dv)
    context = (weights @ values.to(precise)).to(query.dtype)  # (…, lq, dv)
    return AttentionSteps(query, key, value, scores, scaled, masked, weights, context, scale)
