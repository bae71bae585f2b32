"""Replaying a chosen output: how many beams a model decodes with, and a logits processor that makes greedy
decoding write a given token sequence (so the recorder sees, batch 1, the steps beam search chose)."""

from __future__ import annotations

import torch
from transformers import LogitsProcessor

from attnviz.errors import InputError

MAX_BEAMS = 16  # beyond this, beam search costs memory and time for no visible gain on a sentence


def decoding_beams(model, num_beams: int | None) -> int:
    """The beams to decode with: `num_beams` when given (1 = greedy; refused outside 1 … MAX_BEAMS), else the
    model's generation config, at most MAX_BEAMS."""
    if num_beams is None:
        configured = getattr(getattr(model, "generation_config", None), "num_beams", None)
        return min(configured, MAX_BEAMS) if isinstance(configured, int) and configured > 1 else 1
    if isinstance(num_beams, bool) or not isinstance(num_beams, int) or not 1 <= num_beams <= MAX_BEAMS:
        raise InputError("num_beams_invalid", value=num_beams, limit=MAX_BEAMS)
    return num_beams


class ForcedTokens(LogitsProcessor):
    """A `model.generate` logits processor that forces `tokens` to be written, one per step.

    `first` is the length of the ids before the first written token (the prompt, or the decoder start token).
    It changes only the scores generation chooses by, never `output_logits`, which stay the model's own. Run it
    with `max_new_tokens=len(tokens)`: past the end it leaves the model's choice."""

    def __init__(self, tokens: list[int], first: int):
        self.tokens, self.first = list(tokens), first

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        step = input_ids.shape[-1] - self.first  # the index of the token written now
        if step >= len(self.tokens):
            return scores
        forced = torch.full_like(scores, float("-inf"))  # (batch, vocab)
        forced[:, self.tokens[step]] = 0.0
        return forced
