"""Shared inputs for the attention-maths and NPU-adapter tests: random BNSD tensors, masks, and torch's own SDPA."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

TOLERANCE = dict(atol=1e-5, rtol=1e-5)
MASK_CASES = ["none", "padding", "square_bool", "bias_with_inf", "causal", "causal_padding", "causal_bottom_right"]


def qkv(batch=2, heads=4, kv_heads=4, q_len=5, k_len=5, dim=8, seed=0, dtype=torch.float32):
    generator = torch.Generator().manual_seed(seed)
    q = torch.randn(batch, heads, q_len, dim, generator=generator).to(dtype)
    k = torch.randn(batch, kv_heads, k_len, dim, generator=generator).to(dtype)
    v = torch.randn(batch, kv_heads, k_len, dim, generator=generator).to(dtype)
    return q, k, v


def padding_keep(batch, k_len, lengths):
    keep = torch.zeros(batch, 1, 1, k_len, dtype=torch.bool)  # (B, 1, 1, Skv), HF-style key padding
    for row, length in enumerate(lengths):
        keep[row, ..., :length] = True
    return keep


def sdpa_truth(q, k, v, mask=None, is_causal=False, scale=None):
    """torch's own SDPA, with GQA expanded by hand so it does not depend on enable_gqa."""
    group = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=is_causal, scale=scale)


def explicit_probabilities(q, k, keep=None, bias=None, scale=None):
    """softmax(q·kᵀ·scale + bias) with masked cells forced to 0, written out independently of the library."""
    group = q.shape[1] // k.shape[1]
    k = k.repeat_interleave(group, dim=1)
    scale = 1 / math.sqrt(q.shape[-1]) if scale is None else scale
    scores = (q.double() @ k.double().transpose(-1, -2)) * scale
    if bias is not None:
        scores = scores + bias.double()
    if keep is not None:
        scores = scores.masked_fill(~keep, float("-inf"))
    return torch.softmax(scores, dim=-1).nan_to_num(0.0).float()


def case(name, batch, heads, q_len, k_len):
    """(attention_mask, is_causal, alignment, sdpa_mask, sdpa_is_causal) for one scenario."""
    generator = torch.Generator().manual_seed(7)
    if name == "none":
        return None, False, "top_left", None, False
    if name == "padding":
        keep = padding_keep(batch, k_len, [k_len, k_len - 2])
        return keep, False, "top_left", keep, False
    if name == "square_bool":
        keep = torch.rand(q_len, k_len, generator=generator) > 0.3
        keep[:, 0] = True
        return keep, False, "top_left", keep, False
    if name == "bias_with_inf":
        bias = torch.randn(batch, heads, q_len, k_len, generator=generator)
        bias[..., -1] = float("-inf")
        return bias, False, "top_left", bias, False
    triangle = torch.ones(q_len, k_len, dtype=torch.bool).tril(k_len - q_len if name.endswith("bottom_right") else 0)
    if name == "causal":
        return None, True, "top_left", None, True
    if name == "causal_padding":
        keep = padding_keep(batch, k_len, [k_len, k_len - 1])
        return keep, True, "top_left", keep & triangle, False
    return None, True, "bottom_right", triangle, False


def lengths(case_name):
    """(q_len, k_len) of a case: bottom-right causality needs more keys than queries."""
    return (4, 6) if case_name == "causal_bottom_right" else (5, 5)
