"""Which head of model B does the work of which head of model A: heads of independently trained models are not
numbered alike, so within each layer they are paired by a minimum-cost assignment on their Jensen–Shannon matrix.

The assignment is the Hungarian method (Kuhn, "The Hungarian method for the assignment problem", Naval Research
Logistics Quarterly 2, 1955), as `scipy.optimize.linear_sum_assignment` solves it (Crouse, IEEE TAES 52(4), 2016):
the pairing whose summed divergence is least. With fewer heads in B, some heads of A stay unpaired.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import linear_sum_assignment

from attnviz.compare.divergence import mean_divergence

UNPAIRED = -1  # the head of B given to a head of A that has none


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
