"""attnviz.maps.projection: one PCA of a head's queries and keys, after changes that leave every attention weight as it was."""

import numpy as np
import pytest

from attnviz.errors import InputError
from attnviz.maps.projection import normalise_queries_keys, project_queries_keys


def softmax(scores: np.ndarray) -> np.ndarray:
    shifted = np.exp(scores - scores.max(axis=1, keepdims=True))
    return shifted / shifted.sum(axis=1, keepdims=True)


def test_normalising_leaves_every_softmax_row_unchanged():
    rng = np.random.default_rng(0)
    queries, keys = rng.normal(size=(7, 16)), rng.normal(loc=3.0, scale=5.0, size=(9, 16))
    shifted_queries, shifted_keys, scale = normalise_queries_keys(queries, keys)
    np.testing.assert_allclose(softmax(shifted_queries @ shifted_keys.T), softmax(queries @ keys.T), atol=1e-12)
    np.testing.assert_allclose(shifted_keys.mean(0), shifted_queries.mean(0) / scale**2, atol=1e-12)
    lengths = np.linalg.norm(shifted_queries, axis=1).mean(), np.linalg.norm(shifted_keys, axis=1).mean()
    assert lengths[0] == pytest.approx(lengths[1])
    assert scale != 1.0


def test_two_dimensional_vectors_keep_their_distances():
    """With d = 2 nothing is lost: the projection is a rotation (and shift) of the vectors themselves."""
    rng = np.random.default_rng(1)
    queries, keys = rng.normal(size=(4, 2)), rng.normal(size=(5, 2))
    projected = project_queries_keys(queries, keys, normalise=False)
    before = np.concatenate([queries, keys])
    after = np.concatenate([projected.queries, projected.keys])
    distances = lambda points: np.linalg.norm(points[:, None] - points[None], axis=-1)  # noqa: E731
    np.testing.assert_allclose(distances(after), distances(before), atol=1e-12)
    assert projected.explained.sum() == pytest.approx(1.0)
    assert projected.queries.shape == (4, 2) and projected.keys.shape == (5, 2)


def test_points_on_a_line_fill_the_first_axis_and_the_sign_is_fixed():
    direction = np.array([1.0, -2.0, 0.5])
    queries = np.outer([0.0, 1.0, 2.0], direction)
    keys = np.outer([3.0, -1.0], direction)
    projected = project_queries_keys(queries, keys, normalise=False)
    assert projected.explained[0] == pytest.approx(1.0) and projected.explained[1] == pytest.approx(0.0, abs=1e-12)
    np.testing.assert_allclose(projected.queries[:, 1], 0.0, atol=1e-12)
    flipped = project_queries_keys(-queries, -keys, normalise=False)  # the same points, mirrored
    assert np.sign(projected.queries[2, 0] - projected.queries[0, 0]) == np.sign(
        flipped.queries[0, 0] - flipped.queries[2, 0]
    )
    again = project_queries_keys(queries, keys, normalise=False)
    np.testing.assert_array_equal(again.queries, projected.queries)


def test_a_query_lies_nearest_the_key_it_matches():
    rng = np.random.default_rng(2)
    keys = rng.normal(size=(6, 2)) * 4
    queries = keys[[3]] + 0.01
    projected = project_queries_keys(queries, keys, normalise=False)
    nearest = np.argmin(np.linalg.norm(projected.keys - projected.queries[0], axis=1))
    assert nearest == 3


def test_one_value_per_vector_still_draws():
    projected = project_queries_keys([[1.0], [2.0]], [[0.5]])
    assert projected.queries.shape == (2, 2)
    np.testing.assert_allclose(projected.queries[:, 1], 0.0)


@pytest.mark.parametrize(
    ("queries", "keys", "message"),
    [
        (np.ones((2, 3)), np.ones((2, 4)), "same width"),
        (np.ones((0, 3)), np.ones((2, 3)), "non-empty"),
        (np.ones(3), np.ones((2, 3)), "matrices"),
        (np.array([[np.nan, 1.0]]), np.ones((2, 2)), "not a number"),
    ],
)
def test_bad_vectors_are_refused_with_a_sentence(queries, keys, message):
    with pytest.raises(InputError, match=message):
        project_queries_keys(queries, keys)
