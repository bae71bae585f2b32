"""One translation pair with gold links, scored as a view shows it and head by head.

`PairWords` says which words the gold links index on each side (`attnviz.corpus.words`); `view_scores` scores the
links of the heads a view shows (`attnviz.view.viewing.Shown`), and says which gold links were found, missed or extra;
`head_scores` does the same for every layer × head of the cross-attention at once ("which head aligns best here?").
With a model translating the other way, `alignment_view` of its capture of the pair read backwards and
`reverse_mask` give the links it finds, and a view scored with them keeps only the links both directions find.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attnviz.corpus import links
from attnviz.corpus.gold import Counts, Gold, Link, Scores
from attnviz.corpus.words import Words, token_words
from attnviz.maps import analysis
from attnviz.types import AttentionMap
from attnviz.view import head_choice


@dataclass(frozen=True)
class PairWords:
    """The words of both sides of a pair, in the texts the model read."""

    source: Words
    target: Words

    def owners(self, amap: AttentionMap) -> tuple[list[int | None], list[int | None]]:
        """(target word of each query token, source word of each key token) of a cross map."""
        return token_words(amap.query_tokens, self.target), token_words(amap.key_tokens, self.source)

    def word_weights(self, amap: AttentionMap, weights: np.ndarray | None = None) -> np.ndarray:
        """`links.word_weights` of a map's weights (or of `weights` over its tokens), (..., target, source words)."""
        target_owners, source_owners = self.owners(amap)
        weights = amap.weights if weights is None else weights
        return links.word_weights(weights, target_owners, source_owners, len(self.target), len(self.source))


@dataclass(frozen=True)
class TokenView:
    """A cross map reduced to the mean of its alignment view's heads: weights (queries, keys) over its tokens."""

    weights: np.ndarray
    query_tokens: list
    key_tokens: list


def alignment_view(cross: AttentionMap, alignment_heads) -> TokenView:
    """The alignment view's weights of a cross map: the mean of its model's alignment heads
    (`head_choice.alignment_pairs`), (queries, keys)."""
    heads = head_choice.alignment_pairs(alignment_heads, cross.num_layers, cross.num_heads)
    weights = cross.weights[[h[0] for h in heads], [h[1] for h in heads]].mean(axis=0)  # (queries, keys)
    return TokenView(weights, cross.query_tokens, cross.key_tokens)


def reverse_mask(words: PairWords, backward: TokenView, threshold: float) -> np.ndarray:
    """The links a reverse model's view (`backward`: its queries are the pair's source tokens, its keys the pair's
    target tokens) finds over the pair's words: a (source words, target words) mask, as `links.intersect_masks`
    takes it."""
    reverse_words = PairWords(words.target, words.source)  # the same words, sides swapped
    reverse_view = reverse_words.word_weights(backward, backward.weights)  # (source words, target words)
    return links.link_mask(reverse_view, threshold)


@dataclass(frozen=True)
class ViewScores:
    """The links a view finds, against the gold links of the target words it shows."""

    scores: Scores
    counts: Counts
    found: frozenset[Link]  # predicted and gold (sure or possible)
    missed: frozenset[Link]  # sure gold links not predicted
    extra: frozenset[Link]  # predicted, not gold
    target_owners: tuple[int | None, ...]  # the target word of each query token drawn
    source_owners: tuple[int | None, ...]  # the source word of each key token drawn


def view_scores(
    amap: AttentionMap,
    selected: dict,
    words: PairWords,
    gold: Gold,
    threshold: float,
    reverse: np.ndarray | None = None,
) -> ViewScores:
    """Score the heads a view shows: `amap` is the map as drawn and `selected` its heads (`layers`, `heads`,
    `head_reduce`, `layer_reduce`, as `attnviz.maps.analysis.aggregate` takes them). While a replay shows only the first
    target words, only their gold links count. `reverse` (`reverse_mask`): keep only the links it also holds."""
    matrix = analysis.aggregate(amap, **selected)  # (queries, keys) over the drawn tokens
    target_owners, source_owners = words.owners(amap)
    word_matrix = links.word_weights(matrix, target_owners, source_owners, len(words.target), len(words.source))
    mask = links.link_mask(word_matrix, threshold)  # (target words, source words)
    predicted = links.links_of(mask if reverse is None else links.intersect_masks(mask, reverse))
    shown_targets = {t for t in target_owners if t is not None}
    gold = Gold(
        frozenset(link for link in gold.sure if link[1] in shown_targets),
        frozenset(link for link in gold.possible if link[1] in shown_targets),
    )
    counts = Counts.of(predicted, gold)
    return ViewScores(
        counts.scores(),
        counts,
        found=predicted & (gold.possible | gold.sure),
        missed=gold.sure - predicted,
        extra=predicted - gold.possible - gold.sure,
        target_owners=tuple(target_owners),
        source_owners=tuple(source_owners),
    )


@dataclass(frozen=True)
class HeadScores:
    """Precision, recall and AER of every layer × head for one pair: float arrays (layers, heads)."""

    precision: np.ndarray
    recall: np.ndarray
    aer: np.ndarray
    counts: dict[str, np.ndarray]  # `links.mask_counts`: the counts they come from, (layers, heads) each

    def best(self) -> tuple[int, int]:
        """(layer, head) with the lowest AER (the first such, in layer then head order)."""
        layer, head = np.unravel_index(int(np.argmin(self.aer)), self.aer.shape)
        return int(layer), int(head)


def head_scores(
    cross: AttentionMap, words: PairWords, gold: Gold, threshold: float, reverse: np.ndarray | None = None
) -> HeadScores:
    """Every head's links (each head alone, tokens merged into the pair's words) scored against `gold`; with
    `reverse` (`reverse_mask`), only the links it also holds."""
    masks = links.link_mask(words.word_weights(cross), threshold)  # (layers, heads, target words, source words)
    if reverse is not None:
        masks = links.intersect_masks(masks, reverse)  # the reverse view's links, the same for every head
    counts = links.mask_counts(masks, gold)
    scores = Scores.of(**counts)
    return HeadScores(scores.precision, scores.recall, scores.aer, counts)
