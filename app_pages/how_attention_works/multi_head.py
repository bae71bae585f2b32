"""The multi-head part of "How attention works": the library's walk-through of its own layer on random input
(`attnviz.attention.multi_head`), every shape shown in the seed's names (split (b, l, hdim) ->
(b, heads, l, head_dim), attend per head, merge back)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from app_pages.how_attention_works.steps import names

if TYPE_CHECKING:
    from attnviz.attention.multi_head import MultiHeadWalkthrough

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


def multi_head_walkthrough(
    batch: int, length: int, hidden: int, heads: int, device: str = "auto", seed: int = 0
) -> MultiHeadWalkthrough:
    """The library's multi-head walk-through (`attnviz.attention.multi_head`), its positions named as the seed
    names them (x₁, x₂, …)."""
    from attnviz.attention.multi_head import multi_head_walkthrough as walk  # imports torch: when the page runs it

    return walk(batch, length, hidden, heads, device, seed, token_names=names("x", length))


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
