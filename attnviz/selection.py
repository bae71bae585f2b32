"""What a figure of a capture shows: the one way from (result, options) to a figure, for the app and the CLI alike.

- `ViewOptions`: how a view shows a map (which map, which heads, words or pieces, special tokens, threshold, replay
  step, language); its defaults are the app's.
- `show(result, options, alignment_heads, names)` -> `Shown`: the map as drawn, the heads chosen and the figures
  (`attnviz.figures`). It is `show_map(prepare(result, options), ...)`; a page that needs the prepared map first
  (the replay slider counts its rows) calls the two halves itself.
- `prepare_map` (decoder rows relabelled, special tokens hidden, pieces merged into words), `replay` (the rows
  written so far; `step_scores`/`replayed_scores`: how sure the model was of each token it wrote), `head_selection` (which layers and heads a view means, with `alignment_pairs`; `file_heads` names
  them in a file name, as `attnviz.export.figure_filename` takes them).
- `rollout_map` / `rollout_selection`: the ROLLOUT view (self-attention only; cross-attention refused with the
  reason), through `ViewOptions.rollout_layers` with or without the residual term.
- Full or on-demand results (`attnviz.types.AttentionResult`, answered alike by both): `whole_capture`;
  a long map's exact block: `token_window`.

Functions take what they need and return new values: the app caches on their inputs, and the same options give the
same figure wherever they are set.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np

from attnviz import analysis, i18n
from attnviz.errors import InputError
from attnviz.i18n import selection as selection_words
from attnviz.tokens import shown as shown_text
from attnviz.types import MAP_KINDS, AttentionCapture, AttentionMap, AttentionResult, Token

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
    rollout_layers: tuple[int, int] | None = None  # ROLLOUT: first and last layer rolled through (None = all)
    residual: bool = True  # ROLLOUT: the skip connection's 0.5·I term of Abnar & Zuidema (see `rollout_map`)
    color_scale: str = "unit"  # COLOR_SCALES: the same colours mean the same weight on every head unless "head"
    lines_query: int | None = None  # head lines: only this query row's lines (an index of the map as drawn)
    # Only the command line sets these; the app's pages leave them as they are.
    layers: tuple[int, ...] | None = None  # the grid draws these layers (None = all); CUSTOM combines them
    heads: tuple[int, ...] | None = None  # the same for heads
    head_reduce: str = "mean"  # CUSTOM: how the chosen heads combine, "mean" or "max"
    layer_reduce: str = "mean"  # CUSTOM: how the chosen layers combine
    hide_first: bool = False  # hide the first token too (the usual attention sink)
    renormalize: bool = False  # rows renormalised after hiding tokens
    top_k: int | None = 3  # alignment: links drawn per query token (None = all)
    log_scale: bool = False  # heatmap: logarithmic colours


@dataclass(frozen=True)
class HeadSelection:
    """Which heads a view shows: the map to draw and the keyword arguments `attnviz.figures` take for it."""

    amap: AttentionMap
    figure_kwargs: dict  # layers, heads
    pairs: tuple[tuple[int, int], ...]  # every (layer, head) that contributes
    head_reduce: str = "mean"
    layer_reduce: str = "mean"
    labels: Mapping[str, str] | None = None  # the figure words naming an alignment selection (FigureStyle.labels)


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
) -> AttentionMap:
    """The map a view draws: weighted by value norm when asked (`WEIGHTINGS`, per head and key before anything is
    hidden or merged), special tokens (and the first token) hidden, then subword pieces merged into words.

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
        amap = analysis.merge_words(amap, query_text=query_text, key_text=key_text)
    return amap


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
    rollout multiplies the whole token-level maps, and only then are tokens hidden or merged)."""
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
        weighting=options.weighting,
    )


def step_count(amap: AttentionMap) -> int:
    """How many steps the replay slider has: one per query row shown (per target token, or word in the word view)."""
    return len(amap.query_tokens)


def check_step(amap: AttentionMap, step: int) -> None:
    """A replay step `amap` has: 0 (all), or 1..`step_count` rows of a map a decoder wrote (cross-attention or a
    decoder's self-attention). An encoder reads its text at once, so "after N rows" would only crop it."""
    if not step:
        return
    if not 1 <= step <= step_count(amap):
        raise InputError("step_past_end", step=step, steps=step_count(amap))
    if amap.kind not in ("cross", "decoder") and not amap.causal:
        raise InputError("step_not_replayed", kind=amap.kind)


def replay(amap: AttentionMap, step: int) -> AttentionMap:
    """The map as it stood after `step` target rows were written (0 = all): generation replayed row by row.

    Row i of a cross map is what the model looked at while writing target token i, whether it generated the target
    or read a given one, so the replay works for both.
    """
    if not step or step >= step_count(amap):
        return amap
    keys = (0, step) if amap.causal else None  # a causal map keeps its triangle
    return analysis.crop(amap, queries=(0, step), keys=keys)


@dataclass(frozen=True)
class StepScore:
    """How sure the model was of one token it wrote: what a replay shows beside where that token looked."""

    step: int  # 1-based, in generation order
    token: Token  # the token written
    probability: float  # what the model gave it at that step
    alternatives: tuple[tuple[str, float], ...]  # the step's most probable tokens (text, probability), best first
    unsure: bool  # below caveats.UNSURE_BELOW: a guess
    ranked_first: bool = True  # the step's most likely token (beam search may write another: it ranks whole texts)


def step_scores(result: AttentionResult) -> list[StepScore]:
    """The score of every generated step that has one (none for a given pair, or a file from before step scores)."""
    from attnviz.caveats import UNSURE_BELOW

    return [
        StepScore(
            index,
            step.token,
            step.probability,
            step.alternatives,
            step.probability < UNSURE_BELOW,
            not step.alternatives or step.probability >= step.alternatives[0][1],
        )
        for index, step in enumerate(getattr(result, "steps", None) or [], start=1)
        if step.probability is not None
    ]


def replayed_scores(scores: Sequence[StepScore], amap: AttentionMap, step: int) -> list[StepScore]:
    """The scores of the steps that wrote the newest row of `replay(amap, step)` (its token, or each piece of its
    word in the word view): matched by the characters they cover, specials (</s>) by name."""
    if not scores or not amap.query_tokens:
        return []
    row = amap.query_tokens[(step or step_count(amap)) - 1]
    if row.special or row.start < 0:
        return [score for score in scores if score.token.special and score.token.text == row.text]
    return [
        score
        for score in scores
        if not score.token.special and score.token.start < row.end and row.start < score.token.end
    ]


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
    return HeadSelection(amap, {"layers": last, "heads": 0}, ((last, 0),), labels=labels)


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
        return HeadSelection(amap, {"layers": layer, "heads": head}, ((layer, head),))
    if view == "layer":
        return HeadSelection(amap, {"layers": layer, "heads": None}, tuple((layer, h) for h in range(amap.num_heads)))
    if view == "all":
        every = tuple((lay, h) for lay in range(amap.num_layers) for h in range(amap.num_heads))
        return HeadSelection(amap, {"layers": None, "heads": None}, every)
    if view != "alignment":
        raise InputError("view_unknown", view=view, views=", ".join(AGGREGATIONS))
    words = alignment_words() if words is None else words
    pairs = tuple(alignment_pairs(alignment_heads, amap.num_layers, amap.num_heads))
    chosen = [p[0] for p in pairs], [p[1] for p in pairs]
    stacked = amap.weights[chosen][None]  # (1, pairs, queries, keys)
    norms = None if amap.value_norms is None else amap.value_norms[chosen][None]  # (1, pairs, keys)
    listed = describe_pairs(pairs, amap.num_heads, words)
    sub = replace(amap, weights=stacked, layer_names=[f"{words['alignment_view']}: {listed}"], value_norms=norms)
    labels = {
        "layer_one": words["alignment_view"],
        "heads_all": words["pairs_mean"].format(pairs=listed),  # several pairs: their mean
        "head_one": listed,  # a single pair
    }
    return HeadSelection(sub, {"layers": 0, "heads": None}, pairs, labels=labels)


def custom_selection(
    amap: AttentionMap,
    layers: Sequence[int] | None,
    heads: Sequence[int] | None,
    head_reduce: str = "mean",
    layer_reduce: str = "mean",
) -> HeadSelection:
    """Any layers and heads (None = all), combined by mean or max; an index the map lacks is an InputError."""
    layer_idx, head_idx = analysis.select_indices(amap, _listed(layers), _listed(heads))
    kwargs = {"layers": _listed(layers), "heads": _listed(heads)}
    pairs = tuple((lay, h) for lay in layer_idx for h in head_idx)
    return HeadSelection(amap, kwargs, pairs, head_reduce=head_reduce, layer_reduce=layer_reduce)


def _listed(indices: Sequence[int] | None) -> list[int] | None:
    return None if indices is None else list(indices)


def default_aggregation(kind: str) -> str:
    """What a map opens on: the alignment heads of cross-attention, the first head of any other."""
    return "alignment" if kind == "cross" else "head"


def aggregation_of(options: ViewOptions, kind: str) -> str:
    """The aggregation `options` mean for a map of `kind`: theirs, else the one that map opens on."""
    return options.aggregation or default_aggregation(kind)


def choose_heads(amap: AttentionMap, options: ViewOptions, alignment_heads: Pairs = ()) -> HeadSelection:
    """The head selection `options` mean for `amap`."""
    aggregation = aggregation_of(options, amap.kind)
    if aggregation == ROLLOUT:
        return rollout_selection(amap, options.lang)
    if aggregation == CUSTOM:
        return custom_selection(amap, options.layers, options.heads, options.head_reduce, options.layer_reduce)
    if aggregation == "alignment" and amap.kind != "cross":
        raise InputError("alignment_needs_cross_attention", kind=amap.kind)
    words = alignment_words(options.lang)
    return head_selection(amap, aggregation, options.layer, options.head, alignment_heads, words)


def head_lines_options(selection: HeadSelection, view: str) -> dict:
    """Keyword arguments of `figures.head_lines` for a view: one head, a layer's heads overlaid, or one combined set
    (every head of the map, or in a custom selection every head combined by its reduction)."""
    if view == CUSTOM:
        combine = selection.head_reduce if selection.figure_kwargs["heads"] is None else None
    else:
        combine = "mean" if view == "all" else None
    return {**selection.figure_kwargs, "layer_reduce": selection.layer_reduce, "combine": combine}


def newest_focus(
    selection: HeadSelection, top: int = 3, floor: float = 0.01
) -> tuple[Token, list[tuple[Token, float]]]:
    """The last query token of the selection's map (the newest one in a replay) and the keys it looked at most:
    at most `top`, strongest first, those below `floor` left out (but always the strongest one)."""
    matrix = analysis.aggregate(
        selection.amap,
        selection.figure_kwargs.get("layers"),
        selection.figure_kwargs.get("heads"),
        selection.head_reduce,
        selection.layer_reduce,
    )  # (queries, keys)
    row = matrix[-1]
    order = [int(k) for k in np.argsort(-row, kind="stable")[:top]]
    kept = [k for k in order if row[k] >= floor] or order[:1]
    return selection.amap.query_tokens[-1], [(selection.amap.key_tokens[k], float(row[k])) for k in kept]


@dataclass(frozen=True)
class HiddenFocus:
    """Where the newest token's attention went among the tokens a view hides (special tokens, the first token):
    their total weight, and each one that holds some, strongest first."""

    weight: float
    tokens: list[tuple[Token, float]]


def hidden_focus(
    result: AttentionCapture,
    options: ViewOptions,
    chosen: HeadSelection,
    alignment_heads: Pairs = (),
    floor: float = 0.01,
) -> HiddenFocus:
    """The weight of `chosen`'s newest query row (`newest_focus`) that went to tokens the view hides: the same row
    and heads in the map drawn without hiding. Nothing hidden, or a row the unhidden map lacks: weight 0."""
    shown = chosen.amap
    whole = prepare_map(result, options.kind or default_kind(result), words=options.words)
    newest = shown.query_tokens[-1]
    rows = [i for i, token in enumerate(whole.query_tokens) if token == newest]
    kept = set(shown.key_tokens)
    hidden = [i for i, token in enumerate(whole.key_tokens) if token not in kept]
    if not rows or not hidden:
        return HiddenFocus(0.0, [])
    unhidden = choose_heads(whole, replace(options, step=0), alignment_heads)
    matrix = analysis.aggregate(
        unhidden.amap,
        unhidden.figure_kwargs.get("layers"),
        unhidden.figure_kwargs.get("heads"),
        unhidden.head_reduce,
        unhidden.layer_reduce,
    )  # (queries, keys)
    row = matrix[rows[-1]]
    holding = sorted(((whole.key_tokens[i], float(row[i])) for i in hidden if row[i] >= floor), key=lambda p: -p[1])
    return HiddenFocus(float(row[hidden].sum()), holding)


def focus_sentence(
    chosen: HeadSelection, step: int, steps: int, lang: str = "en", hidden: HiddenFocus | None = None
) -> str:
    """The replay's sentence about the newest token: "Step 2 of 3: **morning** looked at 早上 (0.62)." When half
    its attention or more went to hidden tokens (`hidden`, from `hidden_focus`), it says where, and names only the
    shown tokens that hold some weight: never "looked at 学习 (0.00)" when the weight sits on </s>."""
    token, looked = newest_focus(chosen)
    values = {"step": step, "steps": steps, "token": said_token(token)}
    if hidden is not None and hidden.weight >= 0.5 and hidden.tokens:
        looked = [(key, weight) for key, weight in looked if weight >= 0.01]
        names = i18n.t("truth_list_separator", lang).join(said_token(key) for key, _ in hidden.tokens[:2])
        values |= {"weight": f"{hidden.weight:.2f}", "hidden": names, "keys": _weighted(looked, lang)}
        return i18n.t("find_focus_hidden_also" if looked else "find_focus_hidden", lang, **values)
    return i18n.t("step_focus", lang, **values, keys=_weighted(looked, lang))


def _weighted(looked: Sequence[tuple[Token, float]], lang: str) -> str:
    return i18n.t("truth_list_separator", lang).join(
        i18n.t("weighted", lang, token=said_token(key), weight=f"{weight:.2f}") for key, weight in looked
    )


def said_token(token: Token) -> str:
    """A token as a sentence names it: as plain text shows it, a space drawn ␣ as the figures draw it."""
    text = shown_text(token)
    return text if text.strip() else "␣"


# ----------------------------------------------------------------------------------------------------------------------
# From options to figures


def show(result: AttentionCapture, options: ViewOptions, alignment_heads: Pairs = (), names: Names = FIRST) -> Shown:
    """The figures `names` (FIGURES) of `result` as `options` show them; `alignment_heads`: the model's trained
    alignment heads (`ModelHandle.alignment_heads`), for the alignment aggregation of cross-attention."""
    return show_map(prepare(result, options), options, alignment_heads, names)


def show_map(written: AttentionMap, options: ViewOptions, alignment_heads: Pairs = (), names: Names = FIRST) -> Shown:
    """`show` from a prepared map (`prepare`): replayed to `options.step`, its heads chosen, its figures drawn."""
    unknown = [name for name in names if name not in FIGURES]
    if unknown:
        raise InputError("figure_unknown", figure=unknown[0], figures=", ".join(FIGURES))
    check_step(written, options.step)
    amap = replay(written, options.step)
    chosen = choose_heads(amap, options, alignment_heads)
    steps = step_count(written)
    replayed = (i18n.t("replay_note", options.lang, step=options.step, steps=steps),) if amap is not written else ()
    return Shown(amap, chosen, _figures(amap, chosen, options, names, replayed))


HIDDEN_SAID_FROM = 0.05  # the share of a row's weight on hidden tokens from which a figure's title says it


def hidden_notes(chosen: HeadSelection, options: ViewOptions) -> tuple[str, ...]:
    """What a figure's title says of the tokens the view hid: rows renormalised after hiding them, or how much of
    each row's weight (on average) they held, when that is at least `HIDDEN_SAID_FROM` (rows then sum to less than
    1: a map that looks faint may hold most of its weight on [CLS])."""
    if not (options.hide_special or options.hide_first):
        return ()
    if options.renormalize:
        return (i18n.t("hidden_renormalized", options.lang),)
    matrix = analysis.aggregate(
        chosen.amap,
        chosen.figure_kwargs.get("layers"),
        chosen.figure_kwargs.get("heads"),
        chosen.head_reduce,
        chosen.layer_reduce,
    )  # (queries, keys)
    share = 1.0 - float(np.nanmean(np.nansum(matrix, axis=-1))) if matrix.size else 0.0
    if share < HIDDEN_SAID_FROM:
        return ()
    return (i18n.t("hidden_share", options.lang, share=f"{share:.0%}"),)


def _figures(
    amap: AttentionMap, chosen: HeadSelection, options: ViewOptions, names: Names, notes: tuple[str, ...] = ()
) -> dict[str, go.Figure]:
    """The figures `names` of a chosen selection, `notes` said under their titles (the replay step). The alignment
    takes the heatmap's height, so that the two stand side by side with their buttons in line; the grid draws
    every head of the map (or the ones the options list)."""
    from attnviz import figures

    selected = {**chosen.figure_kwargs, "head_reduce": chosen.head_reduce, "layer_reduce": chosen.layer_reduce}
    weighting = weighting_labels(options.weighting, options.lang)
    said = (*notes, *hidden_notes(chosen, options))
    style = figures.FigureStyle(lang=options.lang, labels={**(chosen.labels or {}), **weighting}, notes=said)
    drawn: dict[str, go.Figure] = {}
    if "heatmap" in names or "alignment" in names:
        bar = options.weighting == "value-norm"  # the norms that weighted the map, beside its keys
        drawn["heatmap"] = figures.heatmap(
            chosen.amap,
            **selected,
            log_scale=options.log_scale,
            value_bar=bar,
            color_scale=options.color_scale,
            style=style,
        )
    if "alignment" in names:
        beside = replace(style, height=drawn["heatmap"].layout.height)
        drawn["alignment"] = figures.alignment(
            chosen.amap, **selected, threshold=options.threshold, top_k=options.top_k, style=beside
        )
    if "lines" in names:
        lines = head_lines_options(chosen, aggregation_of(options, amap.kind))
        threshold = max(options.threshold, 0.01)  # a line needs some weight; a link may ask for every one
        query = (
            options.lines_query if options.lines_query is not None and options.lines_query < step_count(amap) else None
        )
        drawn["lines"] = figures.head_lines(chosen.amap, **lines, query=query, threshold=threshold, style=style)
    if "grid" in names:
        layers, heads = _listed(options.layers), _listed(options.heads)
        drawn["grid"] = figures.grid(
            amap,
            layers=layers,
            heads=heads,
            color_scale=options.color_scale,
            clickable=True,  # on screen a click on a head opens it
            style=figures.FigureStyle(lang=options.lang, labels=weighting or None, notes=notes),
        )
    return {name: drawn[name] for name in names}


# ----------------------------------------------------------------------------------------------------------------------
# A figure as a file shows it


def file_heads(chosen: HeadSelection, aggregation: str) -> dict:
    """The `layer` and `head` of a figure's file name (`attnviz.export.figure_filename`) for the heads it shows under
    `aggregation` (`aggregation_of`): one head "L2H0", a layer's mean "L2Hmean", the mean of all "Hmean", the
    alignment heads "Halign", a rollout its layer range ("L0-3Hrollout"), a custom selection its listed indices and
    reduction ("L0+1Hmax")."""
    if aggregation == "head":
        layer, head = chosen.pairs[0]
        return {"layer": layer, "head": head}
    if aggregation == "layer":
        return {"layer": chosen.pairs[0][0], "head": "mean"}
    if aggregation == "all":
        return {"head": "mean"}
    if aggregation == "alignment":
        return {"head": "align"}
    if aggregation == ROLLOUT:
        first, last = re.findall(r"\d+", chosen.amap.layer_names[-1])[-2:]  # "rollout L0–L3"
        return {"layer": f"{first}-{last}", "head": ROLLOUT}
    heads = chosen.figure_kwargs.get("heads")
    return {"layer": chosen.figure_kwargs.get("layers"), "head": heads if heads is not None else chosen.head_reduce}


# ----------------------------------------------------------------------------------------------------------------------
# Finding a head: which heads send one token to another


@dataclass(frozen=True)
class TokenChoice:
    """A token a person can pick, as a view shows it (a word, or one piece): its `label` ("it #9", unique in the
    map), its text, its `index` among the tokens the view draws, and the map's pieces it covers, [start, stop)."""

    label: str
    text: str
    index: int
    start: int
    stop: int


@dataclass(frozen=True)
class HeadMatch:
    """One head's weight from a query token to a key token: the mean over the query's pieces of the weight on the
    key's pieces (what the word view of `prepare_map` shows in that cell)."""

    layer: int
    head: int
    weight: float


def _square_tokens(result: AttentionResult, kind: str) -> tuple[list[Token], list[Token]]:
    """(query tokens, key tokens) as `prepare_map` names them: decoder rows by the token at their position."""
    queries, keys = result.tokens(kind)
    if kind == "decoder" and len(queries) == len(keys):
        queries = keys
    return list(queries), list(keys)


def token_choices(
    result: AttentionResult, kind: str, side: str = "query", words: bool = True, hide_special: bool = True
) -> list[TokenChoice]:
    """The tokens of one side ("query" or "key") of map `kind` a person can pick: words (or pieces) in order,
    special tokens left out when `hide_special` (unless the side has nothing else)."""
    if side not in ("query", "key"):
        raise InputError("find_side_unknown", side=side)
    queries, keys = _square_tokens(result, kind)
    tokens = queries if side == "query" else keys
    query_text, key_text = map_texts(result, kind)
    text = query_text if side == "query" else key_text
    if words:
        units = analysis.word_tokens(tokens, text)
    else:
        units = [((i, i + 1), token) for i, token in enumerate(tokens)]
    if hide_special and not all(token.special for _, token in units):
        units = [unit for unit in units if not unit[1].special]
    return [
        TokenChoice(f"{token.text} #{number}", token.text, number, start, stop)
        for number, ((start, stop), token) in enumerate(units)
    ]


def find_choice(choices: Sequence[TokenChoice], wanted: str, occurrence: int = 1) -> TokenChoice:
    """The choice `wanted` names: its label ("it #10"), or its text (case and surrounding spaces ignored), the
    `occurrence`-th one when the text comes more than once; an InputError listing the choices otherwise."""
    for choice in choices:
        if choice.label == wanted:
            return choice
    matches = [c for c in choices if c.text.strip().casefold() == wanted.strip().casefold()]
    if not 1 <= occurrence <= len(matches):
        listed = ", ".join(c.label for c in choices)
        raise InputError("find_token_missing", token=wanted, occurrence=occurrence, tokens=listed)
    return matches[occurrence - 1]


def rank_heads(result: AttentionResult, kind: str, query: TokenChoice, key: TokenChoice) -> list[HeadMatch]:
    """Every layer × head of map `kind`, ranked by the weight from `query` to `key` (strongest first; ties in layer
    and head order). Works alike on full and on-demand results: each head gives only the query's rows."""
    layers, heads, num_queries, num_keys = result.shape(kind)
    if not (0 <= query.start < query.stop <= num_queries and 0 <= key.start < key.stop <= num_keys):
        raise InputError("find_span_outside", queries=num_queries, keys=num_keys)
    matches = []
    for layer in range(layers):
        for head in range(heads):
            rows = result.head(kind, layer, head, rows=(query.start, query.stop))  # (query pieces, keys)
            weight = float(rows[:, key.start : key.stop].astype(np.float64).sum(axis=1).mean())
            matches.append(HeadMatch(layer, head, weight))
    return sorted(matches, key=lambda match: -match.weight)


def pair_weight(chosen: HeadSelection, query: TokenChoice, key: TokenChoice) -> float | None:
    """The weight the figures of `chosen` draw from `query` to `key` (choices from `token_choices` with the view's
    words and hiding: their `index` is the drawn row and column), or None when the drawn map lacks either."""
    amap = chosen.amap
    row, col = query.index, key.index
    if not (row < len(amap.query_tokens) and amap.query_tokens[row].text == query.text):
        return None
    if not (col < len(amap.key_tokens) and amap.key_tokens[col].text == key.text):
        return None
    matrix = analysis.aggregate(
        amap,
        chosen.figure_kwargs.get("layers"),
        chosen.figure_kwargs.get("heads"),
        chosen.head_reduce,
        chosen.layer_reduce,
    )  # (queries, keys)
    return float(matrix[row, col])
