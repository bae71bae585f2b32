"""Exact attention probabilities for the captured heads, and one adapter for the fused kernels used for the rest.

Two jobs, kept apart on purpose:

* `probabilities_exact` computes what attnviz shows: softmax(Q·Kᵀ·scale + mask) in float32 on the tensors' own device,
  whatever dtype the model runs in (`dtype_policy` says which dtypes a device may run in).
* `fused_attention` computes attention *outputs* for layers and heads nobody looks at, through one signature whatever
  the backend: ``"sdpa"`` (torch's scaled_dot_product_attention), ``"npu"`` (``torch_npu.npu_fusion_attention``),
  ``"reference"`` (eager float32 math), or ``"auto"`` (npu for tensors on an NPU, sdpa otherwise). With
  ``return_lse=True`` it also returns the log-sum-exp of each row, from which `lse_probabilities` rebuilds the exact
  probabilities without the kernel ever materialising them.

Conventions of this module (those of torch's SDPA): tensors are BNSD — (batch, heads, seq, head_dim); key and value
may have fewer heads than the query (grouped-query attention, query head h reads key/value head h // (N / N_kv));
a boolean mask is True where attention is *allowed*; a float mask is added to the scaled scores; ``scale`` defaults to
1/√head_dim; ``is_causal`` aligns the triangle to the top-left corner unless ``causal_alignment="bottom_right"``.
A query row that may attend to no key at all gets probabilities and output exactly 0.

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

None of this has run on Ascend hardware yet: the glue is tested on CPU against `npu_fusion_attention_reference`, a
pure-torch implementation of that documented contract (and strict about it: it rejects what the kernel rejects).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch
import torch.nn.functional as F

from attnviz.errors import DeviceUnavailableError, InputError

BACKENDS = ("auto", "sdpa", "npu", "reference")
CAUSAL_ALIGNMENTS = ("top_left", "bottom_right")

# Additive masks built by Transformers hold finfo.min (or -10000 in older BERT code) rather than -inf. Any bias this
# negative already gives exp(...) == 0 in float32, so it is treated as "masked out" — which also lets the npu backend
# express it as a boolean atten_mask instead of an overflowing fp16 pse.
MASKED_BIAS_THRESHOLD = -1.0e4

# The compressed causal mask the npu kernel wants for sparse_mode 2 and 3, whatever the sequence lengths.
NPU_COMPRESSED_MASK_SIZE = 2048
NPU_SOFTMAX_STAT_WIDTH = 8  # softmax_max / softmax_sum come back as (B, N, Sq, 8)
NPU_SPARSE_DEFAULT, NPU_SPARSE_ALL, NPU_SPARSE_CAUSAL_TOP_LEFT, NPU_SPARSE_CAUSAL_BOTTOM_RIGHT = 0, 1, 2, 3
NPU_MAX_TOKENS = 2147483647  # default pre_tockens / next_tockens: no band

_DTYPE_NAMES = {
    "float32": torch.float32, "fp32": torch.float32, "float": torch.float32,
    "float16": torch.float16, "fp16": torch.float16, "half": torch.float16,
    "bfloat16": torch.bfloat16, "bf16": torch.bfloat16,
}
_ALLOWED_DTYPES = {
    "cpu": (torch.float32,),
    "mps": (torch.float32, torch.float16),
    "cuda": (torch.float32, torch.float16, torch.bfloat16),
    "npu": (torch.float32, torch.float16, torch.bfloat16),
}


# --------------------------------------------------------------------------------------------------- dtype policy


def dtype_policy(device: str | torch.device, requested: str | torch.dtype | None = None) -> torch.dtype:
    """The dtype a model may run in on `device`: float32 unless a half type is asked for where it is allowed.

    float16 / bfloat16 are allowed on npu and cuda (float16 on mps); the CPU runs float32 only, because half precision
    there is slow and would make the "exact" weights inexact for no gain. Whatever this returns, captured weights are
    computed in float32 by `probabilities_exact`.
    """
    kind = device.type if isinstance(device, torch.device) else str(device).split(":")[0].strip().lower()
    allowed = _ALLOWED_DTYPES.get(kind)
    if allowed is None:
        raise InputError(f"No dtype policy for device {str(device)!r}; use cpu, cuda, mps or npu.")
    if requested is None:
        return torch.float32
    if isinstance(requested, str):
        dtype = _DTYPE_NAMES.get(requested.strip().lower())
        if dtype is None:
            raise InputError(f"Unknown dtype {requested!r}; use float32, float16 or bfloat16.")
    else:
        dtype = requested
    if dtype not in allowed:
        names = ", ".join(str(d).removeprefix("torch.") for d in allowed)
        raise InputError(
            f"{str(dtype).removeprefix('torch.')} is not allowed on {kind}; use {names} there "
            f"(half precision is for npu and cuda)."
        )
    return dtype


# --------------------------------------------------------------------------------------------- masks and heads


@dataclass(frozen=True)
class MaskParts:
    """One attention mask, split into what is forbidden and what is added.

    keep: bool, broadcastable to (B, N, Sq, Skv); True where attention is allowed; None = everything allowed.
    bias: float, broadcastable likewise, finite, 0 where `keep` is False; None = nothing added.
    causal: "top_left" / "bottom_right" when a causal triangle is folded into `keep`, else None.
    causal_only: True when `keep` is exactly that triangle (so a kernel may use its own causal mode instead).
    """

    keep: torch.Tensor | None = None
    bias: torch.Tensor | None = None
    causal: str | None = None
    causal_only: bool = False


def causal_keep(q_len: int, k_len: int, alignment: str = "top_left", device=None) -> torch.Tensor:
    """(q_len, k_len) bool, True on and below the diagonal: from the top-left corner, or from the bottom-right one."""
    if alignment not in CAUSAL_ALIGNMENTS:
        raise InputError(f"Unknown causal alignment {alignment!r}; use 'top_left' or 'bottom_right'.")
    offset = 0 if alignment == "top_left" else k_len - q_len
    return torch.ones(q_len, k_len, dtype=torch.bool, device=device).tril(diagonal=offset)


def split_mask(
    attention_mask: torch.Tensor | None,
    q_len: int,
    k_len: int,
    *,
    is_causal: bool = False,
    causal_alignment: str = "top_left",
    device=None,
) -> MaskParts:
    """Normalise a boolean-keep or additive-float mask (plus an optional causal triangle) into `MaskParts`."""
    keep = bias = None
    if attention_mask is not None:
        if attention_mask.shape[-2:] not in ((q_len, k_len), (1, k_len)) or attention_mask.dim() > 4:
            raise InputError(
                f"The attention mask has shape {tuple(attention_mask.shape)}; it must end in ({q_len}, {k_len}) or "
                f"(1, {k_len}) and broadcast to (batch, heads, {q_len}, {k_len})."
            )
        if attention_mask.dtype == torch.bool:
            keep = attention_mask
        elif attention_mask.is_floating_point():
            masked = attention_mask <= MASKED_BIAS_THRESHOLD  # -inf, finfo.min and -10000 alike
            keep = ~masked if bool(masked.any()) else None
            finite = attention_mask.masked_fill(masked, 0.0)
            bias = finite if bool(finite.ne(0).any()) else None
        else:
            raise InputError(
                f"The attention mask has dtype {attention_mask.dtype}; pass a bool mask (True = attend) or a float "
                f"mask added to the scores."
            )
    if not is_causal:
        return MaskParts(keep=keep, bias=bias)
    triangle = causal_keep(q_len, k_len, causal_alignment, device=device)
    return MaskParts(
        keep=triangle if keep is None else keep & triangle,
        bias=bias,
        causal=causal_alignment,
        causal_only=keep is None and bias is None,
    )


def expand_kv_heads(tensor: torch.Tensor, num_heads: int) -> torch.Tensor:
    """(..., N_kv, S, D) -> (..., N, S, D): key/value head j serves query heads j·g … j·g + g − 1 (g = N / N_kv)."""
    kv_heads = tensor.shape[-3]
    if kv_heads == num_heads:
        return tensor
    if kv_heads == 0 or num_heads % kv_heads:
        raise InputError(
            f"The query has {num_heads} heads and key/value {kv_heads}; the query's head count must be a multiple "
            f"of the key/value head count (grouped-query attention)."
        )
    return tensor.repeat_interleave(num_heads // kv_heads, dim=-3)  # (..., N, S, D)


def apply_mask(scaled_scores: torch.Tensor, parts: MaskParts) -> torch.Tensor:
    """Add the bias and put -inf where attention is forbidden."""
    if parts.bias is not None:
        scaled_scores = scaled_scores + parts.bias.to(scaled_scores.dtype)
    if parts.keep is not None:
        scaled_scores = scaled_scores.masked_fill(~parts.keep, float("-inf"))
    return scaled_scores


def softmax_rows(masked_scores: torch.Tensor) -> torch.Tensor:
    """Row softmax in float32 where rows with no allowed key become all 0 instead of NaN."""
    scores = masked_scores.float()
    probabilities = torch.softmax(scores, dim=-1)
    return probabilities.nan_to_num(nan=0.0)  # a row of -inf gives NaN: it attended to nothing


def _default_scale(head_dim: int, scale: float | None) -> float:
    return 1.0 / math.sqrt(head_dim) if scale is None else float(scale)


def _check_bnsd(query: torch.Tensor, key: torch.Tensor, value: torch.Tensor | None = None) -> None:
    tensors = {"query": query, "key": key} | ({} if value is None else {"value": value})
    for name, tensor in tensors.items():
        if tensor.dim() != 4:
            raise InputError(
                f"{name} has shape {tuple(tensor.shape)}; pass 4-d tensors laid out (batch, heads, seq, head_dim)."
            )
    if query.shape[0] != key.shape[0] or query.shape[-1] != key.shape[-1]:
        raise InputError(
            f"query {tuple(query.shape)} and key {tuple(key.shape)} must share batch size and head_dim."
        )
    if value is not None and value.shape[:3] != key.shape[:3]:
        raise InputError(f"key {tuple(key.shape)} and value {tuple(value.shape)} must share batch, heads and length.")
    expand_kv_heads(key[..., :0, :], query.shape[1])  # validates the head ratio, costs nothing


# -------------------------------------------------------------------------------------- exact probabilities


def probabilities_exact(
    query: torch.Tensor,
    key: torch.Tensor,
    mask: torch.Tensor | None = None,
    scale: float | None = None,
    heads: Sequence[int] | None = None,
    *,
    is_causal: bool = False,
    causal_alignment: str = "top_left",
) -> torch.Tensor:
    """softmax(Q·Kᵀ·scale + mask) in float32 on the tensors' device, for all heads or only `heads`.

    query (B, N, Sq, D), key (B, N_kv, Skv, D) in any dtype; mask bool (True = attend) or additive float,
    broadcastable to (B, N, Sq, Skv). Returns float32 (B, len(heads) or N, Sq, Skv); rows sum to 1, masked cells
    are exactly 0, and rows with nothing to attend to are all 0.
    """
    _check_bnsd(query, key)
    num_heads = query.shape[1]
    scale = _default_scale(query.shape[-1], scale)
    parts = split_mask(
        mask, query.shape[-2], key.shape[-2], is_causal=is_causal, causal_alignment=causal_alignment,
        device=query.device,
    )
    key = expand_kv_heads(key, num_heads)
    if heads is not None:
        index = _head_index(heads, num_heads, query.device)
        query, key = query.index_select(1, index), key.index_select(1, index)  # (B, H, S, D)
        parts = MaskParts(
            keep=_select_heads(parts.keep, index), bias=_select_heads(parts.bias, index), causal=parts.causal
        )
    scores = query.float() @ key.float().transpose(-1, -2)  # (B, H, Sq, Skv)
    return softmax_rows(apply_mask(scores * scale, parts))


def _head_index(heads: Sequence[int], num_heads: int, device) -> torch.Tensor:
    heads = list(heads)
    bad = [h for h in heads if not 0 <= int(h) < num_heads]
    if bad or not heads:
        raise InputError(f"Heads {bad or heads} do not exist; this layer has heads 0 to {num_heads - 1}.")
    return torch.tensor(heads, dtype=torch.long, device=device)


def _select_heads(mask: torch.Tensor | None, index: torch.Tensor) -> torch.Tensor | None:
    """Pick heads from a mask that may be broadcast over heads (dim -3 of size 1) or not 4-d at all."""
    if mask is None or mask.dim() < 3 or mask.shape[-3] == 1:
        return mask
    return mask.index_select(-3, index.to(mask.device))


# ---------------------------------------------------------------------------------------------- LSE rebuild


def lse_from_softmax_stats(softmax_max: torch.Tensor, softmax_sum: torch.Tensor) -> torch.Tensor:
    """(B, N, S, 8) npu softmax statistics -> float32 (B, N, S) log-sum-exp of each row: max + log(sum)."""
    row_max, row_sum = softmax_max[..., 0].float(), softmax_sum[..., 0].float()  # the 8 columns repeat one value
    return row_max + torch.log(row_sum)


def lse_probabilities(
    query: torch.Tensor,
    key: torch.Tensor,
    lse: torch.Tensor | tuple[torch.Tensor, torch.Tensor],
    *,
    scale: float | None = None,
    attention_mask: torch.Tensor | None = None,
    is_causal: bool = False,
    causal_alignment: str = "top_left",
) -> torch.Tensor:
    """Rebuild exact probabilities p = exp(Q·Kᵀ·scale + mask − LSE) from a fused kernel's row statistics.

    `lse` is float (B, N, Sq) — from `fused_attention(..., return_lse=True)` — or the pair (softmax_max, softmax_sum)
    that npu_fusion_attention returns. Same mask and scale conventions as `fused_attention`; returns float32
    (B, N, Sq, Skv).
    """
    if isinstance(lse, tuple):
        lse = lse_from_softmax_stats(*lse)
    _check_bnsd(query, key)
    if lse.shape != query.shape[:3]:
        raise InputError(
            f"The log-sum-exp has shape {tuple(lse.shape)}; it must be (batch, heads, queries) = "
            f"{tuple(query.shape[:3])}."
        )
    parts = split_mask(
        attention_mask, query.shape[-2], key.shape[-2], is_causal=is_causal, causal_alignment=causal_alignment,
        device=query.device,
    )
    key = expand_kv_heads(key, query.shape[1])
    scores = apply_mask((query.float() @ key.float().transpose(-1, -2)) * _default_scale(query.shape[-1], scale), parts)
    finite_lse = lse.float().masked_fill(torch.isneginf(lse), 0.0)  # rows that attend to nothing: exp(-inf) = 0
    return torch.exp(scores - finite_lse.unsqueeze(-1))  # (B, N, Sq, Skv)


# ------------------------------------------------------------------------------------------ fused attention

NpuKernel = Callable[..., tuple]


def fused_attention(
    query: torch.Tensor,
    key: torch.Tensor,
    value: torch.Tensor,
    *,
    attention_mask: torch.Tensor | None = None,
    scale: float | None = None,
    is_causal: bool = False,
    causal_alignment: str = "top_left",
    backend: str = "auto",
    return_lse: bool = False,
    npu_kernel: NpuKernel | None = None,
) -> torch.Tensor | tuple[torch.Tensor, torch.Tensor]:
    """Attention output softmax(Q·Kᵀ·scale + mask)·V through the backend asked for; BNSD in, BNSD out.

    query (B, N, Sq, D); key/value (B, N_kv, Skv, D) with N a multiple of N_kv. `attention_mask`: bool (True = attend)
    or additive float, broadcastable to (B, N, Sq, Skv); it may be combined with `is_causal`. Returns the output in
    the query's dtype, or (output, lse) with lse float32 (B, N, Sq) when `return_lse` — feed it to
    `lse_probabilities`. `npu_kernel` replaces ``torch_npu.npu_fusion_attention`` for the "npu" backend (tests inject
    `npu_fusion_attention_reference` there).
    """
    if backend not in BACKENDS:
        raise InputError(f"Unknown attention backend {backend!r}; use one of {', '.join(BACKENDS)}.")
    _check_bnsd(query, key, value)
    scale = _default_scale(query.shape[-1], scale)
    parts = split_mask(
        attention_mask, query.shape[-2], key.shape[-2], is_causal=is_causal, causal_alignment=causal_alignment,
        device=query.device,
    )
    if backend == "auto":
        backend = "npu" if query.device.type == "npu" else "sdpa"
    if backend == "npu":
        output, lse = _npu_attention(query, key, value, parts, scale, npu_kernel or _real_npu_kernel())
    elif backend == "sdpa":
        output, lse = _sdpa_attention(query, key, value, parts, scale, return_lse)
    else:
        output, lse = _reference_attention(query, key, value, parts, scale)
    output = _zero_rows_without_keys(output, parts.keep)
    return (output, lse) if return_lse else output


def _zero_rows_without_keys(output: torch.Tensor, keep: torch.Tensor | None) -> torch.Tensor:
    """A query with no key to attend to gets output 0, whatever a kernel does with such a row."""
    if keep is None:
        return output
    has_key = keep.any(dim=-1, keepdim=True)  # (..., Sq, 1)
    return output.masked_fill(~has_key, 0.0)


def _row_lse(query, key, parts: MaskParts, scale: float) -> torch.Tensor:
    key = expand_kv_heads(key, query.shape[1])
    scores = apply_mask((query.float() @ key.float().transpose(-1, -2)) * scale, parts)
    return torch.logsumexp(scores, dim=-1)  # (B, N, Sq); -inf for rows with no key


def _reference_attention(query, key, value, parts: MaskParts, scale: float):
    key, value = expand_kv_heads(key, query.shape[1]), expand_kv_heads(value, query.shape[1])
    scores = apply_mask((query.float() @ key.float().transpose(-1, -2)) * scale, parts)  # (B, N, Sq, Skv)
    output = softmax_rows(scores) @ value.float()  # (B, N, Sq, D)
    return output.to(query.dtype), torch.logsumexp(scores, dim=-1)


def _sdpa_attention(query, key, value, parts: MaskParts, scale: float, return_lse: bool):
    grouped = key.shape[1] != query.shape[1]
    if parts.causal_only and parts.causal == "top_left":
        mask, causal = None, True  # SDPA's own causal path is top-left aligned
    elif parts.bias is None:
        mask, causal = parts.keep, False
    else:
        bias = parts.bias.to(query.dtype)
        mask = bias if parts.keep is None else torch.where(parts.keep, bias, float("-inf"))
        causal = False
    output = F.scaled_dot_product_attention(
        query, key, value, attn_mask=mask, is_causal=causal, scale=scale, enable_gqa=grouped
    )
    # SDPA does not hand out its log-sum-exp, so it is computed here eagerly when asked for.
    lse = _row_lse(query, key, parts, scale) if return_lse else None
    return output, lse


# ----------------------------------------------------------------------------------------------- npu backend


def _real_npu_kernel() -> NpuKernel:
    """torch_npu.npu_fusion_attention, or a sentence saying why it cannot be used here."""
    from attnviz.devices import device_statuses

    status = next(entry for entry in device_statuses() if entry.name == "npu")
    if not status.available:
        raise DeviceUnavailableError(
            f"The npu attention backend needs torch_npu and an Ascend NPU: {status.reason} "
            f"Use backend='sdpa' or 'reference' instead."
        )
    import torch_npu  # attnviz.devices has already imported it safely

    return torch_npu.npu_fusion_attention


def _npu_mask_layout(mask: torch.Tensor, batch: int, heads: int, q_len: int, k_len: int) -> torch.Tensor:
    """Broadcast a mask to one of the kernel's atten_mask layouts: SS, B1SS or BNSS (never 1NSS or B11S)."""
    mask = mask.reshape((1,) * (4 - mask.dim()) + tuple(mask.shape))  # (b, n, sq, skv), each of b, n, sq maybe 1
    if mask.shape[0] == 1 and mask.shape[1] == 1:
        return mask[0, 0].expand(q_len, k_len)  # SS
    if mask.shape[1] == 1:
        return mask.expand(batch, 1, q_len, k_len)  # B1SS
    return mask.expand(batch, heads, q_len, k_len)  # BNSS


def _npu_attention(query, key, value, parts: MaskParts, scale: float, kernel: NpuKernel):
    """Translate to npu_fusion_attention's conventions, call `kernel`, and translate its results back."""
    batch, heads, q_len, _ = query.shape
    k_len = key.shape[2]
    arguments = dict(
        head_num=heads,  # the query's N; key/value keep their own N_kv (GQA is native)
        input_layout="BNSD",
        scale=scale,  # the kernel's default is 1.0, not 1/sqrt(d)
        keep_prob=1.0,
        pre_tockens=NPU_MAX_TOKENS,
        next_tockens=NPU_MAX_TOKENS,
        sparse_mode=NPU_SPARSE_DEFAULT,
    )
    if parts.causal_only:
        # The kernel's causal modes take the compressed 2048×2048 triangle whatever the lengths.
        arguments["atten_mask"] = torch.ones(
            NPU_COMPRESSED_MASK_SIZE, NPU_COMPRESSED_MASK_SIZE, dtype=torch.bool, device=query.device
        ).triu(diagonal=1)
        arguments["sparse_mode"] = (
            NPU_SPARSE_CAUSAL_TOP_LEFT if parts.causal == "top_left" else NPU_SPARSE_CAUSAL_BOTTOM_RIGHT
        )
    elif parts.keep is not None:
        masked_out = ~parts.keep  # the kernel's atten_mask is True where attention is forbidden
        arguments["atten_mask"] = _npu_mask_layout(masked_out, batch, heads, q_len, k_len).contiguous()
    if parts.bias is not None:
        if scale == 0:
            raise InputError("A float attention bias cannot be passed to the npu kernel with scale 0; use scale > 0.")
        # The kernel adds pse before scaling: scale·(QKᵀ + pse) = scale·QKᵀ + bias when pse = bias / scale.
        pse = (parts.bias.float() / scale).to(query.dtype)
        pse = pse.reshape((1,) * (4 - pse.dim()) + tuple(pse.shape))
        pse = pse.expand(pse.shape[0] if pse.shape[0] == 1 else batch, heads, q_len, k_len)  # 1NSS or BNSS
        arguments["pse"] = pse.contiguous()
    output, softmax_max, softmax_sum, *_ = kernel(query, key, value, **arguments)
    lse = lse_from_softmax_stats(softmax_max, softmax_sum)
    if parts.keep is not None:
        has_key = parts.keep.any(dim=-1)  # (..., Sq)
        lse = lse.masked_fill(~has_key.expand_as(lse), float("-inf"))
    return output, lse


# ------------------------------------------------------------------------------ reference of the npu kernel

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
        raise ValueError(f"query, key and value must share one of {supported}; got {query.dtype}, {key.dtype}, "
                         f"{value.dtype}.")
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
