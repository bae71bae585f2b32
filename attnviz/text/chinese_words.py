"""Where the words of a Chinese text begin and end, for the word view (`attnviz.maps.word_merge.word_groups`).

Chinese is written without spaces, so a tokenizer that reads it a character at a time gives no word boundaries of its
own. jieba (MIT licence, its dictionary shipped inside the package, nothing downloaded) cuts the text into the words
of its dictionary; its hidden Markov model for words it does not know is left off, so an unknown name stays one
character per word rather than a guessed word. Only words made of Han characters are returned: English, digits and
punctuation keep the rules the word merge has for them.
"""

from __future__ import annotations

import functools
import logging

import jieba

Span = tuple[int, int]  # [start, end) character offsets of a word in the text

jieba.setLogLevel(logging.WARNING)  # its dictionary load announces itself on stderr at DEBUG level otherwise


def is_han(char: str) -> bool:
    """A Chinese character (CJK unified ideographs, their extensions and compatibility forms; not kana)."""
    code = ord(char)
    return (
        0x4E00 <= code <= 0x9FFF or 0x3400 <= code <= 0x4DBF or 0x20000 <= code <= 0x2EBEF or 0xF900 <= code <= 0xFAFF
    )


@functools.cache
def _segmenter() -> jieba.Tokenizer:
    return jieba.Tokenizer()  # its dictionary loads on first use (about 0.5 s, then cached in the temp folder)


@functools.lru_cache(maxsize=64)
def chinese_word_spans(text: str) -> tuple[Span, ...]:
    """The spans of the Chinese words of `text`, in order ("我错过了" → (0, 1), (1, 3), (3, 4)); none when it has
    no Chinese character."""
    if not any(is_han(char) for char in text):
        return ()
    words = _segmenter().tokenize(text, HMM=False)
    return tuple((start, end) for word, start, end in words if all(is_han(char) for char in word))


def word_ids(text: str) -> list[int]:
    """For each character of `text`, the index of the Chinese word it is in (`chinese_word_spans`), -1 outside one."""
    ids = [-1] * len(text)
    for index, (start, end) in enumerate(chinese_word_spans(text)):
        ids[start:end] = [index] * (end - start)
    return ids
