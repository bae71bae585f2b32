"""Dictionary pairs for vocabulary coverage: a CC-CEDICT headword ↔ a short English gloss, every gloss word linked
to the headword (one Chinese word).

Which headwords: every word of the HSK 2.0 / 3.0 lists, then the most common single characters (common = in the
most CEDICT headwords, a stand-in for frequency that needs no other source). Which gloss: the first sense that is
plain, short English — not a cross-reference, a variant note, a surname or a classifier note — with its
parenthesised notes dropped and a leading "to " taken off (走 → walk).
"""

from __future__ import annotations

import re
from collections import Counter

from training.data.pairs import Pair, english_text, english_words
from training.data.sources import cedict, hsk_word_levels

ORIGIN = "dictionary"
COMMON_CHARACTERS = 5000  # those with a plain gloss become pairs, and so pieces of the Chinese tokenizer
MAX_GLOSS_WORDS = 4
_SKIPPED = re.compile(
    r"^(see |used in |variant of |old variant |abbr\. |CL:|surname |classifier |measure word|"
    r"\(|[A-Z][a-z]+ [A-Z]|.*\b(Tw|Cantonese|dialect|archaic|literary|old)\b)"
)
_NOTE = re.compile(r"\([^)]*\)|\[[^\]]*\]")


def is_chinese(text: str) -> bool:
    return bool(text) and all("\u3400" <= c <= "\u9fff" for c in text)


def short_gloss(senses) -> str | None:
    """The first sense that is plain English of at most MAX_GLOSS_WORDS words, as corpus text."""
    for sense in senses:
        if _SKIPPED.match(sense):
            continue
        text = " ".join(_NOTE.sub(" ", sense).split())
        text = text[3:] if text.startswith("to ") else text
        if text and re.fullmatch(r"[A-Za-z][A-Za-z' -]*", text) and len(text.split()) <= MAX_GLOSS_WORDS:
            words = english_words(text)
            if "'" not in words and english_text(words) == text:
                return text
    return None


def common_characters(dictionary: dict, count: int = COMMON_CHARACTERS) -> list[str]:
    """The `count` characters found in the most CEDICT headwords, most common first (ties by code point)."""
    found = Counter(c for word in dictionary for c in set(word) if is_chinese(c))
    return [c for c, _ in sorted(found.items(), key=lambda item: (-item[1], item[0]))[:count]]


def dictionary_headwords() -> list[str]:
    """HSK words (lowest level first), then the common characters not among them."""
    dictionary = cedict()
    levels = hsk_word_levels()
    words = sorted((w for w in levels if is_chinese(w) and w in dictionary), key=lambda w: (levels[w], w))
    taken = set(words)
    return words + [c for c in common_characters(dictionary) if c not in taken and c in dictionary]


def dictionary_pairs() -> list[Pair]:
    dictionary = cedict()
    pairs = []
    for word in dictionary_headwords():
        gloss = short_gloss(dictionary[word])
        if gloss:
            en_words = tuple(english_words(gloss))
            pairs.append(Pair((word,), en_words, tuple((0, j) for j in range(len(en_words))), ORIGIN))
    return pairs
