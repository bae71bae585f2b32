"""Head statistics of an atlas, each on a published definition, computed from its exact block masses (`maps.atlas`)
and its exact sink shares — numpy only, the same for a fresh atlas and a reopened file.

- sink: the attention-sink mass of StreamingLLM (Xiao et al. 2023, "Efficient Streaming Language Models with Attention
  Sinks", arXiv:2309.17453): the mean over query rows i ≥ S of Σ_{j < S} a_ij, the weight on the first S = 4 tokens
  (the paper's four initial tokens). Exact on tokens (computed by `attnviz.atlas` from every row).
- local: the mean over query rows of the weight on keys of the query's own block and the blocks beside it
  (I − 1 ≤ J ≤ I under a causal mask, |I − J| ≤ 1 otherwise): the local window of a streaming head, on the block
  grid (64 tokens: keys 0 to 64–127 tokens away).
- entropy: the mean over query rows of the entropy (nats) of the row's block masses, and the same divided by the log
  of the number of key blocks the row sees (0: one block, 1: spread evenly over the blocks it sees).
- pattern: MInference's three sparse patterns (Jiang et al. 2024, "MInference 1.0", arXiv:2407.02490): "a-shape"
  (the sink block and a local band), "vertical-slash" (a few key columns seen by every query and a few diagonals),
  "block-sparse" (any few blocks per query block). Each gets the same budget, k = max(2, ⌈PATTERN_BUDGET · key blocks⌉)
  blocks per query block: the a-shape covers block 0 and the k − 1 blocks ending at the query's own; the
  vertical-slash covers the ⌈k/2⌉ key-block columns and the ⌊k/2⌋ diagonals with the most mass; the block-sparse
  covers each row's k heaviest blocks. A pattern's recall is the share of the head's attention (rows weighted by
  their tokens) its cover holds. The head's pattern is the first of a-shape, vertical-slash, block-sparse — from the
  most constrained to the freest, since a freer pattern never covers less — whose recall is ≥ PATTERN_RECALL, else
  "dense". Maps of fewer than PATTERN_MIN_BLOCKS key blocks, and cross-attention (queries and keys of two texts, no
  diagonal), get no pattern ("—"). MInference picks its pattern by an offline search of kernel budgets on real
  inputs; the budget and threshold here are attnviz's, named so that a reader can redo them.
"""

from __future__ import annotations

import numpy as np

from attnviz.maps.atlas import AtlasMap

SINK_TOKENS = 4  # StreamingLLM's four initial tokens
PATTERN_BUDGET = 1 / 8  # blocks per query block each pattern may cover, as a share of the key blocks
PATTERN_RECALL = 0.9  # the share of a head's attention a pattern must cover
PATTERN_MIN_BLOCKS = 8  # fewer key blocks: every pattern covers nearly everything, so none is named
PATTERNS = ("a-shape", "vertical-slash", "block-sparse")
DENSE, NO_PATTERN = "dense", "—"
LABELS = (*PATTERNS, DENSE, NO_PATTERN)
STATISTICS = ("sink", "local", "entropy", "entropy_ratio", "a-shape", "vertical-slash", "block-sparse")


def head_statistics(amap: AtlasMap) -> dict[str, np.ndarray]:
    """float64 (layers, heads) per statistic (module docstring): sink, local, entropy (nats), entropy_ratio, and the
    recall of each pattern (NaN where a statistic has no meaning: local and patterns on cross-attention)."""
    layers, heads = amap.num_layers, amap.num_heads
    rows = amap.block_rows().astype(np.float64)  # (query blocks,)
    blocks = amap.blocks.astype(np.float64)  # (layers, heads, I, J)
    seen = visible_blocks(amap)  # bool (I, J)
    square = amap.kind != "cross"
    found = {"sink": amap.sink_mass.astype(np.float64)}
    band = _band(seen, amap.causal)
    found["local"] = _row_mean((blocks * band).sum(-1), rows) if square else np.full((layers, heads), np.nan)
    found["entropy"], found["entropy_ratio"] = _entropies(blocks, seen, rows)
    recalls = pattern_recalls(amap) if square else {name: np.full((layers, heads), np.nan) for name in PATTERNS}
    found.update(recalls)
    return found


def visible_blocks(amap: AtlasMap) -> np.ndarray:
    """bool (query blocks, key blocks): the blocks some query of the row block may see (all, or on and below the
    diagonal of a causal map)."""
    row_blocks, key_blocks = amap.blocks.shape[2:]
    if not amap.causal:
        return np.ones((row_blocks, key_blocks), dtype=bool)
    first_key = np.arange(key_blocks) * amap.block  # (J,)
    last_row = np.minimum((np.arange(row_blocks) + 1) * amap.block, len(amap.query_tokens)) - 1  # (I,)
    return first_key[None, :] <= last_row[:, None]


def _band(seen: np.ndarray, causal: bool) -> np.ndarray:
    """bool (I, J): the query's own key block and those beside it (`local`)."""
    offset = np.arange(seen.shape[0])[:, None] - np.arange(seen.shape[1])[None, :]  # I − J
    near = (offset >= 0) & (offset <= 1) if causal else np.abs(offset) <= 1
    return near & seen


def _row_mean(per_block: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """(…, I) per query block → (…) mean over query rows (each block weighted by the rows it holds)."""
    return (per_block * rows).sum(-1) / rows.sum()


def _entropies(blocks: np.ndarray, seen: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(nats, ratio), each (layers, heads): the mean over query rows of each block row's entropy, and of the same
    divided by log(blocks the row sees); rows seeing one block count 0 in the ratio."""
    totals = blocks.sum(-1, keepdims=True)  # (…, I, 1)
    shares = np.divide(blocks, totals, out=np.zeros_like(blocks), where=totals > 0)
    terms = np.where(shares > 0, -shares * np.log(np.where(shares > 0, shares, 1.0)), 0.0)
    entropy = terms.sum(-1)  # (…, I)
    room = np.log(seen.sum(-1).astype(np.float64))  # (I,)
    ratio = np.divide(entropy, room, out=np.zeros_like(entropy), where=room > 0)
    return _row_mean(entropy, rows), _row_mean(ratio, rows)


def pattern_budget(key_blocks: int) -> int:
    """k: blocks per query block each pattern may cover."""
    return max(2, int(np.ceil(PATTERN_BUDGET * key_blocks)))


def pattern_recalls(amap: AtlasMap) -> dict[str, np.ndarray]:
    """float64 (layers, heads) per pattern of PATTERNS: the share of the head's attention its cover holds."""
    rows = amap.block_rows().astype(np.float64)
    weighted = amap.blocks.astype(np.float64) * rows[:, None]  # (layers, heads, I, J): row-weighted masses
    total = weighted.sum(axis=(-2, -1))  # (layers, heads)
    budget = pattern_budget(weighted.shape[-1])
    covered = {
        "a-shape": (weighted * _a_shape(amap, budget)).sum(axis=(-2, -1)),
        "vertical-slash": _vertical_slash(weighted, budget),
        "block-sparse": np.sort(weighted, axis=-1)[..., -budget:].sum(axis=(-2, -1)),
    }
    return {name: np.divide(part, total, out=np.zeros_like(part), where=total > 0) for name, part in covered.items()}


def _a_shape(amap: AtlasMap, budget: int) -> np.ndarray:
    """bool (I, J): block 0 and the budget − 1 blocks ending at the query's own (a causal map's band lies below the
    diagonal; another map's is centred on it)."""
    row_blocks, key_blocks = amap.blocks.shape[2:]
    offset = np.arange(row_blocks)[:, None] - np.arange(key_blocks)[None, :]  # I − J
    if amap.causal:
        band = (offset >= 0) & (offset < budget - 1)
    else:
        half = (budget - 1) // 2
        band = (offset >= -half) & (offset < budget - 1 - half)
    band[:, 0] = True
    return band


def _vertical_slash(weighted: np.ndarray, budget: int) -> np.ndarray:
    """(layers, heads): the mass of the ⌈k/2⌉ heaviest key-block columns united with the ⌊k/2⌋ heaviest diagonals."""
    layers, heads, row_blocks, key_blocks = weighted.shape
    columns, diagonals = -(-budget // 2), budget // 2
    offset = np.arange(row_blocks)[:, None] - np.arange(key_blocks)[None, :] + key_blocks - 1  # (I, J): diagonal
    count = row_blocks + key_blocks - 1
    per_head = (np.arange(layers * heads) * count)[:, None, None] + offset  # (layers·heads, I, J): one bin each
    per_diagonal = np.bincount(per_head.ravel(), weighted.ravel(), layers * heads * count).reshape(layers, heads, -1)
    chosen_columns = _top(weighted.sum(-2), columns)  # bool (layers, heads, J)
    chosen_diagonals = _top(per_diagonal, diagonals)  # bool (layers, heads, diagonals)
    covered = chosen_columns[:, :, None, :] | chosen_diagonals[:, :, offset]  # (layers, heads, I, J)
    return (weighted * covered).sum(axis=(-2, -1))


def _top(values: np.ndarray, count: int) -> np.ndarray:
    """bool like `values`: True on the `count` largest along the last axis."""
    chosen = np.zeros(values.shape, dtype=bool)
    if count:
        np.put_along_axis(chosen, np.argsort(values, axis=-1)[..., -count:], True, axis=-1)
    return chosen


def pattern_labels(amap: AtlasMap, recalls: dict[str, np.ndarray] | None = None) -> np.ndarray:
    """str (layers, heads): each head's pattern (module docstring), or "dense", or "—" where none is named."""
    labels = np.full((amap.num_layers, amap.num_heads), NO_PATTERN, dtype=object)
    if amap.kind == "cross" or amap.blocks.shape[-1] < PATTERN_MIN_BLOCKS:
        return labels
    recalls = pattern_recalls(amap) if recalls is None else recalls
    labels[:] = DENSE
    for name in reversed(PATTERNS):  # the most constrained pattern that reaches the threshold wins
        labels[recalls[name] >= PATTERN_RECALL] = name
    return labels
