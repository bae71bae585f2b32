"""The numpy side of the faithfulness scoreboard and the detached-translation flag: orders, edited inputs, ERASER's
AOPC, the curves' areas, the verdict's reasons, the flag's score and AUROC — each against a hand computation."""

from __future__ import annotations

import numpy as np
import pytest

from attnviz.errors import InputError
from attnviz.maps.detachment import Detachment, Thresholds, auroc, detachment_lines, detachment_score
from attnviz.maps.faithfulness_scores import (
    Curves,
    Scoreboard,
    bin_counts,
    deletion_inputs,
    insertion_inputs,
    random_orders,
    removal_order,
)
from attnviz.maps.faithfulness_verdict import DECIDES_FROM, verdict, verdict_sentence
from attnviz.types import Token


def test_order_is_by_relevance_then_position_and_skips_what_cannot_be_removed():
    relevance = np.array([9.0, 0.2, 0.5, 0.5, 0.1])
    removable = np.array([False, True, True, True, True])
    assert removal_order(relevance, removable).tolist() == [2, 3, 1, 4]  # 2 before 3: equal, earlier first
    with pytest.raises(InputError):
        removal_order(relevance[:3], removable)
    with pytest.raises(InputError):
        removal_order(np.array([0, np.nan, 1, 1, 1.0]), removable)


def test_random_orders_are_permutations_drawn_from_the_seed():
    removable = np.array([False, True, True, True, True, False])
    first, again = random_orders(removable, 3, seed=4), random_orders(removable, 3, seed=4)
    assert all(sorted(order.tolist()) == [1, 2, 3, 4] for order in first)
    assert all((a == b).all() for a, b in zip(first, again))


def test_edited_inputs_remove_and_keep_the_order_s_first_tokens():
    ids = np.array([10, 11, 12, 13])
    order, replacement = np.array([2, 0, 3]), np.array([90, 91, 92, 93])
    assert deletion_inputs(ids, order, replacement).tolist() == [
        [10, 11, 12, 13],
        [10, 11, 92, 13],
        [90, 11, 92, 13],
        [90, 11, 92, 93],
    ]
    assert insertion_inputs(ids, order, replacement).tolist() == [
        [90, 11, 92, 93],
        [90, 11, 12, 93],
        [10, 11, 12, 93],
        [10, 11, 12, 13],
    ]


def test_bins_are_eraser_s_fractions_rounded_up():
    assert bin_counts(30).tolist() == [1, 2, 3, 6, 15]
    assert bin_counts(3).tolist() == [1, 1, 1, 1, 2]
    assert bin_counts(1).tolist() == [1, 1, 1, 1, 1]
    with pytest.raises(InputError):
        bin_counts(0)


def test_scores_follow_their_definitions():
    deletion = np.array([0.0, -1.0, -3.0, -4.0])  # f(x) = 0; n = 3: every bin but 50 % removes 1, 50 % removes 2
    insertion = np.array([-4.0, -2.0, -0.5, 0.0])
    scores = Curves(deletion, insertion).scores()
    assert scores.comprehensiveness == pytest.approx((1 + 1 + 1 + 1 + 3) / 5)
    assert scores.sufficiency == pytest.approx((2 + 2 + 2 + 2 + 0.5) / 5)
    assert scores.deletion_area == pytest.approx((0 - 1) / 6 + (-1 - 3) / 6 + (-3 - 4) / 6)
    assert scores.insertion_area == pytest.approx((-4 - 2) / 6 + (-2 - 0.5) / 6 + (-0.5 + 0) / 6)
    assert scores.faithfulness == pytest.approx(scores.comprehensiveness - scores.sufficiency)
    with pytest.raises(InputError):
        Curves(deletion, insertion[:2])


def _board(margins: dict[str, tuple[float, float]], randoms: list[tuple[float, float]]) -> Scoreboard:
    """A scoreboard whose curves give each measure (and random order) the faithfulness wanted under "mask" and
    "random": one removable token, so comprehensiveness = −D(1) and sufficiency = −I(1), with f(x) = 0."""

    def curves(value: float) -> Curves:
        return Curves(np.array([0.0, -value]), np.array([0.0, 0.0]))

    orders = {**margins, **{f"random-{i}": pair for i, pair in enumerate(randoms)}}
    board = {b: {name: curves(pair[i]) for name, pair in orders.items()} for i, b in enumerate(("mask", "random"))}
    tokens = [Token("a", 0, 1)]
    relevance = {name: np.zeros(1) for name in margins}
    return Scoreboard(
        "m", "log-prob", "a", (0,), tokens, np.ones(1, bool), 0.0, relevance, {}, board, {}, {}, provenance={}
    )


def test_the_verdict_decides_only_when_the_baselines_agree_and_the_best_beats_the_floor():
    randoms = [(0.0, 0.0), (0.2, 0.2)]  # floor 0.1 under both, spread 0.1
    agreeing = _board({"weights": (0.5, 0.6), "alti": (2.0, 2.2), "saliency": (1.0, 1.1)}, randoms)
    found = verdict(agreeing)
    assert found.ranking == ["alti", "saliency", "weights"] and found.rho == pytest.approx(1.0)
    assert found.decides and found.margins["alti"]["mask"] == pytest.approx(1.9)
    assert "ALTI" in verdict_sentence(found, "en") and "ALTI" in verdict_sentence(found, "zh")
    crossing = verdict(_board({"weights": (2.0, 0.5), "alti": (1.0, 1.0), "saliency": (0.5, 2.0)}, randoms))
    assert crossing.reason == "baselines_disagree" and crossing.rho < DECIDES_FROM
    assert "do not decide" in verdict_sentence(crossing, "en") and "无法作出判断" in verdict_sentence(crossing, "zh")
    flat = verdict(_board({"weights": (0.15, 0.15), "alti": (0.12, 0.12), "saliency": (0.11, 0.11)}, randoms))
    assert flat.reason == "not_above_floor"
    two = verdict(_board({"weights": (1.0, 1.0), "alti": (2.0, 2.0)}, randoms))
    assert two.reason == "too_few" and not two.decides


def test_scores_table_has_every_measure_and_the_floor_per_baseline():
    board = _board({"weights": (0.5, 0.6), "alti": (2.0, 2.2)}, [(0.0, 0.0), (0.2, 0.2)])
    table = board.table()
    assert [(row["baseline"], row["measure"]) for row in table] == [
        ("mask", "weights"),
        ("mask", "alti"),
        ("mask", "random"),
        ("random", "weights"),
        ("random", "alti"),
        ("random", "random"),
    ]
    assert table[1]["margin"] == pytest.approx(1.9) and table[2]["random_orders"] == 2


def test_detachment_score_and_flag():
    thresholds = Thresholds(0.4, -3.0, 0.05, 1.0, "heldout.tsv", 300)
    assert detachment_score(0.45, -1.0, thresholds) == pytest.approx(max(-1.0, -2.0))
    assert detachment_score(0.30, -1.0, thresholds) == pytest.approx(2.0)  # the share is 2 σ below its threshold
    assert detachment_score(0.50, -4.5, thresholds) == pytest.approx(1.5)
    both = detachment_score(np.array([0.45, 0.30]), np.array([-1.0, -1.0]), thresholds)
    np.testing.assert_allclose(both, [-1.0, 2.0])
    found = Detachment("m", 0.30, -1.0, np.array([0.3]), np.array([-1.0]), thresholds, {})
    assert found.flagged is True
    line, definition = detachment_lines(found, "zh")
    assert "30.0%" in line and "40.0%" in definition and "-3.00" in definition
    uncalibrated = Detachment("m", 0.30, -1.0, np.array([0.3]), np.array([-1.0]), None, {})
    assert uncalibrated.flagged is None and "no flag" in detachment_lines(uncalibrated)[0]


def test_auroc_is_the_probability_a_positive_scores_higher():
    assert auroc([3, 4], [1, 2]) == 1.0
    assert auroc([1, 2], [3, 4]) == 0.0
    assert auroc([1, 3], [2, 2]) == pytest.approx(0.5)
    assert auroc([2], [2]) == pytest.approx(0.5)
    assert np.isnan(auroc([], [1]))
