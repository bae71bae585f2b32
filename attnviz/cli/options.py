"""An export's options: the request's view fields as the app's ViewOptions (the same names, meanings and
defaults), the heads listed by --layer/--head, the figure's size, and the argument checks argparse cannot express."""

from __future__ import annotations

import sys

from attnviz import i18n
from attnviz.cli.messages import PROG
from attnviz.cli.request import Request
from attnviz.errors import InputError
from attnviz.export.sizing import resolve_size
from attnviz.indexing import indices
from attnviz.maps import analysis
from attnviz.view import selection, viewing
from attnviz.view.viewing import ViewOptions


def check(request: Request) -> None:
    """Argument combinations argparse cannot express; raising InputError gives the one-line exit 2."""
    if request.generate is not None and request.generate < 1:
        raise InputError("cli_generate_positive")
    if request.generate is not None and request.target is not None:
        raise InputError("cli_target_or_generate")
    if request.beams is not None and request.generate is None:
        raise InputError("cli_beams_need_generate")
    if request.input is not None and request.target is not None:
        raise InputError("cli_input_with_target")
    if request.input is not None and request.gold:
        raise InputError("cli_input_with_gold")
    if request.command == "export":
        check_size(request)
        if not 0 <= request.threshold < 1:
            raise InputError("cli_threshold_range")
        if request.top_k < 1:
            raise InputError("cli_top_k_positive")
        if request.step < 0:
            raise InputError("cli_step_negative")
        if request.reverse_model and request.input is None and not request.gold:
            raise InputError("corpus_reverse_needs_gold")  # it checks gold links; an input file may hold them
        for option, why in ignored_options(request):
            print(
                f"{PROG}: warning: {i18n.t('cli.ignored', request.lang, option=option, why=i18n.t(why, request.lang))}",
                file=sys.stderr,
            )


def ignored_options(request: Request) -> list[tuple[str, str]]:
    """The export options given that the figure asked for does not use (the app hides their controls there), as
    (option, the catalogue key of why): an option that changes nothing must not look as if it had."""
    aggregation, view = request.aggregation, request.view
    ignored = []
    if aggregation in ("alignment", "all", viewing.ROLLOUT) and (request.layer is not None or request.head is not None):
        ignored.append(("--layer/--head", f"cli.ignored.{aggregation}"))
    if aggregation == "layer" and request.head is not None:
        ignored.append(("--head", "cli.ignored.layer"))
    if aggregation != viewing.ROLLOUT and (request.rollout_layers is not None or not request.residual):
        ignored.append(("--rollout-layers/--no-residual", "cli.ignored.not_rollout"))
    if view != "alignment" and (request.gold or request.reverse_model):
        ignored.append(("--gold/--reverse-model", "cli.ignored.gold"))
    if view != "alignment" and request.top_k != ViewOptions.top_k:
        ignored.append(("--top-k", "cli.ignored.top_k"))
    if view not in ("alignment", "lines") and request.threshold != ViewOptions.threshold:
        ignored.append(("--threshold", "cli.ignored.threshold"))
    if view != "heatmap" and request.log_scale:
        ignored.append(("--log-scale", "cli.ignored.log_scale"))
    if view not in ("heatmap", "grid") and request.color_scale != ViewOptions.color_scale:
        ignored.append(("--color-scale", "cli.ignored.color_scale"))
    fmt = request.format or request.output.suffix.lower().lstrip(".")
    if fmt in ("svg", "pdf", "html") and (request.scale is not None or request.dpi is not None):
        ignored.append(("--scale/--dpi", "cli.ignored.vector"))
    if fmt == "html" and request.engine != "auto":
        ignored.append(("--engine", "cli.ignored.html_engine"))
    return ignored


def size_options(request: Request) -> dict:
    """The size keyword arguments of `attnviz.export.figure_bytes` the export's arguments give."""
    return {name: getattr(request, name) for name in ("width", "height", "scale", "dpi", "preset")}


def check_size(request: Request) -> None:
    """Sizes out of range, or a preset with a width, fail before any model loads (`resolve_size` checks them again,
    with the pixel budget, against each figure's own size)."""
    import plotly.graph_objects as go  # plotly: loaded when an export is checked, not for --help

    resolve_size(go.Figure(), **size_options(request))


def index_list(value: str, what: str) -> list[int] | None:
    """ "all" -> None; "3" -> [3]; "0,2,-1" -> [0, 2, -1]."""
    if value.strip().lower() == "all":
        return None
    try:
        return [int(part) for part in value.split(",") if part.strip()]
    except ValueError:
        raise InputError("cli_index_list", option=what, value=value) from None


def _one_index(value: str | None, what: str, size: int) -> int:
    """--layer/--head beside --aggregation: one index (default 0), checked against the map, negatives from the end."""
    chosen = index_list(value or "0", what)
    if chosen is None or len(chosen) != 1:
        raise InputError("cli_one_index", option=what, value=value)
    return analysis.indices(chosen, size, what)[0]


def _as_aggregation(layers: tuple | None, heads: tuple | None, head_reduce: str, layer_reduce: str) -> dict:
    """A listed selection as the app's aggregation it equals (so it draws the app's figure), else a custom one."""
    one_layer = layers is not None and len(layers) == 1
    if one_layer and heads is not None and len(heads) == 1:
        return {"aggregation": "head", "layer": layers[0], "head": heads[0]}
    if heads is None and head_reduce == "mean" and one_layer:
        return {"aggregation": "layer", "layer": layers[0]}
    if heads is None and head_reduce == "mean" and layers is None and layer_reduce == "mean":
        return {"aggregation": "all"}
    return {"aggregation": viewing.CUSTOM, "head_reduce": head_reduce, "layer_reduce": layer_reduce}


def _head_fields(request: Request, shape: tuple[int, int, int, int]) -> dict:
    """The ViewOptions fields of the heads chosen: by --aggregation as in the app, else by --layer/--head lists.

    With neither, the map opens as in the app. Listed indices are checked against the map's (layers, heads, queries,
    keys) `shape` (an index it lacks is an error, not clamped as a link's is) and also limit the grid to them.
    """
    num_layers, num_heads = shape[:2]
    if request.aggregation is not None:  # read where the aggregation uses them (else warned of, in ignored_options)
        uses = {"head": ("layer", "head"), "layer": ("layer",)}.get(request.aggregation, ())
        layer = _one_index(request.layer, "layer", num_layers) if "layer" in uses else ViewOptions.layer
        head = _one_index(request.head, "head", num_heads) if "head" in uses else ViewOptions.head
        return {"aggregation": request.aggregation, "layer": layer, "head": head}
    if (
        request.layer is None
        and request.head is None
        and request.aggregate is None
        and request.layer_aggregate == "mean"
    ):
        return {}
    head_word = (request.head or "mean").strip().lower()
    layers = index_list(request.layer or "all", "layer")
    heads = None if head_word in ("mean", "max", "all") else index_list(head_word, "head")
    head_reduce = head_word if head_word in ("mean", "max") else request.aggregate or "mean"
    layer_idx, head_idx = indices(layers, num_layers, "layer"), indices(heads, num_heads, "head")
    listed = {"layers": None if layers is None else tuple(layer_idx)}
    listed["heads"] = None if heads is None else tuple(head_idx)
    return {**listed, **_as_aggregation(listed["layers"], listed["heads"], head_reduce, request.layer_aggregate)}


# Export arguments named as the ViewOptions fields they set, which mean there what the app's controls mean.
SAME_AS_OPTIONS = (
    "words",
    "hide_special",
    "threshold",
    "step",
    "lang",
    "hide_first",
    "renormalize",
    "top_k",
    "log_scale",
    "weighting",
    "measure",
    "residual",
    "color_scale",
)


def _rollout_layers(value: str | None) -> tuple[int, int] | None:
    """--rollout-layers "1-3" (or one layer, "2") as (first, last); None for all layers."""
    if value is None:
        return None
    parts = value.replace("–", "-").split("-")
    try:
        first, last = (int(parts[0]), int(parts[-1])) if len(parts) <= 2 else (None, None)
    except ValueError:
        first = last = None
    if first is None:
        raise InputError("qk_rollout_layers_text", value=value)
    return first, last


def view_options(request: Request, result) -> ViewOptions:
    """The options an export's arguments give for `result` (the same fields the app's controls set)."""
    kind = request.kind or selection.default_kind(result)
    same = {name: getattr(request, name) for name in SAME_AS_OPTIONS}
    rolled = _rollout_layers(request.rollout_layers)
    return ViewOptions(kind=kind, **same, **_head_fields(request, result.shape(kind)), rollout_layers=rolled)
