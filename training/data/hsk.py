"""The HSK sentences as corpus pairs: words from the source's segmentation, silver links from its glosses.

Chinese words are the source's segmentation with the punctuation between them as words of their own, except
that words are merged where the Chinese tokenizer keeps a longer piece whole (the grammar's 我的 is one piece,
so the source's 我 / 的 become one word 我的): a piece never straddles two words, so alignments fit the pieces.
English words are the translation split as training.data.pairs splits English.
"""

from __future__ import annotations

from training.data.pairs import Pair, english_text, english_words, merged_words
from training.data.silver import gloss_senses, silver_links
from training.data.sources import Sentence, cedict, hsk_sentences

ORIGIN = "hsk"  # origins read "hsk:<id>"


def sentence_id(pair: Pair) -> str:
    return pair.origin.split(":", 1)[1].split("/", 1)[0]


def source_words(sentence: Sentence) -> tuple[list[str], list[int]]:
    """The sentence's words with its punctuation as words, and for each the index of its source word (-1: mark)."""
    words, owners, position = [], [], 0
    for k, word in enumerate(sentence.words):
        found = sentence.chinese.index(word, position)
        words += list(sentence.chinese[position:found].replace(" ", ""))
        owners += [-1] * (len(words) - len(owners))
        words.append(word)
        owners.append(k)
        position = found + len(word)
    words += list(sentence.chinese[position:].replace(" ", ""))
    owners += [-1] * (len(words) - len(owners))
    return words, owners


def symbol_spans(text: str, symbols: set[str]) -> list[tuple[int, int]]:
    """Where SentencePiece puts the user-defined symbols: longest match first, left to right (as its matcher does)."""
    longest = max(map(len, symbols), default=0)
    spans, position = [], 0
    while position < len(text):
        for size in range(min(longest, len(text) - position), 1, -1):
            if text[position : position + size] in symbols:
                spans.append((position, position + size))
                position += size
                break
        else:
            position += 1
    return spans


def merged_groups(words: list[str], symbols: set[str]) -> list[list[int]]:
    """Groups of consecutive word indices that become one word, so that no symbol straddles two words."""
    starts, position = [], 0
    for word in words:
        starts.append(position)
        position += len(word)
    group_of = list(range(len(words)))
    for begin, end in symbol_spans("".join(words), symbols):
        inside = [k for k, s in enumerate(starts) if s < end and s + len(words[k]) > begin]
        for k in inside[1:]:
            group_of[k] = group_of[inside[0]]
    groups: dict[int, list[int]] = {}
    for k, g in enumerate(group_of):
        groups.setdefault(g, []).append(k)
    return list(groups.values())


def has_translation(sentence: Sentence) -> bool:
    """False for the source's stand-ins where a translation is missing ("placeholder-p1", "PH")."""
    text = sentence.english.strip()
    return bool(text) and "placeholder" not in text.lower() and text != "PH"


def hsk_pair(sentence: Sentence, symbols: set[str]) -> Pair | None:
    """The pair of one sentence with its silver links; None when it has no real translation or its English has a
    character the corpus avoids."""
    if not has_translation(sentence):
        return None
    en_words = english_words(sentence.english)
    if not sentence.english.isascii() or "'" in en_words or english_text(en_words) != sentence.english:
        return None  # a lone quote could share a piece with its word; "1.4" would not survive the word split
    words, owners = source_words(sentence)
    dictionary = cedict()
    senses = [
        gloss_senses(w, sentence.glosses[o] if o >= 0 else "", dictionary) if o >= 0 else ([], 0)
        for w, o in zip(words, owners, strict=True)
    ]
    links = silver_links(words, [s for s, _ in senses], [n for _, n in senses], en_words)
    return merged_words(words, en_words, links, merged_groups(words, symbols), f"{ORIGIN}:{sentence.id}")


def hsk_pairs(symbols: set[str]) -> list[Pair]:
    """Every usable HSK sentence as a pair, in the source's order."""
    return [pair for pair in (hsk_pair(s, symbols) for s in hsk_sentences()) if pair is not None]
