"""A pure-torch implementation of ``torch_npu.npu_fusion_attention``'s documented contract, for testing the NPU
adapter (`attnviz.attention.npu`) on machines without an Ascend NPU.

The contract, with its sources, is in the adapter's docstring. Same signature, defaults (scale=1.0!) and 7-tuple
result as the kernel, and strict about its input contract, so that code passing here passes the kernel's checks too.
"""

from __future__ import annotations

import torch

from attnviz.attention.math import causal_keep, expand_kv_heads
from attnviz.attention.npu import (
    NPU_COMPRESSED_MASK_SIZE,
    NPU_MAX_TOKENS,
    NPU_SOFTMAX_STAT_WIDTH,
    NPU_SPARSE_ALL,
    NPU_SPARSE_CAUSAL_BOTTOM_RIGHT,
    NPU_SPARSE_CAUSAL_TOP_LEFT,
    NPU_SPARSE_DEFAULT,
)

_NPU_LAYOUTS = ("BNSD", "BSND", "BSH", "SBH")


def _to_bnsd(tensor: torch.Tensor, layout: str, heads: int | None) -> torch.Tensor:
    """One tensor in `layout` -> (B, N, S, D); `heads` is needed to split H = N·D for BSH and SBH."""
    if layout == "BNSD":
        return tensor
    if layout == "BSND":
        return tensor.transpose(1, 2)  # (B, S, N, D) -> (B, N, S, D)
    if layout == "SBH":
        tensor = tensor.transpose(0, 1)  # (S, B, H) -> (B, S, H)
    batch, length, hidden = tensor.shape
    return tensor.reshape(batch, length, heads, hidden // heads).transpose(1, 2)  # (B, N, S, D)


def _from_bnsd(tensor: torch.Tensor, layout: str) -> torch.Tensor:
    """(B, N, S, D) -> `layout`."""
    if layout == "BNSD":
        return tensor
    if layout == "BSND":
        return tensor.transpose(1, 2)  # (B, S, N, D)
    batch, heads, length, dim = tensor.shape
    merged = tensor.transpose(1, 2).reshape(batch, length, heads * dim)  # (B, S, H)
    return merged if layout == "BSH" else merged.transpose(0, 1)  # SBH: (S, B, H)


def _kv_heads(key: torch.Tensor, layout: str, query_heads: int, query: torch.Tensor) -> int:
    if layout in ("BNSD", "BSND"):
        return key.shape[1] if layout == "BNSD" else key.shape[2]
    head_dim = query.shape[-1] // query_heads
    return key.shape[-1] // head_dim


def _reference_mask(atten_mask, sparse_mode, batch, heads, q_len, k_len, pre_tockens, next_tockens):
    """The positions the kernel masks out, as bool broadcastable to (B, N, Sq, Skv)."""
    if atten_mask is None:
        return None  # documented: without atten_mask, sparse_mode and the token bands do not apply
    if atten_mask.dtype not in (torch.bool, torch.uint8):
        raise ValueError(f"atten_mask must be bool or uint8 (1 = masked out), got {atten_mask.dtype}.")
    atten_mask = atten_mask.bool()
    if sparse_mode in (NPU_SPARSE_CAUSAL_TOP_LEFT, NPU_SPARSE_CAUSAL_BOTTOM_RIGHT):
        compressed = torch.ones(NPU_COMPRESSED_MASK_SIZE, NPU_COMPRESSED_MASK_SIZE, dtype=torch.bool).triu(1)
        if tuple(atten_mask.shape) != compressed.shape or not torch.equal(atten_mask.cpu(), compressed):
            raise ValueError(
                f"sparse_mode {sparse_mode} needs the compressed 2048x2048 upper-triangular atten_mask, "
                f"got shape {tuple(atten_mask.shape)}."
            )
        alignment = "top_left" if sparse_mode == NPU_SPARSE_CAUSAL_TOP_LEFT else "bottom_right"
        return ~causal_keep(q_len, k_len, alignment, device=atten_mask.device)
    if sparse_mode not in (NPU_SPARSE_DEFAULT, NPU_SPARSE_ALL):
        raise ValueError(f"sparse_mode {sparse_mode} (band, prefix, varlen) is not modelled by this reference.")
    allowed_shapes = {(q_len, k_len), (1, 1, q_len, k_len), (batch, 1, q_len, k_len), (batch, heads, q_len, k_len)}
    if tuple(atten_mask.shape) not in allowed_shapes:
        raise ValueError(
            f"atten_mask shape {tuple(atten_mask.shape)} is not one of BNSS, B1SS, 11SS or SS for "
            f"B={batch}, N={heads}, Sq={q_len}, Skv={k_len}."
        )
    if sparse_mode == NPU_SPARSE_DEFAULT:
        # defaultMask: the band [i - pre_tockens, i + next_tockens] counted from the top-left corner is computed.
        rows = torch.arange(q_len, device=atten_mask.device).unsqueeze(1)
        cols = torch.arange(k_len, device=atten_mask.device).unsqueeze(0)
        outside_band = (cols > rows + next_tockens) | (cols < rows - pre_tockens)
        return atten_mask | outside_band
    return atten_mask


def npu_fusion_attention_reference(
    query: torch.Tensor,
    key: torch.Tensor,
    value: torch.Tensor,
    head_num: int,
    input_layout: str,
    pse: torch.Tensor | None = None,
    padding_mask: torch.Tensor | None = None,
    atten_mask: torch.Tensor | None = None,
    scale: float = 1.0,
    keep_prob: float = 1.0,
    pre_tockens: int = NPU_MAX_TOKENS,
    next_tockens: int = NPU_MAX_TOKENS,
    inner_precise: int = 0,
    prefix: list[int] | None = None,
    actual_seq_qlen: list[int] | None = None,
    actual_seq_kvlen: list[int] | None = None,
    sparse_mode: int = 0,
    gen_mask_parallel: bool = True,
    sync: bool = False,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, int, int, int]:
    """What ``torch_npu.npu_fusion_attention`` is documented to compute, in plain torch (float32 inside).

    Same signature, defaults (scale=1.0!) and 7-tuple result as the kernel; strict about its documented input
    contract (layouts BNSD/BSND/BSH/SBH, bool/uint8 atten_mask with True = masked out in SS/11SS/B1SS/BNSS,
    sparse_mode 0–3 with the compressed 2048×2048 mask for 2 and 3, N divisible by N_kv, matching dtypes), so code
    that passes here passes the kernel's checks too. Dropout (keep_prob < 1), varlen (TND) and prefix modes are not
    modelled. softmax_max / softmax_sum are float32 (B, N, Sq, 8), the row statistic repeated in the last axis.
    """
    del inner_precise, gen_mask_parallel, sync  # performance switches, no effect on the result
    if input_layout not in _NPU_LAYOUTS:
        raise ValueError(f"input_layout {input_layout!r} is not modelled; use one of {', '.join(_NPU_LAYOUTS)}.")
    if padding_mask is not None or prefix is not None or actual_seq_qlen is not None or actual_seq_kvlen is not None:
        raise ValueError("padding_mask, prefix and the varlen arguments are not modelled by this reference.")
    if keep_prob != 1.0:
        raise ValueError("keep_prob < 1 (dropout) is not modelled by this reference.")
    supported = (torch.float16, torch.bfloat16, torch.float32)
    if query.dtype not in supported or key.dtype != query.dtype or value.dtype != query.dtype:
        raise ValueError(
            f"query, key and value must share one of {supported}; got {query.dtype}, {key.dtype}, {value.dtype}."
        )
    if pse is not None and pse.dtype != query.dtype:
        raise ValueError(f"pse must have the query's dtype {query.dtype}, got {pse.dtype}.")
    if key.shape != value.shape:
        raise ValueError(f"key {tuple(key.shape)} and value {tuple(value.shape)} must have the same shape.")
    kv_heads = _kv_heads(key, input_layout, head_num, query)
    q = _to_bnsd(query, input_layout, head_num)
    if q.shape[1] != head_num:
        raise ValueError(f"head_num={head_num} but the query has {q.shape[1]} heads.")
    if kv_heads == 0 or head_num % kv_heads:
        raise ValueError(f"head_num {head_num} must be a multiple of the key/value head count {kv_heads}.")
    k, v = _to_bnsd(key, input_layout, kv_heads), _to_bnsd(value, input_layout, kv_heads)
    batch, heads, q_len, _ = q.shape
    k_len = k.shape[2]
    k, v = expand_kv_heads(k, heads), expand_kv_heads(v, heads)  # head i reads kv head i // (N / N_kv)

    scores = q.float() @ k.float().transpose(-1, -2)  # (B, N, Sq, Skv)
    if pse is not None:
        allowed = {(batch, heads, q_len, k_len), (batch, heads, 1, k_len), (1, heads, q_len, k_len)}
        if tuple(pse.shape) not in allowed:
            raise ValueError(f"pse shape {tuple(pse.shape)} is not one of BNSS, BN1Skv or 1NSS.")
        scores = scores + pse.float()
    scores = scores * scale  # pse is added before the scale
    masked = _reference_mask(atten_mask, sparse_mode, batch, heads, q_len, k_len, pre_tockens, next_tockens)
    if masked is not None:
        scores = scores.masked_fill(masked.to(scores.device), float("-inf"))

    row_max = scores.amax(dim=-1, keepdim=True)  # (B, N, Sq, 1); -inf for a row with nothing to attend to
    safe_max = row_max.masked_fill(torch.isneginf(row_max), 0.0)
    exponentials = torch.exp(scores - safe_max)
    row_sum = exponentials.sum(dim=-1, keepdim=True)  # 0 for an empty row
    probabilities = exponentials / row_sum.clamp_min(torch.finfo(torch.float32).tiny)
    output = (probabilities @ v.float()).to(query.dtype)  # (B, N, Sq, D)

    stat_shape = (batch, heads, q_len, NPU_SOFTMAX_STAT_WIDTH)
    softmax_max = row_max.expand(stat_shape).contiguous()
    softmax_sum = row_sum.expand(stat_shape).contiguous()
    softmax_out = torch.empty(0, dtype=query.dtype, device=query.device)  # reserved by the kernel
    return _from_bnsd(output, input_layout), softmax_max, softmax_sum, softmax_out, 0, 0, 0


class SpyKernel:
    """The reference kernel, recording the keyword arguments the glue passed."""

    def __init__(self):
        self.calls = []

    def __call__(self, query, key, value, **kwargs):
        self.calls.append({"query": query, "key": key, "value": value, **kwargs})
        return npu_fusion_attention_reference(query, key, value, **kwargs)
