"""Tatoeba's everyday sentences as corpus pairs: simplified Chinese, dictionary words, silver links.

Tatoeba (tatoeba.org, CC BY 2.0 FR) has no word segmentation and mixes traditional and simplified Chinese, so each
pair is made here:
- traditional text is written in simplified characters, word by word through CC-CEDICT's headwords (longest
  first), when it holds a character that only traditional text uses;
- ASCII punctuation becomes the full-width form the corpus uses and spaces go (as the Chinese tokenizer reads it);
- words: longest match over CC-CEDICT's headwords and the tokenizer's own symbols, then merged where a symbol
  straddles two (training.data.hsk.merged_groups), so that the alignment fits the pieces;
- silver links by the rule of training.data.silver, with CC-CEDICT's senses as the glosses.
Pairs whose English is not plain ASCII that survives the word split, whose Chinese holds Latin letters, or that
are longer than an everyday sentence (MAX_CHINESE_CHARACTERS, MAX_ENGLISH_WORDS) are left out. A fixed part, chosen by the Chinese sentence's id (every translation of it), is held out.
"""

from __future__ import annotations

from functools import lru_cache

from training.data.heldout import is_held_out
from training.data.hsk import merged_groups
from training.data.pairs import Pair, english_text, english_words, merged_words
from training.data.silver import gloss_senses, silver_links
from training.data.sources import TatoebaPair, cedict, tatoeba_pairs, traditional_to_simplified

ORIGIN = "tatoeba"  # origins read "tatoeba:<chinese id>"
HELD_OUT_PER_MILLE = 25  # 2.5 % of the Chinese sentences: about 700 pairs, scored by each model card
_FULL_WIDTH = str.maketrans({"!": "！", "?": "？", ",": "，", ";": "；", ":": "：", "(": "（", ")": "）"})
MAX_WORD = 8  # longest CC-CEDICT headword tried
MAX_CHINESE_CHARACTERS = 40  # everyday sentences; a few long speeches would not fit the model's 128 positions
MAX_ENGLISH_WORDS = 32


@lru_cache(maxsize=1)
def _traditional_only() -> frozenset[str]:
    """Characters that appear in traditional headwords but never in a simplified one."""
    simplified = {c for word in cedict() for c in word}
    return frozenset(c for word in traditional_to_simplified() for c in word if c not in simplified)


def longest_match(text: str, words, longest: int = MAX_WORD) -> list[str]:
    """Split `text` left to right, taking at each place the longest entry of `words` (else one character)."""
    out, position = [], 0
    while position < len(text):
        for size in range(min(longest, len(text) - position), 0, -1):
            piece = text[position : position + size]
            if size == 1 or piece in words:
                out.append(piece)
                position += size
                break
    return out


def simplified(text: str) -> str:
    if not set(text) & _traditional_only():
        return text
    forms = traditional_to_simplified()
    return "".join(forms.get(piece, piece) for piece in longest_match(text, forms))


def chinese_text(text: str) -> str:
    """Simplified, full-width punctuation, no spaces; a final ASCII full stop as 。."""
    text = simplified(text).translate(_FULL_WIDTH).replace(" ", "").replace("\u3000", "")
    return text[:-1] + "。" if text.endswith(".") else text


def tatoeba_pair(row: TatoebaPair, symbols: set[str], headwords: set[str]) -> Pair | None:
    """One Tatoeba translation as a pair with silver links; None when it is left out (see the module's rule).
    `headwords`: CC-CEDICT's headwords and the symbols, the words the segmentation may take."""
    zh = chinese_text(row.chinese)
    en_words = english_words(row.english)
    if not zh or any(c.isascii() and c.isalpha() for c in zh) or not row.english.isascii():
        return None
    if len(zh) > MAX_CHINESE_CHARACTERS or len(en_words) > MAX_ENGLISH_WORDS:
        return None
    if "'" in en_words or '"' in en_words or english_text(en_words) != row.english:
        return None
    dictionary = cedict()
    words = longest_match(zh, headwords)
    senses = [gloss_senses(w, "", dictionary) for w in words]
    links = silver_links(words, [s for s, _ in senses], [n for _, n in senses], en_words)
    return merged_words(words, en_words, links, merged_groups(words, symbols), f"{ORIGIN}:{row.chinese_id}")


def tatoeba_split(symbols: set[str]) -> tuple[list[Pair], list[Pair]]:
    """Every usable Tatoeba translation, to train on and held out (by the Chinese sentence's id)."""
    train, heldout = [], []
    headwords = set(cedict()) | symbols
    for row in tatoeba_pairs():
        pair = tatoeba_pair(row, symbols, headwords)
        if pair is not None:
            (heldout if is_held_out(f"{ORIGIN}:{row.chinese_id}", HELD_OUT_PER_MILLE) else train).append(pair)
    return train, heldout
