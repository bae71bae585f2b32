"""What a view is asked to show, as data: `ViewOptions` (which map, which heads, words or pieces, special tokens,
threshold, replay step, language; its defaults are the app's), the head selection a view resolves them to
(`HeadSelection`: each figure, the file name and the sentences take their heads from that one object), what one set
of options shows (`Shown`), and the names of every choice (aggregations, figures, weightings, stacks).

`attnviz.view.head_choice` decides which heads options mean; `attnviz.view.selection` draws them."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from attnviz.i18n import selection as selection_words
from attnviz.maps import analysis
from attnviz.measures.names import CONTRIBUTIONS
from attnviz.types import AttentionMap

if TYPE_CHECKING:
    import plotly.graph_objects as go

# alignment: the model's alignment heads; head: one layer and head; layer: mean of one layer's heads; all: mean of all
AGGREGATIONS = ("alignment", "head", "layer", "all")
ROLLOUT = "rollout"  # attention rollout through a range of layers (self-attention only): `rollout_map`
SELF_AGGREGATIONS = ("head", "layer", "all", ROLLOUT)  # self-attention has no alignment heads
CUSTOM = "custom"  # any layers and heads, combined by mean or max: the command line's --layer 0,2 --head max
FIGURES = ("heatmap", "alignment", "grid", "lines")
# weights: the attention weights α; value-norm: α_ij·‖f_h(x_j)‖, rows scaled to sum 1 (`analysis.value_weighted`)
WEIGHTINGS = ("weights", "value-norm")
STACKS = ("encoder", "decoder")  # which self-attention of an encoder-decoder model the Self-attention page shows
LONG_WINDOW = 128  # tokens of a long map shown exactly at once (rows and columns of one block)
LONG_BINS = 256  # bins per side of a long map's pooled overview
LINES_WINDOW = 40  # tokens of a long map's head-lines view at once: one readable row each
ALIGNMENT_WORD_KEYS = tuple(selection_words.STRINGS["en"])  # the phrases that name an alignment selection
Pairs = Sequence[tuple[int, int]]  # (layer, head) pairs, such as a model's trained alignment heads
Names = Sequence[str]  # figure names, from FIGURES
Size = tuple[int, int]  # (width, height) px
FIRST = FIGURES[:1]  # the figure drawn when none is named: the heatmap
COLOR_SCALES = analysis.COLOR_SCALES  # how weights become colours across heads; the legend says which


@dataclass(frozen=True)
class ViewOptions:
    """How a view shows a map. The defaults are the app's; the app's pages set what their widgets hold, the command
    line what its arguments say (and the fields below the line, which only it has)."""

    kind: str | None = None  # which map; None: `default_kind` (cross when there is one, else self, else encoder)
    aggregation: str | None = None  # AGGREGATIONS or CUSTOM; None: alignment for cross-attention, else head
    layer: int = 0  # the layer of the "head" and "layer" aggregations (kept inside the map: links outlive models)
    head: int = 0  # the head of the "head" aggregation
    words: bool = True  # merge subword pieces into words
    hide_special: bool = True  # hide special tokens (</s>, <pad>, [CLS] …)
    threshold: float = 0.1  # weakest link drawn in the alignment and head-line figures
    step: int = 0  # replay: the map as it stood after this many rows were written; 0 = all
    lang: str = "en"  # titles and labels: "en" or "zh"
    weighting: str = "weights"  # WEIGHTINGS: the weights, or the weights scaled by each key's value norm
    # measure_view.MEASURES: what the result's maps hold and the figures name ("value-norm" is the weighting of that
    # name); None: what the result holds (`measure_view.held_measure`), resolved by `show`
    measure: str | None = None
    rollout_layers: tuple[int, int] | None = None  # ROLLOUT: first and last layer rolled through (None = all)
    residual: bool = True  # ROLLOUT: the skip connection's 0.5·I term of Abnar & Zuidema (see `rollout_map`)
    color_scale: str = "unit"  # COLOR_SCALES: the same colours mean the same weight on every head unless "head"
    lines_query: int | None = None  # head lines: only this query row's lines (an index of the map as drawn)
    # A pair typed as space-separated words: each side's word spans in the text the model read (source, target); the
    # word view then merges pieces into these words, the ones gold links index. None: the word merge's words.
    given_words: tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]] | None = None
    # Only the command line sets these; the app's pages leave them as they are.
    layers: tuple[int, ...] | None = None  # the grid draws these layers (None = all); CUSTOM combines them
    heads: tuple[int, ...] | None = None  # the same for heads
    head_reduce: str = "mean"  # CUSTOM: how the chosen heads combine, "mean" or "max"
    layer_reduce: str = "mean"  # CUSTOM: how the chosen layers combine
    hide_first: bool = False  # hide the first token too (the usual attention sink)
    renormalize: bool = False  # rows renormalised after hiding tokens
    top_k: int | None = 3  # alignment: links drawn per query token (None = all)
    log_scale: bool = False  # heatmap: logarithmic colours


Indices = int | list[int] | None  # layers or heads as `analysis.aggregate` takes them: one, a list, or None for all


@dataclass(frozen=True)
class HeadSelection:
    """Which heads a view shows, as one `aggregation` (AGGREGATIONS, CUSTOM or ROLLOUT) chose them: the map to draw,
    its `layers` and `heads`, every (layer, head) that contributes, how they combine, and the figure words naming
    them. Each figure, the file name and the replay's sentence read their heads from this one object, so a figure's
    title and its data always agree."""

    amap: AttentionMap
    aggregation: str
    layers: Indices
    heads: Indices
    pairs: tuple[tuple[int, int], ...]  # every (layer, head) that contributes
    head_reduce: str = "mean"
    layer_reduce: str = "mean"
    labels: Mapping[str, str] | None = None  # the figure words naming an alignment selection (FigureStyle.labels)
    measure: str = "weights"  # what the map holds: weights, "value-norm" or a contribution measure (CONTRIBUTIONS)

    @property
    def reduction(self) -> dict:
        """The heads and how they combine, as `analysis.aggregate`, `figures.heatmap` and `figures.alignment` take
        them."""
        return {
            "layers": self.layers,
            "heads": self.heads,
            "head_reduce": self.head_reduce,
            "layer_reduce": self.layer_reduce,
        }

    def matrix(self) -> np.ndarray:
        """The weights the selection's heatmap draws: its heads combined, (queries, keys)."""
        return analysis.aggregate(self.amap, **self.reduction)

    def line_options(self) -> dict:
        """Keyword arguments of `figures.head_lines`: one head, a layer's heads overlaid, or one combined set (every
        head of the map, or in a custom selection every head combined by its reduction)."""
        if self.aggregation == CUSTOM:
            combine = self.head_reduce if self.heads is None else None
        else:
            combine = "mean" if self.aggregation == "all" else None
        return {"layers": self.layers, "heads": self.heads, "layer_reduce": self.layer_reduce, "combine": combine}

    def file_heads(self) -> dict:
        """The `layer`, `head` and `measure` of a figure's file name (`attnviz.export.figure_filename`): one head
        "L2H0", a layer's mean "L2Hmean", the mean of all "Hmean", the alignment heads "Halign", a rollout its layer
        range ("L0-3Hrollout"), a custom selection its listed indices and reduction ("L0+1Hmax"); the measure when
        the map holds other than weights. A contributions map has one map per layer: its file names a layer ("L2",
        "Lmean"), never a head."""
        measure = {} if self.measure == "weights" else {"measure": self.measure}
        return {**self._file_layer_head(), **measure}

    def _file_layer_head(self) -> dict:
        if self.measure in CONTRIBUTIONS:  # one map per layer: its one "head" is the layer's map, not a head
            if self.aggregation in ("head", "layer"):
                return {"layer": self.pairs[0][0]}
            return {"layer": "mean" if self.aggregation == "all" else (self.layers or self.layer_reduce)}
        if self.aggregation == "head":  # named by the model's numbers: the map may hold only some heads
            layer, head = self.pairs[0]
            return {"layer": self.amap.layer_number(layer), "head": self.amap.head_number(head)}
        if self.aggregation == "layer":
            return {"layer": self.amap.layer_number(self.pairs[0][0]), "head": "mean"}
        if self.aggregation == "all":
            return {"head": "mean"}
        if self.aggregation == "alignment":
            return {"head": "align"}
        if self.aggregation == ROLLOUT:
            first, last = re.findall(r"\d+", self.amap.layer_names[-1])[-2:]  # "rollout L0–L3"
            return {"layer": f"{first}-{last}", "head": ROLLOUT}
        return {"layer": self.layers, "head": self.heads if self.heads is not None else self.head_reduce}


@dataclass(frozen=True)
class Shown:
    """What one set of options shows of a result."""

    amap: AttentionMap  # the map as drawn (prepared, replayed): what a page offers as the figures' data
    selection: HeadSelection
    figures: dict[str, go.Figure] = field(default_factory=dict)  # by name (FIGURES)


def weighting_of(options: ViewOptions) -> str:
    """The weighting (`WEIGHTINGS`) the options draw: the measure "value-norm" is the weighting of that name."""
    return "value-norm" if options.measure == "value-norm" else options.weighting


def held_by(options: ViewOptions) -> str:
    """What a map drawn with `options` holds: a contribution measure, else the weights or their value-norm weighting
    (`HeadSelection.measure`)."""
    return options.measure if options.measure in CONTRIBUTIONS else weighting_of(options)
