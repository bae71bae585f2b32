"""Which head of model B does the work of which head of model A: heads of independently trained models are not
numbered alike, so within each layer they are paired by a minimum-cost assignment on their Jensen–Shannon matrix.

The assignment is the Hungarian method (Kuhn, "The Hungarian method for the assignment problem", Naval Research
Logistics Quarterly 2, 1955), as `scipy.optimize.linear_sum_assignment` solves it (Crouse, IEEE TAES 52(4), 2016):
the pairing whose summed divergence is least. With fewer heads in B, some heads of A stay unpaired.

Models with different numbers of layers are set side by side by relative depth first (`depth_pairs`: A's first and
last layers beside B's first and last, the others at the same fraction of the way up), and the heads of each such
pair of layers are then assigned as above. Relative depth keeps the comparison layer by layer, as the ranking and the
diff read it, works with heads paired or compared by number, and costs one assignment per layer of A (a pairing of
every head of A with every head of B across layers would cost layers A × layers B times as many divergences).
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import linear_sum_assignment

from attnviz.compare.divergence import mean_divergence

UNPAIRED = -1  # the head of B given to a head of A that has none


def depth_pairs(layers_a: int, layers_b: int) -> np.ndarray:
    """int (layers_a,): the position of B's layer set beside each of A's layers, by relative depth: layer i of A is
    i / (layers_a − 1) of the way up, and B's layer nearest that fraction (a half rounds up) stands beside it; a
    one-layer A is set beside B's last layer. Equal counts: each layer beside its own number."""
    if layers_a == 1:
        return np.array([layers_b - 1])
    fraction = np.arange(layers_a) / (layers_a - 1)  # (layers_a,): 0 … 1
    return np.floor(fraction * (layers_b - 1) + 0.5).astype(np.int64)


def divergence_matrix(p: np.ndarray, live_p: np.ndarray, q: np.ndarray, live_q: np.ndarray) -> np.ndarray:
    """(layers, heads A, heads B): the mean JS of every head of A with every head of B in the same layer, from
    renormalised rows (layers, heads, rows, keys) and their masks (layers, heads, rows)."""
    layers = []
    for layer in range(p.shape[0]):  # one layer at a time: (heads A, heads B, rows, keys) stays small
        layers.append(
            mean_divergence(
                p[layer][:, None], live_p[layer][:, None], q[layer][None, :], live_q[layer][None, :]
            )  # (heads A, heads B)
        )
    return np.stack(layers)


def paired_heads(costs: np.ndarray) -> np.ndarray:
    """int (layers, heads A): the head of B each head of A is paired with in its layer (`UNPAIRED` when B has too
    few), the pairing of least summed cost in each layer; a NaN cost (no row to compare) counts as the worst."""
    paired = np.full(costs.shape[:2], UNPAIRED, dtype=np.int64)
    for layer, matrix in enumerate(costs):
        finite = np.where(np.isfinite(matrix), matrix, 2.0)  # JS in bits is at most 1: a NaN pair comes last
        rows, cols = linear_sum_assignment(finite)
        paired[layer, rows] = cols
    return paired
