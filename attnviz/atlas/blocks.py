"""Exact attention of one example from its queries, keys and row log-sum-exps: every head's block masses in one extra
fused pass, the sink columns, and any window.

Block masses. With V the one-hot indicators of key buckets (key j → bucket ⌊j / block⌋), attention's output for row i
is its weight per bucket: Σ_{j ∈ bucket} a_ij. A fused kernel computes that without materialising a single weight.
The value width must equal the head width on the CPU (else torch leaves the fused kernel for a path that materialises
n × n), so the buckets go `head width` at a time, and each call is given only the keys of its buckets: the kernel then
normalises over those keys alone and returns their own LSE, and exp(LSE_keys − LSE_row) ≤ 1 turns its output into
the row's true weights. Under a causal mask the rows before the first key of the call are left out (they see none of
it), so the pass costs what one causal attention pass costs. Rows are summed per query block.

`blocks[h, I, J]` = (1 / |I|) · Σ_{i ∈ I} Σ_{j ∈ J} a_ij: the mean share of a query of block I's attention that goes
to key block J (each block row sums to 1, less the rows that see no key).

Windows: any block of weights is exp(s · q kᵀ + mask − LSE), exact, computed from the queries, keys and LSE alone.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import torch

from attnviz.atlas.visibility import Visibility
from attnviz.attention.math import attention_scores, probabilities_from_lse
from attnviz.maps.atlas import block_sizes

Attend = Callable[..., tuple[torch.Tensor, torch.Tensor]]  # `routes` signature, checked (`RouteBook.attend`)


def exact_dtype(dtype: torch.dtype) -> torch.dtype:
    """The dtype exact weights are computed in from queries and keys of `dtype`: float32 (float64 stays float64).
    Half-precision queries and keys turn into float32 exactly, so the scores are the kernel's own."""
    return torch.float64 if dtype == torch.float64 else torch.float32


def block_masses(
    attend: Attend,
    query: torch.Tensor,
    key: torch.Tensor,
    lse: torch.Tensor,
    visibility: Visibility,
    scale: float,
    block: int,
) -> torch.Tensor:
    """float32 (heads, query blocks, key blocks) block masses (module docstring) of one example: query (1, heads, q, d),
    key (1, kv_heads, k, d), lse (1, heads, q) (−inf for a row that sees no key)."""
    _, heads, queries, width = query.shape
    keys = key.shape[2]
    dtype = exact_dtype(query.dtype)
    query, key = query.to(dtype), key.to(dtype)
    sums = torch.zeros(heads, -(-queries // block), -(-keys // block), dtype=dtype, device=query.device)
    span = width * block  # keys per call: `width` buckets of `block` keys
    for k0 in range(0, keys, span):
        k1 = min(k0 + span, keys)
        buckets = -(-(k1 - k0) // block)
        indicators = torch.nn.functional.one_hot(torch.arange(k1 - k0, device=query.device) // block, width)
        value = indicators.to(dtype).expand(1, key.shape[1], k1 - k0, width)  # (1, kv_heads, keys', width)
        for r0, r1, mask, causal in visibility.pieces(queries, (k0, k1), dtype, query.device):
            output, part_lse = attend(query[:, :, r0:r1], key[:, :, k0:k1], value, mask, causal, scale)
            # these keys' share of each row's whole softmax; a row that sees none of them has output 0
            share = torch.exp(part_lse.to(dtype) - lse[:, :, r0:r1].to(dtype)).nan_to_num_(0.0).clamp_(max=1.0)
            weights = output[0, :, :, :buckets] * share[0, :, :, None]  # (heads, rows, buckets)
            _add_rows(sums[:, :, k0 // block : k0 // block + buckets], weights.nan_to_num_(0.0), r0, block)
    rows = torch.from_numpy(block_sizes(queries, block)).to(dtype=dtype, device=query.device)  # (query blocks,)
    return (sums / rows[None, :, None]).float()


def _add_rows(into: torch.Tensor, weights: torch.Tensor, first_row: int, block: int) -> None:
    """Add the rows of `weights` (heads, rows, buckets), from query `first_row` (a block boundary) on, to their query
    blocks in `into` (heads, query blocks, buckets)."""
    heads, rows, buckets = weights.shape
    padding = -rows % block
    if padding:
        weights = torch.nn.functional.pad(weights, (0, 0, 0, padding))
    per_block = weights.reshape(heads, -1, block, buckets).sum(dim=2)  # (heads, row blocks, buckets)
    start = first_row // block
    into[:, start : start + per_block.shape[1]] += per_block


def sink_shares(
    query: torch.Tensor, key: torch.Tensor, lse: torch.Tensor, visibility: Visibility, scale: float, sink: int
) -> torch.Tensor:
    """float32 (heads, q): each query row's weight on the first `sink` keys, Σ_{j < sink} a_ij, exactly (one example:
    query (1, heads, q, d), key (1, kv_heads, k, d), lse (1, heads, q))."""
    sink = min(sink, key.shape[2])
    return window(query, key, lse, visibility, scale, range(query.shape[1]), (0, query.shape[2]), (0, sink)).sum(-1)


def window(
    query: torch.Tensor,
    key: torch.Tensor,
    lse: torch.Tensor,
    visibility: Visibility,
    scale: float,
    heads: Sequence[int],
    rows: tuple[int, int],
    keys: tuple[int, int],
) -> torch.Tensor:
    """float32 (len(heads), rows, keys): the exact weights exp(s · q kᵀ + mask − LSE) of query rows `rows` = (r0, r1)
    × key columns `keys` = (k0, k1) of `heads`, from one example's query (1, heads, q, d), key (1, kv_heads, k, d) and
    lse (1, heads, q). Costs O(rows · keys · d) per head."""
    heads = list(heads)
    (r0, r1), (k0, k1) = rows, keys
    group = query.shape[1] // key.shape[1]  # query heads per key head (grouped queries)
    dtype = exact_dtype(query.dtype)
    picked_query = query[0, heads, r0:r1].to(dtype)[None]  # (1, heads', rows, d)
    picked_key = key[0, [h // group for h in heads], k0:k1].to(dtype)[None]  # (1, heads', keys, d)
    mask = visibility.mask(rows, keys, dtype, query.device)
    if mask is not None and mask.shape[1] > 1:
        mask = mask[:, heads]
    scores = attention_scores(picked_query, picked_key, mask, scale)  # (1, heads', rows, keys)
    return probabilities_from_lse(scores, lse[:, heads, r0:r1])[0]
