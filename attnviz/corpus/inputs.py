"""The corpus job's input: one translation pair per line, bad lines listed and skipped.

    source<TAB>target                  a pair
    source<TAB>target<TAB>links        a pair with gold links (the job's --gold): Pharaoh, `attnviz.corpus.gold`
    source ||| target [||| links]      the same, as fast_align and awesome-align write it (a line without a tab)

With `segmented`, each side is space-separated words (awesome-align's input) and the links index those words; the
model reads the words joined (`attnviz.corpus.words.segmented`: Chinese without spaces). Without it, each side is
plain text and links index the word merge's words (the words the app's word view draws).
A line 1 that names the columns ("zh<TAB>en") is a header: listed as skipped, not read as a pair.
A line that cannot be used (an empty side, links that cannot be read or point outside the words, too many columns)
becomes a `BadLine` with its number and the sentence why; the lines before and after it are read as usual. A line
too long for the model is found later, when it is tokenized, and listed the same way.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from attnviz.corpus.gold import Gold
from attnviz.corpus.words import Words, segmented
from attnviz.errors import AttnvizError, InputError
from attnviz.text.language import LANGUAGE_SCRIPTS

SEPARATOR = "|||"  # between columns where a line has no tab: fast_align's and awesome-align's "source ||| target"


@dataclass(frozen=True)
class CorpusPair:
    line: int  # 1-based line number in the input
    source: str  # the text the model reads
    target: str
    gold: Gold | None = None
    source_words: Words | None = None  # the user's words (segmented input); None: the word merge's
    target_words: Words | None = None


@dataclass(frozen=True)
class BadLine:
    line: int
    key: str  # the error's message key
    message: str  # the sentence, in English
    text: str  # the line as read (shortened)
    message_zh: str = ""  # the sentence in Chinese (shards written before it was kept have none)


def input_columns(line: str) -> list[str]:
    """A line's columns: split at its tabs, or where it has none at ' ||| ' (the command line's input files too)."""
    text = line.rstrip("\r\n")
    return text.split("\t") if "\t" in text or SEPARATOR not in text else [c.strip() for c in text.split(SEPARATOR)]


HEADER_NAMES = {
    "source",
    "target",
    "src",
    "tgt",
    "text",
    "translation",
    "sentence",
    "links",
    "alignment",
    "alignments",
    "gold",
    "words",
}


def header_names(line: str) -> list[str] | None:
    """The column names of a first line that names its columns ("zh<TAB>en", "source ||| target ||| links",
    "zh_words") instead of holding a pair; None for any other line."""
    names = [column.strip() for column in input_columns(line) if column.strip()]
    bases = [re.sub(r"[_\- ](words|text|sentence|tokens)$", "", name.lower()) for name in names]
    named = len(names) >= 2 and all(base in HEADER_NAMES or base in LANGUAGE_SCRIPTS for base in bases)
    return names if named else None


def parse_line(number: int, line: str, gold: bool, is_segmented: bool) -> CorpusPair:
    """One input line as a pair; an InputError (with its sentence) when it cannot be used."""
    columns = input_columns(line)
    expected = 3 if gold else 2
    while len(columns) > expected and not columns[-1].strip():  # trailing tabs a spreadsheet left
        columns.pop()
    if len(columns) != expected:
        if len(columns) == 3 and not gold:
            raise InputError("corpus_columns_gold", count=len(columns))
        raise InputError("corpus_columns", count=len(columns))
    source, target = columns[0].strip(), columns[1].strip()
    if not source:
        raise InputError("corpus_empty_source")
    if not target:
        raise InputError("corpus_empty_target")
    source_words = target_words = None
    if is_segmented:
        source_words, target_words = segmented(source), segmented(target)
        source, target = source_words.text, target_words.text
    links = Gold.parse(columns[2]) if gold else None
    if links is not None and source_words is not None:
        links.check(len(source_words), len(target_words))
    return CorpusPair(number, source, target, links, source_words, target_words)


def read_pairs(path: Path, gold: bool = False, is_segmented: bool = False) -> Iterator[CorpusPair | BadLine]:
    """Every non-blank line of `path` as a pair or a bad line, in order, read as it streams (never all at once)."""
    with open(path, "rb") as lines:
        yield from parse_lines(enumerate(lines, start=1), gold, is_segmented)


def parse_lines(numbered, gold: bool, is_segmented: bool) -> Iterator[CorpusPair | BadLine]:
    """(line number, raw bytes) → pairs and bad lines; a line that is not UTF-8 is a bad line too, and a line 1 that
    names the columns (`header_names`) is said and skipped (shards start elsewhere: only the file's first line)."""
    for number, raw in numbered:
        try:
            line = raw.decode("utf-8-sig" if number == 1 else "utf-8")  # a byte-order mark is not text
        except UnicodeDecodeError:
            yield bad_line(number, InputError("corpus_not_utf8"), raw.decode("utf-8", errors="replace"))
            continue
        if not line.strip():
            continue
        names = header_names(line) if number == 1 else None
        if names:  # said as a line skipped, so that the count of lines read still adds up
            yield bad_line(number, InputError("corpus_header", columns=", ".join(names)), line)
            continue
        try:
            yield parse_line(number, line, gold, is_segmented)
        except AttnvizError as error:
            yield bad_line(number, error, line)


def bad_line(number: int, error: AttnvizError, line: str) -> BadLine:
    text = line.rstrip("\r\n")
    return BadLine(
        number, error.key, error.message("en"), text if len(text) <= 200 else text[:199] + "…", error.message("zh")
    )
