"""Which measure a view draws, and the words that say so on its figures (numpy and plain Python; no torch).

A view draws one of `MEASURES`:
- "weights": the attention weights α (Vaswani et al., 2017), as captured;
- "value-norm": α_ij·‖f_h(x_j)‖, rows scaled to sum 1 (Kobayashi et al., EMNLP 2020, "Attention is Not Only a
  Weight"), computed from a capture's value norms (`viewing.WEIGHTINGS`);
- "alti", "alti-rollout": ALTI contributions and their rollout (Ferrando et al., EMNLP 2022, arXiv 2203.04212;
  ALTI+ through a translator, arXiv 2205.11631), `attnviz.measures.alti`;
- "value-zeroing": value zeroing (Mohebbi et al., EACL 2023, arXiv 2301.12971), `attnviz.measures.value_zeroing`.

"saliency" (`PER_OUTPUT_TOKEN`: gradient × input, `attnviz.measures.saliency`) is about one output token, not a
layer's map: a page that offers it draws the weights as they are and its bars beside them
(`figures.saliency.saliency_bars`); no map view draws it.

The three contributions (`CONTRIBUTIONS`) are computed by running the model (`attnviz.measuring.measured`) into a
capture of (layers, 1, queries, keys) maps: one map per layer, not per head. A figure of one says so — its title
names the measure where a capture's says "head 0", its colour bar says "contribution" — so that a title never
calls contributions attention weights (`measure_labels`).
"""

from __future__ import annotations

from attnviz import i18n
from attnviz.errors import InputError, Phrase
from attnviz.types import AttentionCapture

WEIGHTINGS_AS_MEASURES = ("weights", "value-norm")  # drawn from a capture of attention weights
CONTRIBUTIONS = ("alti", "alti-rollout", "value-zeroing")  # computed by running the model, one map per layer
MEASURES = (*WEIGHTINGS_AS_MEASURES, *CONTRIBUTIONS)
PER_OUTPUT_TOKEN = ("saliency",)  # one score per input token for one output token: drawn beside the maps, not as one


def check_measure(measure: str) -> str:
    """`measure` when it is one of `MEASURES`; an InputError naming them otherwise."""
    if measure not in MEASURES:
        raise InputError("measure_unknown", measure=measure, measures=", ".join(MEASURES))
    return measure


def measure_name(measure: str) -> Phrase:
    """The measure's name as a sentence says it, in the sentence's language."""
    return Phrase(f"measure_choice.{check_measure(measure)}")


def held_measure(result: AttentionCapture) -> str:
    """The measure a result's maps hold: "weights" for a capture, else the name its measure recorded (value zeroing
    in `meta`, ALTI in its provenance)."""
    said = (result.meta or {}).get("measure")
    if said is None:
        recorded = (result.provenance or {}).get("measure")
        said = recorded.get("name") if isinstance(recorded, dict) else recorded
    return said or "weights"


def check_held(result: AttentionCapture, measure: str) -> None:
    """An InputError when `result` does not hold what `measure` draws: never contributions titled as weights, nor
    weights titled as contributions."""
    held = held_measure(result)
    wanted = measure if measure in CONTRIBUTIONS else "weights"
    if held != wanted:
        asked, holds = measure_name(wanted), measure_name(held) if held in MEASURES else held
        raise InputError("measure_mismatch", asked=asked, held=holds)


def row_sums_said(lang: str, rows_sum_to_one: bool) -> str:
    """What a colour bar says of the rows it colours: "rows sum to 1", or "rows sum to less than 1" where hidden
    tokens took their share (the title then says how much)."""
    return i18n.t("rows_sum_one" if rows_sum_to_one else "rows_sum_less", lang)


def measure_labels(measure: str | None, lang: str = "en", rows_sum_to_one: bool = True) -> dict[str, str]:
    """The figure words (`FigureStyle.labels`) of a contributions map: its one "head" per layer named by the measure
    ("cross-attention · layer 2 · value zeroing", never "· head 0"), a rollout's layer as the layers it goes
    through, its colour bar "contribution" and what its rows sum to (`row_sums_said`). Nothing for weights (value
    norms have `selection.weighting_labels`)."""
    if measure is None or check_measure(measure) not in CONTRIBUTIONS:  # None: not yet resolved, drawn as weights
        return {}
    name = i18n.t(f"measure_figure.{measure}", lang)
    labels = {
        "head_one": name,
        "heads_all": name,
        "heads_overlaid": name,
        "head_legend": name,
        "combined": name,
        "grid_cell": i18n.t("measure_grid_cell", lang),
        "weight": i18n.t("measure_colorbar", lang, rows=row_sums_said(lang, rows_sum_to_one)),
    }
    if measure == "alti-rollout":
        labels["layer_one"] = i18n.t("measure_layer_rollout", lang)
    return labels
