"""Which writing system a text is in, and whether a model reads it: checked before a capture, so that a page never
shows the attention of a model over text it cannot read (English into a Chinese → English translator).

Script-based and dependency-free: each letter is classed by its Unicode block (Han, Latin, kana, …), digits,
punctuation and spaces are ignored, and the script of most words is the text's script (a Han character counts as a
word: Chinese with a brand name in it is Chinese). A script says which
languages a text can be in, not which one (French and English both are Latin letters), so a model is taken to read
a text when one of its languages is written in that script.
"""

from __future__ import annotations

import functools
import unicodedata
from collections import Counter
from collections.abc import Sequence

# (first, last code point, script) — the blocks of the scripts named in the catalogue (`truth_script_*`).
_BLOCKS = (
    (0x0041, 0x024F, "latin"),  # Basic Latin letters, Latin-1, Latin Extended-A/B
    (0x1E00, 0x1EFF, "latin"),  # Latin Extended Additional (Vietnamese)
    (0xFF21, 0xFF5A, "latin"),  # full-width Latin letters
    (0x0370, 0x03FF, "greek"),
    (0x0400, 0x052F, "cyrillic"),
    (0x0590, 0x05FF, "hebrew"),
    (0x0600, 0x06FF, "arabic"),
    (0x0900, 0x097F, "devanagari"),
    (0x0E00, 0x0E7F, "thai"),
    (0x1100, 0x11FF, "hangul"),
    (0x3040, 0x30FF, "kana"),  # hiragana, katakana
    (0x3130, 0x318F, "hangul"),
    (0x3400, 0x4DBF, "han"),  # CJK extension A
    (0x4E00, 0x9FFF, "han"),  # CJK unified ideographs
    (0xAC00, 0xD7AF, "hangul"),
    (0xF900, 0xFAFF, "han"),  # compatibility ideographs
    (0x20000, 0x2EBEF, "han"),  # extensions B–F
)
SCRIPTS = tuple(dict.fromkeys(script for _, _, script in _BLOCKS))

# The script each language a catalogue entry may declare is written in (ISO 639-1 codes; extend as models come).
LANGUAGE_SCRIPTS = {
    "zh": ("han",),
    "ja": ("han", "kana"),
    "ko": ("hangul", "han"),
    "en": ("latin",),
    "fr": ("latin",),
    "de": ("latin",),
    "es": ("latin",),
    "it": ("latin",),
    "pt": ("latin",),
    "nl": ("latin",),
    "vi": ("latin",),
    "id": ("latin",),
    "tr": ("latin",),
    "pl": ("latin",),
    "ru": ("cyrillic",),
    "uk": ("cyrillic",),
    "el": ("greek",),
    "he": ("hebrew",),
    "ar": ("arabic",),
    "hi": ("devanagari",),
    "th": ("thai",),
}


def script_of(char: str) -> str | None:
    """The script of one letter (see `_BLOCKS`), or None for digits, punctuation, spaces, symbols and the rest."""
    if not unicodedata.category(char).startswith("L"):
        return None
    code = ord(char)
    for first, last, script in _BLOCKS:
        if first <= code <= last:
            return script
    return None


# Scripts written without spaces, a character about a word or a morpheme: each character counts as a word.
CHARACTER_WORDS = ("han", "kana")


def script_counts(text: str) -> Counter:
    """How many words of each script `text` has: each Han or kana character counts as one, as does each run of
    letters of another script — so 我喜欢用iPhone拍照 is Han, 6 words to 1 (by letters it would be a tie, 6 to 6)."""
    counts: Counter = Counter()
    previous = None
    for script in map(script_of, text):
        if script is not None and (script in CHARACTER_WORDS or script != previous):
            counts[script] += 1
        previous = script
    return counts


@functools.lru_cache(maxsize=32)  # a page asks it of the same long text many times per rerun (a scan per letter)
def main_script(text: str) -> str | None:
    """The script of most of the text's words (`script_counts`; Japanese: kana among Han counts as kana), or None
    without letters."""
    counts = script_counts(text)
    if not counts:
        return None
    if counts["kana"] and counts["han"]:  # Japanese writes kana between Han characters
        counts["kana"] += counts.pop("han")
    return counts.most_common(1)[0][0]


def reads(languages: Sequence[str], text: str) -> bool:
    """Whether a model that reads `languages` reads `text`: True when it declares none (not known), when the text
    has no letters, or when one of its languages is written in the text's main script."""
    script = main_script(text)
    if not languages or script is None:
        return True
    return any(script in LANGUAGE_SCRIPTS.get(language, ()) for language in languages)


def readers(entries: Sequence, text: str) -> list:
    """The catalogue entries (anything with a `languages` field) that declare a language the text is written in."""
    return [entry for entry in entries if entry.languages and reads(entry.languages, text)]
