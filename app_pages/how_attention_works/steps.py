"""The numbers of the "How attention works" walk-through: the seed's Q, K and V, edited by hand and kept in the link.

A matrix travels in the link as text ("1,2;2,1;0,1": rows split by ";", cells by ","); `explainer_field` keeps an
edited matrix in the view (nothing while it still holds the seed's numbers) and `explainer_start` reads it back.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from attnviz.errors import InputError
from attnviz.figures.explainer import SEED_K, SEED_Q, SEED_V

if TYPE_CHECKING:
    from attnviz.attention.math import AttentionSteps

EXPLAINER_SEEDS = {"q": SEED_Q, "k": SEED_K, "v": SEED_V}  # ViewState field -> the numbers the walk-through starts from
EXPLAINER_STEPS = ("scores", "scaled", "softmax", "output")  # each has a formula (i18n "formula_<step>") and a table


def explainer_matrix(rows: Sequence[Sequence], name: str, shape: tuple[int, int]) -> np.ndarray:
    """An edited matrix as float64, checked: the right shape and every cell a finite number."""
    try:
        matrix = np.asarray([[float(v) for v in row] for row in rows], dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError("matrix_cell_not_a_number", name=name) from None
    if matrix.shape != shape:
        raise InputError("matrix_wrong_shape", name=name, rows=shape[0], columns=shape[1], shape=matrix.shape)
    if not np.isfinite(matrix).all():
        raise InputError("matrix_cell_empty", name=name)
    return matrix


def matrix_text(matrix: np.ndarray) -> str:
    """A matrix as link text: rows split by ";", cells by ","; each number as short as it can be and still exact."""
    return ";".join(",".join(repr(float(value)).removesuffix(".0") for value in row) for row in matrix)


def edited_matrix(rows: Sequence[Sequence], name: str) -> np.ndarray:
    """The explainer's matrix `name` ("q", "k" or "v") from its cells, checked against the seed's shape."""
    return explainer_matrix(rows, name.upper(), EXPLAINER_SEEDS[name].shape)


def matrix_from_text(text: str, name: str) -> np.ndarray:
    """The explainer matrix `name` a link's text describes; InputError when it cannot be read."""
    return edited_matrix([row.split(",") for row in text.strip().split(";")], name)


def explainer_start(view, name: str) -> np.ndarray:
    """The matrix an editor starts from: the view's (a link or earlier edits), else the seed's numbers."""
    text = getattr(view, name)
    return matrix_from_text(text, name) if text else EXPLAINER_SEEDS[name].copy()


def explainer_field(matrix: np.ndarray, name: str) -> str:
    """What the view keeps of an edited matrix: its link text, or "" while it still holds the seed's numbers."""
    return "" if np.array_equal(matrix, EXPLAINER_SEEDS[name]) else matrix_text(matrix)


def table(matrix: np.ndarray, row_names: Sequence[str], column_names: Sequence[str], decimals: int | None = None):
    """A matrix as a labelled pandas DataFrame (rounded for reading when `decimals` is given)."""
    import pandas as pd  # a second or more to import: only once a table is drawn

    values = np.round(matrix, decimals) if decimals is not None else matrix
    return pd.DataFrame(values, index=list(row_names), columns=list(column_names))


def explainer_walk(steps: AttentionSteps, query_names: Sequence[str], key_names: Sequence[str]) -> list:
    """The four steps as (name, matrix, row names, column names); the softmax table ends with each row's sum (1)."""
    with_sums = np.hstack([steps.weights, steps.weights.sum(axis=1, keepdims=True)])  # (queries, keys + 1)
    value_names = names("d", steps.value.shape[1])
    return [
        ("scores", steps.scores, list(query_names), list(key_names)),
        ("scaled", steps.scaled_scores, list(query_names), list(key_names)),
        ("softmax", with_sums, list(query_names), [*key_names, "Σ"]),
        ("output", steps.context, list(query_names), value_names),
    ]


def names(prefix: str, count: int) -> list[str]:
    """q₁, q₂, … as the seed writes them."""
    subscripts = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
    return [f"{prefix}{str(i + 1).translate(subscripts)}" for i in range(count)]
