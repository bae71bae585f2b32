"""A sentence pair with its word alignment, and the word splits both languages use.

Chinese words are the lexicon's words (我 / 喜欢 / 学习); English words are split at spaces and punctuation
(Good / morning / !). Alignments are links (Chinese word index, English word index), written in Pharaoh format
("0-1 1-0 2-2") with the Chinese index first, whichever way the model translates.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from attnviz.errors import InputError

# Words keep inner apostrophes ("o'clock"); every other non-space, non-alphanumeric character is a word of its own.
_ENGLISH_WORD = re.compile(r"[A-Za-z0-9]+(?:'[A-Za-z]+)*|[^\sA-Za-z0-9]")
_ATTACHED_PUNCTUATION = set(".,!?;:%)")  # written right after the word before
_JOINING = {"-"}  # written between two words without spaces: well-known

TSV_COLUMNS = ("zh", "en", "zh_words", "en_words", "alignment", "origin")


def english_words(text: str) -> list[str]:
    """Split English text into words: "Good morning!" -> ["Good", "morning", "!"]."""
    return _ENGLISH_WORD.findall(text)


def english_text(words: tuple[str, ...] | list[str]) -> str:
    """Join English words back into text, with punctuation attached to the word before it."""
    text, previous = "", ""
    for word in words:
        attached = word in _ATTACHED_PUNCTUATION or word in _JOINING or previous in _JOINING or previous == "("
        text += ("" if not text or attached else " ") + word
        previous = word
    return text


def parse_pharaoh(alignment: str) -> tuple[tuple[int, int], ...]:
    """ "0-1 1-0" -> ((0, 1), (1, 0))."""
    links = []
    for item in alignment.split():
        left, sep, right = item.partition("-")
        if not sep or not left.isdigit() or not right.isdigit():
            raise InputError("demo_not_pharaoh", item=item)
        links.append((int(left), int(right)))
    return tuple(sorted(links))


def format_pharaoh(links) -> str:
    return " ".join(f"{i}-{j}" for i, j in sorted(links))


@dataclass(frozen=True)
class Pair:
    zh_words: tuple[str, ...]
    en_words: tuple[str, ...]
    links: tuple[tuple[int, int], ...]  # (Chinese word index, English word index), sorted
    origin: str  # "phrasebook" or "grammar:<template>"

    def __post_init__(self):
        for i, j in self.links:
            if not (0 <= i < len(self.zh_words) and 0 <= j < len(self.en_words)):
                raise InputError("demo_link_outside", zh=i, en=j, zh_words=self.zh_words, en_words=self.en_words)
        if tuple(english_words(self.en)) != self.en_words:
            raise InputError("demo_words_round_trip", words=self.en_words, text=self.en)

    @property
    def zh(self) -> str:
        return "".join(self.zh_words)

    @property
    def en(self) -> str:
        return english_text(self.en_words)

    def words(self, lang: str) -> tuple[str, ...]:
        return self.zh_words if lang == "zh" else self.en_words

    def text(self, lang: str) -> str:
        return self.zh if lang == "zh" else self.en

    def links_from(self, source_lang: str) -> tuple[tuple[int, int], ...]:
        """Links as (source word, target word) for a model translating from `source_lang`."""
        return self.links if source_lang == "zh" else tuple(sorted((j, i) for i, j in self.links))

    def to_row(self) -> str:
        fields = (
            self.zh,
            self.en,
            " ".join(self.zh_words),
            " ".join(self.en_words),
            format_pharaoh(self.links),
            self.origin,
        )
        return "\t".join(fields)

    @classmethod
    def from_row(cls, row: str) -> Pair:
        fields = row.rstrip("\n").split("\t")
        if len(fields) != len(TSV_COLUMNS):
            raise InputError(
                "demo_row_fields", count=len(TSV_COLUMNS), columns=", ".join(TSV_COLUMNS), got=len(fields), row=row
            )
        zh, en, zh_words, en_words, alignment, origin = fields
        pair = cls(tuple(zh_words.split(" ")), tuple(en_words.split(" ")), parse_pharaoh(alignment), origin)
        if pair.zh != zh or pair.en != en:
            raise InputError("demo_row_mismatch", row=row)
        return pair


def merged_words(zh_words, en_words, links, groups: list[list[int]], origin: str) -> Pair:
    """The pair whose Chinese words are `zh_words` joined by `groups` (consecutive indices), links moved along."""
    new_index = {k: g for g, members in enumerate(groups) for k in members}
    merged = tuple("".join(zh_words[k] for k in members) for members in groups)
    return Pair(merged, tuple(en_words), tuple(sorted({(new_index[i], j) for i, j in links})), origin)


def write_tsv(path: Path, pairs: list[Pair]) -> None:
    lines = ["\t".join(TSV_COLUMNS)] + [pair.to_row() for pair in pairs]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def read_tsv(path: Path) -> list[Pair]:
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    if not lines or tuple(lines[0].split("\t")) != TSV_COLUMNS:
        raise InputError("demo_not_corpus", path=path, header=" ".join(TSV_COLUMNS))
    return [Pair.from_row(line) for line in lines[1:] if line]


@dataclass(frozen=True)
class Phrase:
    """A piece of a sentence in both languages, with its links; sentences are phrases put in two orders."""

    zh: tuple[str, ...]
    en: tuple[str, ...]
    links: tuple[tuple[int, int], ...]

    @classmethod
    def word(cls, zh: str, en: str) -> Phrase:
        """One Chinese word translated by one or more English words, all linked to it."""
        en_words = tuple(en.split())
        return cls((zh,), en_words, tuple((0, j) for j in range(len(en_words))))


def assemble(phrases: list[Phrase], english_order: list[int], origin: str) -> Pair:
    """Chinese follows `phrases` in order, English follows `english_order`; links are shifted to sentence indices."""
    zh_start, position = [], 0
    for phrase in phrases:
        zh_start.append(position)
        position += len(phrase.zh)
    en_words: list[str] = []
    links = []
    for k in english_order:
        phrase = phrases[k]
        links += [(zh_start[k] + i, len(en_words) + j) for i, j in phrase.links]
        en_words += phrase.en
    if en_words:  # a sentence starts with a capital letter, whatever its first word is
        en_words[0] = en_words[0][:1].upper() + en_words[0][1:]
    zh_words = tuple(word for phrase in phrases for word in phrase.zh)
    return Pair(zh_words, tuple(en_words), tuple(sorted(links)), origin)
