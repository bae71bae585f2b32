"""The fused path on an Ascend NPU: ``torch_npu.npu_fusion_attention`` behind transformers' conventions.

On-demand capture (`attention.ondemand`) computes each attention output through this adapter when the model runs on
an NPU (SDPA elsewhere), and keeps the log-sum-exp of every row that the kernel hands out: `math.probabilities_from_lse`
rebuilds any head's exact weights from it, column block by column block, without the kernel ever materialising them.
Full capture does not use it: its weights must equal eager attention bit for bit, so it runs eager attention itself,
on the NPU as anywhere.

Conventions taken in (those of torch's SDPA and transformers): tensors BNSD — (batch, heads, seq, head_dim); key and
value may have fewer heads (grouped-query attention); a boolean mask is True where attention is *allowed*; a float mask
is added to the scaled scores (values ≤ MASKED_BIAS_THRESHOLD mean masked out); ``scaling`` defaults to 1/√head_dim.
A query row that may attend to no key gets output 0 and LSE −∞ (weights 0: the NaN policy of `attention.math`).

What ``torch_npu.npu_fusion_attention`` expects, and this adapter converts to, as documented by Ascend
(op-plugin ``docs/context/torch_npu-npu_fusion_attention.md``; hiascend.com "torch_npu.npu_fusion_attention",
ptaoplist_000850, PyTorch 6.0.0 API reference):

* signature ``npu_fusion_attention(query, key, value, head_num, input_layout, pse=None, padding_mask=None,
  atten_mask=None, scale=1., keep_prob=1., pre_tockens=2147483647, next_tockens=2147483647, inner_precise=0,
  prefix=None, actual_seq_qlen=None, actual_seq_kvlen=None, sparse_mode=0, gen_mask_parallel=True, sync=False)``;
* ``scale`` defaults to **1.0** — it must always be passed explicitly;
* ``atten_mask`` is bool/uint8 and **True (1) means masked out**, the opposite of SDPA; shapes BNSS, B1SS, 11SS or SS;
* ``pse`` (float, same dtype as q) is added *before* scaling: softmax(scale·(QKᵀ + pse)); shapes BNSS, BN1Skv, 1NSS
  (Huawei's own CPU benchmark of the kernel, msprobe ``bench_functions/npu_fusion_attention.py``, computes
  ``(q @ kᵀ + pse) * scale`` the same way);
* ``sparse_mode`` 0 = the given mask (with pre/next_tockens bands), 1 = the full mask, 2 = causal from the top-left,
  3 = causal from the bottom-right; for 2 and 3 ``atten_mask`` must be the *compressed* 2048×2048 upper-triangular
  boolean matrix ``torch.triu(torch.ones(2048, 2048, dtype=torch.bool), diagonal=1)``; modes 4–8 (band, prefix,
  varlen) are not used here;
* GQA is native: ``head_num`` is the query's N, key/value may have N_kv heads with N / N_kv an integer;
* it returns 7 values ``(attention_out, softmax_max, softmax_sum, softmax_out, seed, offset, numels)``;
  ``softmax_max`` and ``softmax_sum`` are float32 of shape (B, N, Sq, 8), the row max and the row sum of
  exp(s − max) repeated 8 times in the last axis (the ``[B, N, S0, 8]`` allocation with SOFTMAXMAX_LAST_DIMSHAPE = 8 in
  the op plugin's C++), so LSE = max + log(sum) and p = exp(s − LSE); ``softmax_out`` is reserved.

None of this has run on Ascend hardware yet: the glue is tested on CPU against a pure-torch implementation of that
documented contract (tests/npu_reference.py, strict about it: it rejects what the kernel rejects).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch

from attnviz.attention.math import causal_keep, expand_kv_heads
from attnviz.errors import DeviceUnavailableError, InputError
from attnviz.model.devices import device_statuses

# Additive masks built by Transformers hold finfo.min (or -10000 in older BERT code) rather than -inf. Any bias this
# negative already gives exp(...) == 0 in float32, so it is treated as "masked out" — which also lets the kernel take
# it as a boolean atten_mask instead of an overflowing fp16 pse.
MASKED_BIAS_THRESHOLD = -1.0e4

# The compressed causal mask the npu kernel wants for sparse_mode 2 and 3, whatever the sequence lengths.
NPU_COMPRESSED_MASK_SIZE = 2048
NPU_SOFTMAX_STAT_WIDTH = 8  # softmax_max / softmax_sum come back as (B, N, Sq, 8)
NPU_SPARSE_DEFAULT, NPU_SPARSE_ALL, NPU_SPARSE_CAUSAL_TOP_LEFT, NPU_SPARSE_CAUSAL_BOTTOM_RIGHT = 0, 1, 2, 3
NPU_MAX_TOKENS = 2147483647  # default pre_tockens / next_tockens: no band

NpuKernel = Callable[..., tuple]


def kernel_for(device: torch.device) -> NpuKernel | None:
    """The fused kernel attention outputs go through on `device`: npu_fusion_attention on an NPU, else None (SDPA)."""
    if device.type != "npu":
        return None
    import torch_npu  # loaded already: the tensors live on an NPU

    return torch_npu.npu_fusion_attention


def npu_kernel() -> NpuKernel:
    """torch_npu.npu_fusion_attention, or a sentence saying why it cannot be used here."""
    status = next(entry for entry in device_statuses() if entry.name == "npu")
    if not status.available:
        raise DeviceUnavailableError("npu_kernel_unavailable", reason=status.reason)
    import torch_npu  # attnviz.model.devices has already imported it safely

    return torch_npu.npu_fusion_attention


# ----------------------------------------------------------------------------------------------------------------------
# The mask, as the kernel takes it


@dataclass(frozen=True)
class KernelMask:
    """One attention mask, split into what is forbidden and what is added.

    keep: bool, broadcastable to (B, N, Sq, Skv); True where attention is allowed; None = everything allowed.
    bias: float, broadcastable likewise, finite, 0 where `keep` is False; None = nothing added.
    causal: "top_left" / "bottom_right" when a causal triangle is folded into `keep`, else None.
    causal_only: True when `keep` is exactly that triangle (so the kernel may use its own causal mode instead).
    """

    keep: torch.Tensor | None = None
    bias: torch.Tensor | None = None
    causal: str | None = None
    causal_only: bool = False


def split_mask(
    attention_mask: torch.Tensor | None,
    q_len: int,
    k_len: int,
    *,
    is_causal: bool = False,
    causal_alignment: str = "top_left",
    device=None,
) -> KernelMask:
    """Normalise a boolean-keep or additive-float mask (plus an optional causal triangle) into a `KernelMask`."""
    keep = bias = None
    if attention_mask is not None:
        if attention_mask.shape[-2:] not in ((q_len, k_len), (1, k_len)) or attention_mask.dim() > 4:
            raise InputError("npu_mask_shape", shape=tuple(attention_mask.shape), queries=q_len, keys=k_len)
        if attention_mask.dtype == torch.bool:
            keep = attention_mask
        elif attention_mask.is_floating_point():
            masked = attention_mask <= MASKED_BIAS_THRESHOLD  # -inf, finfo.min and -10000 alike
            keep = ~masked if bool(masked.any()) else None
            finite = attention_mask.masked_fill(masked, 0.0)
            bias = finite if bool(finite.ne(0).any()) else None
        else:
            raise InputError("mask_dtype", dtype=str(attention_mask.dtype))
    if not is_causal:
        return KernelMask(keep=keep, bias=bias)
    triangle = causal_keep(q_len, k_len, causal_alignment, device=device)
    return KernelMask(
        keep=triangle if keep is None else keep & triangle,
        bias=bias,
        causal=causal_alignment,
        causal_only=keep is None and bias is None,
    )


def _check_bnsd(query: torch.Tensor, key: torch.Tensor, value: torch.Tensor) -> None:
    for name, tensor in {"query": query, "key": key, "value": value}.items():
        if tensor.dim() != 4:
            raise InputError("npu_not_bnsd", name=name, shape=tuple(tensor.shape))
    if query.shape[0] != key.shape[0] or query.shape[-1] != key.shape[-1]:
        raise InputError("npu_query_key_mismatch", query=tuple(query.shape), key=tuple(key.shape))
    if value.shape[:3] != key.shape[:3]:
        raise InputError("npu_key_value_mismatch", key=tuple(key.shape), value=tuple(value.shape))
    expand_kv_heads(key[..., :0, :], query.shape[1])  # validates the head ratio, costs nothing


def _mask_layout(mask: torch.Tensor, batch: int, heads: int, q_len: int, k_len: int) -> torch.Tensor:
    """Broadcast a mask to one of the kernel's atten_mask layouts: SS, B1SS or BNSS (never 1NSS or B11S)."""
    mask = mask.reshape((1,) * (4 - mask.dim()) + tuple(mask.shape))  # (b, n, sq, skv), each of b, n, sq maybe 1
    if mask.shape[0] == 1 and mask.shape[1] == 1:
        return mask[0, 0].expand(q_len, k_len)  # SS
    if mask.shape[1] == 1:
        return mask.expand(batch, 1, q_len, k_len)  # B1SS
    return mask.expand(batch, heads, q_len, k_len)  # BNSS


def kernel_arguments(parts: KernelMask, query: torch.Tensor, k_len: int, scaling: float) -> dict:
    """The keyword arguments of npu_fusion_attention for BNSD tensors and the mask `parts`."""
    batch, heads, q_len, _ = query.shape
    arguments = dict(
        head_num=heads,  # the query's N; key/value keep their own N_kv (GQA is native)
        input_layout="BNSD",
        scale=scaling,  # the kernel's default is 1.0, not 1/sqrt(d)
        keep_prob=1.0,
        pre_tockens=NPU_MAX_TOKENS,
        next_tockens=NPU_MAX_TOKENS,
        sparse_mode=NPU_SPARSE_DEFAULT,
    )
    if parts.causal_only:
        # The kernel's causal modes take the compressed 2048×2048 triangle whatever the lengths.
        size = NPU_COMPRESSED_MASK_SIZE
        arguments["atten_mask"] = torch.ones(size, size, dtype=torch.bool, device=query.device).triu(diagonal=1)
        top_left = parts.causal == "top_left"
        arguments["sparse_mode"] = NPU_SPARSE_CAUSAL_TOP_LEFT if top_left else NPU_SPARSE_CAUSAL_BOTTOM_RIGHT
    elif parts.keep is not None:
        masked_out = ~parts.keep  # the kernel's atten_mask is True where attention is forbidden
        arguments["atten_mask"] = _mask_layout(masked_out, batch, heads, q_len, k_len).contiguous()
    if parts.bias is not None:
        if scaling == 0:
            raise InputError("npu_bias_with_zero_scale")
        # The kernel adds pse before scaling: scale·(QKᵀ + pse) = scale·QKᵀ + bias when pse = bias / scale.
        pse = (parts.bias.float() / scaling).to(query.dtype)
        pse = pse.reshape((1,) * (4 - pse.dim()) + tuple(pse.shape))
        pse = pse.expand(pse.shape[0] if pse.shape[0] == 1 else batch, heads, q_len, k_len)  # 1NSS or BNSS
        arguments["pse"] = pse.contiguous()
    return arguments


# ----------------------------------------------------------------------------------------------------------------------
# The adapter


def lse_from_softmax_stats(softmax_max: torch.Tensor, softmax_sum: torch.Tensor) -> torch.Tensor:
    """(B, N, S, 8) npu softmax statistics -> float32 (B, N, S) log-sum-exp of each row: max + log(sum)."""
    row_max, row_sum = softmax_max[..., 0].float(), softmax_sum[..., 0].float()  # the 8 columns repeat one value
    return row_max + torch.log(row_sum)


def npu_attention(
    query: torch.Tensor,
    key: torch.Tensor,
    value: torch.Tensor,
    attention_mask: torch.Tensor | None = None,
    *,
    scaling: float | None = None,
    is_causal: bool = False,
    causal_alignment: str = "top_left",
    kernel: NpuKernel | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """softmax(Q·Kᵀ·scaling + mask)·V through npu_fusion_attention: (output BNSD in the query's dtype, float32 LSE
    (B, N, Sq)) — the LSE for `math.probabilities_from_lse`.

    query (B, N, Sq, D); key/value (B, N_kv, Skv, D) with N a multiple of N_kv. `attention_mask`: bool (True =
    attend) or additive float, broadcastable to (B, N, Sq, Skv); it may be combined with `is_causal`. `kernel`
    replaces ``torch_npu.npu_fusion_attention`` (tests pass the reference of its documented contract).
    """
    _check_bnsd(query, key, value)
    scaling = query.shape[-1] ** -0.5 if scaling is None else float(scaling)
    parts = split_mask(
        attention_mask,
        query.shape[-2],
        key.shape[-2],
        is_causal=is_causal,
        causal_alignment=causal_alignment,
        device=query.device,
    )
    arguments = kernel_arguments(parts, query, key.shape[-2], scaling)
    output, softmax_max, softmax_sum, *_ = (kernel or npu_kernel())(query, key, value, **arguments)
    lse = lse_from_softmax_stats(softmax_max, softmax_sum)
    if parts.keep is None:
        return output, lse
    has_key = parts.keep.any(dim=-1, keepdim=True)  # (..., Sq, 1): whatever a kernel does with a row of none
    return output.masked_fill(~has_key, 0.0), lse.masked_fill(~has_key[..., 0].expand_as(lse), float("-inf"))
