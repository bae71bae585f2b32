"""Find a head: which heads send one token to another.

- `token_choices` (`TokenChoice`): the tokens of one side of a map a person can pick, as the view draws them (words
  or pieces, special tokens hidden or not); `find_choice` picks one by its label or its text.
- `rank_heads` (`HeadMatch`): every layer × head ranked by the weight from the query token to the key token, as the
  view's weighting shows it (raw, or weighted by value norm), alike on full and on-demand results.
- `pair_weight`: that weight as the figures of a head selection draw it, to check a ranked head against its figure.
- `rank_heads_by_effect` (`EffectMatch`): every head ranked by the exact effect of removing it on one chosen target
  token's log-probability, from effects computed beforehand (`attnviz.measures.head_effects`: this module stays
  free of torch); `effect_choices` names those effects' tokens as the view draws them (words or pieces).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from attnviz.errors import InputError
from attnviz.maps import analysis
from attnviz.types import AttentionResult, Token
from attnviz.view.selection import map_texts
from attnviz.view.token_units import Unit, drawn_units
from attnviz.view.viewing import WEIGHTINGS, HeadSelection

SIDES = ("query", "key")  # the side of a map a token is picked on


@dataclass(frozen=True)
class TokenChoice:
    """A token a person can pick, as a view shows it (a word, or one piece): its `label` ("it #9", unique in the
    map), its text, its `index` among the tokens the view draws, and the map's pieces it covers, [start, stop)."""

    label: str
    text: str
    index: int
    start: int
    stop: int


@dataclass(frozen=True)
class HeadMatch:
    """One head's weight from a query token to a key token: the mean over the query's pieces of the weight on the
    key's pieces (what the word view of `prepare_map` shows in that cell)."""

    layer: int
    head: int
    weight: float


def _square_tokens(result: AttentionResult, kind: str) -> tuple[list[Token], list[Token]]:
    """(query tokens, key tokens) as `prepare_map` names them: decoder rows by the token at their position."""
    queries, keys = result.tokens(kind)
    if kind == "decoder" and len(queries) == len(keys):
        queries = keys
    return list(queries), list(keys)


def token_choices(
    result: AttentionResult, kind: str, side: str = "query", words: bool = True, hide_special: bool = True
) -> list[TokenChoice]:
    """The tokens of one side ("query" or "key") of map `kind` a person can pick: words (or pieces) in order,
    special tokens left out when `hide_special` (unless the side has nothing else)."""
    if side not in SIDES:
        raise InputError("find_side_unknown", side=side)
    queries, keys = _square_tokens(result, kind)
    tokens = queries if side == "query" else keys
    query_text, key_text = map_texts(result, kind)
    text = query_text if side == "query" else key_text
    return unit_choices(drawn_units(tokens, text, words=words, hide_special=hide_special))


def unit_choices(units: Sequence[Unit]) -> list[TokenChoice]:
    """One choice per unit a view draws (`token_units.drawn_units`), labelled "text #number" in drawing order."""
    return [
        TokenChoice(f"{unit.token.text} #{number}", unit.token.text, number, unit.start, unit.stop)
        for number, unit in enumerate(units)
    ]


def find_choice(choices: Sequence[TokenChoice], wanted: str, occurrence: int = 1) -> TokenChoice:
    """The choice `wanted` names: its label ("it #10"), or its text (case and surrounding spaces ignored), the
    `occurrence`-th one when the text comes more than once; an InputError listing the choices otherwise."""
    for choice in choices:
        if choice.label == wanted:
            return choice
    matches = [c for c in choices if c.text.strip().casefold() == wanted.strip().casefold()]
    if not 1 <= occurrence <= len(matches):
        listed = ", ".join(c.label for c in choices)
        raise InputError("find_token_missing", token=wanted, occurrence=occurrence, tokens=listed)
    return matches[occurrence - 1]


def rank_heads(
    result: AttentionResult, kind: str, query: TokenChoice, key: TokenChoice, weighting: str = "weights"
) -> list[HeadMatch]:
    """Every layer × head of map `kind`, ranked by the weight from `query` to `key` (strongest first; ties in layer
    and head order), as `weighting` shows it (`viewing.WEIGHTINGS`: the weights, or each row weighted by the keys'
    value norms and summing to 1 again, as the figures draw it). Works alike on full and on-demand results: each head
    gives only the query's rows."""
    if weighting not in WEIGHTINGS:
        raise InputError("values_weighting_unknown", weighting=weighting, weightings=", ".join(WEIGHTINGS))
    layers, heads, num_queries, num_keys = result.shape(kind)
    if not (0 <= query.start < query.stop <= num_queries and 0 <= key.start < key.stop <= num_keys):
        raise InputError("find_span_outside", queries=num_queries, keys=num_keys)
    norms = result.value_norms(kind) if weighting == "value-norm" else None  # (layers, heads, keys)
    if weighting == "value-norm" and norms is None:
        raise InputError("values_missing", kind=kind)
    matches = []
    for layer in range(layers):
        for head in range(heads):
            rows = result.head(kind, layer, head, rows=(query.start, query.stop))  # (query pieces, keys)
            if norms is not None:
                rows = analysis.weigh_rows(rows, norms[layer, head])
            weight = float(rows[:, key.start : key.stop].astype(np.float64).sum(axis=1).mean())
            matches.append(HeadMatch(layer, head, weight))
    return sorted(matches, key=lambda match: -match.weight)


def pair_weight(chosen: HeadSelection, query: TokenChoice, key: TokenChoice) -> float | None:
    """The weight the figures of `chosen` draw from `query` to `key` (choices from `token_choices` with the view's
    words and hiding: their `index` is the drawn row and column), or None when the drawn map lacks either."""
    amap = chosen.amap
    row, col = query.index, key.index
    if not (row < len(amap.query_tokens) and amap.query_tokens[row].text == query.text):
        return None
    if not (col < len(amap.key_tokens) and amap.key_tokens[col].text == key.text):
        return None
    return float(chosen.matrix()[row, col])


@dataclass(frozen=True)
class EffectMatch:
    """The exact effect of removing one head on a chosen target token: the change in its log-probability (summed
    over the token's pieces). Negative: the head helps the model say it."""

    stack: str
    layer: int
    head: int
    effect: float


def piece_choices(tokens: Sequence[Token]) -> list[TokenChoice]:
    """One choice per piece of `tokens` (the per-token axis of head effects), labelled "text #index"."""
    return [TokenChoice(f"{token.text} #{i}", token.text, i, i, i + 1) for i, token in enumerate(tokens)]


def effect_choices(
    tokens: Sequence[Token], text: str | None, words: bool = True, hide_special: bool = True
) -> list[TokenChoice]:
    """The target tokens of head effects a person can pick, as the view draws them: words (a word's effect is the
    sum of its pieces', exactly the change in the word's log-probability, `rank_heads_by_effect`) or pieces, special
    tokens hidden or not; `text`: the target the tokens' offsets point into."""
    return unit_choices(drawn_units(tokens, text, words=words, hide_special=hide_special))


def rank_heads_by_effect(
    per_token: Mapping[str, np.ndarray], token: TokenChoice, stacks: Sequence[str] | None = None
) -> list[EffectMatch]:
    """Every head of `stacks` (all by default) ranked by its effect on `token`, the heads whose removal lowers its
    log-probability most first (ties in stack, layer and head order). `per_token`: stack -> (layers, heads, target
    tokens) effects (`HeadEffects.per_token`); `token` covers the pieces [start, stop) of that last axis (a choice of
    `token_choices(capture, "cross", "query")` for a translation captured with the same target, or `piece_choices`)."""
    matches = []
    for stack in stacks or list(per_token):
        effects = per_token[stack]  # (layers, heads, target tokens)
        if not 0 <= token.start < token.stop <= effects.shape[2]:
            raise InputError("find_effect_outside", count=effects.shape[2])
        summed = effects[:, :, token.start : token.stop].sum(axis=2)  # (layers, heads)
        matches += [
            EffectMatch(stack, layer, head, float(summed[layer, head]))
            for layer in range(summed.shape[0])
            for head in range(summed.shape[1])
        ]
    return sorted(matches, key=lambda match: match.effect)
