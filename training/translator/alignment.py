"""Word alignments on subword pieces: gold attention targets for training, word-level links for evaluation
(scored by attnviz.corpus.gold.alignment_error_rate).

A model translating source → target has one attention row per target piece plus </s> (row i is the decoder step
that *produces* target piece i) and one column per source piece plus </s>. Words are groups of pieces.
This is a small private helper of the demo; attnviz.maps.analysis holds the general word merge the app uses.
"""

from __future__ import annotations

import numpy as np

from attnviz.errors import InputError

SPACE = "▁"


def piece_words(pieces: list[str], words: tuple[str, ...] | list[str]) -> list[int]:
    """For each SentencePiece piece, the index of the word it belongs to.

    Pieces and words must spell the same characters once spaces and "▁" are dropped; a piece that straddles two
    words is an error, because the gold alignment could not be put on it.
    """
    ends, position = [], 0
    for word in words:
        position += len(word)
        ends.append(position)
    owners, position, word = [], 0, 0
    for piece in pieces:
        surface = piece.replace(SPACE, "")
        while word < len(ends) and position >= ends[word]:
            word += 1
        if not surface:  # a lone "▁" belongs to the word it precedes
            owners.append(min(word, len(words) - 1))
            continue
        if word == len(ends) or position + len(surface) > ends[word]:
            raise InputError("demo_piece_outside_words", piece=piece, pieces=pieces, words=list(words))
        owners.append(word)
        position += len(surface)
    if position != (ends[-1] if ends else 0):
        raise InputError("demo_pieces_do_not_spell", pieces=pieces, words=list(words))
    return owners


def word_groups_under_pieces(pieces: list[str], words: tuple[str, ...] | list[str]) -> list[list[int]]:
    """Groups of consecutive word indices to merge so that no piece straddles two words (pieces and words spell
    the same characters, spaces and "▁" aside). Silver segmentations need it: SentencePiece chooses among its
    user-defined symbols by score, not always as a dictionary's longest match would."""
    ends, position = set(), 0  # character offsets where a piece ends
    for piece in pieces:
        position += len(piece.replace(SPACE, ""))
        ends.add(position)
    groups, position = [], 0
    for k, word in enumerate(words):
        if not groups or position in ends:  # a word starting where a piece ends starts a group
            groups.append([])
        groups[-1].append(k)
        position += len(word.replace(" ", ""))
    return groups


def gold_attention(source_owner: list[int], target_owner: list[int], links, unlinked_to_end: bool = True) -> np.ndarray:
    """Gold attention (target pieces + </s>, source pieces + </s>): each row spreads evenly over the source pieces
    of the words its target word links to; a target word with no link, and </s>, attend to the source </s>.
    With `unlinked_to_end` False (silver links, which miss some) an unlinked word's row stays all zero: no target."""
    rows, cols = len(target_owner) + 1, len(source_owner) + 1
    gold = np.zeros((rows, cols), dtype=np.float32)
    for t, target_word in enumerate(target_owner):
        linked = {s for s, t_word in links if t_word == target_word}
        columns = [c for c, source_word in enumerate(source_owner) if source_word in linked]
        if columns:
            gold[t, columns] = 1.0 / len(columns)
        elif unlinked_to_end:
            gold[t, cols - 1] = 1.0
    gold[rows - 1, cols - 1] = 1.0
    return gold


def word_attention(attention: np.ndarray, source_owner: list[int], target_owner: list[int]) -> np.ndarray:
    """Merge piece attention (target pieces + </s>, source pieces + </s>) into (target words, source words + </s>):
    a word receives the sum over its source pieces and the mean over its target pieces; </s> rows are dropped."""
    n_source = max(source_owner, default=-1) + 1
    n_target = max(target_owner, default=-1) + 1
    by_source = np.zeros((attention.shape[0], n_source + 1), dtype=np.float64)
    for c, owner in enumerate(source_owner):
        by_source[:, owner] += attention[:, c]
    by_source[:, n_source] = attention[:, len(source_owner)]
    merged = np.zeros((n_target, n_source + 1), dtype=np.float64)
    for word in range(n_target):
        merged[word] = by_source[[t for t, owner in enumerate(target_owner) if owner == word]].mean(axis=0)
    return merged


def argmax_links(word_matrix: np.ndarray) -> set[tuple[int, int]]:
    """(source word, target word) for each target word's strongest source word; none when that is </s>."""
    null = word_matrix.shape[1] - 1
    best = word_matrix.argmax(axis=1)
    return {(int(s), t) for t, s in enumerate(best) if s != null}


def strong_links(word_matrix: np.ndarray, ratio: float = 0.5) -> set[tuple[int, int]]:
    """(source word, target word) for every source word that gets at least `ratio` of the row's strongest weight;
    none when the strongest is </s>. A target word that translates two source words ("the teacher" -> 老师 seen
    from 老师) spreads its attention over both, and keeps both links."""
    null = word_matrix.shape[1] - 1
    links = set()
    for t, row in enumerate(word_matrix):
        if row.argmax() == null:
            continue
        links |= {(int(s), t) for s in np.flatnonzero(row[:null] >= ratio * row.max())}
    return links
