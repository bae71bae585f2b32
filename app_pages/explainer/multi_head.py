"""The multi-head part of "How attention works": attnviz's own layer run on random input, every shape reported in
the seed's names (split (b, l, hdim) -> (b, heads, l, head_dim), attend per head, merge back)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from app_pages.explainer.steps import names
from attnviz.errors import InputError, Phrase
from attnviz.types import AttentionMap, Token

SEED_MULTI_HEAD_CODE = """\
def multi_head_split(x):
    # x: (batch_size, len, hdim)
    b, l, hdim = x.size()
    x = x.reshape(b, l, num_head, head_dim).transpose(1, 2)    # (b, num_head, l, head_dim)
    return x


def multi_head_merge(x):
    # x: (batch_size, num_head, len, head_dim)
    b, num_head, l, head_dim = x.size()
    x = x.transpose(1, 2).reshape(b, l, num_head * head_dim)   # (b, l, hdim)
    return x


q, k, v = map(multi_head_split, [q, k, v])
output = MultiHeadAttention(q, k, v)
output = multi_head_merge(output)
"""

# What each intermediate's axes are, in the seed's names.
SHAPE_SYMBOLS = {
    "x": "(b, l, hdim)",
    "query": "(b, heads, l, head_dim)",
    "key": "(b, heads, l, head_dim)",
    "value": "(b, heads, l, head_dim)",
    "scores": "(b, heads, l, l)",
    "weights": "(b, heads, l, l)",
    "context": "(b, heads, l, head_dim)",
    "merged": "(b, l, hdim)",
    "output": "(b, l, hdim)",
}


@dataclass(frozen=True)
class MultiHeadWalkthrough:
    shapes: list[tuple[str, tuple[int, ...]]]  # (step, shape) in order: input, split q/k/v, weights, context, merged
    weights: AttentionMap  # the layer's weights of batch row 0 as a one-layer map, one head per head
    device: str


def multi_head_walkthrough(
    batch: int, length: int, hidden: int, heads: int, device: str = "auto", seed: int = 0
) -> MultiHeadWalkthrough:
    """Run attnviz's own MultiHeadAttention on random input (b, l, hdim) on `device` and report every shape.

    The shapes follow the seed's pseudo-code: split (b, l, hdim) -> (b, heads, l, head_dim), attention per head,
    merge back to (b, l, hdim).
    """
    import torch

    from attnviz.attention.layer import MultiHeadAttention

    for value, what in ((batch, "batch"), (length, "length"), (hidden, "hidden"), (heads, "heads")):
        if value < 1:
            raise InputError("walkthrough_size_too_small", what=Phrase(f"walkthrough_size.{what}"))
    if hidden % heads:
        raise InputError("walkthrough_heads_do_not_divide", hidden=hidden, heads=heads)
    generator = torch.Generator().manual_seed(seed)
    torch.manual_seed(seed)
    layer = MultiHeadAttention(hidden, heads, device=device)
    x = torch.randn(batch, length, hidden, generator=generator).to(layer.q_proj.weight.device)  # (b, l, hdim)
    with torch.no_grad():
        result = layer(x, return_steps=True)
    steps = result.steps
    shapes = [("x", tuple(x.shape))] + [
        (name, shape) for name, shape in steps.shapes() if name not in ("scaled_scores", "masked_scores")
    ]
    weights = result.weights[0].detach().to("cpu", torch.float32).numpy()[None]  # (1, heads, l, l)
    tokens = [Token(name, -1, -1) for name in names("x", length)]
    amap = AttentionMap("self", weights, tokens, tokens, ["attnviz.attention.layer.MultiHeadAttention"])
    return MultiHeadWalkthrough(shapes, amap, str(layer.q_proj.weight.device))


def shape_rows(shapes: Sequence[tuple[str, tuple[int, ...]]], meanings: Mapping[str, str]) -> list[dict]:
    """The multi-head table: each step with its axes (seed names), its actual shape and what it is."""
    return [
        {
            "step": name,
            "axes": SHAPE_SYMBOLS.get(name, ""),
            "shape": str(tuple(shape)),
            "meaning": meanings.get(name, ""),
        }
        for name, shape in shapes
    ]


def head_dim(hidden: int, heads: int) -> int:
    return hidden // heads if heads else 0


def divisors(number: int) -> list[int]:
    """The head counts a hidden size can be split into."""
    return [d for d in range(1, number + 1) if number % d == 0]
