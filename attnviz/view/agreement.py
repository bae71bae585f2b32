"""Do attention weights and contributions agree here? The rank correlation of one layer's weights with the
measures of what that layer uses, over the rows a view shows (numpy and scipy; no torch).

"Attention is not explanation" (Jain and Wallace, NAACL 2019) and "Attention is not not explanation" (Wiegreffe and
Pinter, EMNLP 2019) compare attention with other importance measures by rank correlation; here the others are value
norms (Kobayashi et al., EMNLP 2020), ALTI (Ferrando et al., EMNLP 2022) and value zeroing (Mohebbi et al., EACL
2023), each a (queries, keys) matrix of the same layer and rows. Spearman's ρ is Pearson's correlation of the cells'
ranks (ties get their mean rank); a causal map's cells above the diagonal are left out, since every measure holds 0
there and those ties alone would make any two measures look alike.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

import numpy as np
from scipy import stats

from attnviz import i18n
from attnviz.errors import InputError
from attnviz.maps.replay import replay
from attnviz.measures.names import measure_name
from attnviz.types import AttentionCapture
from attnviz.view import head_choice, selection, viewing

AGREE_FROM = 0.5  # ρ from which the line says "agree": a moderate rank correlation or stronger
FEWEST_CELLS = 3  # a rank correlation of fewer cells says nothing


@dataclass(frozen=True)
class Agreement:
    """The weights' rank correlation with each other measure."""

    pairs: dict[str, float]  # measure name (measure_view.MEASURES) -> Spearman ρ with the weights
    cells: int  # the cells compared

    @property
    def mean(self) -> float:
        """The mean of the pairs' ρ: a summary of measures of different kinds (value norms weight attention,
        ALTI and value zeroing are contributions), said as a mean wherever it is shown."""
        return float(np.mean(list(self.pairs.values())))

    def headline(self, measure: str | None = None) -> tuple[str | None, float]:
        """(the measure a line names, the ρ it says): the chosen `measure`'s own ρ when it was compared, else
        (None, the mean of every pair)."""
        if measure in self.pairs:
            return measure, self.pairs[measure]
        return None, self.mean


def compared_cells(queries: int, keys: int, causal: bool) -> np.ndarray:
    """bool (queries, keys): the cells compared — all, or in a causal map those on or below the diagonal (the
    last `queries` keys end at the diagonal, as a decoder's rows do)."""
    return np.tril(np.ones((queries, keys), dtype=bool), keys - queries) if causal else np.ones((queries, keys), bool)


def spearman(first: np.ndarray, second: np.ndarray) -> float:
    """Spearman's ρ of two equally long vectors; NaN when one of them is constant."""
    if np.ptp(first) == 0 or np.ptp(second) == 0:
        return float("nan")
    return float(stats.spearmanr(first, second).statistic)


def agreement(weights: np.ndarray, others: Mapping[str, np.ndarray], causal: bool = False) -> Agreement | None:
    """The rank agreement of `weights` (queries, keys) — one layer's heads combined, the rows a view shows — with
    each of `others` (same shape); None when too few cells are compared or every ρ is undefined (a constant map)."""
    cells = compared_cells(*weights.shape, causal)
    finite = cells & np.isfinite(weights)
    for matrix in others.values():
        if matrix.shape != weights.shape:
            raise ValueError(f"a measure of shape {matrix.shape} cannot be compared with weights of {weights.shape}")
        finite &= np.isfinite(matrix)
    if finite.sum() < FEWEST_CELLS:
        return None
    rhos = {name: spearman(weights[finite], matrix[finite]) for name, matrix in others.items()}
    defined = {name: rho for name, rho in rhos.items() if np.isfinite(rho)}
    return Agreement(defined, int(finite.sum())) if defined else None


def view_agreement(
    captured: AttentionCapture, measured: Mapping[str, AttentionCapture], options: viewing.ViewOptions
) -> Agreement | None:
    """The agreement of the view `options` show: layer `options.layer` of the map they draw, its rows as drawn
    (tokens hidden, words merged, replayed), the weights (mean of the layer's heads) against their value-norm
    weighting (when the capture has value norms) and each measure of `measured` (name -> its capture)."""

    def drawn(result: AttentionCapture, measure: str) -> np.ndarray:
        chosen = replace(options, measure=measure, aggregation="layer")
        amap = replay(selection.prepare(result, chosen), options.step)
        layer = head_choice.clamp_index(options.layer, amap.num_layers)
        return amap.weights[layer].mean(axis=0)  # (queries, keys): the layer's heads (a measure has one)

    weights = drawn(captured, "weights")
    others = {}
    try:
        others["value-norm"] = drawn(captured, "value-norm")
    except InputError:  # a capture without value norms: compared with the other measures only
        pass
    others.update({name: drawn(result, name) for name, result in measured.items()})
    causal = captured[options.kind or selection.default_kind(captured)].causal
    return agreement(weights, others, causal)


def agreement_line(
    found: Agreement | None, layer: int, lang: str = "en", measure: str | None = None
) -> tuple[str, str]:
    """(the line, the sentence below it saying what was compared and the threshold): the chosen `measure`'s own ρ,
    "Here, attention weights and ALTI contributions agree: ρ = 0.81"; without one (or one not compared), the mean
    of every pair's ρ, said as a mean."""
    if found is None:
        return i18n.t("agreement_too_few", lang), ""
    named, rho = found.headline(measure)
    verdict = "agree" if rho >= AGREE_FROM else "disagree"
    if named is None:
        line = i18n.t(f"agreement_{verdict}_mean", lang, rho=f"{rho:.2f}")
    else:
        line = i18n.t(f"agreement_{verdict}", lang, measure=measure_name(named).text(lang), rho=f"{rho:.2f}")
    pairs = ", ".join(
        i18n.t("agreement_pair", lang, measure=measure_name(name).text(lang), rho=f"{rho:.2f}")
        for name, rho in found.pairs.items()
    )
    detail = i18n.t("agreement_detail", lang, layer=layer, pairs=pairs, cells=found.cells, threshold=AGREE_FROM)
    return line, detail
