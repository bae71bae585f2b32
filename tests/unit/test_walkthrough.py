"""The explainer's walk-through: small matrices through the one eager definition, as float64 numpy."""

import numpy as np
import pytest
import torch

from attnviz.attention.layer import MultiHeadAttention
from attnviz.attention.math import attention_steps
from attnviz.attention.walkthrough import walkthrough
from attnviz.errors import InputError


def test_attention_steps_follow_the_formula():
    q = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    k = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [0.0, 0.0]])
    v = np.arange(8, dtype=float).reshape(4, 2)
    steps = walkthrough(q, k, v)
    np.testing.assert_allclose(steps.scores, q @ k.T)
    np.testing.assert_allclose(steps.scaled_scores, q @ k.T / np.sqrt(2))
    np.testing.assert_allclose(steps.weights.sum(-1), 1.0)
    np.testing.assert_allclose(steps.context, steps.weights @ v)
    with pytest.raises(InputError, match="same width"):
        walkthrough(q, k[:, :1], v)


def test_the_explainer_and_the_own_layer_share_one_definition_and_one_meaning_of_scale():
    q, k, v = np.array([[1.0, 2.0], [0.5, -1.0]]), np.array([[1.0, 0.0], [0.0, 1.0], [2.0, 1.0]]), np.eye(3, 2)
    steps = walkthrough(q, k, v)
    assert isinstance(steps.weights, np.ndarray) and steps.weights.dtype == np.float64
    assert steps.scale == pytest.approx(1 / np.sqrt(2))  # a multiplier: scaled = scores · scale, as in the layer
    np.testing.assert_allclose(steps.scaled_scores, steps.scores * steps.scale, rtol=0, atol=0)
    same = attention_steps(*(torch.from_numpy(m) for m in (q, k, v))).numpy()
    for name, shape in steps.shapes():
        np.testing.assert_array_equal(getattr(steps, name), getattr(same, name), err_msg=name)
        assert shape == getattr(same, name).shape
    layer = MultiHeadAttention(4, 2, device="cpu")
    assert layer.scale == pytest.approx(1 / np.sqrt(2))  # head_dim 2: the same scale, meant the same way
    unscaled = walkthrough(q, k, v, scaled=False)
    assert unscaled.scale == 1.0
    np.testing.assert_array_equal(unscaled.scaled_scores, unscaled.scores)
