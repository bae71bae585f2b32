"""How far apart two heads look: weights carried onto matched segments, then the Jensen–Shannon divergence of rows.

Jensen–Shannon divergence (Lin, "Divergence measures based on the Shannon entropy", IEEE Trans. Inf. Theory 37(1),
1991): JS(P, Q) = ½ KL(P ‖ M) + ½ KL(Q ‖ M), M = ½ (P + Q), here in bits, so 0 ≤ JS ≤ 1; symmetric, and finite
where one row gives a key nothing that the other gives something.
A map is carried onto segments (`attnviz.compare.matching`) as words are (`attnviz.maps.word_merge.merge_words`): a key
segment gets the sum of its tokens' weights, a query segment the mean of its tokens' rows. Rows are then compared
over the keys both sides have, each renormalised to sum to 1 there (a row that gives those keys nothing is left out).
"""

from __future__ import annotations

import numpy as np
from scipy.special import xlogy

from attnviz.compare.matching import TokenMatch


def segment_weights(weights: np.ndarray, rows: TokenMatch, cols: TokenMatch, side: str) -> np.ndarray:
    """float64 (layers, heads, row segments, column segments) of one side's ("a" or "b") weights
    (layers, heads, queries, keys); a segment that side lacks is a row or column of zeros."""
    queries, keys = weights.shape[2:]
    averaging = np.zeros((len(rows.segments), queries))  # (row segments, queries)
    summing = np.zeros((keys, len(cols.segments)))  # (keys, column segments)
    for position, segment in enumerate(rows.segments):
        tokens = getattr(segment, side)
        if tokens:
            averaging[position, list(tokens)] = 1.0 / len(tokens)
    for position, segment in enumerate(cols.segments):
        summing[list(getattr(segment, side)), position] = 1.0
    # (row segments, queries) @ (layers, heads, queries, keys) @ (keys, column segments)
    return averaging @ weights.astype(np.float64) @ summing


def matched_rows(weights: np.ndarray, rows: TokenMatch, cols: TokenMatch) -> tuple[np.ndarray, np.ndarray]:
    """(rows renormalised over the matched keys, whether each row gives them anything) of segment weights
    (…, row segments, column segments): (…, matched rows, matched keys) and (…, matched rows)."""
    picked = weights[..., rows.matched, :][..., cols.matched]  # (…, matched rows, matched keys)
    mass = picked.sum(axis=-1, keepdims=True)
    live = mass[..., 0] > 0
    return np.divide(picked, mass, out=np.zeros_like(picked), where=mass > 0), live


def neg_entropy(p: np.ndarray) -> np.ndarray:
    """Σ p log₂ p over the last axis (0 log 0 = 0): minus the entropy in bits."""
    return xlogy(p, p).sum(axis=-1) / np.log(2)


def js_divergence(
    p: np.ndarray, q: np.ndarray, p_log_p: np.ndarray | None = None, q_log_q: np.ndarray | None = None
) -> np.ndarray:
    """Jensen–Shannon divergence in bits of each row pair of `p` and `q` (…, keys), rows summing to 1: (…).

    As H(M) − ½ H(P) − ½ H(Q): one logarithm per cell (of M) instead of two, and the rows' own `neg_entropy`
    (`p_log_p`, `q_log_q`) may be given once for many pairs (every head of A against every head of B)."""
    p_log_p = neg_entropy(p) if p_log_p is None else p_log_p
    q_log_q = neg_entropy(q) if q_log_q is None else q_log_q
    return np.maximum(0.5 * (p_log_p + q_log_q) - neg_entropy(0.5 * (p + q)), 0.0)  # rounding may dip below 0


def mean_divergence(p: np.ndarray, live_p: np.ndarray, q: np.ndarray, live_q: np.ndarray) -> np.ndarray:
    """The mean JS over the rows both sides give their matched keys something: (…) of (…, rows, keys) rows and
    (…, rows) masks (broadcast); NaN where no row is left."""
    both = live_p & live_q
    total = np.where(both, js_divergence(p, q), 0.0).sum(axis=-1)
    count = both.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / np.maximum(count, 1), np.nan)
