"""What is computed from captured attention before it is drawn: numpy in, numpy (or AttentionMap) out.

- `aggregate`: one head, the mean or max over heads, over a chosen set of layers -> a (queries, keys) matrix.
- `crop`: a query/key range of a map, for exact values of a part of a large map; `downsample`: block pooling.
- `hide_tokens`: drop special tokens and sinks, with or without renormalising rows.
- `value_weighted`: weights scaled by each key's value norm (Kobayashi et al. 2020); `key_value_norms` for a bar.
- `rollout`: attention rollout (Abnar & Zuidema 2020) with the residual term.

Words are `attnviz.maps.word_merge`; head statistics and roles `attnviz.maps.head_stats`. Nothing here imports
torch: every input is an `AttentionMap` (float32, [layers, heads, queries, keys]) or plain arrays.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from attnviz.errors import InputError
from attnviz.indexing import axis_phrase, indices, is_index
from attnviz.types import AttentionMap

REDUCTIONS = ("mean", "max")
# How weights become colours across heads (`attnviz.figures`): "unit" 0–1 on every head; "shared" 0 to the largest
# weight of any head of the map; "head" 0 to the figure's own largest weight. The colour bar's title says which.
COLOR_SCALES = ("unit", "shared", "head")
SQUARE_KINDS = ("self", "encoder", "decoder")


# ----------------------------------------------------------------------------------------------------------------------
# Head and layer selection


def require_content(amap: AttentionMap) -> None:
    """Refuse a map with no layers, heads, queries or keys: nothing can be computed or drawn from it."""
    if 0 in amap.weights.shape:
        raise InputError("map_empty", shape=amap.weights.shape)


def _check_reduction(reduce: str, what: str) -> None:
    if reduce not in REDUCTIONS:
        raise InputError("reduction_unknown", what=axis_phrase(what), reduce=reduce)


def select_indices(
    amap: AttentionMap, layers: int | Sequence[int] | None = None, heads: int | Sequence[int] | None = None
) -> tuple[list[int], list[int]]:
    """The layer and head indices a selection means (None = all; negative indices count from the end)."""
    require_content(amap)
    return indices(layers, amap.num_layers, "layer"), indices(heads, amap.num_heads, "head")


def aggregate(
    amap: AttentionMap,
    layers: int | Sequence[int] | None = None,
    heads: int | Sequence[int] | None = None,
    head_reduce: str = "mean",
    layer_reduce: str = "mean",
) -> np.ndarray:
    """One (queries, keys) matrix from a selection of layers and heads.

    `layers`/`heads`: an index, a list of indices, or None for all. Heads are reduced first (`head_reduce`), then
    layers (`layer_reduce`), each by "mean" or "max". A mean of attention rows is still a distribution; a max is not
    (its rows may sum to more than 1).
    """
    _check_reduction(head_reduce, "head")
    _check_reduction(layer_reduce, "layer")
    layer_idx, head_idx = select_indices(amap, layers, heads)
    chosen = amap.weights[np.ix_(layer_idx, head_idx)]  # (layers', heads', queries, keys)
    per_layer = chosen.mean(axis=1) if head_reduce == "mean" else chosen.max(axis=1)  # (layers', queries, keys)
    matrix = per_layer.mean(axis=0) if layer_reduce == "mean" else per_layer.max(axis=0)  # (queries, keys)
    return matrix.astype(np.float32)


def value_weighted(amap: AttentionMap) -> AttentionMap:
    """The norm view of Kobayashi et al. (2020): each head's α_ij · ‖f_h(x_j)‖ (`AttentionMap.value_norms`), every
    row divided by its sum so that rows sum to 1 again (rows with nothing, such as closed padding rows, stay 0).

    The scaling keeps a row's argmax and its ratios — what alignment and thresholds read — and lets the views that
    average heads give each head the same say, as they do for weights. The result keeps its value norms."""
    require_content(amap)
    if amap.value_norms is None:
        raise InputError("values_missing", kind=amap.kind)
    return replace(amap, weights=weigh_rows(amap.weights, amap.value_norms[:, :, None, :]))


def weigh_rows(weights: np.ndarray, norms: np.ndarray) -> np.ndarray:
    """float32 weights × key norms (broadcast over the key axis, the last), each row scaled to sum 1 (empty rows
    stay 0): the arithmetic of `value_weighted`, for a whole map or one tile of a head."""
    weighted = weights * norms  # (..., queries, keys)
    totals = weighted.sum(axis=-1, keepdims=True)
    return np.divide(weighted, totals, out=np.zeros_like(weighted), where=totals > 0).astype(np.float32)


def key_value_norms(
    amap: AttentionMap, layers: int | Sequence[int] | None = None, heads: int | Sequence[int] | None = None
) -> np.ndarray | None:
    """(keys,) the mean value norm ‖f_h(x_j)‖ of each key over the chosen layers and heads; None without norms."""
    if amap.value_norms is None:
        return None
    layer_idx, head_idx = select_indices(amap, layers, heads)
    return amap.value_norms[np.ix_(layer_idx, head_idx)].mean(axis=(0, 1)).astype(np.float32)  # (keys,)


def causal_mask(amap: AttentionMap) -> np.ndarray:
    """Boolean (queries, keys): True where a causal map cannot attend (keys after the query). All False otherwise.

    When there are more keys than queries (a cached prefix), the last query sits on the last key.
    """
    return mask_of(len(amap.query_tokens), len(amap.key_tokens), amap.causal)


def mask_of(queries: int, keys: int, causal: bool) -> np.ndarray:
    """`causal_mask` of a map with these many query and key tokens, for callers that hold no weights."""
    if not causal:
        return np.zeros((queries, keys), dtype=bool)
    offset = keys - queries
    return np.arange(keys)[None, :] > (np.arange(queries)[:, None] + offset)


def crop(
    amap: AttentionMap, queries: tuple[int, int] | None = None, keys: tuple[int, int] | None = None
) -> AttentionMap:
    """The part of a map for query positions [q0, q1) and key positions [k0, k1) (None = all), values unchanged.

    A cropped causal map stays marked causal only when its mask is still the upper triangle `causal_mask` draws
    (e.g. the same range on both sides); otherwise its masked cells show as plain zeros.
    """
    require_content(amap)
    (q0, q1), (k0, k1), causal = crop_spans(len(amap.query_tokens), len(amap.key_tokens), amap.causal, queries, keys)
    return replace(
        amap,
        weights=amap.weights[:, :, q0:q1, k0:k1],
        query_tokens=amap.query_tokens[q0:q1],
        key_tokens=amap.key_tokens[k0:k1],
        causal=causal,
        value_norms=None if amap.value_norms is None else amap.value_norms[:, :, k0:k1],
    )


def crop_spans(
    query_count: int,
    key_count: int,
    causal: bool,
    queries: tuple[int, int] | None = None,
    keys: tuple[int, int] | None = None,
) -> tuple[tuple[int, int], tuple[int, int], bool]:
    """What `crop` cuts from a map of `query_count` × `key_count` tokens: the checked query and key spans, and
    whether the part is still causal (its masked cells still the upper triangle `causal_mask` draws)."""
    q0, q1 = index_range(queries, query_count, "query")
    k0, k1 = index_range(keys, key_count, "key")
    offset = key_count - query_count
    still_causal = causal and (q0 + offset - k0) == ((k1 - k0) - (q1 - q0))
    return (q0, q1), (k0, k1), still_causal


def downsample(matrix: np.ndarray, query_factor: int, key_factor: int, pool: str = "max") -> np.ndarray:
    """Pool a (queries, keys) matrix in blocks of query_factor × key_factor cells by "max" or "mean".

    NaN cells (masked) are ignored; a block with nothing but NaN stays NaN. Edge blocks may be smaller.
    """
    if pool not in REDUCTIONS:
        raise InputError("pooling_unknown", pool=pool)
    if not (is_index(query_factor) and is_index(key_factor)) or query_factor < 1 or key_factor < 1:
        raise InputError("downsample_factors", query_factor=query_factor, key_factor=key_factor)
    matrix = np.asarray(matrix)
    if matrix.ndim != 2 or not np.issubdtype(matrix.dtype, np.number):
        raise InputError("downsample_not_a_matrix", shape=matrix.shape)
    queries, keys = matrix.shape
    rows, cols = -(-queries // query_factor), -(-keys // key_factor)  # ceil division
    padded = np.full((rows * query_factor, cols * key_factor), np.nan, dtype=np.float64)
    padded[:queries, :keys] = matrix
    blocks = padded.reshape(rows, query_factor, cols, key_factor)  # (row blocks, fq, col blocks, fk)
    present = np.isfinite(blocks).any(axis=(1, 3))
    filled = np.where(np.isfinite(blocks), blocks, -np.inf if pool == "max" else 0.0)
    if pool == "max":
        pooled = filled.max(axis=(1, 3))
    else:
        pooled = filled.sum(axis=(1, 3)) / np.maximum(np.isfinite(blocks).sum(axis=(1, 3)), 1)
    return np.where(present, pooled, np.nan).astype(np.float32)


@dataclass(frozen=True)
class Pooled:
    """One head downsampled to (query bins, key bins) by `downsample` (e.g. by `LazyCapture.downsampled`, block by
    block, for maps too large to hold): NaN where every cell of a block is masked."""

    values: np.ndarray  # float32 (query bins, key bins)
    query_factor: int  # tokens per bin along each axis (edge bins may hold fewer)
    key_factor: int
    pool: str  # "max" or "mean"


def index_range(span: tuple[int, int] | None, size: int, what: str) -> tuple[int, int]:
    """A (start, stop) pair with 0 ≤ start < stop ≤ size (None = all); an InputError saying how to fix it otherwise."""
    if span is None:
        return 0, size
    if (
        isinstance(span, (str, bytes))
        or not isinstance(span, Sequence)
        or len(span) != 2
        or not all(is_index(end) for end in span)
    ):
        raise InputError("range_not_a_pair", what=axis_phrase(what), span=span)
    start, stop = int(span[0]), int(span[1])
    if not 0 <= start < stop <= size:
        raise InputError("range_outside", what=axis_phrase(what), start=start, stop=stop, size=size)
    return start, stop


# ----------------------------------------------------------------------------------------------------------------------
# Hiding special tokens and sinks


def hide_tokens(
    amap: AttentionMap,
    special: bool = True,
    first: bool = False,
    keys: Sequence[int] = (),
    renormalize: bool = False,
) -> AttentionMap:
    """A map without the chosen key columns (and the matching query rows), rows renormalised or not.

    Hidden: special tokens (`special`, e.g. </s>, [CLS], [SEP], <pad>), the first key (`first`, the usual attention
    sink even when it is an ordinary token) and any key positions in `keys`. Query rows of special tokens go too; for
    self-attention (queries are the keys) the same positions are removed on both sides so the map stays square.
    Without `renormalize` the remaining weights keep their values (rows then sum to less than 1, which shows how much
    went to the hidden tokens); with it each row is divided by what is left (rows with nothing left stay 0).
    """
    require_content(amap)
    num_keys = len(amap.key_tokens)
    hidden = set(indices(keys, num_keys, "key")) if is_index(keys) or len(keys) else set()
    if special:
        hidden |= {i for i, t in enumerate(amap.key_tokens) if t.special}
    if first and num_keys:
        hidden.add(0)
    kept_keys = [i for i in range(num_keys) if i not in hidden]
    if not kept_keys:
        raise InputError("hiding_leaves_no_key")
    # The same positions leave both sides only when the queries are the keys; a seq2seq decoder map labels its rows by
    # the token each step writes and its columns by the token it reads, so each side drops its own special tokens.
    square = amap.kind in SQUARE_KINDS and amap.query_tokens == amap.key_tokens
    if square:
        kept_queries = kept_keys
    else:
        kept_queries = [i for i, t in enumerate(amap.query_tokens) if not (special and t.special)]
    if not kept_queries:
        raise InputError("hiding_leaves_no_query")
    weights = _taken(_taken(amap.weights, kept_queries, axis=2), kept_keys, axis=3)  # (layers, heads, q', k')
    if renormalize:
        totals = weights.sum(axis=-1, keepdims=True)
        weights = np.divide(weights, totals, out=np.zeros_like(weights), where=totals > 0)
    return replace(
        amap,
        weights=weights,
        value_norms=None if amap.value_norms is None else amap.value_norms[:, :, kept_keys],
        query_tokens=[amap.query_tokens[i] for i in kept_queries],
        key_tokens=[amap.key_tokens[i] for i in kept_keys],
        causal=amap.causal and square,
    )


def _taken(array: np.ndarray, kept: list[int], axis: int) -> np.ndarray:
    """`array` with only the `kept` positions along `axis`: a read-only view when they are one run (hiding a first
    <s> or a last </s>, the usual case: no copy of a long text's layers × heads × n² weights), else a copy."""
    if kept and kept[-1] - kept[0] == len(kept) - 1:
        index = [slice(None)] * array.ndim
        index[axis] = slice(kept[0], kept[-1] + 1)
        view = array[tuple(index)]
        view.flags.writeable = False  # shares the capture's memory: a write would change what the capture holds
        return view
    return np.take(array, kept, axis=axis)


# ----------------------------------------------------------------------------------------------------------------------
# Rollout


def rollout(
    amap: AttentionMap,
    heads: int | Sequence[int] | None = None,
    head_reduce: str = "mean",
    residual: bool = True,
) -> AttentionMap:
    """Attention rollout (Abnar & Zuidema 2020) for a self-attention stack.

    Per layer the selected heads are reduced to one matrix A; with `residual` it becomes 0.5·A + 0.5·I with rows
    renormalised (the skip connection carries half of each token through). Rollout to layer l is Ã_l · … · Ã_0.
    Returns a map of shape (layers, 1, tokens, tokens): layer l holds the rollout through layers 0..l.
    """
    _check_reduction(head_reduce, "head")
    if amap.kind not in SQUARE_KINDS or len(amap.query_tokens) != len(amap.key_tokens):
        raise InputError(
            "rollout_needs_self_attention", kind=amap.kind, queries=len(amap.query_tokens), keys=len(amap.key_tokens)
        )
    _, head_idx = select_indices(amap, None, heads)
    chosen = amap.weights[:, head_idx].astype(np.float64)  # (layers, heads', n, n)
    per_layer = chosen.mean(axis=1) if head_reduce == "mean" else chosen.max(axis=1)  # (layers, n, n)
    n = per_layer.shape[-1]
    if residual:
        per_layer = 0.5 * per_layer + 0.5 * np.eye(n)
    totals = per_layer.sum(axis=-1, keepdims=True)
    per_layer = np.divide(per_layer, totals, out=np.zeros_like(per_layer), where=totals > 0)
    rolled = np.empty_like(per_layer)
    current = np.eye(n)
    for layer in range(per_layer.shape[0]):
        current = per_layer[layer] @ current
        rolled[layer] = current
    names = [f"rollout 0–{i}: {name}" for i, name in enumerate(amap.layer_names)]
    return replace(
        amap,
        weights=rolled[:, None].astype(np.float32),
        layer_names=names,
        value_norms=None,
        layer_numbers=None,
        head_numbers=None,
    )
