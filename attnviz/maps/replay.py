"""Generation replayed row by row: a map as it stood after its first rows were written, and how sure the model was
of each token it wrote.

- `step_count` / `check_step` / `replay`: the replay slider's steps, a step checked against a map, and the map
  cropped to the rows written by then (`attnviz.view.selection.show_map` replays to `ViewOptions.step`).
- `step_scores` / `replayed_scores`: each generated step's probability and alternatives (`StepScore`), and the ones
  that wrote the newest row of a replay.

What the newest row looked at, in a sentence, is `attnviz.view.focus`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from attnviz.errors import InputError
from attnviz.maps import analysis
from attnviz.text.caveats import UNSURE_BELOW
from attnviz.types import AttentionMap, AttentionResult, Token


def step_count(amap: AttentionMap) -> int:
    """How many steps the replay slider has: one per query row shown (per target token, or word in the word view)."""
    return len(amap.query_tokens)


def check_step(amap: AttentionMap, step: int) -> None:
    """A replay step `amap` has: 0 (all), or 1..`step_count` rows of a map a decoder wrote (cross-attention or a
    decoder's self-attention). An encoder reads its text at once, so "after N rows" would only crop it."""
    if not step:
        return
    if not 1 <= step <= step_count(amap):
        raise InputError("step_past_end", step=step, steps=step_count(amap))
    if amap.kind not in ("cross", "decoder") and not amap.causal:
        raise InputError("step_not_replayed", kind=amap.kind)


def replay(amap: AttentionMap, step: int) -> AttentionMap:
    """The map as it stood after `step` target rows were written (0 = all): generation replayed row by row.

    Row i of a cross map is what the model looked at while writing target token i, whether it generated the target
    or read a given one, so the replay works for both.
    """
    if not step or step >= step_count(amap):
        return amap
    keys = (0, step) if amap.causal else None  # a causal map keeps its triangle
    return analysis.crop(amap, queries=(0, step), keys=keys)


@dataclass(frozen=True)
class StepScore:
    """How sure the model was of one token it wrote: what a replay shows beside where that token looked."""

    step: int  # 1-based, in generation order
    token: Token  # the token written
    probability: float  # what the model gave it at that step
    alternatives: tuple[tuple[str, float], ...]  # the step's most probable tokens (text, probability), best first
    unsure: bool  # below caveats.UNSURE_BELOW: a guess
    ranked_first: bool = True  # the step's most likely token (beam search may write another: it ranks whole texts)


def step_scores(result: AttentionResult) -> list[StepScore]:
    """The score of every generated step that has one (none for a given pair, or a file from before step scores)."""
    return [
        StepScore(
            index,
            step.token,
            step.probability,
            step.alternatives,
            step.probability < UNSURE_BELOW,
            not step.alternatives or step.probability >= step.alternatives[0][1],
        )
        for index, step in enumerate(getattr(result, "steps", None) or [], start=1)
        if step.probability is not None
    ]


def replayed_scores(scores: Sequence[StepScore], amap: AttentionMap, step: int) -> list[StepScore]:
    """The scores of the steps that wrote the newest row of `replay(amap, step)` (its token, or each piece of its
    word in the word view): matched by the characters they cover, specials (</s>) by name."""
    if not scores or not amap.query_tokens:
        return []
    row = amap.query_tokens[(step or step_count(amap)) - 1]
    if row.special or row.start < 0:
        return [score for score in scores if score.token.special and score.token.text == row.text]
    return [
        score
        for score in scores
        if not score.token.special and score.token.start < row.end and row.start < score.token.end
    ]
