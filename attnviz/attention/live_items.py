"""What a live run yields as the model writes (`attnviz.attention.live.write_live`): the running beams, each written
token, then the finished capture. Plain data (numpy and `attnviz.types`), so the pages that draw a live run import
it without torch or transformers: a page's script imports while the server may be loading a model in another thread,
and transformers' lazy imports are not safe from two threads at once."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attnviz.types import AttentionCapture, GenerationStep, Token


@dataclass(frozen=True)
class Beam:
    """One running beam of beam search: the text it has written and its score (sum of its tokens' log-probabilities
    as beam search scored them, before any length penalty)."""

    text: str
    ids: tuple[int, ...]  # the ids it has written (no start token, no prompt)
    score: float


@dataclass(frozen=True)
class LiveBeams:
    """Beam search after `step` tokens: its running beams, best first."""

    step: int
    beams: tuple[Beam, ...]


@dataclass(frozen=True)
class LiveStep:
    """Token `index` (0-based) as the model wrote it: `step` is the `GenerationStep` the finished capture holds for
    it (token, probability, alternatives, self and cross rows); `text` what is written so far and `written` its
    tokens (this step's last); `source` the tokens the model read (a translator's cross-attention keys, a decoder's
    prompt)."""

    index: int
    step: GenerationStep
    text: str
    source: tuple[Token, ...]
    written: tuple[Token, ...] = ()

    @property
    def kind(self) -> str:
        """The attention the live views draw of this step: "cross" for a translator, "self" for a decoder."""
        return "self" if self.step.cross_weights is None else "cross"

    def row(self) -> tuple[np.ndarray, tuple[Token, ...]]:
        """(weights (layers, heads, keys), keys) of the row the live views draw: a translator's cross-attention
        over the source; a decoder's self-attention over its prompt and the tokens it wrote before this one."""
        if self.kind == "cross":
            return self.step.cross_weights, self.source
        return self.step.self_weights, self.source + self.written[: self.index]


@dataclass(frozen=True)
class LiveFinished:
    """The finished writing: the capture `generate` returns, and per `LiveBeams` yielded the index of the beam that
    the written text grew from (None once it had left the running beams, finished)."""

    capture: AttentionCapture
    winners: tuple[int | None, ...] = ()


LiveItem = LiveBeams | LiveStep | LiveFinished
