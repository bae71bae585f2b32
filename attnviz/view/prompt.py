"""A decoder-only model's continuation told apart from the prompt it was given: a capture of a continuation holds
the prompt's positions and then the ones the model wrote (`attention.generation`: every written token but the last,
which was never read back), so a page can say how many are whose and draw the prompt alone.

Drawing the prompt alone needs no second run: the model is causal, so position i's attention, value vectors and
every layer's output depend on positions ≤ i only, and the prompt's rows and keys of the continuation's capture are
exactly the capture of the prompt read by itself (a test checks it against that capture)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from attnviz.maps import analysis
from attnviz.types import AttentionCapture


@dataclass(frozen=True)
class Continuation:
    """How many positions of a continuation's capture are the prompt, and how many tokens the model wrote."""

    prompt: int  # positions of the prompt (its special tokens included)
    written: int  # tokens the model wrote after it


def continuation(result) -> Continuation | None:
    """The prompt and written counts of a capture a decoder-only model wrote (one causal "self" map and the
    generation's steps); None for anything else (a text read as given, a translator, a long text read on demand)."""
    if not result.is_complete or not result.steps or list(result.maps) != ["self"] or not result["self"].causal:
        return None
    positions = len(result["self"].query_tokens)
    return Continuation(prompt=positions - (len(result.steps) - 1), written=len(result.steps))


def prompt_alone(result: AttentionCapture) -> AttentionCapture:
    """The capture of the prompt alone, cut from the capture of its continuation (`continuation`): its maps cropped
    to the prompt's positions, its text the prompt's, no steps; `result` itself when it is no continuation."""
    told = continuation(result)
    if told is None:
        return result
    span = (0, told.prompt)
    cropped = {kind: analysis.crop(amap, span, span) for kind, amap in result.maps.items()}  # (…, prompt, prompt)
    located = [token.end for token in cropped["self"].query_tokens if token.start >= 0]  # the prompt's own tokens
    prompt_text = result.source_text[: max(located, default=0)]
    provenance = {**result.provenance, "source_text": prompt_text, "target_text": None}
    options = {**provenance.get("options", {}), "prompt_alone": True}
    return replace(
        result,
        maps=cropped,
        source_text=prompt_text,
        target_text=None,
        steps=None,
        provenance={**provenance, "options": options},
    )
