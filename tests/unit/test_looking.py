"""Looking is not using (attnviz.view.looking): value zeroing of the 四不像 mixture, checked against the mixture computed
again with each value row zeroed and scipy's cosine distance."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.distance import cosine

from attnviz.figures.explainer import SEED_MIXTURE
from attnviz.view.looking import SEED_VALUES, ZEROED, looking_using, seed_looking_using


def test_contributions_equal_the_mixture_recomputed_without_each_value():
    rng = np.random.default_rng(0)
    weights = rng.dirichlet(np.ones(5))
    values = rng.normal(size=(5, 3))
    found = looking_using("abcde", weights, values)
    output = weights @ values
    changes = []
    for j in range(5):
        without = values.copy()
        without[j] = 0.0
        changes.append(cosine(weights @ without, output))  # scipy's 1 − cos
    np.testing.assert_allclose(found.contributions, np.array(changes) / sum(changes), atol=1e-12)
    np.testing.assert_allclose(found.output, output)


def test_the_seeds_strongest_key_with_a_zero_value_contributes_nothing():
    seed = seed_looking_using()
    assert seed.keys == tuple(name for name, _ in SEED_MIXTURE)
    strongest = int(seed.weights.argmax())
    assert seed.keys[strongest] == ZEROED and seed.weights[strongest] == pytest.approx(1 / 3)
    assert seed.contributions[strongest] == 0.0 and seed.value_norms[strongest] == 0.0
    assert seed.contributions[seed.keys.index("青蛙")] == 0.0  # no weight: no part either
    assert seed.contributions.sum() == pytest.approx(1.0)
    expected = sum(weight * SEED_VALUES[name] for name, weight in SEED_MIXTURE)
    np.testing.assert_allclose(seed.output, expected)
