"""Looking is not using, on the seed's 四不像 example: a key with a high attention weight whose value vector is zero
changes nothing in the output (numpy only; the How attention works page draws it).

An attention output is the weighted mixture x = Σ_j α_j v_j. Value zeroing (Mohebbi et al., EACL 2023, arXiv
2301.12971) asks what each key really gives it: set v_j to zero, mix again into x̃, and measure 1 − cos(x̃, x); the
keys' numbers, divided by their sum, are their contributions. A key whose value is already zero gives x̃ = x, so its
contribution is 0 whatever its weight: the weight says where the query looked, the contribution what it used.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attnviz.figures.explainer import SEED_MIXTURE, SEED_V

ZEROED = "鹿"  # the seed's key with the highest weight, given a zero value vector here
# Each animal's value vector: the seed's four values (SEED_V) in turn, with 鹿's set to zero
SEED_VALUES = {ZEROED: np.zeros(2), "牛": SEED_V[1], "羊": SEED_V[2], "驴": SEED_V[3], "青蛙": SEED_V[0]}


@dataclass(frozen=True)
class LookingUsing:
    """Per key: its name, attention weight, value-vector length and value-zeroing contribution."""

    keys: tuple[str, ...]
    weights: np.ndarray  # (keys,): α_j, summing to 1
    value_norms: np.ndarray  # (keys,): ‖v_j‖
    contributions: np.ndarray  # (keys,): (1 − cos(x̃_j, x)) / Σ, summing to 1
    output: np.ndarray  # (d,): x = Σ_j α_j v_j


def looking_using(keys, weights, values) -> LookingUsing:
    """Weights and value-zeroing contributions of one query's keys: `weights` (keys,), `values` (keys, d)."""
    weights, values = np.asarray(weights, dtype=np.float64), np.asarray(values, dtype=np.float64)  # (k,), (k, d)
    output = weights @ values  # (d,)
    zeroed = output[None, :] - weights[:, None] * values  # (k, d): row j is the mixture without v_j
    cosine = zeroed @ output / np.maximum(np.linalg.norm(zeroed, axis=1) * np.linalg.norm(output), 1e-12)
    change = np.clip(1.0 - cosine, 0.0, None)  # (k,)
    change[np.all(zeroed == output, axis=1)] = 0.0  # nothing removed: exactly no change
    total = change.sum()
    contributions = change / total if total > 0 else change
    return LookingUsing(tuple(keys), weights, np.linalg.norm(values, axis=1), contributions, output)


def seed_looking_using() -> LookingUsing:
    """The 四不像 mixture (`figures.explainer.SEED_MIXTURE`) with 鹿's value vector zero."""
    keys = [name for name, _ in SEED_MIXTURE]
    return looking_using(keys, [weight for _, weight in SEED_MIXTURE], [SEED_VALUES[name] for name in keys])
