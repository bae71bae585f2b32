"""Every contribution measure by the name the command line and the app give it, one line each:
name -> function(handle, text, target=None, *, truncate=False) -> `results.Contributions`."""

from __future__ import annotations

from functools import partial

from attnviz.errors import InputError
from attnviz.measures.alti import alti
from attnviz.measures.results import Contributions
from attnviz.models import ModelHandle

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
