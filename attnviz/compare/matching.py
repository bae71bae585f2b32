"""Which tokens of input A stand for which tokens of input B: a word-level diff on the character offsets tokens carry.

Both texts are cut into units — a run of letters or digits, one Han or kana character (Chinese is matched by
characters, so 早上|好 and 早|上好 match whole), one other visible character — and special tokens become units of
their own. `difflib.SequenceMatcher` aligns the two unit sequences (Ratcliff & Obershelp's longest matching blocks);
units it leaves out that are equal on both sides are then paired in order, so a moved word still matches. Matched
units tie their characters one to one, and the tokens covering tied characters are joined (union–find): each
connected group of A and B tokens is one *segment*, the finest unit both tokenizations agree on. A token tied to
nothing is removed (only in A) or added (only in B). A group whose tokens cover a character the other side lacks is
changed, not shared: 早上 and 晚上 tie through 上, yet they are not one word, so the group becomes A's part removed and
B's part added, side by side (− 早上, + 晚上), and no comparison subtracts one from the other. So different lengths,
different texts and different tokenizers of the same text all compare.
"""

from __future__ import annotations

import bisect
import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass

from attnviz.text.language import CHARACTER_WORDS, script_of
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
    text_a, text_b = text_a or "", text_b or ""
    na, nb = len(tokens_a), len(tokens_b)
    groups = _Groups(na + nb)
    cover_a, cover_b = _covering(tokens_a), _covering(tokens_b)
    units_a, units_b = _sequence(tokens_a, text_a), _sequence(tokens_b, text_b)
    paired = _paired_units(units_a, units_b)
    for unit_a, unit_b in paired:
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
    taken_a, taken_b = {id(a) for a, _ in paired}, {id(b) for _, b in paired}
    alone_a = [u for u in units_a if not u.special and id(u) not in taken_a]
    alone_b = [u for u in units_b if not u.special and id(u) not in taken_b]
    _join_unmatched_words(groups, alone_a, cover_a, range(na, na + nb), 0)
    _join_unmatched_words(groups, alone_b, cover_b, range(na), na)
    _tie_spaces(groups, _space_neighbours(tokens_a, text_a), _space_neighbours(tokens_b, text_b), na)
    members: dict[int, tuple[list[int], list[int]]] = {}
    for node in range(na + nb):
        side = members.setdefault(groups.root(node), ([], []))
        side[node >= na].append(node if node < na else node - na)
    differing = _covering_units(alone_a, cover_a, 0) | _covering_units(alone_b, cover_b, na)
    segments, twins = [], {}  # twins: B's half of a changed group → A's half
    for a, b in members.values():
        label_a, label_b = _label(a, tokens_a, text_a) if a else "", _label(b, tokens_b, text_b) if b else ""
        if a and b and differing & {*a, *(na + t for t in b)}:  # changed: removed beside added
            twins[len(segments) + 1] = len(segments)
            segments += [Segment(tuple(a), (), label_a), Segment((), tuple(b), label_b)]
        else:
            segments.append(Segment(tuple(a), tuple(b), label_a or label_b))
    return TokenMatch(tuple(_ordered(segments, twins)), na, nb)


def _covering_units(units: list[_Unit], cover: dict, offset: int) -> set[int]:
    """The tokens (as union–find nodes: `offset` + index) that cover a character of any of `units`."""
    return {offset + token for unit in units for char in range(unit.start, unit.end) for token in cover.get(char, ())}


def _join_unmatched_words(groups: _Groups, units: list[_Unit], cover: dict, other: range, offset: int) -> None:
    """The pieces of a word only one side has (" b" "i" "g") make one added or removed segment, unless one of them
    already stands for something of the other side (its segment is then a matched one)."""
    other_roots = {groups.root(node) for node in other}
    for unit in units:
        pieces = sorted({offset + t for char in range(unit.start, unit.end) for t in cover.get(char, ())})
        if pieces and not any(groups.root(piece) in other_roots for piece in pieces):
            for piece in pieces[1:]:
                groups.join(piece, pieces[0])


def _tie_spaces(groups: _Groups, spaces_a: list[tuple[int, int]], spaces_b: list[tuple[int, int]], na: int) -> None:
    """Tie whitespace-only pieces (no unit covers them): a space right before a word of A goes with the space right
    before the B token that word matched, when B has one there; any other space goes with its own side's word."""
    first_b: dict[int, int] = {}  # group → its first B token
    for node in range(len(groups.parent) - 1, na - 1, -1):  # the last written, the first B token, wins
        first_b[groups.root(node)] = node - na
    before_b = {word: space for space, word in spaces_b if word == space + 1}  # B word → the space right before it
    tied_b = set()
    for space, word in spaces_a:
        matched = first_b.get(groups.root(word))
        if word == space + 1 and matched in before_b and before_b[matched] not in tied_b:
            tied_b.add(before_b[matched])
            groups.join(space, na + before_b[matched])
        else:
            groups.join(space, word)
    for space, word in spaces_b:
        if space not in tied_b:
            groups.join(na + space, na + word)


def _space_neighbours(tokens: Sequence[Token], text: str) -> list[tuple[int, int]]:
    """(whitespace-only token, the token it goes with): byte-level tokenizers give a space a piece of its own
    ("Ġ" before "on"), which no unit ties; it goes with the next located token (the last one's with the previous),
    so it is matched, added or removed with the word it leads."""
    located = [i for i, t in enumerate(tokens) if not t.special and t.start >= 0]
    words = [i for i in located if text[tokens[i].start : tokens[i].end].strip()]
    paired = []
    for index in located:
        if not text[tokens[index].start : tokens[index].end].strip() and words:
            later = bisect.bisect_right(words, index)
            paired.append((index, words[later] if later < len(words) else words[-1]))
    return paired


def _label(indices: Sequence[int], tokens: Sequence[Token], text: str | None) -> str:
    """The text a segment covers on one side: the text between its first and last character when its tokens are
    located and contiguous, else its tokens' texts joined by spaces."""
    picked = [tokens[i] for i in indices]
    located = [t for t in picked if t.start >= 0 and not t.special]
    contiguous = list(indices) == list(range(min(indices), max(indices) + 1))
    if text and located and len(located) == len(picked) and contiguous:
        return text[min(t.start for t in located) : max(t.end for t in located)].strip()
    return " ".join(t.text for t in picked)


def _ordered(segments: list[Segment], twins: dict[int, int]) -> list[Segment]:
    """Reading order: segments with A tokens by A's first token; B's half of a changed group right after A's half
    (`twins`: position of B's half → position of A's half in `segments`); any other added one right after the
    segment that holds B's nearest earlier token (first when none)."""
    size_b = max((max(s.b) + 1 for s in segments if s.b), default=0)
    placed = [-1] * size_b  # B token → the A position of the segment holding it (-1: an added segment's)
    for position, segment in enumerate(segments):
        a_side = segments[twins[position]].a if position in twins else segment.a
        for index in segment.b:
            placed[index] = min(a_side) if a_side else -1
    before = [-1] * (size_b + 1)  # before[i]: the A position of the nearest B token left of i that has one
    for index in range(size_b):
        before[index + 1] = placed[index] if placed[index] >= 0 else before[index]

    def place(position: int) -> tuple:
        segment = segments[position]
        if segment.a:
            return (min(segment.a), 0, 0)
        if position in twins:
            return (min(segments[twins[position]].a), 0, 1 + min(segment.b))
        return (before[min(segment.b)], 1, min(segment.b))

    return [segments[position] for position in sorted(range(len(segments)), key=place)]
