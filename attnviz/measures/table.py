"""Every contribution measure by the name the command line and the app give it, one line each:
name -> function(handle, text, target=None, *, truncate=False) -> `results.Contributions`.

`measured` is the one way from a measure's name (`attnviz.measures.names.CONTRIBUTIONS`) to its capture: the app's
Measure choice and `attnviz export --measure` call it, so both draw the same numbers."""

from __future__ import annotations

from functools import partial

from attnviz.errors import InputError
from attnviz.measures.alti import alti
from attnviz.measures.names import CONTRIBUTIONS
from attnviz.measures.results import Contributions
from attnviz.measures.value_zeroing import value_zeroing
from attnviz.model.load import ModelHandle
from attnviz.types import AttentionCapture

MEASURES = {
    "alti": partial(alti, method="alti"),
    "alti-rollout": partial(alti, method="alti-rollout"),
}


def contributions(
    handle: ModelHandle, text: str, target: str | None = None, *, method: str, truncate: bool = False
) -> Contributions:
    """The contributions `method` (a name of `MEASURES`) finds on `text` (and `target`, for a translator)."""
    if method not in MEASURES:
        raise InputError("alti_method_unknown", method=method, methods=", ".join(MEASURES))
    return MEASURES[method](handle, text, target, truncate=truncate)


def measured(
    handle: ModelHandle, text: str, target: str | None = None, *, measure: str, truncate: bool = False
) -> AttentionCapture:
    """The token × token measure `measure` (`CONTRIBUTIONS`: ALTI, ALTI rollout or value zeroing) of `text` (and
    `target`): a capture of (layers, 1, queries, keys) maps, rows summing to 1, that `selection.show` draws and
    titles by its measure. An architecture the measure cannot handle raises InputError (a sentence in both
    languages)."""
    if measure not in CONTRIBUTIONS:
        raise InputError("measure_unknown", measure=measure, measures=", ".join(CONTRIBUTIONS))
    if measure == "value-zeroing":
        return value_zeroing(handle, text, target, truncate=truncate)
    return contributions(handle, text, target, method=measure, truncate=truncate)
