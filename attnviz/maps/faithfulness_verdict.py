"""Which explanation to believe on this input: the measures of a `Scoreboard` ranked, their margins above random
orders, and whether the ranking holds when tokens are removed another way (numpy and scipy; no torch).

A measure's score under one baseline is its faithfulness (ERASER comprehensiveness − sufficiency, DeYoung et al.,
ACL 2020) minus that of random orders of the same tokens (the floor). The measures are ranked by that margin averaged
over the baselines. The ranking *decides* when
- the rankings under the baselines agree: Spearman's ρ between the measures' margins under the first two baselines is
  at least `DECIDES_FROM`, and
- the best measure beats random order under every baseline by more than the random orders' own spread.
Otherwise the verdict says that the scores do not decide, and why: removing tokens puts the model off its training
distribution, and a ranking that changes with the way tokens are removed says more about that than about the
measures.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from attnviz import i18n
from attnviz.maps.faithfulness_scores import Scoreboard

DECIDES_FROM = 0.8  # ρ from which two baselines' rankings agree (with seven measures, one-sided p ≈ 0.02)
FEWEST_RANKED = 3  # a rank correlation of fewer measures says nothing


@dataclass(frozen=True)
class Verdict:
    """The measures best first, their margins above the floor per baseline, and whether the ranking decides."""

    ranking: list[str]  # measures, best first (mean margin over the baselines)
    margins: dict[str, dict[str, float]]  # measure -> baseline -> faithfulness − the floor's
    spreads: dict[str, float]  # baseline -> the random orders' spread of faithfulness
    rho: float  # Spearman ρ of the margins under the first two baselines; NaN when undefined
    reason: str  # "decides", "baselines_disagree", "not_above_floor", "too_few"

    @property
    def decides(self) -> bool:
        return self.reason == "decides"

    @property
    def best(self) -> str:
        return self.ranking[0]

    def mean_margin(self, measure: str) -> float:
        return float(np.mean(list(self.margins[measure].values())))


def verdict(board: Scoreboard) -> Verdict:
    """The `Verdict` of `board` (see the module docstring)."""
    baselines, measures = board.baselines, board.measures
    margins = {measure: {b: board.margin(b, measure) for b in baselines} for measure in measures}
    spreads = {baseline: board.floor(baseline).spread for baseline in baselines}
    ranking = sorted(measures, key=lambda m: (-np.mean(list(margins[m].values())), measures.index(m)))
    rho = float("nan")
    if len(measures) >= FEWEST_RANKED and len(baselines) >= 2:
        first, second = ([margins[m][b] for m in measures] for b in baselines[:2])
        if np.ptp(first) > 0 and np.ptp(second) > 0:
            rho = float(stats.spearmanr(first, second).statistic)
    best = ranking[0]
    if not np.isfinite(rho):
        reason = "too_few"
    elif rho < DECIDES_FROM:
        reason = "baselines_disagree"
    elif not all(margins[best][b] > spreads[b] for b in baselines):
        reason = "not_above_floor"
    else:
        reason = "decides"
    return Verdict(ranking, margins, spreads, rho, reason)


def verdict_sentence(found: Verdict, lang: str = "en") -> str:
    """The verdict in one sentence: the best measure and its margin when the scores decide; else why they do not."""
    best = i18n.t(f"faithfulness_measure.{found.best}", lang)
    values = dict(
        best=best,
        margin=f"{found.mean_margin(found.best):+.3f}",
        rho="—" if not np.isfinite(found.rho) else f"{found.rho:.2f}",
        threshold=DECIDES_FROM,
    )
    return i18n.t(f"faithfulness_verdict.{found.reason}", lang, **values)
