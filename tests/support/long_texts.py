"""Long real texts for tests and benchmarks: English sentences of the demo corpus joined to a number of words."""

from __future__ import annotations

import csv
from pathlib import Path

CORPUS = Path(__file__).resolve().parents[2] / "assets" / "corpus" / "train.tsv"


def english_text(words: int) -> str:
    """At least `words` words of English: the corpus's sentences (those of five words or more) in order, joined."""
    with open(CORPUS, encoding="utf-8") as handle:
        sentences = [row["en"] for row in csv.DictReader(handle, delimiter="\t") if len(row["en"].split()) >= 5]
    chosen, count = [], 0
    for sentence in sentences:
        chosen.append(sentence)
        count += len(sentence.split())
        if count >= words:
            return " ".join(chosen)
    raise ValueError(f"the corpus holds only {count} words of English sentences")
