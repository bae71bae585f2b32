"""The query–key space of one head: its query and key vectors projected together to 2-D (PCA, numpy only).

Attention compares a query with every key by the dot product q·k, so a query lies near the keys it attends to when
both are drawn in one space (the idea AttentionViz made known). Two changes leave every attention weight as it was
and make the picture honest about that (AttentionViz does both):
- keys are shifted so that their mean is the queries' mean: adding one vector c to every key adds q·c to all of a
  query's scores, which the softmax ignores;
- queries are multiplied and keys divided by one number so that both have the same mean length: q·k is unchanged.
Then one PCA of the queries and keys together gives the two directions along which they differ most.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attnviz.errors import InputError


@dataclass(frozen=True)
class QueryKeyProjection:
    """Queries and keys of one head in the same 2-D plane: `queries` (n_queries, 2), `keys` (n_keys, 2), float64.

    `explained` (2,): the share of the (normalised) vectors' variance each axis holds; `normalised`: whether keys were
    shifted and both rescaled first (see the module docstring); `scale`: the factor queries were multiplied by (and
    keys divided by)."""

    queries: np.ndarray
    keys: np.ndarray
    explained: np.ndarray
    normalised: bool
    scale: float


def normalise_queries_keys(queries: np.ndarray, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """(queries · s, (keys − mean(keys) + mean(queries)) / s, s): the same softmax of q·k, with keys centred on the
    queries and both of the same mean length (s = √(mean |k| / mean |q|) after the shift)."""
    shifted = keys - keys.mean(axis=0) + queries.mean(axis=0)  # (n_keys, d)
    query_norm = np.linalg.norm(queries, axis=1).mean()
    key_norm = np.linalg.norm(shifted, axis=1).mean()
    scale = float(np.sqrt(key_norm / query_norm)) if query_norm > 0 and key_norm > 0 else 1.0
    return queries * scale, shifted / scale, scale


def project_queries_keys(queries, keys, normalise: bool = True) -> QueryKeyProjection:
    """One PCA of a head's queries (n_queries, d) and keys (n_keys, d) together, to 2-D."""
    queries, keys = (np.asarray(m, dtype=np.float64) for m in (queries, keys))
    if queries.ndim != 2 or keys.ndim != 2 or queries.shape[1] != keys.shape[1] or not len(queries) or not len(keys):
        raise InputError("qk_projection_shapes", queries=queries.shape, keys=keys.shape)
    if not (np.isfinite(queries).all() and np.isfinite(keys).all()):
        raise InputError("qk_projection_not_finite")
    scale = 1.0
    if normalise:
        queries, keys, scale = normalise_queries_keys(queries, keys)
    both = np.concatenate([queries, keys])  # (n_queries + n_keys, d)
    centred = both - both.mean(axis=0)
    _, singular, directions = np.linalg.svd(centred, full_matrices=False)  # directions: (min(n, d), d)
    axes = np.zeros((2, both.shape[1]))
    axes[: min(2, len(directions))] = directions[:2]
    for axis in axes:  # a fixed sign for each direction, so that the same vectors always draw the same picture
        pivot = np.argmax(np.abs(axis))
        axis *= -1.0 if axis[pivot] < 0 else 1.0
    points = centred @ axes.T  # (n_queries + n_keys, 2)
    variance = singular**2
    total = variance.sum()
    explained = np.zeros(2)
    explained[: min(2, len(variance))] = variance[:2] / total if total > 0 else 0.0
    n = len(queries)
    return QueryKeyProjection(points[:n], points[n:], explained, normalise, scale)
