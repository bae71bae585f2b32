"""Texts longer than a model reads: which catalogue model reads the most of one, and what a truncated capture kept.

- `reading_model(entries, text, tokens, positions)`: when a text of `tokens` tokens exceeds the `positions` the chosen
  model reads, the catalogue model with the most positions that reads the text's language (`language.reads`), if it reads
  more of the text; a long text on the Self-attention page opens on it.
- `truncation(tokens, total, text)` -> `Truncation`: how many tokens a truncated capture kept of how many, and the
  text it cut from — what a page says under a truncated figure.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from attnviz.model.catalogue import CatalogueEntry
from attnviz.text.language import reads
from attnviz.types import Token

CUT_PREVIEW = 40  # characters of the cut text a page quotes


def reading_model(
    entries: Sequence[CatalogueEntry], text: str, tokens: int, positions: int | None
) -> CatalogueEntry | None:
    """The catalogue model a text of `tokens` tokens opens on when the chosen model reads only `positions` (None:
    unbounded): the one with the most positions that reads the text's language, when it reads more than `positions`.
    None when the text fits, or no model reads more of it."""
    if positions is None or tokens <= positions:
        return None
    longer = [
        e for e in entries if e.max_positions is not None and e.max_positions > positions and reads(e.languages, text)
    ]
    return max(longer, key=lambda e: e.max_positions, default=None)


@dataclass(frozen=True)
class Truncation:
    """What a truncated capture kept: `kept` of `total` tokens, the text cut from character `cut_at` on."""

    kept: int
    total: int
    cut_at: int
    cut_text: str  # the first CUT_PREVIEW characters of what was cut, "…" when there is more

    @property
    def cut(self) -> bool:
        return self.kept < self.total


def token_count(handle, text: str) -> int:
    """How many tokens the model's tokenizer makes of `text`, special tokens included (none for an empty text)."""
    return len(handle.tokenizer(text)["input_ids"]) if text.strip() else 0


def truncation(tokens: Sequence[Token], total: int, text: str) -> Truncation:
    """What a capture whose source tokens are `tokens` kept of a text of `total` tokens: where the last kept token
    ends in `text` (special tokens have no place in it), and the start of what follows."""
    ends = [t.end for t in tokens if not t.special and t.end >= 0]
    cut_at = max(ends, default=0) if len(tokens) < total else len(text)
    rest = text[cut_at:].strip()
    preview = rest[:CUT_PREVIEW] + ("…" if len(rest) > CUT_PREVIEW else "")
    return Truncation(len(tokens), total, cut_at, preview)


def leading_text(tokens: Sequence[Token], text: str, count: int) -> str:
    """The start of `text` that its first `count` readable tokens cover (special tokens have no place in it): a
    window a step-by-step view can read as a text of its own; the whole text when it has no more tokens."""
    ends = [t.end for t in tokens if not t.special and t.end >= 0][:count]
    readable = sum(1 for t in tokens if not t.special and t.end >= 0)
    return text if readable <= count else text[: max(ends, default=0)]
