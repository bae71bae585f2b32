"""Hand-made word alignments of held-out HSK pairs (assets/corpus/heldout-gold.tsv), for the AER of the alignment view.

Pharaoh format as awesome-align's gold files write it: 0-based word indices, Chinese first, `i-j` a sure link,
`i?j` a possible one. The words are the held-out pair's words (heldout.tsv's zh_words and en_words columns).
Parsing and AER (Och & Ney 2003) are attnviz.corpus.gold's.
The guidelines the file was made with are in assets/corpus/README.md (training.data.corpus_card).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from attnviz.corpus.gold import parse_gold
from attnviz.errors import InputError
from training.data.pairs import Pair

GOLD_FILE = "heldout-gold.tsv"
GOLD_COLUMNS = ("id", "zh_words", "en_words", "alignment")


@dataclass(frozen=True)
class GoldAlignment:
    id: str
    zh_words: tuple[str, ...]
    en_words: tuple[str, ...]
    sure: frozenset  # (Chinese word, English word)
    possible: frozenset  # the possible links, sure ones included

    def links_from(self, source_lang: str) -> tuple[frozenset, frozenset]:
        """(sure, possible) as (source word, target word) for a model translating from `source_lang`."""
        if source_lang == "zh":
            return self.sure, self.possible
        return frozenset((j, i) for i, j in self.sure), frozenset((j, i) for i, j in self.possible)


def read_gold(path: Path) -> list[GoldAlignment]:
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    if not lines or tuple(lines[0].split("\t")) != GOLD_COLUMNS:
        raise InputError("demo_not_corpus", path=path, header=" ".join(GOLD_COLUMNS))
    out = []
    for line in lines[1:]:
        if not line:
            continue
        sentence_id, zh_words, en_words, alignment = line.split("\t")
        sure, possible = parse_gold(alignment)
        gold = GoldAlignment(sentence_id, tuple(zh_words.split(" ")), tuple(en_words.split(" ")), sure, possible)
        for i, j in possible:
            if not (0 <= i < len(gold.zh_words) and 0 <= j < len(gold.en_words)):
                raise InputError("demo_link_outside", zh=i, en=j, zh_words=gold.zh_words, en_words=gold.en_words)
        out.append(gold)
    return out


def gold_pairs(gold: list[GoldAlignment], heldout: list[Pair]) -> list[Pair]:
    """The held-out pair of each hand alignment, in the gold file's order; the words must be the same."""
    by_id = {pair.origin.split(":", 1)[1]: pair for pair in heldout if pair.origin.startswith("hsk:")}
    pairs = []
    for entry in gold:
        pair = by_id.get(entry.id)
        if pair is None or (pair.zh_words, pair.en_words) != (entry.zh_words, entry.en_words):
            raise InputError("demo_row_mismatch", row=f"{entry.id}\t{' '.join(entry.zh_words)}")
        pairs.append(pair)
    return pairs
