"""The command line's arguments as one frozen request: made once from argparse's Namespace (`request_of`), then read
by every part of a command, with the defaults of the options a command does not take."""

from __future__ import annotations

import argparse
from dataclasses import dataclass, fields
from pathlib import Path

from attnviz.view.viewing import ViewOptions


@dataclass(frozen=True)
class Request:
    """What a command was asked to do; an option its command lacks holds the default the others give it."""

    command: str
    # model and input
    model: str | None = None
    text: str | None = None
    input: Path | None = None
    target: str | None = None
    generate: int | None = None
    beams: int | None = None
    device: str = "auto"
    device_map: str | None = None  # as written, checked by `attnviz.model.placement` as argparse reads it
    max_memory: str | None = None
    offload_folder: Path | None = None
    truncate: bool = False
    # output
    output: Path | None = None
    force: bool = False
    quiet: bool = False
    format: str | None = None
    # view (export), as the app's controls of those names
    view: str = "heatmap"
    kind: str | None = None
    aggregation: str | None = None
    rollout_layers: str | None = None
    residual: bool = ViewOptions.residual
    layer: str | None = None
    head: str | None = None
    aggregate: str | None = None
    layer_aggregate: str = "mean"
    words: bool = ViewOptions.words
    hide_special: bool = ViewOptions.hide_special
    hide_first: bool = False
    renormalize: bool = False
    log_scale: bool = False
    weighting: str = ViewOptions.weighting
    measure: str | None = ViewOptions.measure  # export: measure_view.MEASURES; None: the attention weights
    color_scale: str = ViewOptions.color_scale
    threshold: float = ViewOptions.threshold
    top_k: int = ViewOptions.top_k
    step: int = ViewOptions.step
    lang: str = "en"
    gold: str | None = None
    reverse_model: str | None = None
    engine: str = "auto"
    # size (export)
    width: int | None = None
    height: int | None = None
    scale: float | None = None
    dpi: float | None = None
    preset: str | None = None
    # find-head
    query: str | None = None
    key: str | None = None
    occurrence: int = 1
    top: int = 10
    # head-effects
    estimate: bool = True
    # compare: B's model, text, target, map and device (None: A's), B's dtype (None: float32), and whether heads are
    # paired (None: when the models differ)
    model_b: str | None = None
    text_b: str | None = None
    target_b: str | None = None
    kind_b: str | None = None
    device_b: str | None = None
    dtype_b: str | None = None
    pair_heads: bool | None = None
    figure: str = "diff"  # compare's figure: the diff A − B, or A's and B's alignment diagrams side by side
    # contributions
    method: str = "alti"
    # faithfulness: the target row scored (None: the whole target), the random orders of the floor and their seed
    row: int | None = None
    random_orders: int = 3
    seed: int = 0
    # explorer and faithfulness: the measures asked for (None: explorer none, faithfulness all)
    measures: tuple[str, ...] | None = None
    # explorer: what the file holds (None: every map, both languages, the default thresholds)
    kinds: tuple[str, ...] | None = None
    languages: tuple[str, ...] | None = None
    thresholds: tuple[float, ...] | None = None
    subwords: bool = True
    # atlas: tokens per block, the sink's first tokens, whether the queries and keys that reopen windows are kept
    block: int = 64
    sink: int = 4
    windows: bool = True


def request_of(args: argparse.Namespace) -> Request:
    """The request argparse's Namespace holds (the options its command takes; the others at their defaults)."""
    return Request(**{field.name: getattr(args, field.name) for field in fields(Request) if hasattr(args, field.name)})


def placement_options(request: Request) -> dict:
    """`load_model`'s placement options (device map, memory limits, offload folder) the request asks for."""
    return {
        "device_map": request.device_map,
        "max_memory": request.max_memory,
        "offload_folder": request.offload_folder,
    }
