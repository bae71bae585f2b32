"""The fused kernels the atlas computes attention through, each handing out every row's log-sum-exp (LSE) beside the
output, and the exact fallback used where a kernel is missing or disagrees.

A route is one function, `attend(query, key, value, mask, is_causal, scale) -> (output, lse)`:
query (b, heads, q, d); key/value (b, kv_heads, k, d|dv) with kv_heads dividing heads (grouped queries: key head j
serves query heads j·g … j·g + g − 1); `mask` additive float, −inf where hidden, broadcastable to (b, heads, q, k), or
None; `is_causal` the kernel's own triangle, aligned top-left (query i sees keys 0 … i); output (b, heads, q, dv) in
the query's dtype, lse float32 (b, heads, q). A row that sees no key has output 0 (its LSE is not read).

- "cpu-flash": `aten._scaled_dot_product_flash_attention_for_cpu`, what SDPA itself runs on the CPU (the output is
  SDPA's bit for bit). Its value width must equal the head width, else torch falls back to a path that materialises
  n × n. GQA is native.
- "cuda-flash" (`aten._scaled_dot_product_flash_attention`, fp16/bf16, no mask) and "cuda-efficient"
  (`aten._scaled_dot_product_efficient_attention` with compute_log_sumexp, any mask; its LSE comes padded to a multiple
  of 32 rows). flex_attention's LSE is not used: its FLASH backend's was reported off by ln 2 (pytorch#181645).
- "npu-fusion": `torch_npu.npu_fusion_attention` through `attention.npu` (LSE = softmax max + log softmax sum).
- "chunked-eager": the eager definition (`attention.math`) in float32, a few query rows at a time: exact anywhere,
  O(rows · k) memory, slower.

No route is trusted blindly: `check_rows` compares a kernel's LSE and output on a few rows with float64 computed on the
CPU, and the recorder (`atlas.recorder`) uses the kernel only when they agree (`ROUTE_TOLERANCE`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch

from attnviz.attention import npu, tiles
from attnviz.attention.math import attention_scores, expand_kv_heads, probabilities_from_lse

Attend = Callable[..., tuple[torch.Tensor, torch.Tensor]]

# Largest |kernel − float64| accepted on the checked rows, per input dtype: (LSE, output / max |value|). float32 kernels
# land within ~5e-7 of float64 (measured); half precision rounds each score to ~3 significant digits.
ROUTE_TOLERANCE = {
    torch.float64: (1e-9, 1e-9),
    torch.float32: (2e-5, 2e-5),
    torch.bfloat16: (3e-2, 3e-2),
    torch.float16: (5e-3, 5e-3),
}
CHECK_ROWS = 8  # query rows compared with float64 when a route is first used
EFFICIENT_LSE_ROWS = 32  # the efficient kernel's LSE comes padded to a multiple of this many rows
EFFICIENT_MASK_ALIGNMENT = 16  # and wants its bias's last dimension padded to a multiple of this


@dataclass(frozen=True)
class Route:
    """One way to compute (output, LSE): a name the provenance records and the function."""

    name: str
    attend: Attend
    value_width_is_head_width: bool  # a value of any other width leaves the fused kernel (cpu-flash, npu-fusion)


# ----------------------------------------------------------------------------------------------------------------------
# The kernels


def cpu_flash(query, key, value, mask, is_causal, scale):
    """SDPA's own CPU kernel, which returns the LSE beside the output."""
    if mask is not None and mask.dtype != query.dtype:
        mask = mask.to(query.dtype)
    output, lse = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu(
        query, key, value, 0.0, is_causal, attn_mask=mask, scale=scale
    )
    return output, lse.float()


def cuda_flash(query, key, value, mask, is_causal, scale):
    """FlashAttention-2 through torch (fp16/bf16, no mask): keys and values repeated for grouped queries."""
    heads = query.shape[1]
    key, value = expand_kv_heads(key, heads), expand_kv_heads(value, heads)  # (b, heads, k, d)
    output, lse, *_ = torch.ops.aten._scaled_dot_product_flash_attention(
        query, key, value, 0.0, is_causal, False, scale=scale
    )
    return output, lse.float()


def cuda_efficient(query, key, value, mask, is_causal, scale):
    """The memory-efficient kernel with its LSE (rows padded to a multiple of 32, cut here); the mask expanded to
    every head and padded to the kernel's alignment, as SDPA's front end does."""
    heads = query.shape[1]
    key, value = expand_kv_heads(key, heads), expand_kv_heads(value, heads)  # (b, heads, k, d)
    bias = None
    if mask is not None:
        batch, _, queries, _ = query.shape
        keys = key.shape[2]
        bias = mask.to(query.dtype).expand(batch, heads, queries, keys)
        padded = -(-keys // EFFICIENT_MASK_ALIGNMENT) * EFFICIENT_MASK_ALIGNMENT
        if padded != keys or not bias.is_contiguous():
            room = torch.zeros(batch, heads, queries, padded, dtype=query.dtype, device=query.device)
            room[..., :keys] = bias
            bias = room[..., :keys]
    output, lse, *_ = torch.ops.aten._scaled_dot_product_efficient_attention(
        query, key, value, bias, True, 0.0, is_causal, scale=scale
    )
    return output, lse[..., : query.shape[2]].float()


def npu_fusion(query, key, value, mask, is_causal, scale):
    """torch_npu.npu_fusion_attention (`attention.npu`): LSE = softmax max + log softmax sum."""
    return npu.npu_attention(query, key, value, mask, scaling=scale, is_causal=is_causal)


def chunked_eager(query, key, value, mask, is_causal, scale):
    """The eager definition in float32 (float64 stays float64), a tile of query rows at a time: exact anywhere."""
    batch, heads, queries, _ = query.shape
    keys = key.shape[2]
    key, value = expand_kv_heads(key, heads), expand_kv_heads(value, heads)  # (b, heads, k, d|dv)
    precise = torch.float64 if query.dtype == torch.float64 else torch.float32
    output = query.new_zeros(batch, heads, queries, value.shape[-1])
    lse = torch.empty(batch, heads, queries, dtype=torch.float32, device=query.device)
    for first, last in tiles.spans(0, queries, tiles.tile_rows(batch * heads * keys)):
        rows = None if mask is None else _mask_rows(mask, first, last)
        if is_causal:
            hidden = (
                torch.arange(keys, device=query.device)[None, :]
                > torch.arange(first, last, device=query.device)[:, None]
            )  # (rows, keys): the kernel's top-left triangle
            triangle = torch.zeros(hidden.shape, dtype=precise, device=query.device).masked_fill_(hidden, float("-inf"))
            rows = triangle if rows is None else rows + triangle
        scores = attention_scores(query[:, :, first:last].to(precise), key.to(precise), rows, scale)  # (b, h, r, k)
        row_lse = torch.logsumexp(scores, dim=-1)  # (b, h, r); −inf for a row that sees no key
        weights = probabilities_from_lse(scores, row_lse).to(precise)
        output[:, :, first:last] = (weights @ value.to(precise)).to(query.dtype)
        lse[:, :, first:last] = row_lse.float()
    return output, lse


def _mask_rows(mask: torch.Tensor, first: int, last: int) -> torch.Tensor:
    return mask[..., first:last, :] if mask.shape[-2] > 1 else mask


CPU_FLASH = Route("cpu-flash", cpu_flash, True)
CUDA_FLASH = Route("cuda-flash", cuda_flash, False)
CUDA_EFFICIENT = Route("cuda-efficient", cuda_efficient, False)
NPU_FUSION = Route("npu-fusion", npu_fusion, True)
CHUNKED_EAGER = Route("chunked-eager", chunked_eager, False)
ROUTES = {route.name: route for route in (CPU_FLASH, CUDA_FLASH, CUDA_EFFICIENT, NPU_FUSION, CHUNKED_EAGER)}


def route_for(query: torch.Tensor, masked: bool) -> Route:
    """The fused route for tensors like `query` on its device (`masked`: whether a mask comes with the call)."""
    device = query.device.type
    if device == "cpu":
        return CPU_FLASH
    if device == "cuda":
        half = query.dtype in (torch.float16, torch.bfloat16)
        return CUDA_FLASH if half and not masked and query.shape[-1] <= 256 else CUDA_EFFICIENT
    if device == "npu":
        return NPU_FUSION
    return CHUNKED_EAGER


# ----------------------------------------------------------------------------------------------------------------------
# The check at first use


@dataclass(frozen=True)
class RowCheck:
    """How far a route's LSE and output are from float64 on the checked rows, and whether that is within tolerance."""

    lse_error: float
    output_error: float
    tolerance: tuple[float, float]
    rows: tuple[int, ...]

    @property
    def agrees(self) -> bool:
        lse_tolerance, output_tolerance = self.tolerance
        return self.lse_error <= lse_tolerance and self.output_error <= output_tolerance

    def record(self) -> dict:
        return {
            "lse_error": self.lse_error,
            "output_error": self.output_error,
            "tolerance": list(self.tolerance),
            "rows": list(self.rows),
        }


def check_rows(query, key, value, mask, is_causal, scale, output, lse) -> RowCheck:
    """Compare a route's `output` (b, heads, q, dv) and `lse` (b, heads, q) on CHECK_ROWS query rows with the same
    rows computed in float64 on the CPU. A row that sees no key must have output 0 (its LSE is not compared); a NaN
    anywhere counts as infinitely far."""
    queries = query.shape[2]
    rows = sorted({round(i * (queries - 1) / max(CHECK_ROWS - 1, 1)) for i in range(CHECK_ROWS)})
    reference_lse, reference_output = float64_rows(query, key, value, mask, is_causal, scale, rows)
    got_lse = lse[:, :, rows].double().cpu()
    got_output = output[:, :, rows].double().cpu()
    seen = torch.isfinite(reference_lse)  # rows that see at least one key
    lse_gap = (got_lse - reference_lse).abs().masked_fill(~seen, 0.0)
    value_size = max(1.0, float(value.abs().max()))
    output_gap = (got_output - reference_output).abs() / value_size
    tolerance = ROUTE_TOLERANCE.get(query.dtype, ROUTE_TOLERANCE[torch.float32])
    return RowCheck(_largest(lse_gap), _largest(output_gap), tolerance, tuple(rows))


def _largest(gap: torch.Tensor) -> float:
    return float("inf") if bool(torch.isnan(gap).any()) else float(gap.max()) if gap.numel() else 0.0


def float64_rows(query, key, value, mask, is_causal, scale, rows: list[int]) -> tuple[torch.Tensor, torch.Tensor]:
    """(lse (b, heads, rows), output (b, heads, rows, dv)) of query `rows`, in float64 on the CPU: the reference every
    route is checked against. A row that sees no key has LSE −inf and output 0."""
    heads, keys = query.shape[1], key.shape[2]
    picked = torch.tensor(rows)
    query = query.detach().cpu().double()[:, :, picked]  # (b, heads, rows, d)
    key = expand_kv_heads(key.detach().cpu().double(), heads)  # (b, heads, k, d)
    value = expand_kv_heads(value.detach().cpu().double(), heads)
    scores = query @ key.transpose(-1, -2) * scale  # (b, heads, rows, k)
    if mask is not None:
        part = mask.detach().cpu().double()
        scores = scores + (part[..., picked, :] if part.shape[-2] > 1 else part)
    if is_causal:
        scores = scores.masked_fill(torch.arange(keys)[None, :] > picked[:, None], float("-inf"))
    lse = torch.logsumexp(scores, dim=-1)
    weights = torch.exp(scores - lse.masked_fill(torch.isneginf(lse), 0.0).unsqueeze(-1))
    return lse, weights @ value
