"""ALTI rollout and ALTI+ composition (attnviz.measures.composition) against independent formulations, on random
row-stochastic matrices: rollout as a product written with `functools.reduce`, ALTI+ as the product of block matrices
over source and decoder positions together."""

from __future__ import annotations

from functools import reduce

import numpy as np

from attnviz.measures.composition import rollout, row_normalised, translation_rollout
from attnviz.measures.results import TranslationShares

RNG = np.random.default_rng(45)


def _stochastic(*shape) -> np.ndarray:
    return row_normalised(RNG.random(shape)).astype(np.float64)


def test_rollout_is_the_running_product():
    layers = _stochastic(4, 6, 6)
    rolled = rollout(layers)
    for last in range(4):
        np.testing.assert_allclose(rolled[last], reduce(np.matmul, layers[last::-1]), atol=1e-6)
    np.testing.assert_allclose(rolled.sum(axis=-1), 1.0, atol=1e-6)


def test_translation_rollout_equals_block_matrices_over_source_and_target():
    sources, targets, layers = 5, 4, 3
    encoder = rollout(_stochastic(2, sources, sources))[-1].astype(np.float64)
    self_layers = np.tril(RNG.random((layers, targets, targets)))  # causal decoder self-attention
    self_layers /= self_layers.sum(axis=-1, keepdims=True)
    with_residual = _stochastic(layers, targets, sources + 1)  # cross block: the encoder outputs, then the residual
    cross, residual = with_residual[..., :-1], with_residual[..., -1]
    joint = translation_rollout(encoder, self_layers, cross, residual)

    # Rows 0..S-1: the encoder outputs, fixed; rows S..: decoder positions. Each block is one (S+T) × (S+T) matrix.
    state = np.block([[encoder, np.zeros((sources, targets))], [np.zeros((targets, sources)), np.eye(targets)]])
    for layer in range(layers):
        through_self = np.block(
            [[np.eye(sources), np.zeros((sources, targets))], [np.zeros((targets, sources)), self_layers[layer]]]
        )
        through_cross = np.block(
            [[np.eye(sources), np.zeros((sources, targets))], [cross[layer], np.diag(residual[layer])]]
        )
        state = through_cross @ through_self @ state
        np.testing.assert_allclose(joint[layer], state[sources:], atol=1e-6)
    shares = TranslationShares(joint[..., :sources], joint[..., sources:])
    np.testing.assert_allclose(shares.source_share + shares.target_share, 1.0, atol=1e-6)
    assert not np.triu(shares.target[-1], k=1).any()  # no token draws on a later target token


def test_a_row_with_nothing_stays_zero():
    rows = row_normalised(np.array([[0.0, 0.0], [1.0, 3.0]]))
    assert rows.dtype == np.float32
    np.testing.assert_array_equal(rows, [[0, 0], [0.25, 0.75]])
