"""The tokens a view draws along one axis, for every figure that has one value per token (ALTI+ shares, saliency
bars, the effect picker's choices) as well as for its maps: words or pieces, special tokens hidden or not, exactly
as `selection.prepare_map` draws a map's rows and columns (`word_merge.merge_words`, `analysis.hide_tokens`).

`drawn_units` lists them, each with the pieces it covers; `combined` turns per-piece values into per-unit ones,
by the rule that fits what the values are: "mean" for a share of each row (a word's rows averaged, as a merged map's
rows are, so shares that summed to 1 still do), "sum" for amounts that add up (a word's log-probability is the sum
of its pieces'), "l2" for a norm per piece (the norm over the word's pieces together: √Σ of the squares, the
gradient × input norm of the word's embeddings as one vector).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from attnviz.maps import word_merge
from attnviz.types import Token

RULES = ("mean", "sum", "l2")


@dataclass(frozen=True)
class Unit:
    """One token as the view draws it: a word (or one piece) and the pieces [start, stop) it covers."""

    token: Token
    start: int
    stop: int


def drawn_units(
    tokens: Sequence[Token],
    text: str | None,
    *,
    words: bool,
    hide_special: bool,
    spans: Sequence[tuple[int, int]] | None = None,
) -> list[Unit]:
    """The units a view draws of `tokens` (offsets into `text`): words when `words` (a person's own, `spans`,
    when given), else the pieces; special tokens left out when `hide_special`, unless nothing else is left (as a
    map of special tokens alone keeps them)."""
    if words:
        units = [Unit(token, start, stop) for (start, stop), token in word_merge.word_tokens(tokens, text, spans)]
    else:
        units = [Unit(token, i, i + 1) for i, token in enumerate(tokens)]
    if hide_special and not all(unit.token.special for unit in units):
        units = [unit for unit in units if not unit.token.special]
    return units


def combined(values: np.ndarray, units: Sequence[Unit], rule: str) -> np.ndarray:
    """(..., pieces) values → (..., units): each unit's pieces combined by `rule` (`RULES`)."""
    if rule not in RULES:
        raise ValueError(f"unknown rule {rule!r}; one of {RULES}")
    values = np.asarray(values, dtype=np.float64)
    parts = [values[..., unit.start : unit.stop] for unit in units]  # (..., pieces of the unit) each
    if rule == "mean":
        merged = [part.mean(axis=-1) for part in parts]
    elif rule == "sum":
        merged = [part.sum(axis=-1) for part in parts]
    else:
        merged = [np.sqrt(np.square(part).sum(axis=-1)) for part in parts]
    return np.stack(merged, axis=-1) if merged else values[..., :0]
