"""Subword pieces as words: which tokens make one word (`word_groups`: pieces of a word, Chinese words cut by
jieba over the text, apostrophes inside a word), the merged tokens, and a map merged to words (`merge_words`: sum
over key pieces, mean over query pieces, so every row still sums to what it summed to).

Numpy and plain Python; no torch."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from attnviz.maps.analysis import SQUARE_KINDS, require_content
from attnviz.text import chinese_words
from attnviz.types import AttentionMap, Token


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
