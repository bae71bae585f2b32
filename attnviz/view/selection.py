"""What a figure of a capture shows: the one way from (result, options) to a figure, for the app and the CLI alike.

- `ViewOptions` (`attnviz.view.viewing`): how a view shows a map (which map, which heads, words or pieces, special
  tokens, threshold, replay step, language); its defaults are the app's.
- `show(result, options, alignment_heads, names)` -> `Shown`: the map as drawn, the heads chosen and the figures
  (`attnviz.figures`). It is `show_map(prepare(result, options), ...)`; a page that needs the prepared map first
  (the replay slider counts its rows) calls the two halves itself.
- `prepare_map` (decoder rows relabelled, special tokens hidden, pieces merged into words), then the replay
  (`attnviz.maps.replay`: the rows written so far), then `choose_heads` -> `HeadSelection` (which layers and heads a view
  means, with `alignment_pairs`): each figure, the file name (`HeadSelection.file_heads`) and the sentences take
  their heads from that one object. `FIGURE_BUILDERS` draws each figure from it.
- `rollout_map` / `rollout_selection`: the ROLLOUT view (self-attention only; cross-attention refused with the
  reason), through `ViewOptions.rollout_layers` with or without the residual term.
- Full or on-demand results (`attnviz.types.AttentionResult`, answered alike by both): `whole_capture`, and
  `view_capture` (only the heads a view reads, for a long text); a long map's exact block: `token_window`.

Built on it: `attnviz.view.focus` (the replay's sentence about the newest token) and `attnviz.view.find_head` (which heads
send one token to another).

Functions take what they need and return new values: the app caches on their inputs, and the same options give the
same figure wherever they are set.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from attnviz import figures, i18n
from attnviz.errors import InputError
from attnviz.maps import analysis, word_merge
from attnviz.maps.replay import check_step, replay, step_count
from attnviz.measures.names import check_held, check_measure, held_measure, measure_labels, row_sums_said
from attnviz.types import MAP_KINDS, AttentionCapture, AttentionMap, AttentionResult

if TYPE_CHECKING:
    import plotly.graph_objects as go
from attnviz.view import viewing
from attnviz.view.head_choice import _listed, aggregation_of, choose_heads, rollout_map
from attnviz.view.viewing import (
    CUSTOM,
    FIGURES,
    FIRST,
    ROLLOUT,
    STACKS,
    WEIGHTINGS,
    HeadSelection,
    Names,
    Pairs,
    Shown,
    Size,
    ViewOptions,
    weighting_of,
)

# ----------------------------------------------------------------------------------------------------------------------
# Full or on-demand results


def whole_capture(result: AttentionResult, kinds: Sequence[str]) -> AttentionCapture:
    """A full capture of `kinds` (a lazy result computes them now, within the memory budget): for a page that draws
    a map whole, such as the cross-attention of a long source, whose rows are the few target tokens."""
    if result.is_complete:
        return result
    maps = {kind: result.map(kind) for kind in kinds if kind in result.kinds}
    meta = dict(getattr(result, "meta", None) or {})  # the model's alignment heads, as the result recorded them
    return AttentionCapture(result.model, result.device, maps, result.source_text, result.target_text, meta=meta)


def view_capture(result: AttentionResult, options: ViewOptions) -> tuple[AttentionCapture, ViewOptions]:
    """What a view of `options` draws from, and the options pointing into it: `result` itself when whole. Of an
    on-demand result (`attnviz.run.capture_kind`: a long text) only the heads the view reads are computed: one head
    (the "head" aggregation, or one layer and one head listed) as a map of that head alone, named by its model
    numbers; any other view reads every head of its kind (`whole_capture`, refused beyond the memory budget)."""
    if result.is_complete:
        return result, options
    kind = options.kind or default_kind(result)
    chosen = _one_head(options, kind, result.shape(kind))
    if chosen is None:
        return whole_capture(result, (kind,)), options
    amap = result.map(kind, layers=[chosen[0]], heads=[chosen[1]])  # (1, 1, queries, keys), exact
    meta = dict(getattr(result, "meta", None) or {})
    provenance = dict(getattr(result, "provenance", None) or {})
    texts = {"source_text": result.source_text, "target_text": result.target_text}
    one = AttentionCapture(result.model, result.device, {kind: amap}, **texts, meta=meta, provenance=provenance)
    if options.aggregation == CUSTOM:
        return one, replace(options, kind=kind, layers=(0,), heads=(0,))
    return one, replace(options, kind=kind, layer=0, head=0)


def _one_head(options: ViewOptions, kind: str, shape: tuple[int, int, int, int]) -> tuple[int, int] | None:
    """(layer, head) of the model when `options` draw that one head of a `kind` map of `shape`, else None."""
    aggregation = aggregation_of(options, kind)
    if aggregation == "head":
        return min(max(options.layer, 0), shape[0] - 1), min(max(options.head, 0), shape[1] - 1)
    listed = aggregation == CUSTOM and options.layers is not None and options.heads is not None
    if listed and len(options.layers) == 1 and len(options.heads) == 1:
        return options.layers[0], options.heads[0]
    return None


def long_view(tokens: int) -> bool:
    """Whether a map of `tokens` tokens a side is shown as a long text: one head, pooled whole, with an exact block
    and a window of head lines. Up to one exact block (LONG_WINDOW tokens) every figure draws each token on its own
    readable row (the head lines keep 18 px or more a row within their 2,400 px); beyond it labels run into each
    other, the head lines stop being readable and each control change redraws figures of n² cells."""
    return tokens > viewing.LONG_WINDOW


def token_window(size: int, start: int, length: int | None = None) -> tuple[int, int]:
    """(start, stop) of `length` tokens (default LONG_WINDOW) from `start`, kept inside a sequence of `size`."""
    length = max(1, min(viewing.LONG_WINDOW if length is None else length, size))
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
        amap = word_merge.merge_words(amap, query_text, key_text, query_spans, key_spans)
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


def weighting_labels(weighting: str, lang: str = "en", rows_sum_to_one: bool = True) -> dict[str, str]:
    """The figure words (`FigureStyle.labels`) that say a figure shows value-weighted attention: its colour bar
    and hover name α·‖f(x)‖ and say what its rows sum to (`row_sums_said`), its title names the weighting; nothing
    for plain weights."""
    if weighting == "weights":
        return {}
    note = i18n.t("values_title_note", lang)
    kinds = {f"kind_{kind}": f"{i18n.t(f'kind_{kind}', lang)} · {note}" for kind in MAP_KINDS}
    return {**kinds, "weight": i18n.t("values_colorbar", lang, rows=row_sums_said(lang, rows_sum_to_one))}


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
# From options to figures


def show(
    result: AttentionCapture,
    options: ViewOptions,
    alignment_heads: Pairs | None = (),
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
    alignment_heads: Pairs | None = (),
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


# float32 rows of a full map sum to 1 within ~1e-6; a hidden token takes at least this share
ROW_SUM_TOLERANCE = 1e-3


def rows_sum_to_one(amap: AttentionMap) -> bool:
    """Whether every row of `amap` (as drawn: hidden tokens left out, unless renormalised) still sums to 1; rows
    that hold nothing at all (NaN throughout) are not asked."""
    weights = amap.weights.astype(np.float64)  # (layers, heads, queries, keys)
    asked = ~np.all(np.isnan(weights), axis=-1)
    return bool(np.all(np.abs(np.nansum(weights, axis=-1)[asked] - 1.0) < ROW_SUM_TOLERANCE))


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
    rows_one = rows_sum_to_one(amap)  # what the colour bar says of the rows; the title says how much hidden took
    weighting = {
        **weighting_labels(weighting_of(options), options.lang, rows_one),
        **measure_labels(options.measure, options.lang, rows_one),
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
