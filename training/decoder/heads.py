"""What the demo decoder's card reports, measured with attnviz's own capture: held-out perplexity and its heads.

The probe texts: held-out HSK sentences (never trained on) around one random span of Chinese characters written
twice — a span the model cannot have memorised, so predicting its second copy needs copying from the first (what an
induction head does, Olsson et al., 2022). About 500 tokens, captured whole (`attention.capture`), and about 4,000
tokens with the copies ~3,000 tokens apart, captured on demand (`attention.ondemand.capture_lazy`). The head roles
are `head_stats.head_statistics` (previous_token, induction, sink, positional, diagonal) of those captures.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np
import torch

from attnviz.attention.capture import capture
from attnviz.attention.ondemand import capture_lazy
from attnviz.maps import head_stats
from training.data.pairs import Pair

ROLES = ("previous_token", "induction", "sink", "positional", "diagonal")


@dataclass(frozen=True)
class Probe:
    """A probe text and where, in tokens, the two copies of its random span start (after <s>)."""

    text: str
    span_tokens: int
    first_copy: int
    second_copy: int
    tokens: int


def single_token_characters(tokenizer) -> list[str]:
    """CJK characters that are one piece of the vocabulary, in id order."""
    found = []
    for token_id in range(len(tokenizer)):
        text = tokenizer.decode([token_id])
        if (
            len(text) == 1
            and "\u4e00" <= text <= "\u9fff"
            and tokenizer.encode(text, add_special_tokens=False) == [token_id]
        ):
            found.append(text)
    return found


def natural_text(pairs: list[Pair], tokenizer, tokens: int, start: int = 0) -> tuple[str, int]:
    """Held-out sentences ("中文 English" lines) from `start` on, until about `tokens` tokens; (text, next start)."""
    lines, count, k = [], 0, start
    while count < tokens:
        pair = pairs[k % len(pairs)]
        lines.append(f"{pair.zh} {pair.en}")
        count += len(tokenizer.encode(lines[-1] + "\n", add_special_tokens=False))
        k += 1
    return "\n".join(lines) + "\n", k


def probe(tokenizer, pairs: list[Pair], before: int, span: int, between: int, seed: int, after: int = 0) -> Probe:
    """Text: ~`before` tokens of held-out text, a random span of `span` characters, ~`between` tokens more, the span
    again, then ~`after` tokens more. Every span character is one piece and a pre-token of its own, so the copies
    tokenize identically."""
    rng = random.Random(seed)
    characters = single_token_characters(tokenizer)
    chars = "".join(rng.choice(characters) for _ in range(span))
    head, next_start = natural_text(pairs, tokenizer, before)
    middle, next_start = natural_text(pairs, tokenizer, between, next_start)
    tail = "\n" + natural_text(pairs, tokenizer, after, next_start)[0] if after else ""
    text = head + chars + "\n" + middle + chars + tail
    count = lambda part: len(tokenizer.encode(part, add_special_tokens=False))  # noqa: E731
    first = 1 + count(head)
    second = first + span + count("\n" + middle)
    return Probe(text, span, first, second, 1 + count(text))


def probes(tokenizer, pairs: list[Pair], seed: int = 0) -> dict[str, Probe]:
    """The card's two probes: ~500 and ~4,000 tokens."""
    return {
        "500": probe(tokenizer, pairs, before=100, span=150, between=100, seed=seed),
        "4000": probe(tokenizer, pairs, before=450, span=500, between=2550, seed=seed + 1),
    }


def copy_losses(model, tokenizer, item: Probe) -> tuple[float, float]:
    """Mean next-token loss (nats) on the span's first copy and on its second: the drop is copying in context."""
    ids = torch.tensor([tokenizer.encode(item.text)])  # (1, tokens)
    with torch.no_grad():
        logits = model(input_ids=ids).logits[0, :-1]  # (tokens - 1, vocab): row i predicts token i + 1
    losses = torch.nn.functional.cross_entropy(logits.float(), ids[0, 1:], reduction="none").numpy()

    def span_loss(start: int) -> float:  # the span's tokens after its first (which nothing predicts)
        return float(losses[start : start + item.span_tokens - 1].mean())

    return span_loss(item.first_copy), span_loss(item.second_copy)


def perplexity(model, tokenizer, pairs: list[Pair], batch_size: int = 64) -> dict[str, float]:
    """Per-token perplexity of the held-out sentences, each line ("中文 English") scored on its own after <s>."""
    total, count = 0.0, 0
    lines = [f"{pair.zh} {pair.en}" for pair in pairs]
    for first in range(0, len(lines), batch_size):
        batch = tokenizer(lines[first : first + batch_size], padding=True, return_tensors="pt")
        ids, mask = batch["input_ids"], batch["attention_mask"]  # (lines, longest); padding on the right
        with torch.no_grad():
            logits = model(input_ids=ids, attention_mask=mask).logits[:, :-1]  # (lines, longest - 1, vocab)
        losses = torch.nn.functional.cross_entropy(logits.float().transpose(1, 2), ids[:, 1:], reduction="none")
        total += float((losses * mask[:, 1:]).sum())  # (lines, longest - 1): padding does not count
        count += int(mask[:, 1:].sum())
    return {"lines": len(pairs), "tokens": count, "perplexity": float(np.exp(total / count))}


def head_roles(handle, item: Probe, lazy: bool) -> dict[str, np.ndarray]:
    """`head_stats.head_statistics` of the probe's self-attention, (layers, heads) per role."""
    if lazy:
        stats = capture_lazy(handle, item.text).head_statistics("self")
    else:
        stats = head_stats.head_statistics(capture(handle, item.text).maps["self"])
    return {role: stats[role] for role in ROLES}


def ranked(scores: np.ndarray, top: int) -> list[tuple[int, int, float]]:
    """The `top` (layer, head, score) of a (layers, heads) score array, best first."""
    order = np.argsort(-np.nan_to_num(scores, nan=-1.0), axis=None)[:top]
    return [(int(k // scores.shape[1]), int(k % scores.shape[1]), float(scores.flat[k])) for k in order]
