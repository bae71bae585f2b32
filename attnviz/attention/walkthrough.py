"""The explainer's walk-through: small Q, K, V matrices as a person types them, checked, then attention one step at
a time through the one eager definition (`attention.math.attention_steps`), in float64, returned as numpy."""

from __future__ import annotations

import numpy as np
import torch

from attnviz.attention.math import AttentionSteps, attention_steps
from attnviz.errors import InputError


def _walkthrough_matrix(values, name: str) -> np.ndarray:
    """A Q, K or V of the walk-through as a finite float64 (rows, columns) matrix, or an InputError saying why not."""
    try:
        if values is None:  # numpy would read None as one NaN
            raise TypeError(name)
        matrix = np.atleast_2d(np.asarray(values, dtype=np.float64))
    except (TypeError, ValueError):
        raise InputError("walkthrough_not_numbers", name=name, value=str(values)[:60]) from None
    if matrix.ndim != 2:
        raise InputError("walkthrough_not_a_matrix", name=name, ndim=matrix.ndim, shape=matrix.shape)
    if 0 in matrix.shape:
        raise InputError("walkthrough_empty", name=name, shape=matrix.shape)
    bad = np.argwhere(~np.isfinite(matrix))
    if bad.size:
        row, col = bad[0]
        raise InputError("walkthrough_not_finite", name=name, value=matrix[row, col], row=row, column=col)
    return matrix


def walkthrough(q, k, v, scaled: bool = True) -> AttentionSteps:
    """Scaled dot-product attention one step at a time on small matrices: scores = QKᵀ, ·1/√d_k (when `scaled`),
    row softmax, context = A·V. Every step is a float64 numpy array (`AttentionSteps`, whose `scale` multiplies)."""
    q, k, v = (_walkthrough_matrix(m, name) for m, name in ((q, "Q"), (k, "K"), (v, "V")))
    if q.shape[1] != k.shape[1]:
        raise InputError("walkthrough_q_k_width", q=q.shape, k=k.shape)
    if k.shape[0] != v.shape[0]:
        raise InputError("walkthrough_k_v_rows", k=k.shape, v=v.shape)
    steps = attention_steps(*(torch.from_numpy(m) for m in (q, k, v)), scale=None if scaled else 1.0)
    if not bool(torch.isfinite(steps.scores).all()):
        raise InputError("walkthrough_overflow")
    return steps.numpy()
