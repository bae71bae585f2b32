"""A's and B's alignment diagrams side by side: the heads a Compare view shows, each side drawn from its own capture
as `selection.show` draws it with the same options, both at one width and height (the larger of the sizes each
asks for alone, `selection.alignment_size`), so that their token lines stand at the same heights and their labels
are planned for the same room. One file holds both with `figures.beside` (`attnviz compare --figure sides`).

For cross-attention each is the translation alignment (Bahdanau et al., 2015: a target token's weights over the
source); for self-attention the same diagram reads queries against keys of one sentence. B draws the head of B its
comparison set beside A's (`Comparison.heads_b`: the same number, or the head paired by minimum-cost assignment
when the models differ), in the layer of B set beside A's (`Comparison.layers_b`: the same number, or the layer at
the same relative depth when the models have different numbers of layers), so each diagram shows what the diff
compared.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from attnviz.compare.comparison import Comparison, twin_kind
from attnviz.compare.heads import UNPAIRED
from attnviz.types import AttentionCapture
from attnviz.view import selection, viewing

FIGURE = "alignment"  # `viewing.FIGURES`: the diagram drawn on each side


@dataclass(frozen=True)
class SideBySide:
    """A's and B's diagrams as drawn, the options each was drawn with, and the (width, height) px they share."""

    a: viewing.Shown
    b: viewing.Shown
    options_a: viewing.ViewOptions
    options_b: viewing.ViewOptions
    size: viewing.Size


def scope_aggregation(layer: int | None, head: int | None) -> str:
    """The `ViewOptions.aggregation` of a Compare view's heads (`Comparison.diff_view`'s layer and head): every
    head, one layer's heads, or one head."""
    return "all" if layer is None else "layer" if head is None else "head"


def side_options(
    compared: Comparison,
    b: AttentionCapture,
    options: viewing.ViewOptions,
    layer: int | None,
    head: int | None,
) -> tuple[viewing.ViewOptions, viewing.ViewOptions]:
    """(A's options, B's options): `options` (words, hiding, threshold, weighting, language) showing the heads the
    view picks (`layer`, `head`: positions in A's map, as `Comparison.diff_view` takes them) of A's map, and of B's
    twin map (`twin_kind`) its head beside it, in B's layer set beside A's (`Comparison.layers_b`); a head of A left
    without one in B shows B's layer instead."""
    aggregation = scope_aggregation(layer, head)
    kind_b = twin_kind(compared.kind, b.kinds)
    amap_b = b[kind_b]
    layer = layer or 0
    options_a = replace(options, kind=compared.kind, aggregation=aggregation, layer=layer, head=head or 0)
    layer_b = [amap_b.layer_number(i) for i in range(amap_b.num_layers)].index(int(compared.layers_b[layer]))
    options_b = replace(options_a, kind=kind_b, layer=layer_b)
    if head is not None:
        number = int(compared.heads_b[layer, head])  # B's head number, or UNPAIRED
        if number == UNPAIRED:
            options_b = replace(options_b, aggregation="layer", head=0)
        else:
            options_b = replace(options_b, head=[amap_b.head_number(h) for h in range(amap_b.num_heads)].index(number))
    return options_a, options_b


def side_by_side(
    a: AttentionCapture,
    b: AttentionCapture,
    options_a: viewing.ViewOptions,
    options_b: viewing.ViewOptions,
    alignment_heads_a: viewing.Pairs = (),
    alignment_heads_b: viewing.Pairs = (),
) -> SideBySide:
    """A's and B's diagrams (`side_options`), both at the larger of the widths and the larger of the heights each
    asks for alone (`selection.alignment_size`), so that they line up beside each other. Each side's map is
    prepared once, and each diagram drawn once (a page redraws them on every view change)."""
    sides = [
        (selection.prepare(capture, options), options, heads)
        for capture, options, heads in (
            (a, selection.with_measure(a, options_a), alignment_heads_a),
            (b, selection.with_measure(b, options_b), alignment_heads_b),
        )
    ]
    own = [selection.alignment_size(*side) for side in sides]
    size = (max(width for width, _ in own), max(height for _, height in own))
    shown_a, shown_b = (selection.show_map(*side, (FIGURE,), size=size) for side in sides)
    return SideBySide(shown_a, shown_b, options_a, options_b, size)
