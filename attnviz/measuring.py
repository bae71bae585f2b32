"""Every measure computed by running the model, in one table: its name → how it is computed, how it is drawn and how
it is written. The app's Measure choice, `attnviz contributions`, `attnviz export --measure` and the notebook read
`MEASURES` (through `get` and `measured`), so a measure is added in one place and one unknown name reads one
sentence everywhere.

- "alti", "alti-rollout": ALTI contributions and their rollout (Ferrando et al., EMNLP 2022, arXiv 2203.04212; ALTI+
  through a translator, arXiv 2205.11631): one (layers, 1, queries, keys) map per stack, drawn as a map;
- "value-zeroing": value zeroing (Mohebbi et al., EACL 2023, arXiv 2301.12971): the same layout;
- "saliency": gradient × input (Simonyan et al., 2014; Shrikumar et al., 2016) per output token: drawn as bars
  beside the maps, never as a map.

The names a view offers, and their words, are `attnviz.measures.names` (below the figures, no torch); a test keeps
the two lists equal. The attention weights and value-norm weighting are read from a capture, not computed here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from attnviz import export
from attnviz.errors import InputError
from attnviz.export.saliency_file import save_saliency
from attnviz.figures.saliency import saliency_bars
from attnviz.measures.alti import alti
from attnviz.measures.saliency import saliency
from attnviz.measures.value_zeroing import value_zeroing
from attnviz.model.load import ModelHandle
from attnviz.view import selection


@dataclass(frozen=True)
class Measure:
    name: str  # as the app, the command line and files say it
    compute: Callable  # (handle, text, target=None, *, truncate=False, kinds=None) -> its result
    draw: Callable  # its figure: `selection.show` for a map per layer, `figures.saliency.saliency_bars` for bars
    write: Callable  # (result, path, fmt, overwrite=False) -> the path written
    formats: tuple[str, ...]  # the file formats it writes, the default first
    per_layer_map: bool  # one map per layer (drawn by the map views) rather than scores per output token


def _alti(method: str) -> Callable:
    def compute(handle: ModelHandle, text: str, target: str | None = None, *, truncate: bool = False, kinds=None):
        found = alti(handle, text, target, method=method, truncate=truncate)  # every stack: ALTI+ needs them all
        return found if kinds is None else replace(found, maps={kind: found[kind] for kind in kinds})

    return compute


def _value_zeroing(handle: ModelHandle, text: str, target: str | None = None, *, truncate: bool = False, kinds=None):
    return value_zeroing(handle, text, target, truncate=truncate, kinds=kinds)


def _saliency(handle: ModelHandle, text: str, target: str | None = None, *, truncate: bool = False, kinds=None):
    return saliency(handle, text, target, truncate=truncate)  # about output tokens: no map kinds to choose


MEASURES: dict[str, Measure] = {
    "alti": Measure("alti", _alti("alti"), selection.show, export.save_capture, ("json", "npz", "csv"), True),
    "alti-rollout": Measure(
        "alti-rollout", _alti("alti-rollout"), selection.show, export.save_capture, ("json", "npz", "csv"), True
    ),
    "value-zeroing": Measure(
        "value-zeroing", _value_zeroing, selection.show, export.save_capture, ("npz", "json"), True
    ),
    "saliency": Measure("saliency", _saliency, saliency_bars, save_saliency, ("npz", "json"), False),
}


def get(name: str) -> Measure:
    """The measure called `name`; the one InputError for an unknown name, naming those there are."""
    if name not in MEASURES:
        raise InputError("measure_unknown", measure=name, measures=", ".join(MEASURES))
    return MEASURES[name]


def measured(
    handle: ModelHandle, text: str, target: str | None = None, *, measure: str, truncate: bool = False, kinds=None
):
    """`measure` of `text` (and `target`, for a translator): for a per-layer measure a capture of (layers, 1,
    queries, keys) maps, rows summing to 1, that `selection.show` draws and titles by its measure. An architecture
    the measure cannot handle raises InputError (a sentence in both languages)."""
    return get(measure).compute(handle, text, target, truncate=truncate, kinds=kinds)


def file_name(name: str, model: str, text: str, fmt: str) -> str:
    """The file a measure of one text is written to in an output folder: the measure, the model and the text's
    first words."""
    return export.safe_filename(f"{name}_{Path(model).name or model}_{text}", f".{fmt}")
