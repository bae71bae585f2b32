"""Multi-head attention shown step by step: attnviz's own layer (`attention.layer.MultiHeadAttention`) run on random
input, every intermediate's shape reported in the order the computation makes it (split (b, l, hdim) ->
(b, heads, l, head_dim), attention per head, merge back to (b, l, hdim)), and the weights as a one-layer map."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch

from attnviz.attention.layer import MultiHeadAttention
from attnviz.errors import InputError, Phrase
from attnviz.types import AttentionMap, Token

HIDDEN_STEPS = ("scaled_scores", "masked_scores")  # the scores' intermediate forms share the scores' shape


@dataclass(frozen=True)
class MultiHeadWalkthrough:
    shapes: list[tuple[str, tuple[int, ...]]]  # (step, shape) in order: input, split q/k/v, weights, context, merged
    weights: AttentionMap  # the layer's weights of batch row 0 as a one-layer map, one head per head
    device: str


def multi_head_walkthrough(
    batch: int,
    length: int,
    hidden: int,
    heads: int,
    device: str = "auto",
    seed: int = 0,
    token_names: Sequence[str] | None = None,
) -> MultiHeadWalkthrough:
    """Run MultiHeadAttention on random input (b, l, hdim) on `device` and report every shape; `token_names` label
    the map's `length` positions (default x1, x2, ...)."""
    for value, what in ((batch, "batch"), (length, "length"), (hidden, "hidden"), (heads, "heads")):
        if value < 1:
            raise InputError("walkthrough_size_too_small", what=Phrase(f"walkthrough_size.{what}"))
    if hidden % heads:
        raise InputError("walkthrough_heads_do_not_divide", hidden=hidden, heads=heads)
    generator = torch.Generator().manual_seed(seed)
    torch.manual_seed(seed)  # the layer's own initial weights
    layer = MultiHeadAttention(hidden, heads, device=device)
    x = torch.randn(batch, length, hidden, generator=generator).to(layer.q_proj.weight.device)  # (b, l, hdim)
    with torch.no_grad():
        result = layer(x, return_steps=True)
    shapes = [("x", tuple(x.shape))] + [
        (name, shape) for name, shape in result.steps.shapes() if name not in HIDDEN_STEPS
    ]
    weights = result.weights[0].detach().to("cpu", torch.float32).numpy()[None]  # (1, heads, l, l)
    names = list(token_names) if token_names is not None else [f"x{i + 1}" for i in range(length)]
    tokens = [Token(name, -1, -1) for name in names]
    amap = AttentionMap("self", weights, tokens, tokens, ["attnviz.attention.layer.MultiHeadAttention"])
    return MultiHeadWalkthrough(shapes, amap, str(layer.q_proj.weight.device))
