"""Which tokens of input A stand for which tokens of input B: a word-level diff on the character offsets tokens carry.

Both texts are cut into units — a run of letters or digits, one Han or kana character (Chinese is matched by
characters, so 早上|好 and 早|上好 match whole), one other visible character — and special tokens become units of
their own. `difflib.SequenceMatcher` aligns the two unit sequences (Ratcliff & Obershelp's longest matching blocks);
units it leaves out that are equal on both sides are then paired in order, so a moved word still matches. Matched
units tie their characters one to one, and the tokens covering tied characters are joined (union–find): each
connected group of A and B tokens is one *segment*, the finest unit both tokenizations agree on. A token tied to
nothing is removed (only in A) or added (only in B). So different lengths, different texts and different tokenizers
of the same text all compare.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass

from attnviz.language import CHARACTER_WORDS, script_of
from attnviz.types import Token

BOTH, REMOVED, ADDED = "both", "removed", "added"  # a segment in A and B, only in A, only in B
_UNITS = re.compile(r"[^\W_]+|\S")  # runs of letters/digits, else one visible character (then Han split apart)


@dataclass(frozen=True)
class Segment:
    """A group of A's tokens and B's tokens that cover the same matched text (either side empty when unmatched)."""

    a: tuple[int, ...]  # token indices in A; () when only B has it (added)
    b: tuple[int, ...]  # token indices in B; () when only A has it (removed)
    text: str  # what a person reads: A's text of it, or B's for an added one

    @property
    def status(self) -> str:
        return BOTH if self.a and self.b else REMOVED if self.a else ADDED


@dataclass(frozen=True)
class TokenMatch:
    """The segments of two token sequences, in reading order: A's order, each added segment after the segment
    holding B's token before it."""

    segments: tuple[Segment, ...]
    size_a: int  # tokens in A
    size_b: int

    @property
    def statuses(self) -> list[str]:
        return [segment.status for segment in self.segments]

    @property
    def matched(self) -> list[int]:
        """Positions in `segments` of the segments both sides have."""
        return [i for i, segment in enumerate(self.segments) if segment.status == BOTH]


@dataclass(frozen=True)
class _Unit:
    key: str  # what must be equal on both sides: the unit's text, or "\0" + a special token's text
    start: int  # character span of a text unit; for a special token its token index
    end: int
    special: bool


def text_units(text: str) -> list[tuple[int, int]]:
    """(start, end) of each unit of `text`: runs of letters or digits, each Han or kana character alone, and each
    other visible character alone."""
    units = []
    for found in _UNITS.finditer(text):
        start, piece = found.start(), found.group()
        run = start
        for offset, char in enumerate(piece):  # a Han or kana character is a unit of its own
            if script_of(char) in CHARACTER_WORDS:
                if run < start + offset:
                    units.append((run, start + offset))
                units.append((start + offset, start + offset + 1))
                run = start + offset + 1
        if run < found.end():
            units.append((run, found.end()))
    return units


def _sequence(tokens: Sequence[Token], text: str) -> list[_Unit]:
    """The units of one side in reading order: the text's units, special tokens placed among them where they stand."""
    spans = text_units(text)
    units: list[_Unit] = []
    next_span = 0
    for index, token in enumerate(tokens):
        if token.special or token.start < 0:
            units.append(_Unit("\0" + token.text, index, index, True))
            continue
        while next_span < len(spans) and spans[next_span][0] < token.end:  # the units this token reaches
            start, end = spans[next_span]
            units.append(_Unit(text[start:end], start, end, False))
            next_span += 1
    units += [_Unit(text[start:end], start, end, False) for start, end in spans[next_span:]]
    return units


def _paired_units(units_a: list[_Unit], units_b: list[_Unit]) -> list[tuple[_Unit, _Unit]]:
    """Unit pairs: difflib's matching blocks, then equal units it left out, paired in order (moved words). The
    diff runs one way round whichever side is A (difflib breaks ties by order), so swapping A and B swaps the pairs."""
    if [u.key for u in units_b] < [u.key for u in units_a]:
        return [(unit_a, unit_b) for unit_b, unit_a in _paired_units(units_b, units_a)]
    matcher = difflib.SequenceMatcher(None, [u.key for u in units_a], [u.key for u in units_b], autojunk=False)
    pairs, left_a, left_b = [], [], []
    for tag, a0, a1, b0, b1 in matcher.get_opcodes():
        if tag == "equal":
            pairs += list(zip(units_a[a0:a1], units_b[b0:b1]))
        else:
            left_a += units_a[a0:a1]
            left_b += units_b[b0:b1]
    waiting: dict[str, list[_Unit]] = {}
    for unit in left_b:
        waiting.setdefault(unit.key, []).append(unit)
    for unit in left_a:
        if waiting.get(unit.key):
            pairs.append((unit, waiting[unit.key].pop(0)))
    return pairs


def _covering(tokens: Sequence[Token]) -> dict[int, list[int]]:
    """Character offset → the located, non-special tokens covering it (byte pieces may share a character)."""
    cover: dict[int, list[int]] = {}
    for index, token in enumerate(tokens):
        if not token.special and token.start >= 0:
            for char in range(token.start, token.end):
                cover.setdefault(char, []).append(index)
    return cover


class _Groups:
    """Union–find over A's tokens (0 … na−1) then B's (na …)."""

    def __init__(self, size: int):
        self.parent = list(range(size))

    def root(self, node: int) -> int:
        while self.parent[node] != node:
            self.parent[node] = self.parent[self.parent[node]]
            node = self.parent[node]
        return node

    def join(self, first: int, second: int) -> None:
        self.parent[self.root(first)] = self.root(second)


def match_tokens(tokens_a: Sequence[Token], text_a: str, tokens_b: Sequence[Token], text_b: str) -> TokenMatch:
    """The segments of `tokens_a` (pointing into `text_a`) and `tokens_b` (into `text_b`); see the module."""
    na, nb = len(tokens_a), len(tokens_b)
    groups, linked = _Groups(na + nb), set()
    cover_a, cover_b = _covering(tokens_a), _covering(tokens_b)
    for unit_a, unit_b in _paired_units(_sequence(tokens_a, text_a or ""), _sequence(tokens_b, text_b or "")):
        if unit_a.special:
            tied = [(unit_a.start, unit_b.start)]
        else:  # equal texts: character k of one is character k of the other
            tied = [
                (ta, tb)
                for k in range(unit_a.end - unit_a.start)
                for ta in cover_a.get(unit_a.start + k, ())
                for tb in cover_b.get(unit_b.start + k, ())
            ]
        for ta, tb in tied:
            groups.join(ta, na + tb)
            linked.update((ta, na + tb))
    members: dict[int, tuple[list[int], list[int]]] = {}
    for node in range(na + nb):
        if node in linked:
            side = members.setdefault(groups.root(node), ([], []))
            side[node >= na].append(node if node < na else node - na)
    segments = [Segment(tuple(a), tuple(b), _label(a, tokens_a, text_a)) for a, b in members.values()]
    segments += [Segment((i,), (), _label([i], tokens_a, text_a)) for i in range(na) if i not in linked]
    segments += [Segment((), (i,), _label([i], tokens_b, text_b)) for i in range(nb) if na + i not in linked]
    return TokenMatch(tuple(_ordered(segments)), na, nb)


def _label(indices: Sequence[int], tokens: Sequence[Token], text: str | None) -> str:
    """The text a segment covers on one side: the text between its first and last character when its tokens are
    located and contiguous, else its tokens' texts joined by spaces."""
    picked = [tokens[i] for i in indices]
    located = [t for t in picked if t.start >= 0 and not t.special]
    contiguous = list(indices) == list(range(min(indices), max(indices) + 1))
    if text and located and len(located) == len(picked) and contiguous:
        return text[min(t.start for t in located) : max(t.end for t in located)].strip()
    return " ".join(t.text for t in picked)


def _ordered(segments: list[Segment]) -> list[Segment]:
    """Reading order: segments with A tokens by A's first token; an added one right after the segment that holds
    B's nearest earlier token (first when none)."""
    after_b = {}  # B token index → the A position of the segment holding it
    for segment in segments:
        for index in segment.b:
            if segment.a:
                after_b[index] = min(segment.a)

    def place(segment: Segment) -> tuple:
        if segment.a:
            return (min(segment.a), 0, 0)
        first = min(segment.b)
        earlier = [i for i in range(first) if i in after_b]
        return (after_b[earlier[-1]] if earlier else -1, 1, first)

    return sorted(segments, key=place)
