"""Is a translation detached from its source? Two numbers the model computes, and a flag where a threshold is known
(numpy only; `attnviz.measures.detached` runs the model).

- source share: ALTI+'s share of the source in each target token's prediction, averaged over the target tokens
  (Dale et al., ACL 2023, "Detecting and Mitigating Hallucinations in Machine Translation: Model Internal Workings
  Alone Do Well, Sentence Similarity Even Better", arXiv 2212.08597; ALTI+ as in Ferrando et al., EMNLP 2022, arXiv
  2205.11631). A translation written from the target prefix rather than the source has a low share.
- sequence log-probability: the mean log-probability of the target tokens, force-decoded (Seq-Logprob, Guerreiro,
  Voita and Martins, EACL 2023, "Looking for a Needle in a Haystack: A Comprehensive Study of Hallucinations in
  Neural Machine Translation", arXiv 2208.05309). A translation the model would not write has a low one.

A translation is flagged when either is below its threshold. Its detachment score says how far below, each number in
units of its spread over the calibration pairs (their standard deviation σ), the larger of the two:
max((τ_share − share) / σ_share, (τ_logp − logp) / σ_logp); above 0 is flagged. Thresholds are calibrated per model
(`THRESHOLDS`, from `benchmarks/bench_detached.py`): each is the 5th percentile of that number over the reference
translations of held-out pairs, so that few good translations are flagged. A model without calibrated thresholds gets
the two numbers and no flag.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attnviz import i18n


@dataclass(frozen=True)
class Thresholds:
    """A model's calibrated thresholds, and what they were calibrated on."""

    source_share: float
    log_probability: float
    share_spread: float  # σ of the source share over the calibration pairs
    log_probability_spread: float  # σ of the log-probability over them
    corpus: str  # the held-out file calibrated on
    pairs: int  # how many of its pairs


# Calibrated by benchmarks/bench_detached.py on held-out Tatoeba pairs (assets/corpus/heldout-tatoeba.tsv, never
# trained on): the 5th percentile over the reference translations of 300 of them, and each number's spread there.
THRESHOLDS: dict[str, Thresholds] = {
    "demo-zh-en": Thresholds(0.4548, -3.9022, 0.0623, 1.1715, "assets/corpus/heldout-tatoeba.tsv", 300),
    "demo-en-zh": Thresholds(0.4904, -4.1584, 0.0559, 1.2573, "assets/corpus/heldout-tatoeba.tsv", 300),
}


@dataclass(frozen=True)
class Detachment:
    """What `attnviz.measures.detached.detachment` found for one translation."""

    model: str
    source_share: float  # mean over target tokens of ALTI+'s source share, in [0, 1]
    log_probability: float  # mean log p per target token (nats)
    token_shares: np.ndarray  # float32 (targets,)
    token_log_probabilities: np.ndarray  # float64 (targets,)
    thresholds: Thresholds | None
    provenance: dict

    @property
    def score(self) -> float | None:
        """The detachment score (module docstring); None without thresholds."""
        if self.thresholds is None:
            return None
        return detachment_score(self.source_share, self.log_probability, self.thresholds)

    @property
    def flagged(self) -> bool | None:
        score = self.score
        return None if score is None else score > 0


def detachment_score(share, log_probability, thresholds: Thresholds):
    """max((τ_share − share) / σ_share, (τ_logp − logp) / σ_logp), elementwise for arrays: above 0 is flagged."""
    below_share = (thresholds.source_share - np.asarray(share)) / thresholds.share_spread
    below_logp = (thresholds.log_probability - np.asarray(log_probability)) / thresholds.log_probability_spread
    return np.maximum(below_share, below_logp) if np.ndim(share) else float(max(below_share, below_logp))


def auroc(positives, negatives) -> float:
    """The area under the ROC curve of a score that should be higher for `positives`: the probability that a random
    positive scores above a random negative, ties counting one half (Mann–Whitney U / (m·n))."""
    positives, negatives = np.asarray(positives, dtype=np.float64), np.asarray(negatives, dtype=np.float64)
    if not len(positives) or not len(negatives):
        return float("nan")
    above = (positives[:, None] > negatives[None, :]).sum() + 0.5 * (positives[:, None] == negatives[None, :]).sum()
    return float(above / (len(positives) * len(negatives)))


def percentile_threshold(values, percent: float = 5.0) -> float:
    """The `percent`-th percentile of `values` (linear interpolation): the calibration of one threshold."""
    return float(np.percentile(np.asarray(values, dtype=np.float64), percent))


def detachment_lines(found: Detachment, lang: str = "en") -> tuple[str, str]:
    """(the flag's line, the sentence defining it with its thresholds): what a page shows beside a translation."""
    values = dict(share=f"{found.source_share:.1%}", logp=f"{found.log_probability:.2f}")
    if found.thresholds is None:
        return i18n.t("detached_uncalibrated", lang, **values), i18n.t("detached_definition_none", lang)
    key = "detached_flagged" if found.flagged else "detached_attached"
    definition = i18n.t(
        "detached_definition",
        lang,
        share=f"{found.thresholds.source_share:.1%}",
        logp=f"{found.thresholds.log_probability:.2f}",
        corpus=found.thresholds.corpus,
        pairs=found.thresholds.pairs,
    )
    return i18n.t(key, lang, **values), definition
