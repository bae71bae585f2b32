"""The numbers a parity check needs when one model reads one input twice (two devices, two precisions): the largest
|ΔP| of any weight, how far any row strays from summing to 1, and the head where they differ most."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attnviz.errors import InputError
from attnviz.types import AttentionMap


@dataclass(frozen=True)
class Parity:
    per_head: np.ndarray  # float64 (layers, heads): max |A − B| of each head
    row_sum_error: float  # max |Σ_k P_ik − 1| over every row of both maps
    worst_layer: int  # the model's numbers of the head where |A − B| is largest
    worst_head: int

    @property
    def max_difference(self) -> float:
        return float(self.per_head.max()) if self.per_head.size else 0.0

    @property
    def per_layer(self) -> list[float]:
        """max |A − B| of each layer (what `attnviz doctor` prints)."""
        return [float(values.max()) if values.size else 0.0 for values in self.per_head]


def parity(a: AttentionMap, b: AttentionMap) -> Parity:
    """Compare two captures of the same tokens weight by weight; an InputError when their tokens or shapes differ
    (then they are not one input read twice: compare them word by word instead)."""
    same_tokens = a.query_tokens == b.query_tokens and a.key_tokens == b.key_tokens
    if a.weights.shape != b.weights.shape or not same_tokens:
        raise InputError("compare_parity_tokens", shape_a=a.weights.shape, shape_b=b.weights.shape)
    difference = np.abs(a.weights.astype(np.float64) - b.weights.astype(np.float64))  # (layers, heads, q, k)
    per_head = difference.max(axis=(2, 3)) if difference.size else np.zeros(a.weights.shape[:2])
    row_sums = np.concatenate([m.weights.astype(np.float64).sum(axis=-1).ravel() for m in (a, b)])
    layer, head = np.unravel_index(int(np.argmax(per_head)), per_head.shape) if per_head.size else (0, 0)
    return Parity(
        per_head=per_head,
        row_sum_error=float(np.abs(row_sums - 1.0).max()) if row_sums.size else 0.0,
        worst_layer=a.layer_number(int(layer)),
        worst_head=a.head_number(int(head)),
    )
