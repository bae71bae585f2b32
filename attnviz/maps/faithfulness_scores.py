"""How faithful an explanation is to the model, on one input: the inputs that remove its tokens in its order of
relevance, and the scores of what the model then outputs (numpy only; `attnviz.measures.faithfulness` runs the model).

An explanation gives each input token a relevance for one output f (a target token's log-probability, the next token's,
or an encoder's pooled output). Its order is the removable tokens, most relevant first (ties: the earlier token first).
"Removing" token j puts a baseline token in its place (the tokenizer's mask token, or a random in-vocabulary token),
so the input keeps its length and positions. With n removable tokens and the order's first k removed:

- deletion curve D(k) = f(x with the first k replaced), k = 0 … n; insertion curve I(k) = f(x with every removable
  token replaced but the first k), k = 0 … n (Petsiuk, Das and Saenko, BMVC 2018, "RISE: Randomized Input Sampling
  for Explanation of Black-box Models", arXiv 1806.07421). D(0) = I(n) = f(x). Their areas over the fraction k / n
  (trapezoids): a faithful order's deletion area is low, its insertion area high.
- comprehensiveness = f(x) − f(x without the top k) and sufficiency = f(x) − f(only the top k), each summarised as
  AOPC, the mean over the bins k = ⌈b·n⌉ for b in 1, 5, 10, 20, 50 % (DeYoung et al., ACL 2020, "ERASER: A Benchmark
  to Evaluate Rationalized NLP Models", arXiv 1911.03429; the mean over the bins as its code computes it). So
  comprehensiveness is the mean of f(x) − D(k) and sufficiency that of f(x) − I(k) over the bins: high
  comprehensiveness and low sufficiency are faithful. `Scores.faithfulness` is their difference, the number
  measures are ranked by.

Removing tokens makes inputs unlike any the model was trained on, so every score is read against random orders of the
same tokens scored the same way (the floor): an explanation is only as good as its margin above them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from attnviz.errors import InputError
from attnviz.types import Token

BINS = (0.01, 0.05, 0.10, 0.20, 0.50)  # ERASER's AOPC bins: the fraction of removable tokens removed or kept
RANDOM = "random"  # the floor's order name; its orders are "random-0", "random-1", …
METRICS = ("log-prob", "cosine")  # what f is: a log-probability (nats), or cos(pooled output, the original's)


def removal_order(relevance: np.ndarray, removable: np.ndarray) -> np.ndarray:
    """int64 (n,): the removable tokens' indices, most relevant first; equal relevance keeps the earlier token first
    (a stable sort), so an order is a function of the relevances alone."""
    relevance, removable = np.asarray(relevance, dtype=np.float64), np.asarray(removable, dtype=bool)
    if relevance.shape != removable.shape:
        raise InputError("faithfulness_relevance_shape", shape=relevance.shape, tokens=removable.shape[0])
    if not np.isfinite(relevance[removable]).all():
        raise InputError("faithfulness_relevance_not_finite")
    candidates = np.flatnonzero(removable)
    return candidates[np.argsort(-relevance[candidates], kind="stable")].astype(np.int64)


def random_orders(removable: np.ndarray, count: int, seed: int) -> list[np.ndarray]:
    """`count` random orders of the removable tokens, drawn from `seed` (the same seed gives the same orders)."""
    generator = np.random.default_rng(seed)
    candidates = np.flatnonzero(np.asarray(removable, dtype=bool)).astype(np.int64)
    return [generator.permutation(candidates) for _ in range(count)]


def bin_counts(removable: int) -> np.ndarray:
    """int64 (bins,): how many tokens each of ERASER's bins removes or keeps, ⌈b·n⌉ and at least 1."""
    if removable < 1:
        raise InputError("faithfulness_nothing_removable")
    return np.array([min(removable, max(1, math.ceil(share * removable))) for share in BINS], dtype=np.int64)


def deletion_inputs(ids: np.ndarray, order: np.ndarray, replacement: np.ndarray) -> np.ndarray:
    """int64 (n + 1, tokens): row k is `ids` with the first k tokens of `order` replaced by `replacement`'s."""
    rows = np.repeat(np.asarray(ids, dtype=np.int64)[None], len(order) + 1, axis=0)
    for step, token in enumerate(order, start=1):
        rows[step:, token] = replacement[token]
    return rows


def insertion_inputs(ids: np.ndarray, order: np.ndarray, replacement: np.ndarray) -> np.ndarray:
    """int64 (n + 1, tokens): row k is `ids` with every token of `order` replaced but its first k."""
    rows = np.repeat(np.asarray(ids, dtype=np.int64)[None], len(order) + 1, axis=0)
    for step, token in enumerate(order):
        rows[: step + 1, token] = replacement[token]
    return rows


@dataclass(frozen=True)
class Scores:
    """One order's scores (in f's units: nats, or 1 − cos for an encoder's pooled output)."""

    comprehensiveness: float  # AOPC of f(x) − f(x without the top k): higher is more faithful
    sufficiency: float  # AOPC of f(x) − f(only the top k): lower is more faithful
    deletion_area: float  # area under D over the fraction removed: lower is more faithful
    insertion_area: float  # area under I over the fraction kept: higher is more faithful

    @property
    def faithfulness(self) -> float:
        """comprehensiveness − sufficiency: what measures are ranked by."""
        return self.comprehensiveness - self.sufficiency


SCORE_NAMES = ("comprehensiveness", "sufficiency", "deletion_area", "insertion_area")


@dataclass(frozen=True)
class Curves:
    """One order's outputs as its tokens are removed: float64 (n + 1,) each, k = 0 … n."""

    deletion: np.ndarray  # D(k): the first k removed
    insertion: np.ndarray  # I(k): only the first k kept

    def __post_init__(self):
        deletion, insertion = (np.asarray(curve, dtype=np.float64) for curve in (self.deletion, self.insertion))
        if deletion.ndim != 1 or deletion.shape != insertion.shape or len(deletion) < 2:
            raise InputError("faithfulness_curve_shape", deletion=deletion.shape, insertion=insertion.shape)
        object.__setattr__(self, "deletion", deletion)
        object.__setattr__(self, "insertion", insertion)

    def scores(self) -> Scores:
        """The four scores of this order (the module docstring's definitions)."""
        full, steps = self.deletion[0], len(self.deletion) - 1
        counts = bin_counts(steps)
        return Scores(
            float(np.mean(full - self.deletion[counts])),
            float(np.mean(full - self.insertion[counts])),
            _area(self.deletion),
            _area(self.insertion),
        )


def _area(curve: np.ndarray) -> float:
    """The trapezoid area under `curve` over the fractions 0, 1/n, …, 1."""
    return float((curve[:-1] + curve[1:]).sum() / (2 * (len(curve) - 1)))


@dataclass(frozen=True)
class Floor:
    """The random orders' scores under one baseline: their mean, and the spread of their faithfulness."""

    mean: Scores
    spread: float  # standard deviation of the random orders' faithfulness (0 for a single order)
    orders: int


@dataclass(frozen=True)
class Scoreboard:
    """Every measure's removal curves on one input and one output, under each baseline, beside random orders.

    `curves[baseline][order]`: an order is a measure's name or "random-i". `relevance[measure]`: float64 (tokens,)
    over `tokens` (the text the model reads; a translator's source); `orders[order]`: int64 (n,) the token indices
    in the order removed. `unavailable[measure]`: why a measure has no
    scores here (the error's key). `replacements[baseline]`: int64 (tokens,) the token put in place of each removed
    one, `replacement_texts[baseline]` what each reads as."""

    model: str
    metric: str  # METRICS
    explained: str  # the output scored, as a person reads it
    rows: tuple[int, ...]  # a translator's target rows scored (summed); () otherwise
    tokens: list[Token]
    removable: np.ndarray  # bool (tokens,)
    full: float  # f(x): the output on the whole input
    relevance: dict[str, np.ndarray]
    orders: dict[str, np.ndarray]
    curves: dict[str, dict[str, Curves]]
    replacements: dict[str, np.ndarray]
    replacement_texts: dict[str, list[str]]
    unavailable: dict[str, str] = field(default_factory=dict)
    provenance: dict = field(default_factory=dict)

    @property
    def baselines(self) -> list[str]:
        return list(self.curves)

    @property
    def measures(self) -> list[str]:
        """The measures scored, in the order they were asked for."""
        return list(self.relevance)

    def scores(self, baseline: str, measure: str) -> Scores:
        return self.curves[baseline][measure].scores()

    def floor(self, baseline: str) -> Floor:
        """The mean of the random orders' scores under `baseline`, and their faithfulness's spread."""
        randoms = [curves.scores() for name, curves in self.curves[baseline].items() if name.startswith(RANDOM)]
        mean = Scores(*(float(np.mean([getattr(s, name) for s in randoms])) for name in SCORE_NAMES))
        spread = float(np.std([s.faithfulness for s in randoms])) if len(randoms) > 1 else 0.0
        return Floor(mean, spread, len(randoms))

    def margin(self, baseline: str, measure: str) -> float:
        """How far `measure`'s faithfulness is above the random floor's mean under `baseline`."""
        return self.scores(baseline, measure).faithfulness - self.floor(baseline).mean.faithfulness

    def table(self) -> list[dict]:
        """One row per baseline and order (the measures, then the floor's mean as "random"): every score, the
        faithfulness and its margin above the floor. What a scores file holds."""
        rows = []
        for baseline in self.baselines:
            floor = self.floor(baseline)
            for measure in self.measures:
                scored = self.scores(baseline, measure)
                rows.append(_row(baseline, measure, scored, scored.faithfulness - floor.mean.faithfulness))
            rows.append(_row(baseline, RANDOM, floor.mean, 0.0) | {"random_orders": floor.orders})
        return rows


def _row(baseline: str, order: str, scores: Scores, margin: float) -> dict:
    values = {name: getattr(scores, name) for name in SCORE_NAMES}
    return {"baseline": baseline, "measure": order, **values, "faithfulness": scores.faithfulness, "margin": margin}
