"""Gold word links in Pharaoh format, and how predicted links score against them (AER, precision, recall).

Pharaoh format, as awesome-align's gold files write it: whitespace-separated links, `i-j` a sure link and `i?j` a
possible one, `i` a 0-based source word and `j` a 0-based target word ("0-0 1?2 2-1"). Sure links count as
possible too (S ⊆ P). With predicted links A (Och & Ney 2003):

    precision = |A ∩ P| / |A|      recall = |A ∩ S| / |S|      AER = 1 − (|A ∩ S| + |A ∩ P|) / (|A| + |S|)

Scores over a corpus add the four counts over its pairs first (a micro average, as awesome-align and SimAlign
report it), so `Counts` is what a streamed job keeps.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from attnviz.errors import InputError

Link = tuple[int, int]  # (source word, target word), 0-based
_LINK = re.compile(r"^(\d+)([-?])(\d+)$")


@dataclass(frozen=True)
class Gold:
    """The gold links of one pair: `sure` ⊆ `possible`, both as (source word, target word)."""

    sure: frozenset[Link]
    possible: frozenset[Link]

    @classmethod
    def parse(cls, text: str) -> Gold:
        return cls(*parse_gold(text))

    def reversed(self) -> Gold:
        """The same links seen from the other side: (target word, source word), for a model translating back."""
        return Gold(frozenset((j, i) for i, j in self.sure), frozenset((j, i) for i, j in self.possible))

    def check(self, source_words: int, target_words: int) -> Gold:
        """Itself, when every link points inside `source_words` × `target_words`; an InputError naming the first
        link that does not, otherwise."""
        for i, j in sorted(self.possible):
            if not (i < source_words and j < target_words):
                raise InputError("corpus_link_outside", link=f"{i}-{j}", source=source_words, target=target_words)
        return self


def parse_gold(alignment: str) -> tuple[frozenset[Link], frozenset[Link]]:
    """ "0-0 1?2" → sure {(0, 0)}, possible {(0, 0), (1, 2)}; an InputError naming the first item that is not a
    link."""
    sure, possible = set(), set()
    for item in alignment.split():
        found = _LINK.match(item)
        if not found:
            raise InputError("corpus_not_pharaoh", item=item)
        link = (int(found[1]), int(found[3]))
        possible.add(link)
        if found[2] == "-":
            sure.add(link)
    return frozenset(sure), frozenset(possible)


def format_links(links: Iterable[Link]) -> str:
    """Links as Pharaoh sure links, sorted: {(1, 0), (0, 0)} → "0-0 1-0"."""
    return " ".join(f"{i}-{j}" for i, j in sorted(links))


@dataclass(frozen=True)
class Counts:
    """What the scores of one pair or a corpus are computed from; counts add up over pairs."""

    predicted: int = 0  # |A|
    sure: int = 0  # |S|
    predicted_sure: int = 0  # |A ∩ S|
    predicted_possible: int = 0  # |A ∩ P|

    @classmethod
    def of(cls, predicted: Iterable[Link], gold: Gold) -> Counts:
        a = set(predicted)
        return cls(len(a), len(gold.sure), len(a & gold.sure), len(a & (gold.possible | gold.sure)))

    def __add__(self, other: Counts) -> Counts:
        return Counts(
            self.predicted + other.predicted,
            self.sure + other.sure,
            self.predicted_sure + other.predicted_sure,
            self.predicted_possible + other.predicted_possible,
        )

    def scores(self) -> Scores:
        return Scores.of(self.predicted, self.sure, self.predicted_sure, self.predicted_possible)


@dataclass(frozen=True)
class Scores:
    """Precision, recall and AER; a score with nothing to count (no predicted, or no sure links) is NaN, and AER
    with neither predicted nor sure links is 0 (nothing to find, nothing found)."""

    precision: float
    recall: float
    aer: float

    @classmethod
    def of(cls, predicted, sure, predicted_sure, predicted_possible) -> Scores:
        """From counts; numpy arrays of counts (one per head) give arrays of scores."""
        import numpy as np

        predicted, sure = np.asarray(predicted, dtype=np.float64), np.asarray(sure, dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            precision = np.where(predicted > 0, predicted_possible / np.maximum(predicted, 1), np.nan)
            recall = np.where(sure > 0, predicted_sure / np.maximum(sure, 1), np.nan)
            total = predicted + sure
            aer = np.where(total > 0, 1.0 - (predicted_sure + predicted_possible) / np.maximum(total, 1), 0.0)
        if precision.ndim == 0:
            return cls(float(precision), float(recall), float(aer))
        return cls(precision, recall, aer)


def score(predicted: Iterable[Link], gold: Gold) -> Scores:
    """The scores of one pair's predicted links."""
    return Counts.of(predicted, gold).scores()


def alignment_error_rate(predicted: Sequence[set], sure: Sequence[set], possible: Sequence[set] | None = None) -> float:
    """AER over a corpus; without `possible`, every gold link counts as sure: 1 − 2|A∩S| / (|A| + |S|)."""
    possible = sure if possible is None else possible
    hits = sum(len(a & s) + len(a & (p | s)) for a, s, p in zip(predicted, sure, possible, strict=True))
    total = sum(len(a) + len(s) for a, s in zip(predicted, sure, strict=True))
    return 1.0 - hits / total if total else 0.0
