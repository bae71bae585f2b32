"""The training text of the demo decoder: the corpus as running text, packed into sequences, some with repeated spans.

Natural text: every corpus pair (training.data.corpus: HSK sentences with their English translation, CC-CEDICT
headwords with a gloss, the grammar, the phrasebook) becomes one line — Chinese then English, or English then
Chinese, or one side alone — and lines are packed, shuffled, into sequences that start with <s>.

Repeated spans: in a share of the sequences a span is written twice (or more), the copy later in the sequence —
either random tokens (predictable only by copying: what makes induction heads form, Olsson et al., 2022) or a stretch
of the text itself. Long sequences put the copies far apart, so the heads keep working thousands of tokens on.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from training.data.pairs import Pair


def pair_line(pair: Pair, rng: random.Random) -> str:
    """One line of running text for a pair: both sides in either order, or one side alone."""
    choice = rng.random()
    if choice < 0.4:
        return f"{pair.zh} {pair.en}"
    if choice < 0.7:
        return f"{pair.en} {pair.zh}"
    return pair.zh if choice < 0.85 else pair.en


def corpus_lines(pairs: Sequence[Pair], rng: random.Random) -> list[str]:
    return [pair_line(pair, rng) for pair in pairs]


@dataclass(frozen=True)
class Repeats:
    share: float = 0.7  # share of sequences with repeated spans
    random_share: float = 0.6  # of the repeated spans, the share that are random tokens (the rest: copied text)
    min_span: int = 8
    max_span: int = 96
    max_copies: int = 3  # a span written up to this many times
    loop_share: float = 0.3  # share of sequences that are one random span repeated to the end (the classic test)
    loop_max_span: int = 256  # a loop's span: min_span … this many tokens (at most half the sequence)
    text_token_share: float = 0.5  # random tokens drawn from the text's tokens (well-trained embeddings), else uniform


class TokenStream:
    """Encoded lines, handed out as packed sequences of ids: <s> then lines separated by newline ids."""

    def __init__(self, line_ids: list[list[int]], bos_id: int, newline_ids: list[int], rng: random.Random):
        self.lines, self.bos, self.newline, self.rng = line_ids, bos_id, newline_ids, rng
        self.order: list[int] = []
        self.pool = [token for line in line_ids for token in line]  # every token of the text, as often as it comes

    def _next_line(self) -> list[int]:
        if not self.order:
            self.order = list(range(len(self.lines)))
            self.rng.shuffle(self.order)
        return self.lines[self.order.pop()]

    def text(self, length: int) -> list[int]:
        """`length` ids of running text (no <s>)."""
        out: list[int] = []
        while len(out) < length:
            out += self._next_line() + self.newline
        return out[:length]

    def sequence(self, length: int, repeats: Repeats, vocab: range) -> list[int]:
        """One training sequence of `length` ids: <s>, text, and maybe repeated spans."""
        if self.rng.random() < repeats.loop_share:
            return [self.bos] + random_loop(length - 1, repeats, vocab, self.rng, self.pool)
        body = self.text(length - 1)
        if self.rng.random() < repeats.share:
            body = with_repeated_span(body, repeats, vocab, self.rng, self.pool)
        return [self.bos] + body


def random_span(size: int, vocab: range, rng: random.Random, pool: Sequence[int] = (), text_share: float = 0.0):
    """`size` random tokens: each drawn from `pool` (the text's tokens) with probability `text_share`, else
    uniformly from `vocab`."""
    return [rng.choice(pool) if pool and rng.random() < text_share else rng.choice(vocab) for _ in range(size)]


def random_loop(length: int, repeats: Repeats, vocab: range, rng: random.Random, pool: Sequence[int] = ()) -> list[int]:
    """One random span repeated to fill `length`."""
    size = rng.randint(repeats.min_span, max(repeats.min_span, min(repeats.loop_max_span, length // 2)))
    span = random_span(size, vocab, rng, pool, repeats.text_token_share)
    return (span * (length // len(span) + 1))[:length]


def with_repeated_span(
    body: list[int], repeats: Repeats, vocab: range, rng: random.Random, pool: Sequence[int] = ()
) -> list[int]:
    """`body` with one span written 2 … max_copies times at increasing positions, spread over the whole body."""
    body = list(body)
    copies = rng.randint(2, repeats.max_copies)
    size = rng.randint(repeats.min_span, max(repeats.min_span, min(repeats.max_span, len(body) // (2 * copies))))
    slots = len(body) // copies  # copy c goes somewhere in the c-th slot, so copies never overlap
    if slots < size:
        return body
    if rng.random() < repeats.random_share:
        span = random_span(size, vocab, rng, pool, repeats.text_token_share)
    else:
        start = rng.randrange(0, len(body) - size + 1)
        span = body[start : start + size]
    for c in range(copies):
        at = c * slots + rng.randrange(0, slots - size + 1)
        body[at : at + size] = span
    return body
