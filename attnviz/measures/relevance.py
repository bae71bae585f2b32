"""Each measure's relevance of every input token for one output: the order a faithfulness test removes tokens in.

The input is what the model reads and a person wrote (a translator's source, a decoder's or an encoder's text); the
output is a translator's target rows `rows` (their mean; one row for one token), a decoder's last position (the next
token), or an encoder's every position (mean pooling, as its pooled output is made). For a (queries, keys) matrix M of
a measure, a token's relevance is the mean of M's `rows` at its column:

- "weights": the attention weights α (Vaswani et al., 2017), the mean over layers and heads — of cross-attention for a
  translator, of self-attention otherwise;
- "rollout": attention rollout (Abnar and Zuidema, ACL 2020, arXiv 2005.00928; `maps.analysis.rollout`, with the
  residual's 0.5·I) through every layer; for a translator the cross-attention weights (mean over layers and heads)
  times the encoder's rollout, since every cross-attention reads the encoder's last layer;
- "value-norm": α_ij·‖f_h(x_j)‖ with rows scaled to 1 (Kobayashi et al., EMNLP 2020, arXiv 2004.10102), mean over
  layers and heads;
- "alti": each layer's ALTI contributions (Ferrando et al., EMNLP 2022, arXiv 2203.04212), mean over layers;
- "alti-rollout": ALTI rolled out to the input tokens; for a translator ALTI+'s source contributions after the last
  decoder layer (Ferrando et al., EMNLP 2022, arXiv 2205.11631), unscaled;
- "value-zeroing": value zeroing (Mohebbi et al., EACL 2023, arXiv 2301.12971), mean over layers;
- "saliency": gradient × input, ‖∂ log p(y) / ∂e_j ⊙ e_j‖₂ (Denil et al., 2014, arXiv 1412.6815; Shrikumar et al.,
  2016). An encoder writes no token: its saliency is unavailable (the error says so), never some other quantity.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from attnviz.attention.capture import capture
from attnviz.errors import AttnvizError, InputError
from attnviz.maps.analysis import rollout, value_weighted
from attnviz.measures.alti import alti_methods
from attnviz.measures.results import Contributions
from attnviz.measures.saliency import saliency
from attnviz.measures.value_zeroing import value_zeroing
from attnviz.model.load import ModelHandle
from attnviz.types import AttentionCapture

MEASURES = ("weights", "rollout", "value-norm", "alti", "alti-rollout", "value-zeroing", "saliency")


@dataclass
class _Runs:
    """What the measures read of one input, each computed once when first asked for."""

    handle: ModelHandle
    text: str
    target: str | None
    rows: tuple[int, ...]  # the query rows whose mean is the output's relevance
    kind: str = field(init=False)  # the map whose keys are the input: "cross" for a translator, else "self"

    def __post_init__(self):
        self.kind = "cross" if self.handle.is_seq2seq else "self"

    @cached_property
    def weights(self) -> AttentionCapture:
        return capture(self.handle, self.text, self.target)

    @cached_property
    def alti(self) -> dict[str, Contributions]:
        return alti_methods(self.handle, self.text, self.target)

    def of_rows(self, matrix: np.ndarray) -> np.ndarray:
        """float64 (keys,): the mean of `matrix`'s (queries, keys) rows `rows`."""
        return np.asarray(matrix, dtype=np.float64)[list(self.rows)].mean(axis=0)

    def layer_mean(self, result: AttentionCapture) -> np.ndarray:
        """(keys,) the rows of the input's map of `result`, averaged over its layers and heads."""
        return self.of_rows(result[self.kind].weights.mean(axis=(0, 1), dtype=np.float64))


def _weights(runs: _Runs) -> np.ndarray:
    return runs.layer_mean(runs.weights)


def _rollout(runs: _Runs) -> np.ndarray:
    if runs.kind == "cross":
        encoder = rollout(runs.weights["encoder"]).weights[-1, 0].astype(np.float64)  # (sources, sources)
        return runs.layer_mean(runs.weights) @ encoder
    return runs.of_rows(rollout(runs.weights["self"]).weights[-1, 0])


def _value_norm(runs: _Runs) -> np.ndarray:
    return runs.of_rows(value_weighted(runs.weights[runs.kind]).weights.mean(axis=(0, 1), dtype=np.float64))


def _alti(runs: _Runs) -> np.ndarray:
    return runs.layer_mean(runs.alti["alti"])


def _alti_rollout(runs: _Runs) -> np.ndarray:
    rolled = runs.alti["alti-rollout"]
    if rolled.shares is not None:  # a translation: ALTI+'s source contributions, unscaled
        return runs.of_rows(rolled.shares.source[-1])
    return runs.of_rows(rolled["self"].weights[-1, 0])


def _value_zeroing(runs: _Runs) -> np.ndarray:
    return runs.layer_mean(value_zeroing(runs.handle, runs.text, runs.target, kinds=[runs.kind]))


def _saliency(runs: _Runs) -> np.ndarray:
    scores = saliency(runs.handle, runs.text, runs.target, rows=list(runs.rows))
    return scores.source.astype(np.float64).mean(axis=0)  # (rows, sources) -> (sources,)


RELEVANCE: dict[str, Callable[[_Runs], np.ndarray]] = {
    "weights": _weights,
    "rollout": _rollout,
    "value-norm": _value_norm,
    "alti": _alti,
    "alti-rollout": _alti_rollout,
    "value-zeroing": _value_zeroing,
    "saliency": _saliency,
}


def check_measures(measures: Sequence[str] | None) -> list[str]:
    """The measures asked for (all of `MEASURES` for None), attention weights always among them."""
    asked = list(MEASURES if measures is None else measures)
    unknown = [name for name in asked if name not in RELEVANCE]
    if unknown:
        raise InputError("faithfulness_measure_unknown", measure=unknown[0], measures=", ".join(MEASURES))
    return list(dict.fromkeys(["weights", *asked]))  # the weights are always ranked


def relevances(
    handle: ModelHandle, text: str, target: str | None, rows: Sequence[int], measures: Sequence[str] | None = None
) -> tuple[dict[str, np.ndarray], dict[str, str]]:
    """(measure -> float64 (input tokens,) relevance, measure -> the key of the error that leaves it unavailable)
    for the output read at query rows `rows` (see the module docstring). A measure the model's architecture does not
    allow is unavailable, with its reason; the attention weights never are."""
    runs = _Runs(handle, text, target, tuple(rows))
    found, unavailable = {}, {}
    for name in check_measures(measures):
        if name == "saliency" and handle.kind == "encoder":
            unavailable[name] = "saliency_no_output"
            continue
        try:
            found[name] = RELEVANCE[name](runs)
        except AttnvizError as error:
            if name == "weights":
                raise
            unavailable[name] = error.key
    return found, unavailable
