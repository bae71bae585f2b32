"""The explainer's walk-through: small Q, K, V matrices as a person types them, checked, then attention one step at
a time through the one eager definition (`attention.math.attention_steps`), in float64, returned as numpy — and the
same steps for one query token of a real model's head (`sentence_walkthrough`, from `attention.vectors`)."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import torch

from attnviz.attention.math import AttentionSteps, attention_steps
from attnviz.attention.vectors import HeadVectors
from attnviz.errors import InputError
from attnviz.types import position


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


# ----------------------------------------------------------------------------------------------------------------------
# The same four steps on one query row of a real model's head


EQUAL_WITHIN = 1e-5  # a rebuilt row "equals" the captured weights up to float32 rounding


@dataclass(frozen=True)
class SentenceSteps:
    """The walk-through of one query token of a real head, every step float64 numpy over the keys.

    `steps` holds query (1, d), key (keys, d), value (keys, d), scores = q·k, scaled_scores = scores · scaling,
    masked_scores (+ position bias, −∞ where the model may not look), weights (the softmax) and context (1, d)
    = weights · v. `allowed` (keys,) bool: the keys the model may look at; `bias` (keys,) or None: the position bias
    the model adds (T5). `captured` is the row of the capture the page shows and `difference` the largest
    |rebuilt − captured| over the keys (None when there is no captured row to compare with)."""

    vectors: HeadVectors
    row: int
    steps: AttentionSteps
    allowed: np.ndarray
    bias: np.ndarray | None
    captured: np.ndarray | None = None
    difference: float | None = None

    @property
    def equal(self) -> bool | None:
        """Whether the rebuilt row equals the captured one (within EQUAL_WITHIN); None with nothing to compare."""
        return None if self.difference is None else self.difference <= EQUAL_WITHIN


def sentence_walkthrough(
    vectors: HeadVectors,
    row: int,
    mask: np.ndarray | None = None,
    bias: np.ndarray | None = None,
    captured: np.ndarray | None = None,
) -> SentenceSteps:
    """The four steps for query token `row` of `vectors`' head, from the vectors the model computed: q·k, ·scaling,
    + `bias`, masked by `mask` (the additive mask eager attention adds, (keys,): 0 = may look), softmax, · values.

    `captured` (keys,): the weights a capture recorded for that row; the result says how far the rebuilt row is
    from it. A soft-capped head (Gemma 2) is refused: its tanh step is not one the page shows."""
    if vectors.softcap:
        raise InputError("qk_softcap_not_shown", softcap=vectors.softcap)
    row = position(row, len(vectors.query_tokens), "query token")
    keys = vectors.keys.shape[0]
    allowed = np.ones(keys, dtype=bool) if mask is None else np.asarray(mask) == 0
    additive = np.where(allowed, 0.0, -np.inf)  # (keys,): masked keys get exactly 0 weight
    if bias is not None:
        additive = additive + np.asarray(bias, dtype=np.float64)
    values = vectors.values if vectors.values is not None else np.zeros_like(vectors.keys)
    query, key, value = (
        torch.from_numpy(np.asarray(m, dtype=np.float64))
        for m in (vectors.queries[row : row + 1], vectors.keys, values)
    )
    steps = attention_steps(query, key, value, torch.from_numpy(additive)[None], scale=vectors.scaling).numpy()
    if vectors.values is None:  # no values kept: no weighted sum to show
        steps = replace(steps, value=None, context=None)
    difference = None
    if captured is not None:
        captured = np.asarray(captured, dtype=np.float64)
        difference = float(np.abs(steps.weights[0] - captured).max()) if captured.shape == (keys,) else None
    return SentenceSteps(vectors, row, steps, allowed, None if bias is None else np.asarray(bias), captured, difference)
