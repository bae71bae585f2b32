"""What a figure of a capture shows: the one way from (result, options) to a figure, for the app and the CLI alike.

- `ViewOptions`: how a view shows a map (which map, which heads, words or pieces, special tokens, threshold, replay
  step, language); its defaults are the app's.
- `show(result, options, alignment_heads, names)` -> `Shown`: the map as drawn, the heads chosen and the figures
  (`attnviz.figures`). It is `show_map(prepare(result, options), ...)`; a page that needs the prepared map first
  (the replay slider counts its rows) calls the two halves itself.
- `prepare_map` (decoder rows relabelled, special tokens hidden, pieces merged into words), then the replay
  (`attnviz.maps.replay`: the rows written so far), then `choose_heads` -> `HeadSelection` (which layers and heads a view
  means, with `alignment_pairs`): each figure, the file name (`HeadSelection.file_heads`) and the sentences take
  their heads from that one object. `FIGURE_BUILDERS` draws each figure from it.
- `rollout_map` / `rollout_selection`: the ROLLOUT view (self-attention only; cross-attention refused with the
  reason), through `ViewOptions.rollout_layers` with or without the residual term.
- Full or on-demand results (`attnviz.types.AttentionResult`, answered alike by both): `whole_capture`;
  a long map's exact block: `token_window`.

Built on it: `attnviz.view.focus` (the replay's sentence about the newest token) and `attnviz.view.find_head` (which heads
send one token to another).

Functions take what they need and return new values: the app caches on their inputs, and the same options give the
same figure wherever they are set.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np

from attnviz import figures, i18n
from attnviz.errors import InputError
from attnviz.i18n import selection as selection_words
from attnviz.maps import analysis
from attnviz.maps.replay import check_step, replay, step_count
from attnviz.measures.names import CONTRIBUTIONS, check_held, check_measure, held_measure, measure_labels, measure_name
from attnviz.types import MAP_KINDS, AttentionCapture, AttentionMap, AttentionResult

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
        if self.aggregation == "head":
            layer, head = self.pairs[0]
            return {"layer": layer, "head": head}
        if self.aggregation == "layer":
            return {"layer": self.pairs[0][0], "head": "mean"}
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


# ----------------------------------------------------------------------------------------------------------------------
# Full or on-demand results


def whole_capture(result: AttentionResult, kinds: Sequence[str]) -> AttentionCapture:
    """A full capture of `kinds` (a lazy result computes them now, within the memory budget): for a page that draws
    a map whole, such as the cross-attention of a long source, whose rows are the few target tokens."""
    if result.is_complete:
        return result
    maps = {kind: result.map(kind) for kind in kinds if kind in result.kinds}
    return AttentionCapture(result.model, result.device, maps, result.source_text, result.target_text)


def long_view(tokens: int) -> bool:
    """Whether a map of `tokens` tokens a side is shown as a long text: one head, pooled whole, with an exact block
    and a window of head lines. Up to one exact block (LONG_WINDOW tokens) every figure draws each token on its own
    readable row (the head lines keep 18 px or more a row within their 2,400 px); beyond it labels run into each
    other, the head lines stop being readable and each control change redraws figures of n² cells."""
    return tokens > LONG_WINDOW


def token_window(size: int, start: int, length: int | None = None) -> tuple[int, int]:
    """(start, stop) of `length` tokens (default LONG_WINDOW) from `start`, kept inside a sequence of `size`."""
    length = max(1, min(LONG_WINDOW if length is None else length, size))
    start = min(max(start, 0), size - length)
    return start, start + length


# ----------------------------------------------------------------------------------------------------------------------
# Which map, and the map as drawn


def default_kind(result: AttentionResult) -> str:
    """The map a view opens on: the translation alignment when there is one, else the model's own attention."""
    kinds = result.kinds
    return "cross" if "cross" in kinds else "self" if "self" in kinds else "encoder"


def self_attention_kind(result: AttentionResult, stack: str) -> str:
    """The map the Self-attention page shows: "self" for one-stack models, else the chosen stack."""
    if "self" in result.kinds:
        return "self"
    if stack not in STACKS:
        raise InputError("stack_unknown", stack=stack)
    return stack


def map_texts(result: AttentionCapture, kind: str) -> tuple[str | None, str | None]:
    """(query text, key text) the tokens of a map point into, for the word view."""
    source, target = result.source_text, result.target_text
    return {
        "self": (source, source),
        "encoder": (source, source),
        "decoder": (target, target),
        "cross": (target, source),
    }[kind]


def prepare_map(
    result: AttentionCapture,
    kind: str,
    *,
    hide: bool = False,
    words: bool = False,
    hide_first: bool = False,
    renormalize: bool = False,
    weighting: str = "weights",
    given_words: tuple | None = None,
) -> AttentionMap:
    """The map a view draws: weighted by value norm when asked (`WEIGHTINGS`, per head and key before anything is
    hidden or merged), special tokens (and the first token) hidden, then subword pieces merged into words (the
    words a person gave, `ViewOptions.given_words`, when there are).

    Decoder self-attention is drawn as self-attention is: each row named by the token at its position
    (`AttentionMap.row_tokens`), where capture names decoder rows by the token each step produces, which is what
    cross-attention wants.
    """
    amap = weighted(result[kind], weighting)
    if amap.row_tokens is not amap.query_tokens:
        amap = replace(amap, query_tokens=amap.row_tokens)
    amap = _hidden(amap, special=hide, first=hide_first, renormalize=renormalize)
    if words:
        query_text, key_text = map_texts(result, kind)
        query_spans, key_spans = _given_spans(kind, given_words)
        amap = analysis.merge_words(amap, query_text, key_text, query_spans, key_spans)
    return amap


def _given_spans(kind: str, given_words: tuple | None) -> tuple:
    """(query, key) word spans a person gave for map `kind` (source words for the encoder side, target words for
    the decoder side), or (None, None)."""
    if given_words is None:
        return None, None
    source, target = given_words
    return {"cross": (target, source), "decoder": (target, target)}.get(kind, (source, source))


def weighted(amap: AttentionMap, weighting: str) -> AttentionMap:
    """The map as `weighting` (`WEIGHTINGS`) shows it: its weights, or weighted by value norm."""
    if weighting not in WEIGHTINGS:
        raise InputError("values_weighting_unknown", weighting=weighting, weightings=", ".join(WEIGHTINGS))
    return analysis.value_weighted(amap) if weighting == "value-norm" else amap


def weighting_labels(weighting: str, lang: str = "en") -> dict[str, str]:
    """The figure words (`FigureStyle.labels`) that say a figure shows value-weighted attention: its colour bar
    and hover name α·‖f(x)‖, its title names the weighting; nothing for plain weights."""
    if weighting == "weights":
        return {}
    note = i18n.t("values_title_note", lang)
    kinds = {f"kind_{kind}": f"{i18n.t(f'kind_{kind}', lang)} · {note}" for kind in MAP_KINDS}
    return {**kinds, "weight": i18n.t("values_colorbar", lang)}


def _hidden(amap: AttentionMap, special: bool, first: bool, renormalize: bool) -> AttentionMap:
    """Hide special tokens (and the first); a map with nothing but special tokens keeps them rather than emptying."""
    if all(t.special for t in amap.key_tokens) or all(t.special for t in amap.query_tokens):
        special = False
    if not (special or first):
        return amap
    return analysis.hide_tokens(amap, special=special, first=first, renormalize=renormalize)


def prepare(result: AttentionCapture, options: ViewOptions) -> AttentionMap:
    """The map `options` draw, before replay: `prepare_map` of the options' kind (rolled out first, for ROLLOUT:
    rollout multiplies the whole token-level maps, and only then are tokens hidden or merged). A result that does
    not hold the options' measure is refused (`measure_view.check_held`)."""
    options = with_measure(result, options)
    check_held(result, options.measure)
    kind = options.kind or default_kind(result)
    if aggregation_of(options, kind) == ROLLOUT:
        rolled = rollout_map(result[kind], options.rollout_layers, options.heads, options.head_reduce, options.residual)
        result = replace(result, maps={**result.maps, kind: rolled})
    return prepare_map(
        result,
        options.kind or default_kind(result),
        hide=options.hide_special,
        words=options.words,
        hide_first=options.hide_first,
        renormalize=options.renormalize,
        weighting=weighting_of(options),
        given_words=options.given_words,
    )


def with_measure(result: AttentionCapture, options: ViewOptions) -> ViewOptions:
    """The options with their measure said: the one they name, else the one `result` holds."""
    if options.measure is not None:
        check_measure(options.measure)
        return options
    held = held_measure(result)
    return replace(options, measure="value-norm" if held == "weights" and options.weighting == "value-norm" else held)


def weighting_of(options: ViewOptions) -> str:
    """The weighting (`WEIGHTINGS`) the options draw: the measure "value-norm" is the weighting of that name."""
    return "value-norm" if options.measure == "value-norm" else options.weighting


def recorded_options(options: ViewOptions) -> dict:
    """The options a file of this view records: those the view uses, so a file never says it showed a layer, a
    head or a rollout range it did not (the alignment heads' view has no layer; a rollout is no one head)."""
    kept = dataclasses.asdict(options)
    aggregation = options.aggregation
    unused = set()
    if aggregation not in ("head", "layer"):
        unused |= {"layer", "head"}
    elif aggregation == "layer":
        unused.add("head")
    if aggregation != ROLLOUT:
        unused |= {"rollout_layers", "residual"}
    if aggregation != CUSTOM:
        unused |= {"head_reduce", "layer_reduce"}
    if options.lines_query is None:
        unused.add("lines_query")
    if options.given_words is None:
        unused.add("given_words")
    if options.measure is None:
        unused.add("measure")  # said by the file's capture (its provenance names any measure)
    return {name: value for name, value in kept.items() if name not in unused}


# ----------------------------------------------------------------------------------------------------------------------
# Rollout


def rollout_range(layers: tuple[int, int] | None, num_layers: int) -> tuple[int, int]:
    """(first, last) layer of a rollout, both included: all layers for None; an InputError outside the map."""
    first, last = (0, num_layers - 1) if layers is None else (int(layers[0]), int(layers[1]))
    if 0 <= last < first < num_layers:
        raise InputError("qk_rollout_reversed", first=first, last=last)
    if not 0 <= first <= last < num_layers:
        raise InputError("qk_rollout_range", first=first, last=last, top=num_layers - 1)
    return first, last


def rollout_map(
    amap: AttentionMap,
    layers: tuple[int, int] | None = None,
    heads: Sequence[int] | None = None,
    head_reduce: str = "mean",
    residual: bool = True,
) -> AttentionMap:
    """Attention rollout (Abnar & Zuidema 2020, `analysis.rollout`) through `layers` (first, last) of a
    self-attention map: one head per layer, layer i holding the rollout from the first layer through layer i.

    Per layer the heads (`heads`, None = all) are combined by `head_reduce`; with `residual` each becomes
    0.5·A + 0.5·I (the skip connection carries half of every token through unchanged), rows renormalised; then the
    layers' matrices are multiplied. Cross-attention is refused with the reason (its keys are another token set)."""
    if amap.kind == "cross":
        raise InputError("qk_rollout_cross")
    first, last = rollout_range(layers, amap.num_layers)
    norms = None if amap.value_norms is None else amap.value_norms[first : last + 1]  # (layers', heads, keys)
    chosen = replace(
        amap, weights=amap.weights[first : last + 1], layer_names=amap.layer_names[first : last + 1], value_norms=norms
    )
    rolled = analysis.rollout(chosen, heads, head_reduce, residual)  # (layers', 1, n, n)
    names = [f"rollout L{first}–L{first + i}" for i in range(rolled.num_layers)]
    return replace(rolled, layer_names=names)


def rollout_selection(amap: AttentionMap, lang: str = "en") -> HeadSelection:
    """The rolled map's last layer (the rollout through the whole range), named as such in the figure's title."""
    last = amap.num_layers - 1
    heads = i18n.t("qk_rollout_heads", lang)  # the title's and the head lines' legend: not one head, all of them
    labels = {"layer_one": amap.layer_names[last], "head_one": heads, "head_legend": heads}
    return HeadSelection(amap, ROLLOUT, last, 0, ((last, 0),), labels=labels)


# ----------------------------------------------------------------------------------------------------------------------
# Which heads


def clamp_index(value: int, size: int) -> int:
    """An index from a link or an earlier model, kept inside 0..size-1."""
    return min(max(int(value), 0), max(size - 1, 0))


def alignment_pairs(
    alignment_heads: Sequence[tuple[int, int]], num_layers: int, num_heads: int
) -> list[tuple[int, int]]:
    """The (layer, head) pairs of the alignment view.

    The model's trained alignment heads (config `alignment_heads`) when it has them; otherwise every head of the
    second-to-last layer, where cross-attention aligns best in Transformer translation models (Garg et al., 2019).
    """
    pairs = [
        (int(layer), int(head)) for layer, head in alignment_heads if 0 <= layer < num_layers and 0 <= head < num_heads
    ]
    if pairs:
        return pairs
    layer = max(num_layers - 2, 0)
    return [(layer, head) for head in range(num_heads)]


def alignment_words(lang: str = "en") -> dict[str, str]:
    """The phrases that name an alignment selection in `lang` (templates with {layer}, {head}, {pairs})."""
    return {key: i18n.t(key, lang) for key in ALIGNMENT_WORD_KEYS}


def describe_pairs(pairs: Sequence[tuple[int, int]], num_heads: int, words: Mapping[str, str] | None = None) -> str:
    """ "L2·H3, L3·H1", or "L4 (all heads)" for a whole layer: short enough for a figure title."""
    words = alignment_words() if words is None else words
    parts = []
    for layer in dict.fromkeys(lay for lay, _ in pairs):
        heads = [h for lay, h in pairs if lay == layer]
        if len(set(heads)) == num_heads and num_heads > 1:
            parts.append(words["pair_layer"].format(layer=layer))
        else:
            parts.extend(words["pair"].format(layer=layer, head=h) for h in heads)
    return ", ".join(parts)


def head_selection(
    amap: AttentionMap,
    view: str,
    layer: int,
    head: int,
    alignment_heads: Sequence[tuple[int, int]] = (),
    words: Mapping[str, str] | None = None,
) -> HeadSelection:
    """The map and figure options of one aggregation (see AGGREGATIONS); out-of-range layer/head are clamped.

    The alignment heads may sit in different layers, which a layers × heads selection cannot express: their rows are
    stacked into a one-layer map whose heads are those pairs, and the figure's `labels` name that selection
    ("alignment heads · mean of L2·H3, L3·H1"); `words` gives those phrases in the page's language.
    """
    layer = clamp_index(layer, amap.num_layers)
    head = clamp_index(head, amap.num_heads)
    if view == "head":
        return HeadSelection(amap, view, layer, head, ((layer, head),))
    if view == "layer":
        return HeadSelection(amap, view, layer, None, tuple((layer, h) for h in range(amap.num_heads)))
    if view == "all":
        every = tuple((lay, h) for lay in range(amap.num_layers) for h in range(amap.num_heads))
        return HeadSelection(amap, view, None, None, every)
    if view != "alignment":
        raise InputError("view_unknown", view=view, views=", ".join(AGGREGATIONS))
    words = alignment_words() if words is None else words
    pairs = tuple(alignment_pairs(alignment_heads, amap.num_layers, amap.num_heads))
    chosen = [p[0] for p in pairs], [p[1] for p in pairs]
    stacked = amap.weights[chosen][None]  # (1, pairs, queries, keys)
    norms = None if amap.value_norms is None else amap.value_norms[chosen][None]  # (1, pairs, keys)
    listed = describe_pairs(pairs, amap.num_heads, words)
    sub = replace(
        amap,
        weights=stacked,
        layer_names=[f"{words['alignment_view']}: {listed}"],
        value_norms=norms,
        layer_numbers=None,
        head_numbers=None,  # the pairs are named by the title: one head axis of chosen (layer, head) pairs
    )
    labels = {
        "layer_one": words["alignment_view"],
        "heads_all": words["pairs_mean"].format(pairs=listed),  # several pairs: their mean
        "head_one": listed,  # a single pair
    }
    return HeadSelection(sub, view, 0, None, pairs, labels=labels)


def custom_selection(
    amap: AttentionMap,
    layers: Sequence[int] | None,
    heads: Sequence[int] | None,
    head_reduce: str = "mean",
    layer_reduce: str = "mean",
) -> HeadSelection:
    """Any layers and heads (None = all), combined by mean or max; an index the map lacks is an InputError."""
    layer_idx, head_idx = analysis.select_indices(amap, _listed(layers), _listed(heads))
    pairs = tuple((lay, h) for lay in layer_idx for h in head_idx)
    return HeadSelection(amap, CUSTOM, _listed(layers), _listed(heads), pairs, head_reduce, layer_reduce)


def _listed(indices: Sequence[int] | None) -> list[int] | None:
    return None if indices is None else list(indices)


def default_aggregation(kind: str) -> str:
    """What a map opens on: the alignment heads of cross-attention, the first head of any other."""
    return "alignment" if kind == "cross" else "head"


def offered_aggregations(kind: str, measure: str = "weights") -> tuple[str, ...]:
    """The aggregations a map of `kind` offers: the alignment heads for cross-attention, the rollout for any other;
    a contributions map (`measure_view.CONTRIBUTIONS`) has neither (see `aggregation_of`)."""
    offered = AGGREGATIONS if kind == "cross" else SELF_AGGREGATIONS
    if measure in CONTRIBUTIONS:
        return tuple(aggregation for aggregation in offered if aggregation not in ("alignment", ROLLOUT))
    return offered


def aggregation_of(options: ViewOptions, kind: str) -> str:
    """The aggregation `options` mean for a map of `kind`: theirs, else the one that map opens on. A contributions
    map has one map per layer: it opens on a layer, and has no alignment heads and no attention rollout."""
    if options.measure not in CONTRIBUTIONS:
        return options.aggregation or default_aggregation(kind)
    if options.aggregation == "alignment":
        raise InputError("measure_no_alignment_heads", measure=measure_name(options.measure))
    if options.aggregation == ROLLOUT:
        raise InputError("measure_no_rollout", measure=measure_name(options.measure))
    return options.aggregation or "layer"


def choose_heads(amap: AttentionMap, options: ViewOptions, alignment_heads: Pairs = ()) -> HeadSelection:
    """The head selection `options` mean for `amap`."""
    aggregation = aggregation_of(options, amap.kind)
    if aggregation == ROLLOUT:
        return replace(rollout_selection(amap, options.lang), measure=_held(options))
    if aggregation == CUSTOM:
        chosen = custom_selection(amap, options.layers, options.heads, options.head_reduce, options.layer_reduce)
        return replace(chosen, measure=_held(options))
    if aggregation == "alignment" and amap.kind != "cross":
        raise InputError("alignment_needs_cross_attention", kind=amap.kind)
    words = alignment_words(options.lang)
    chosen = head_selection(amap, aggregation, options.layer, options.head, alignment_heads, words)
    return replace(chosen, measure=_held(options))


def _held(options: ViewOptions) -> str:
    """What a map drawn with `options` holds: a contribution measure, else the weights or their value-norm weighting."""
    return options.measure if options.measure in CONTRIBUTIONS else weighting_of(options)


# ----------------------------------------------------------------------------------------------------------------------
# From options to figures


def show(
    result: AttentionCapture,
    options: ViewOptions,
    alignment_heads: Pairs = (),
    names: Names = FIRST,
    size: Size | None = None,
) -> Shown:
    """The figures `names` (FIGURES) of `result` as `options` show them; `alignment_heads`: the model's trained
    alignment heads (`ModelHandle.alignment_heads`), for the alignment aggregation of cross-attention. The figures
    name the measure the result holds (`ViewOptions.measure`). `size`: (width, height) px every figure is drawn
    at, its labels planned for it (two figures set side by side line up); None: each its own."""
    options = with_measure(result, options)
    return show_map(prepare(result, options), options, alignment_heads, names, size)


def show_map(
    written: AttentionMap,
    options: ViewOptions,
    alignment_heads: Pairs = (),
    names: Names = FIRST,
    size: Size | None = None,
) -> Shown:
    """`show` from a prepared map (`prepare`): replayed to `options.step`, its heads chosen, its figures drawn."""
    unknown = [name for name in names if name not in FIGURES]
    if unknown:
        raise InputError("figure_unknown", figure=unknown[0], figures=", ".join(FIGURES))
    check_step(written, options.step)
    amap = replay(written, options.step)
    chosen = choose_heads(amap, options, alignment_heads)
    steps = step_count(written)
    replayed = (i18n.t("replay_note", options.lang, step=options.step, steps=steps),) if amap is not written else ()
    return Shown(amap, chosen, _figures(amap, chosen, options, names, replayed, size))


def alignment_size(written: AttentionMap, options: ViewOptions, alignment_heads: Pairs = ()) -> Size:
    """The (width, height) px `show_map` draws the alignment of `written` at when given no size: as wide as its
    token labels ask (`figures.alignment_width`), as high as the figure it stands beside (`FIGURE_BUILDERS`), which
    is the one drawn to find it."""
    beside = FIGURE_BUILDERS["alignment"].beside
    shown = show_map(written, options, alignment_heads, (beside,))
    return figures.alignment_width(shown.selection.amap), int(shown.figures[beside].layout.height)


HIDDEN_SAID_FROM = 0.05  # the share of a row's weight on hidden tokens from which a figure's title says it


def hidden_notes(chosen: HeadSelection, options: ViewOptions) -> tuple[str, ...]:
    """What a figure's title says of the tokens the view hid: rows renormalised after hiding them, or how much of
    each row's weight (on average) they held, when that is at least `HIDDEN_SAID_FROM` (rows then sum to less than
    1: a map that looks faint may hold most of its weight on [CLS])."""
    if not (options.hide_special or options.hide_first):
        return ()
    if options.renormalize:
        return (i18n.t("hidden_renormalized", options.lang),)
    matrix = chosen.matrix()  # (queries, keys)
    share = 1.0 - float(np.nanmean(np.nansum(matrix, axis=-1))) if matrix.size else 0.0
    if share < HIDDEN_SAID_FROM:
        return ()
    return (i18n.t("hidden_share", options.lang, share=f"{share:.0%}"),)


def _heatmap(amap: AttentionMap, chosen: HeadSelection, options: ViewOptions, style: figures.FigureStyle) -> go.Figure:
    """The chosen heads combined, coloured as the options say; weighted by value norm, with the norms that weighted
    the map as a bar above its keys."""
    bar = weighting_of(options) == "value-norm"
    return figures.heatmap(
        chosen.amap,
        **chosen.reduction,
        log_scale=options.log_scale,
        value_bar=bar,
        color_scale=options.color_scale,
        style=style,
    )


def _alignment(
    amap: AttentionMap, chosen: HeadSelection, options: ViewOptions, style: figures.FigureStyle
) -> go.Figure:
    """The chosen heads' strongest links, as many per query as the options allow."""
    return figures.alignment(
        chosen.amap, **chosen.reduction, threshold=options.threshold, top_k=options.top_k, style=style
    )


def _lines(amap: AttentionMap, chosen: HeadSelection, options: ViewOptions, style: figures.FigureStyle) -> go.Figure:
    """The chosen heads' lines from queries to keys; only one query's lines when the options name a drawn row."""
    threshold = max(options.threshold, 0.01)  # a line needs some weight; a link may ask for every one
    asked = options.lines_query
    query = asked if asked is not None and asked < step_count(amap) else None
    return figures.head_lines(chosen.amap, **chosen.line_options(), query=query, threshold=threshold, style=style)


def _grid(amap: AttentionMap, chosen: HeadSelection, options: ViewOptions, style: figures.FigureStyle) -> go.Figure:
    """Every head of the map as drawn (or the layers and heads the options list), whichever heads are chosen; a
    rollout's layers by their names ("rollout L0–L2") and its one column as every head's rollout, not "head 0"."""
    rolled = chosen.aggregation == ROLLOUT
    if rolled:
        style = replace(style, labels={**(style.labels or {}), "head_one": chosen.labels["head_one"]})
    return figures.grid(
        amap,
        layers=_listed(options.layers),
        heads=_listed(options.heads),
        color_scale=options.color_scale,
        clickable=not rolled,  # on screen a click on a head opens it; a rollout's column is no head to open
        layer_titles="names" if rolled else "numbers",
        style=style,
    )


@dataclass(frozen=True)
class FigureBuilder:
    """How `show` draws one figure: `draw(map as drawn, chosen heads, options, style)`."""

    draw: Callable[[AttentionMap, HeadSelection, ViewOptions, figures.FigureStyle], go.Figure]
    of_selection: bool = True  # draws the chosen heads: its title names them and says what the hidden tokens held
    beside: str | None = None  # stands beside this figure at its height, their buttons in line
    # … unless the map's figure stands alone (a whole column of the page, at its own height)
    alone: Callable[[AttentionMap], bool] | None = None


FIGURE_BUILDERS: dict[str, FigureBuilder] = {
    "heatmap": FigureBuilder(_heatmap),
    "alignment": FigureBuilder(_alignment, beside="heatmap", alone=figures.alignment_stands_alone),
    "grid": FigureBuilder(_grid, of_selection=False),
    "lines": FigureBuilder(_lines),
}


def _figures(
    amap: AttentionMap,
    chosen: HeadSelection,
    options: ViewOptions,
    names: Names,
    notes: tuple[str, ...] = (),
    size: Size | None = None,
) -> dict[str, go.Figure]:
    """The figures `names` (`FIGURE_BUILDERS`) of a chosen selection, `notes` said under their titles (the replay
    step), at `size` when given; a figure drawn beside another is drawn after it, at its height."""
    weighting = {
        **weighting_labels(weighting_of(options), options.lang),
        **measure_labels(options.measure, options.lang),
    }
    said = (*notes, *hidden_notes(chosen, options))
    of_heads = figures.FigureStyle(lang=options.lang, labels={**(chosen.labels or {}), **weighting}, notes=said)
    of_map = figures.FigureStyle(lang=options.lang, labels=weighting or None, notes=notes)
    if size is not None:
        of_heads, of_map = (replace(style, width=size[0], height=size[1]) for style in (of_heads, of_map))
    drawn: dict[str, go.Figure] = {}

    def draw(name: str) -> go.Figure:
        if name not in drawn:
            builder = FIGURE_BUILDERS[name]
            style = of_heads if builder.of_selection else of_map
            alone = builder.alone is not None and builder.alone(amap)
            if builder.beside and style.height is None and not alone:  # a size given sets the height it would take
                style = replace(style, height=draw(builder.beside).layout.height)
            drawn[name] = builder.draw(amap, chosen, options, style)
        return drawn[name]

    return {name: draw(name) for name in names}
