"""Words a gold alignment indexes, and how they meet the model's tokens: through character offsets.

Two ways to say what the words are:
- `segmented(line)`: pre-segmented input, as awesome-align reads it — words separated by spaces on each side. The
  text the model reads joins the words with one space, except where a CJK character sits on either side of the seam
  (Chinese words are written without spaces: "我 喜欢 学习 。" is read as "我喜欢学习。") and where punctuation
  or a clitic is written against its word ("Good morning !" is read as "Good morning!").
- `merged(tokens, text)`: plain input — the words of the word merge (`attnviz.maps.word_merge.word_groups`: English
  subwords joined into words, Chinese words as the segmenter cuts them, in whole pieces), special tokens left out.
  These are the words the app's word view draws.

`token_words` then gives each token of a map the word its offsets fall in (the word it overlaps most), so a user's
own segmentation and the tokenizer's pieces meet without either having to match the other.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from attnviz.errors import InputError
from attnviz.maps import word_merge
from attnviz.maps.word_merge import _is_cjk
from attnviz.types import Token

Span = tuple[int, int]  # [start, end) character offsets in the text the model reads


@dataclass(frozen=True)
class Words:
    """A text as the model reads it and the spans of its words in that text."""

    text: str
    spans: tuple[Span, ...]

    @property
    def words(self) -> tuple[str, ...]:
        return tuple(self.text[start:end] for start, end in self.spans)

    def __len__(self) -> int:
        return len(self.spans)

    def behind(self, prefix: str) -> Words:
        """The same words in `prefix + text`: the text a model reads when it puts a task prefix or a language code
        before the user's (`attnviz.model.usage.reading`)."""
        return Words(prefix + self.text, tuple((start + len(prefix), end + len(prefix)) for start, end in self.spans))


CLOSING = set(".,!?;:%)]}\u2019\u201d")  # punctuation written against the word before it
OPENING = set("([{\u2018\u201c$")  # … and against the word after it
CLITICS = ("'s", "'re", "'ve", "'ll", "'d", "'m", "n't")  # tokenized English ("do n't", "it 's"), as it is written


def _seam(left: str, right: str) -> str:
    """What joins two words as they are written: nothing where Chinese (or Japanese) script meets the seam, before
    closing punctuation or a clitic, after opening punctuation; else a space (tokenized English "healthy ." is
    read as "healthy.", the text a model saw in training)."""
    if _is_cjk(left[-1]) or _is_cjk(right[0]):
        return ""
    if set(right) <= CLOSING or right.lower() in CLITICS or set(left) <= OPENING:
        return ""
    return " "


def segmented(line: str) -> Words:
    """Space-separated words → the text the model reads and each word's span in it ("早上 好 ！" → "早上好！")."""
    words = line.split()
    if not words:
        raise InputError("corpus_no_words")
    text, spans = "", []
    for index, word in enumerate(words):
        if index:
            text += _seam(words[index - 1], word)
        spans.append((len(text), len(text) + len(word)))
        text += word
    return Words(text, tuple(spans))


def merged(tokens: Sequence[Token], text: str, skip: int = 0) -> Words:
    """The word merge's words of a map's tokens (`word_merge.word_groups`), special and offset-less tokens and
    whitespace left out: the words the word view draws. Words starting in the first `skip` characters (a prefix the
    model put before the user's text) are not the user's: left out too."""
    spans = []
    for first, stop in word_merge.word_groups(tokens, text):
        pieces = [t for t in tokens[first:stop] if not t.special and t.start >= 0]
        if not pieces:
            continue
        start, end = min(p.start for p in pieces), max(p.end for p in pieces)
        if text[start:end].strip() and start >= skip:
            spans.append((start, end))
    return Words(text, tuple(spans))


def shifted(tokens: Sequence[Token], by: int) -> list[Token]:
    """`tokens` with their offsets moved by `by` characters (into a text with a prefix more, or one less); a token
    that would start before the text begins (in the prefix dropped) loses its offsets, so it belongs to no word."""
    out = []
    for token in tokens:
        if token.start < 0 or token.special:
            out.append(token)
        elif token.start + by < 0:
            out.append(replace(token, start=-1, end=-1))
        else:
            out.append(replace(token, start=token.start + by, end=token.end + by))
    return out


def token_words(tokens: Sequence[Token], words: Words) -> list[int | None]:
    """For each token, the index of the word its character span overlaps most (the first on a tie); None for special
    tokens, tokens without offsets and tokens that overlap no word (a lone space)."""
    return word_merge.span_owners(tokens, words.spans)
