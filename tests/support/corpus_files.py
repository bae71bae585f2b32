"""Small corpus inputs for the corpus job's tests: hand-aligned held-out pairs of the demo (pre-segmented, with gold
links), and lines that must be skipped."""

from __future__ import annotations

from pathlib import Path

GOLD = Path(__file__).resolve().parents[2] / "assets" / "corpus" / "heldout-gold.tsv"
BAD_LINES = {  # line content → why it is skipped (its message key)
    "\tGood morning !\t0-0": "corpus_empty_source",
    "早上 好\tGood morning\t0-x": "corpus_not_pharaoh",
    "早上 好\tGood morning\t0-7": "corpus_link_outside",
}


def gold_lines(count: int) -> list[str]:
    """The first `count` hand-aligned pairs as source<TAB>target<TAB>links (segmented, Chinese first)."""
    rows = GOLD.read_text(encoding="utf-8").splitlines()[1 : count + 1]
    return ["\t".join(row.split("\t")[1:]) for row in rows]


def corpus_file(folder: Path, count: int = 10, bad_every: int = 4, name: str = "pairs.tsv") -> tuple[Path, dict]:
    """A file of `count` good pairs with a bad line after every `bad_every`; returns it and {line number: key}."""
    lines, bad = [], {}
    bad_items = list(BAD_LINES.items())
    for index, line in enumerate(gold_lines(count), start=1):
        lines.append(line)
        if index % bad_every == 0:
            text, key = bad_items[(index // bad_every - 1) % len(bad_items)]
            lines.append(text)
            bad[len(lines)] = key
    path = Path(folder) / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path, bad
