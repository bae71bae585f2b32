"""What is computed from captured attention before it is drawn: numpy in, numpy (or AttentionMap) out.

- `aggregate`: one head, the mean or max over heads, over a chosen set of layers -> a (queries, keys) matrix.
- `crop`: a query/key range of a map, for exact values of a part of a large map; `downsample`: block pooling.
- `merge_words`: subword pieces -> words (sum over key pieces, mean over query pieces).
- `hide_tokens`: drop special tokens and sinks, with or without renormalising rows.
- `value_weighted`: weights scaled by each key's value norm (Kobayashi et al. 2020); `key_value_norms` for a bar.
- `rollout`: attention rollout (Abnar & Zuidema 2020) with the residual term.
- `head_statistics` / `head_statistics_table`: entropy, distance, sink mass, and the head roles: previous-token,
  induction, diagonal and positional scores;
  `statistic_sums` / `statistic_means`: the same, tile by tile, for maps too large to hold.

Nothing here imports torch: every input is an `AttentionMap` (float32, [layers, heads, queries, keys]) or plain arrays.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from attnviz.errors import InputError
from attnviz.indexing import axis_phrase, indices, is_index
from attnviz.text import chinese_words
from attnviz.types import AttentionMap, Token

REDUCTIONS = ("mean", "max")
# How weights become colours across heads (`attnviz.figures`): "unit" 0–1 on every head; "shared" 0 to the largest
# weight of any head of the map; "head" 0 to the figure's own largest weight. The colour bar's title says which.
COLOR_SCALES = ("unit", "shared", "head")
SQUARE_KINDS = ("self", "encoder", "decoder")

# Head statistics, in table column order. What each one means is said in the string catalogue (`stat_<name>`,
# `stat_help_<name>`), in English and 中文.
STATISTICS = ("entropy", "distance", "sink", "previous_token", "induction", "diagonal", "positional")
# The relative offsets (query − key) the "positional" score looks at: a head that keeps a fixed offset whatever the
# content (previous token, two back, itself …) scores high. Offsets further back are rare in real heads.
POSITIONAL_OFFSETS = 8


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
# Word-level view


def _is_cjk(char: str) -> bool:
    """A Chinese character (`chinese_words.is_han`) or Japanese kana: written without spaces between words."""
    return chinese_words.is_han(char) or 0x3040 <= ord(char) <= 0x30FF  # hiragana, katakana


def _is_punctuation_piece(text: str) -> bool:
    stripped = text.strip()
    return bool(stripped) and all(unicodedata.category(c).startswith("P") for c in stripped)


def _piece_stands_alone(token: Token) -> bool:
    """A piece that never joins a touching neighbour: special, offset-less, CJK-bearing, only punctuation, or only
    whitespace (tokenizers whose offsets keep the space give the space its own piece, or lead a word with it)."""
    return (
        token.special
        or token.start < 0
        or not token.text.strip()
        or any(_is_cjk(c) for c in token.text)
        or _is_punctuation_piece(token.text)
    )


def word_groups(tokens: Sequence[Token], text: str | None = None) -> list[tuple[int, int]]:
    """Consecutive runs of pieces that form one word, as (first, stop) index pairs covering every token.

    The rule (works for sentencepiece ▁, byte-level BPE Ġ and WordPiece ## alike, since tokens carry offsets):
    - a piece whose span overlaps the previous piece's span (bytes of one character split over several pieces,
      as byte-level BPE does with Chinese) always joins it;
    - otherwise a piece joins the previous one when their spans touch (previous end == this start, so no whitespace
      between them), neither is special, offset-less, only punctuation or whitespace, or contains a CJK character,
      and no whitespace sits at the seam (tokenizers that keep the space in the offsets lead a word with it);
    - an apostrophe between letters, touching both (didn ' t, John ' s), joins them: a contraction is one word.
    So English subwords ("morn" + "ing") merge into words. A Chinese piece of several characters is a word the
    tokenizer learned, kept as it is ("早上" · "好"). Where the tokenizer reads Chinese a character at a time, the
    words come from the text: given `text` (the one the offsets point into), one-character pieces that one word of
    it spans join (`attnviz.text.chinese_words`: 错 + 过 → 错过). So a word is always whole pieces; without `text`,
    Chinese words are exactly the tokenizer's pieces.
    """
    groups = _piece_groups(tokens)
    return groups if text is None else _chinese_word_groups(tokens, groups, text)


def _piece_groups(tokens: Sequence[Token]) -> list[tuple[int, int]]:
    """`word_groups` by the pieces' own offsets and texts, Chinese pieces each on their own."""
    groups: list[tuple[int, int]] = []
    for index, token in enumerate(tokens):
        if groups:
            previous = tokens[index - 1]
            both_located = token.start >= 0 and previous.start >= 0 and not token.special and not previous.special
            overlaps = both_located and token.start < previous.end
            touches = both_located and token.start == previous.end
            joinable = (
                touches
                and not _piece_stands_alone(token)
                and not _piece_stands_alone(previous)
                and not token.text[0].isspace()  # " morning" starts a word even when its offsets touch "good"
                and not previous.text[-1].isspace()
            )
            if overlaps or joinable or _inner_apostrophe(tokens, index):
                groups[-1] = (groups[-1][0], index + 1)
                continue
        groups.append((index, index + 1))
    return groups


def _chinese_word_groups(tokens: Sequence[Token], groups: list[tuple[int, int]], text: str) -> list[tuple[int, int]]:
    """`groups` joined where two touching groups are one Chinese character each and one Chinese word of `text`
    spans both (a chain of them makes a longer word: 四 + 不 + 像 → 四不像)."""
    spans = [_one_character(tokens[first:stop], len(text)) for first, stop in groups]
    seams = [
        left is not None
        and right == left + 1
        and chinese_words.is_han(text[left])
        and chinese_words.is_han(text[right])
        for left, right in zip(spans, spans[1:])
    ]
    if not any(seams):  # no two Chinese characters side by side, each a piece: the segmenter is not asked (nor loaded)
        return groups
    ids = chinese_words.word_ids(text)
    joined: list[tuple[int, int]] = []
    for index, group in enumerate(groups):
        if index and seams[index - 1] and ids[spans[index - 1]] == ids[spans[index]] >= 0:
            joined[-1] = (joined[-1][0], group[1])
        else:
            joined.append(group)
    return joined


def _one_character(pieces: Sequence[Token], size: int) -> int | None:
    """The offset of the one character `pieces` cover (byte pieces of one character cover the same one), or None
    when they cover more or none (special, offset-less)."""
    if any(p.special or p.start < 0 or p.end > size for p in pieces):
        return None
    starts, ends = {p.start for p in pieces}, {p.end for p in pieces}
    if len(starts) == len(ends) == 1 and ends == {min(starts) + 1}:
        return min(starts)
    return None


APOSTROPHES = ("'", "\u2019")  # ' and ’


def _inner_apostrophe(tokens: Sequence[Token], index: int) -> bool:
    """Whether tokens[index] joins tokens[index - 1] as part of a contraction: it is an apostrophe piece with a
    letter touching it on both sides, or the letters after such an apostrophe."""

    def touching(left: Token, right: Token) -> bool:
        return left.start >= 0 and not left.special and not right.special and right.start == left.end

    def apostrophe_between(at: int) -> bool:  # tokens[at] is an apostrophe between two touching letters
        if not (0 < at < len(tokens) - 1) or tokens[at].text not in APOSTROPHES:  # " '" opens a quote: no
            return False
        before, after = tokens[at - 1], tokens[at + 1]
        return (
            touching(before, tokens[at])
            and touching(tokens[at], after)
            and before.text[-1:].isalpha()
            and after.text.lstrip("#")[:1].isalpha()
            and not _piece_stands_alone(before)
            and not _piece_stands_alone(after)
        )

    return apostrophe_between(index) or apostrophe_between(index - 1)


def _merged_tokens(tokens: Sequence[Token], groups: list[tuple[int, int]], text: str | None) -> list[Token]:
    merged = []
    for first, stop in groups:
        pieces = tokens[first:stop]
        if len(pieces) == 1:
            merged.append(pieces[0])
            continue
        start = min(p.start for p in pieces)
        end = max(p.end for p in pieces)
        if text is not None and 0 <= start < end <= len(text):
            word = text[start:end]
        else:  # no source text: the cleaned pieces, without the repeats overlapping byte pieces carry
            word = "".join(p.text for i, p in enumerate(pieces) if i == 0 or p.start >= pieces[i - 1].end)
        merged.append(Token(word, start, end, special=False, unknown=any(p.unknown for p in pieces)))
    return merged


def word_tokens(
    tokens: Sequence[Token], text: str | None = None, spans: Sequence[tuple[int, int]] | None = None
) -> list[tuple[tuple[int, int], Token]]:
    """The words `merge_words` makes of `tokens`: per word, its (first, stop) piece span and the word as a token
    (`text`: the original text the offsets point into; `spans`: the words a person gave, `span_groups`)."""
    groups = word_groups(tokens, text) if spans is None else span_groups(tokens, spans)
    return list(zip(groups, _merged_tokens(tokens, groups, text)))


Span = tuple[int, int]  # [start, end) character offsets of a word in the text a map's tokens point into


def span_owners(tokens: Sequence[Token], spans: Sequence[Span]) -> list[int | None]:
    """For each token, the index of the span (a word) its characters overlap most (the first on a tie); None for
    special tokens, tokens without offsets and tokens that overlap no span (a lone space)."""
    owners: list[int | None] = []
    for token in tokens:
        best, best_overlap = None, 0
        if not token.special and token.start >= 0:
            for index, (start, end) in enumerate(spans):
                overlap = min(end, token.end) - max(start, token.start)
                if overlap > best_overlap:
                    best, best_overlap = index, overlap
        owners.append(best)
    return owners


def span_groups(tokens: Sequence[Token], spans: Sequence[Span]) -> list[tuple[int, int]]:
    """`word_groups` for words a person gave (a pre-segmented text's `spans`): consecutive pieces of one given word
    form a group; a piece of no word (a special token) stands alone."""
    groups: list[tuple[int, int]] = []
    owners = span_owners(tokens, spans)
    for index, owner in enumerate(owners):
        if groups and owner is not None and owners[index - 1] == owner:
            groups[-1] = (groups[-1][0], index + 1)
        else:
            groups.append((index, index + 1))
    return groups


def merge_words(
    amap: AttentionMap,
    query_text: str | None = None,
    key_text: str | None = None,
    query_spans: Sequence[Span] | None = None,
    key_spans: Sequence[Span] | None = None,
) -> AttentionMap:
    """The same attention over words instead of subword pieces (see `word_groups` for what a word is; with
    `query_spans`/`key_spans`, the words a person gave for that side, in its text: `span_groups`).

    Key pieces of a word are summed (the attention a query gives the whole word); query pieces are averaged (a word
    looks where its pieces look, on average), so rows that summed to 1 still do. `query_text`/`key_text` are the
    original texts the offsets point into (words are then text[start:end]); for self-attention pass the one text as
    `query_text` and it is used for keys too.
    """
    require_content(amap)
    if key_text is None and amap.kind in SQUARE_KINDS:
        key_text = query_text
    query_groups = (
        word_groups(amap.query_tokens, query_text)
        if query_spans is None
        else span_groups(amap.query_tokens, query_spans)
    )
    key_groups = (
        word_groups(amap.key_tokens, key_text) if key_spans is None else span_groups(amap.key_tokens, key_spans)
    )
    key_starts = np.array([g[0] for g in key_groups])
    query_starts = np.array([g[0] for g in query_groups])
    query_sizes = np.array([stop - first for first, stop in query_groups], dtype=np.float32)
    summed_keys = np.add.reduceat(amap.weights, key_starts, axis=3)  # (layers, heads, queries, words_k)
    summed_queries = np.add.reduceat(summed_keys, query_starts, axis=2)  # (layers, heads, words_q, words_k)
    weights = summed_queries / query_sizes[None, None, :, None]
    norms = amap.value_norms
    if norms is not None:  # a word's value norm: the mean of its pieces' (a norm of their sum is not recoverable)
        key_sizes = np.array([stop - first for first, stop in key_groups], dtype=np.float32)
        norms = np.add.reduceat(norms, key_starts, axis=2) / key_sizes  # (layers, heads, words_k)
    return replace(
        amap,
        weights=weights.astype(np.float32),
        value_norms=norms,
        query_tokens=_merged_tokens(amap.query_tokens, query_groups, query_text),
        key_tokens=_merged_tokens(amap.key_tokens, key_groups, key_text),
    )


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


# ----------------------------------------------------------------------------------------------------------------------
# Head statistics


def sink_keys(key_tokens: Sequence[Token]) -> np.ndarray:
    """Boolean (keys,): the keys the "sink" statistic counts, special tokens and the first token."""
    sinks = np.array([t.special for t in key_tokens], dtype=bool)
    if len(sinks):
        sinks[0] = True
    return sinks


def induction_keys(tokens: Sequence[Token]) -> np.ndarray:
    """Boolean (queries, keys) over one sequence: key k is the token that followed an earlier copy of query q's token
    (k = j + 1 with tokens[j] the same text as tokens[q], j + 1 < q). An induction head (Olsson et al., 2022) puts
    its weight there: "last time this came, that came next". Special tokens never count as copies."""
    n = len(tokens)
    targets = np.zeros((n, n), dtype=bool)
    seen: dict[str, list[int]] = {}
    for q, token in enumerate(tokens):
        if token.special:
            continue
        earlier = [j + 1 for j in seen.get(token.text, []) if j + 1 < q]
        targets[q, earlier] = True
        seen.setdefault(token.text, []).append(q)
    return targets


def statistic_sums(
    weights: np.ndarray,
    first_row: int,
    total_queries: int,
    sinks: np.ndarray,
    square: bool,
    induction: np.ndarray | None = None,
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """The head statistics of some query rows, as sums: per statistic of `STATISTICS` that applies, (sum over the
    rows that count, number of rows that count), each of the leading shape of `weights` ("positional" has one more
    trailing axis, one per offset of `POSITIONAL_OFFSETS`).

    `weights` (..., rows, keys) holds query rows first_row … first_row + rows − 1 of maps with `total_queries` rows;
    `sinks` marks the sink keys (`sink_keys`); `square`: self-attention with queries = keys, the only maps with a
    distance, a previous token, an induction target and offsets; `induction`: the rows' part of `induction_keys`
    (rows, keys), or None to leave that score out. Rows with no attention (hidden to 0) do not count. The statistic
    of a whole map is sum / count over any split of its rows into tiles (`statistic_means`), so maps too large to
    hold are streamed.
    """
    w = weights.astype(np.float64)
    rows, keys = w.shape[-2:]
    q_pos = np.arange(first_row, first_row + rows)  # global query positions of these rows
    live = w.sum(axis=-1) > 0  # (..., rows)

    def sums(per_row: np.ndarray, use_rows: np.ndarray | None = None):
        use = live if use_rows is None else live & use_rows
        return np.where(use, per_row, 0.0).sum(axis=-1), use.sum(axis=-1)

    plogp = np.where(w > 0, w * np.log(np.where(w > 0, w, 1.0)), 0.0)
    result = {"entropy": sums(-plogp.sum(axis=-1)), "sink": sums(w[..., sinks].sum(axis=-1))}
    if square:
        distance = np.abs(q_pos[:, None] - np.arange(keys)[None, :])  # (rows, keys)
        result["distance"] = sums((w * distance).sum(axis=-1))
        result["positional"] = _offset_sums(w, q_pos, live, POSITIONAL_OFFSETS)
        result["previous_token"] = tuple(part[..., 1] for part in result["positional"])  # offset 1: key q − 1
        if induction is not None:
            result["induction"] = sums((w * induction).sum(axis=-1), induction.any(axis=-1))
    # Proportional diagonal: for a square map it is the identity; for cross-attention it is the monotone alignment.
    if total_queries > 1:
        diagonal_keys = np.rint(q_pos * (keys - 1) / (total_queries - 1)).astype(int)
    else:
        diagonal_keys = np.zeros(rows, dtype=int)
    result["diagonal"] = sums(w[..., np.arange(rows), diagonal_keys])
    return result


def _offset_sums(w: np.ndarray, q_pos: np.ndarray, live: np.ndarray, offsets: int) -> tuple[np.ndarray, np.ndarray]:
    """Per offset d < `offsets`: the weight of each live row on key q − d, summed over the live rows that have that
    key (rows too close to the start have none). Returns (sums, counts), each (..., offsets); all offsets in one
    gather, since a map's statistics are computed per pair of a corpus."""
    keys = q_pos[None, :] - np.arange(offsets)[:, None]  # (offsets, rows): key q − d of each row
    has_key = keys >= 0
    at_offset = w[..., np.arange(len(q_pos))[None, :], np.maximum(keys, 0)]  # (..., offsets, rows)
    use = live[..., None, :] & has_key  # (..., offsets, rows)
    return np.where(use, at_offset, 0.0).sum(axis=-1), use.sum(axis=-1)


def statistic_means(sums: dict[str, tuple[np.ndarray, np.ndarray]], shape: tuple[int, ...]) -> dict[str, np.ndarray]:
    """Each statistic in `STATISTICS` as float32 `shape`: sum / count from `statistic_sums` (added up over tiles),
    NaN for the statistics `sums` does not hold (they do not apply to the map). "positional" is the mean weight at
    the head's strongest offset."""
    means = {}
    for name in STATISTICS:
        if name not in sums:
            means[name] = np.full(shape, np.nan, dtype=np.float32)
            continue
        total, count = sums[name]
        mean = total / np.maximum(count, 1)
        if name == "induction":  # no token came twice: the score does not apply, rather than 0
            mean = np.where(count > 0, mean, np.nan)
        means[name] = (mean.max(axis=-1) if name == "positional" else mean).astype(np.float32)
    return means


def statistic_inputs(amap_kind: str, query_tokens: Sequence[Token], key_tokens: Sequence[Token]) -> dict:
    """What `statistic_sums` needs to know about a map besides its weights: {"total_queries", "sinks", "square",
    "induction"} (induction None when the map is not square self-attention)."""
    square = amap_kind in SQUARE_KINDS and len(query_tokens) == len(key_tokens)
    return {
        "total_queries": len(query_tokens),
        "sinks": sink_keys(key_tokens),
        "square": square,
        "induction": induction_keys(query_tokens) if square else None,
    }


def head_statistics(amap: AttentionMap) -> dict[str, np.ndarray]:
    """Each statistic in `STATISTICS` as a float32 (layers, heads) array; NaN where it does not apply.

    Averages are over query rows that carry any attention (rows hidden to 0 do not count): `statistic_sums` over
    the whole map as one tile.
    """
    require_content(amap)
    sums = statistic_sums(amap.weights, 0, **statistic_inputs(amap.kind, amap.query_tokens, amap.key_tokens))
    return statistic_means(sums, amap.weights.shape[:2])


def head_statistics_table(amap: AttentionMap) -> list[dict]:
    """One row per (layer, head): {"layer", "head", "layer_name", <each statistic>}; sortable by any column.

    A list of plain dicts: `st.dataframe`, `pandas.DataFrame` and `csv.DictWriter` all take it as it is.
    """
    return statistics_table(head_statistics(amap), amap.layer_names)


# The roles a head can be said to play, each by its score (`STATISTICS`), and the score from which it is said: a
# head plays the role of its highest such score at or above ROLE_FROM, else none. One threshold for every role, said
# on the page beside the table, so a reader can check each role against its score.
ROLES = ("previous_token", "induction", "diagonal", "positional", "sink")
ROLE_FROM = 0.5


def head_roles(stats: dict[str, np.ndarray], threshold: float = ROLE_FROM) -> np.ndarray:
    """(layers, heads) the role each head plays (one of `ROLES`, or "" for none): its highest role score, when that
    is at least `threshold`. A role whose score was not computed (induction needs a repeated token) is not named."""
    scored = [
        (role, np.nan_to_num(np.asarray(stats[role], dtype=np.float64), nan=-1.0)) for role in ROLES if role in stats
    ]
    layers, heads = next(iter(stats.values())).shape
    roles = np.full((layers, heads), "", dtype=object)
    if not scored:
        return roles
    scores = np.stack([values for _, values in scored])  # (roles, layers, heads)
    best = scores.argmax(axis=0)
    strong = scores.max(axis=0) >= threshold
    names = np.array([role for role, _ in scored], dtype=object)
    roles[strong] = names[best[strong]]
    return roles


def statistics_table(stats: dict[str, np.ndarray], layer_names: Sequence[str]) -> list[dict]:
    """The rows of `head_statistics_table` from statistics already computed (`head_statistics` or streamed ones)."""
    layers, heads = next(iter(stats.values())).shape
    roles = head_roles(stats)
    return [
        {"layer": layer, "head": head, "layer_name": layer_names[layer], "role": str(roles[layer, head])}
        | {name: float(values[layer, head]) for name, values in stats.items()}
        for layer in range(layers)
        for head in range(heads)
    ]
