"""Ranking heads by their effects, without a model: Spearman's ρ against its closed form, ties by mean rank, and
Find a head by effect on precomputed per-token effects."""

import numpy as np
import pytest

from attnviz.errors import InputError
from attnviz.measures.head_estimate import spearman
from attnviz.types import Token
from attnviz.view.find_head import TokenChoice, piece_choices, rank_heads_by_effect


def test_spearman_equals_the_closed_form_without_ties():
    rng = np.random.default_rng(0)
    first, second = rng.normal(size=40), rng.normal(size=40)
    ranks = [np.argsort(np.argsort(x)) for x in (first, second)]
    n = len(first)
    closed = 1 - 6 * float(((ranks[0] - ranks[1]) ** 2).sum()) / (n * (n**2 - 1))
    assert spearman(first, second) == pytest.approx(closed, abs=1e-12)
    assert spearman(first, -first) == pytest.approx(-1.0)
    assert spearman(first, np.exp(first)) == pytest.approx(1.0)  # ranks only


def test_spearman_gives_ties_their_mean_rank():
    # ranks (0.5, 0.5, 2, 3) and (0, 1, 2, 3): Pearson of those, written out
    expected = np.corrcoef([0.5, 0.5, 2, 3], [0, 1, 2, 3])[0, 1]
    assert spearman(np.array([1.0, 1.0, 2.0, 3.0]), np.arange(4.0)) == pytest.approx(expected)
    assert np.isnan(spearman(np.ones(5), np.arange(5.0)))


def test_heads_ranked_by_effect_on_one_token():
    per_token = {
        "cross": np.array([[[0.0, -2.0, 0.5], [0.0, 0.1, 0.0]]]),  # (layers 1, heads 2, tokens 3)
        "encoder": np.array([[[0.0, -0.5, -1.0], [0.0, 0.3, 0.0]]]),
    }
    word = TokenChoice("morning #1", "morning", 1, 1, 3)  # two pieces: effects summed
    ranked = rank_heads_by_effect(per_token, word)
    # the largest drop first; ties (-1.5) in stack order as given, then layer and head
    assert [(m.stack, m.layer, m.head, m.effect) for m in ranked] == [
        ("cross", 0, 0, -1.5),
        ("encoder", 0, 0, -1.5),
        ("cross", 0, 1, pytest.approx(0.1)),
        ("encoder", 0, 1, pytest.approx(0.3)),
    ]
    assert [m.stack for m in rank_heads_by_effect(per_token, word, stacks=["cross"])] == ["cross", "cross"]
    with pytest.raises(InputError) as error:
        rank_heads_by_effect(per_token, TokenChoice("x #5", "x", 5, 5, 6))
    assert error.value.key == "find_effect_outside" and "3" in error.value.message("zh")


def test_piece_choices_name_each_piece():
    tokens = [Token("Good", 0, 4, False), Token(" morning", 4, 12, False), Token("</s>", -1, -1, True)]
    assert [(c.label, c.start, c.stop) for c in piece_choices(tokens)] == [
        ("Good #0", 0, 1),
        (" morning #1", 1, 2),
        ("</s> #2", 2, 3),
    ]
