"""The fixed held-out part of the HSK sentences, chosen by id, and the near-duplicate rule that keeps it unseen.

A sentence is held out when the SHA-256 of its id, read as a number, falls in the first HELD_OUT_PER_MILLE of
1000 — a choice that does not depend on the seed, the order of the source or the rest of the corpus, so the same
sentences stay held out whatever else changes. No training pair may be a near duplicate of a held-out one:
- the same Chinese or the same English once punctuation, spaces and case are dropped, or
- Chinese of at least NEAR_MIN_CHARS characters whose character bigrams overlap by a Dice coefficient of at
  least NEAR_DICE (他是我的朋友。 and 她是我的朋友。: 0.8).
"""

from __future__ import annotations

import hashlib
import unicodedata
from collections import defaultdict

from training.data.pairs import Pair

HELD_OUT_PER_MILLE = 80  # 8 % of the sentences
NEAR_DICE = 0.7
NEAR_MIN_CHARS = 4


def is_held_out(sentence_id: str, per_mille: int = HELD_OUT_PER_MILLE) -> bool:
    digest = hashlib.sha256(sentence_id.encode("utf-8")).hexdigest()
    return int(digest[:8], 16) % 1000 < per_mille


def bare(text: str) -> str:
    """Letters and digits only, lower case: what is left to compare once punctuation and spaces are dropped."""
    return "".join(c for c in text.casefold() if unicodedata.category(c)[0] in "LN")


def bigrams(text: str) -> set[str]:
    return {text[k : k + 2] for k in range(len(text) - 1)}


def dice(a: set, b: set) -> float:
    return 2 * len(a & b) / (len(a) + len(b)) if a or b else 0.0


class NearDuplicates:
    """Answers "is this pair a near duplicate of a held-out pair?" quickly, through a bigram index."""

    def __init__(self, heldout: list[Pair]):
        self.chinese = {bare(p.zh) for p in heldout}
        self.english = {bare(p.en) for p in heldout}
        self.grams = [bigrams(bare(p.zh)) for p in heldout]
        self.index: dict[str, list[int]] = defaultdict(list)
        for k, grams in enumerate(self.grams):
            if len(bare(heldout[k].zh)) >= NEAR_MIN_CHARS:
                for gram in grams:
                    self.index[gram].append(k)

    def __contains__(self, pair: Pair) -> bool:
        zh = bare(pair.zh)
        if zh in self.chinese or bare(pair.en) in self.english:
            return True
        if len(zh) < NEAR_MIN_CHARS:
            return False
        grams = bigrams(zh)
        near = {k for gram in grams for k in self.index.get(gram, ())}
        return any(dice(grams, self.grams[k]) >= NEAR_DICE for k in near)
