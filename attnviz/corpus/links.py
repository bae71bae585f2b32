"""Word links from attention, explicitly: how a matrix of token weights becomes (source word, target word) links.

1. Tokens to words (`word_weights`): a target word's row is the mean of its tokens' rows, and a source word's
   weight the sum over its tokens (what `attnviz.maps.word_merge.merge_words` does); tokens that belong to no word
   (special tokens such as </s>) are dropped, and the weight they took counts toward no word.
2. Links (`link_mask`): each target word is linked to the source word it gives the most weight (argmax per target
   word), when that weight reaches `threshold`; a word whose attention went mostly elsewhere (to </s>, or spread
   thin) gets no link.
3. Two directions (`intersect`, `intersect_masks`): with a model translating each way, keep the links both find
   (the usual way to raise precision, as in awesome-align and SimAlign). The corpus job does this with
   `--reverse-model M2`: M2 reads each pair the other way (target → source); its alignment view's links, each of its
   target words (the pair's source words) to its strongest source word (the pair's target word), over the same
   words as the forward view's, are transposed and intersected with the forward view's links.
Everything works on every layer × head at once: weights are (..., target tokens, source tokens).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from attnviz.corpus.gold import Counts, Gold, Link

DEFAULT_THRESHOLD = 0.1  # the app's default link threshold (ViewOptions.threshold)


def _assignment(owners: Sequence[int | None], count: int) -> np.ndarray:
    """One-hot (tokens, words): which word each token belongs to (a row of zeros for none)."""
    table = np.zeros((len(owners), count), dtype=np.float64)
    for token, word in enumerate(owners):
        if word is not None:
            table[token, word] = 1.0
    return table


def word_weights(
    weights: np.ndarray,
    target_owners: Sequence[int | None],
    source_owners: Sequence[int | None],
    target_words: int,
    source_words: int,
) -> np.ndarray:
    """(..., target tokens, source tokens) → (..., target words, source words): mean over a target word's tokens, sum
    over a source word's tokens. A word no token falls in has a row (or column) of zeros."""
    keys = _assignment(source_owners, source_words)  # (source tokens, source words)
    queries = _assignment(target_owners, target_words).T  # (target words, target tokens)
    sizes = queries.sum(axis=1, keepdims=True)
    queries = np.divide(queries, sizes, out=np.zeros_like(queries), where=sizes > 0)
    summed = np.asarray(weights, dtype=np.float64) @ keys  # (..., target tokens, source words)
    return np.einsum("wt,...ts->...ws", queries, summed)  # (..., target words, source words)


def link_mask(word_matrix: np.ndarray, threshold: float = DEFAULT_THRESHOLD) -> np.ndarray:
    """Boolean (..., target words, source words): True at each target word's strongest source word when that weight
    reaches `threshold` (and is above 0)."""
    if word_matrix.shape[-1] == 0:
        return np.zeros(word_matrix.shape, dtype=bool)
    best = word_matrix.argmax(axis=-1)  # (..., target words)
    strongest = np.take_along_axis(word_matrix, best[..., None], axis=-1)[..., 0]
    keep = (strongest >= threshold) & (strongest > 0)
    mask = np.zeros(word_matrix.shape, dtype=bool)
    np.put_along_axis(mask, best[..., None], keep[..., None], axis=-1)
    return mask


def links_of(mask: np.ndarray) -> frozenset[Link]:
    """A (target words, source words) mask as (source word, target word) links."""
    return frozenset((int(s), int(t)) for t, s in zip(*np.nonzero(mask), strict=True))


def mask_of(links: Iterable[Link], target_words: int, source_words: int) -> np.ndarray:
    """(source word, target word) links as a (target words, source words) mask; links outside are left out."""
    mask = np.zeros((target_words, source_words), dtype=bool)
    for s, t in links:
        if s < source_words and t < target_words:
            mask[t, s] = True
    return mask


def intersect(forward: Iterable[Link], backward: Iterable[Link]) -> frozenset[Link]:
    """Links both directions find: `forward` as (source word, target word) from the source → target model,
    `backward` as that model's reverse gives them, (target word, source word)."""
    return frozenset(forward) & frozenset((s, t) for t, s in backward)


def intersect_masks(forward: np.ndarray, backward: np.ndarray) -> np.ndarray:
    """`intersect` on masks: `forward` (..., target words, source words) from the source → target model,
    `backward` (..., source words, target words) from its reverse."""
    return forward & np.swapaxes(backward, -1, -2)


def mask_counts(masks: np.ndarray, gold: Gold) -> dict[str, np.ndarray]:
    """`Counts` fields for every leading index of `masks` (..., target words, source words) at once."""
    target_words, source_words = masks.shape[-2:]
    sure = mask_of(gold.sure, target_words, source_words)
    possible = mask_of(gold.possible | gold.sure, target_words, source_words)
    return {
        "predicted": masks.sum(axis=(-2, -1)),
        "sure": np.full(masks.shape[:-2], len(gold.sure)),
        "predicted_sure": (masks & sure).sum(axis=(-2, -1)),
        "predicted_possible": (masks & possible).sum(axis=(-2, -1)),
    }


def counts_at(counts: dict[str, np.ndarray], index) -> Counts:
    """The `Counts` of one head (or one leading index) of `mask_counts`."""
    return Counts(**{name: int(values[index]) for name, values in counts.items()})
