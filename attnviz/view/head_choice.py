"""Which heads a view shows: the aggregations a map offers and the one options mean (`aggregation_of`), the model's
alignment heads (`alignment_pairs`), one head, a layer, all heads or a custom set (`head_selection`,
`custom_selection`) and the attention rollout through a range of layers (`rollout_map`, `rollout_selection`; Abnar &
Zuidema 2020), all resolved by `choose_heads` to one `HeadSelection`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from attnviz import i18n
from attnviz.errors import InputError
from attnviz.maps import analysis
from attnviz.measures.names import CONTRIBUTIONS, measure_name
from attnviz.types import AttentionMap

if TYPE_CHECKING:
    pass
from attnviz.view.viewing import (
    AGGREGATIONS,
    ALIGNMENT_WORD_KEYS,
    CUSTOM,
    ROLLOUT,
    SELF_AGGREGATIONS,
    HeadSelection,
    Pairs,
    ViewOptions,
    held_by,
)


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
    alignment_heads: Pairs | None = (),
    words: Mapping[str, str] | None = None,
) -> HeadSelection:
    """The map and figure options of one aggregation (see AGGREGATIONS); out-of-range layer/head are clamped.

    The alignment heads may sit in different layers, which a layers × heads selection cannot express: their rows are
    stacked into a one-layer map whose heads are those pairs, and the figure's `labels` name that selection
    ("alignment heads · mean of L2·H3, L3·H1"); `words` gives those phrases in the page's language.
    `alignment_heads` None: the model's are not known (a capture that did not record them): the stand-in heads
    (`alignment_pairs`) are drawn, and named as not the model's ("alignment heads not recorded · mean of …").
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
    named = words["alignment_view" if alignment_heads is not None else "alignment_unknown"]
    pairs = tuple(alignment_pairs(alignment_heads or (), amap.num_layers, amap.num_heads))
    chosen = [p[0] for p in pairs], [p[1] for p in pairs]
    stacked = amap.weights[chosen][None]  # (1, pairs, queries, keys)
    norms = None if amap.value_norms is None else amap.value_norms[chosen][None]  # (1, pairs, keys)
    listed = describe_pairs(pairs, amap.num_heads, words)
    sub = replace(
        amap,
        weights=stacked,
        layer_names=[f"{named}: {listed}"],
        value_norms=norms,
        layer_numbers=None,
        head_numbers=None,  # the pairs are named by the title: one head axis of chosen (layer, head) pairs
    )
    labels = {
        "layer_one": named,
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


def choose_heads(amap: AttentionMap, options: ViewOptions, alignment_heads: Pairs | None = ()) -> HeadSelection:
    """The head selection `options` mean for `amap`."""
    aggregation = aggregation_of(options, amap.kind)
    if aggregation == ROLLOUT:
        return replace(rollout_selection(amap, options.lang), measure=held_by(options))
    if aggregation == CUSTOM:
        chosen = custom_selection(amap, options.layers, options.heads, options.head_reduce, options.layer_reduce)
        return replace(chosen, measure=held_by(options))
    if aggregation == "alignment" and amap.kind != "cross":
        raise InputError("alignment_needs_cross_attention", kind=amap.kind)
    words = alignment_words(options.lang)
    chosen = head_selection(amap, aggregation, options.layer, options.head, alignment_heads, words)
    return replace(chosen, measure=held_by(options))  # what the map holds, for its files' names
