"""Two attention maps compared head by head: two inputs to one model, one input to two models, or one input read
twice (two devices or precisions). The heads ranked by how much they changed, and the difference A − B drawn on
the segments both inputs share, with what only one side has marked added or removed."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attnviz import i18n
from attnviz.compare.divergence import matched_rows, mean_divergence, segment_weights
from attnviz.compare.heads import UNPAIRED, depth_pairs, divergence_matrix, paired_heads
from attnviz.compare.matching import TokenMatch, match_tokens
from attnviz.errors import InputError
from attnviz.types import MAP_SPECS, AttentionCapture, AttentionMap
from attnviz.view import selection


@dataclass(frozen=True)
class HeadChange:
    """One row of the ranking: a head of A, the head of B it was compared with, and their mean JS (bits)."""

    kind: str
    layer: int  # the model's numbers
    head: int
    head_b: int  # the head of B (the same number unless heads were paired; `UNPAIRED` when B had none left)
    divergence: float  # NaN when no matched row gives the matched keys anything
    layer_b: int  # B's layer (the same number unless the models have different numbers of layers: `depth_pairs`)


@dataclass(frozen=True)
class DiffView:
    """What the diff heatmap draws: A − B of one head or a mean of heads, on segments."""

    values: np.ndarray  # float32 (row segments, column segments); a row/column only one side has shows its weights
    row_labels: list[str]
    col_labels: list[str]
    row_status: list[str]  # "both" | "removed" (only in A) | "added" (only in B)
    col_status: list[str]


@dataclass(frozen=True)
class Comparison:
    kind: str  # A's map kind (B's may be its twin: "self" and "encoder" read the same tokens)
    rows: TokenMatch  # query tokens of A and B in segments
    cols: TokenMatch  # key tokens
    divergence: np.ndarray  # float64 (layers, heads of A): mean JS with the head of B compared
    heads_b: np.ndarray  # int (layers, heads of A): that head of B
    layers_b: np.ndarray  # int (layers of A): B's layer (the model's number) set beside each, by relative depth
    diff: np.ndarray  # float32 (layers, heads of A, row segments, column segments): A − B's compared head
    layer_numbers: tuple[int, ...]
    head_numbers: tuple[int, ...]

    def ranking(self) -> list[HeadChange]:
        """Every head of A, the most changed first (ties: layer then head order); NaN last."""
        changes = [
            HeadChange(
                self.kind,
                layer,
                head,
                int(self.heads_b[li, hi]),
                float(self.divergence[li, hi]),
                int(self.layers_b[li]),
            )
            for li, layer in enumerate(self.layer_numbers)
            for hi, head in enumerate(self.head_numbers)
        ]
        return sorted(changes, key=lambda c: (np.isnan(c.divergence), -np.nan_to_num(c.divergence), c.layer, c.head))

    def table(self) -> list[dict]:
        """The ranking as rows of a table (CSV): kind, layer, head, layer_b, head_b, js."""
        return [
            {
                "kind": c.kind,
                "layer": c.layer,
                "head": c.head,
                "layer_b": c.layer_b,
                "head_b": c.head_b,
                "js": c.divergence,
            }
            for c in self.ranking()
        ]

    def diff_view(self, layer: int | None = None, head: int | None = None) -> DiffView:
        """A − B of one head (`layer`, `head`: positions in the map), of a layer's heads on average (`head` None),
        or of every head on average (both None)."""
        picked = self.diff if layer is None else self.diff[layer : layer + 1]
        picked = picked if head is None else picked[:, head : head + 1]
        return DiffView(
            values=picked.mean(axis=(0, 1)).astype(np.float32),  # (row segments, column segments)
            row_labels=[s.text for s in self.rows.segments],
            col_labels=[s.text for s in self.cols.segments],
            row_status=self.rows.statuses,
            col_status=self.cols.statuses,
        )

    def heads_said(self, layer: int | None = None, head: int | None = None, lang: str = "en") -> str:
        """What `diff_view(layer, head)` shows, in words: every head, a layer's heads, or one head and its head
        of B (a figure's title says it)."""
        if layer is None:
            return i18n.t("compare_all_heads", lang)
        layer_b = int(self.layers_b[layer])
        if head is None:
            return i18n.t("compare_layer_heads", lang, layer=self.layer_numbers[layer], layer_b=layer_b)
        paired = int(self.heads_b[layer, head])
        return i18n.t(
            "compare_one_head",
            lang,
            layer=self.layer_numbers[layer],
            head=self.head_numbers[head],
            layer_b=layer_b,
            head_b=paired,
        )


def _same_tokens_kind(a: AttentionMap, b: AttentionMap) -> None:
    """Maps compare when their rows and their columns are the same kind of tokens (self and encoder both read the
    source with the source); an InputError otherwise."""
    spec_a, spec_b = MAP_SPECS[a.kind], MAP_SPECS[b.kind]
    if (spec_a.queries, spec_a.keys) != (spec_b.queries, spec_b.keys):
        raise InputError("compare_kinds_differ", kind_a=a.kind, kind_b=b.kind)


def compare_maps(
    a: AttentionMap,
    texts_a: tuple[str | None, str | None],
    b: AttentionMap,
    texts_b: tuple[str | None, str | None],
    *,
    pair_heads: bool = False,
) -> Comparison:
    """Compare map `a` with map `b`; `texts_*`: the (query text, key text) their tokens point into. Each layer of A
    is set beside B's layer at the same relative depth (`depth_pairs`; the same layer when both have as many).
    `pair_heads`: compare each head of A with the head of B that layer's assignment pairs it with (two models), else
    with B's head of the same number (which needs as many heads)."""
    _same_tokens_kind(a, b)
    if not pair_heads and a.num_heads != b.num_heads:
        raise InputError("compare_heads_differ", heads_a=a.num_heads, heads_b=b.num_heads)
    rows = match_tokens(a.query_tokens, texts_a[0] or "", b.query_tokens, texts_b[0] or "")
    same_axes = a.query_tokens == a.key_tokens and b.query_tokens == b.key_tokens and texts_a[0] == texts_a[1]
    if same_axes and texts_b[0] == texts_b[1]:  # self-attention: rows and columns are the same tokens
        cols = rows
    else:
        cols = match_tokens(a.key_tokens, texts_a[1] or "", b.key_tokens, texts_b[1] or "")
    if not rows.matched or not cols.matched:
        raise InputError("compare_nothing_matched")
    seg_a = segment_weights(a.weights, rows, cols, "a")  # (layers, heads A, row segments, column segments)
    beside = depth_pairs(a.num_layers, b.num_layers)  # (layers of A,): positions of B's layers
    weights_b = b.weights if np.array_equal(beside, np.arange(b.num_layers)) else b.weights[beside]
    seg_b = segment_weights(weights_b, rows, cols, "b")  # (layers of A, heads B, row segments, column segments)
    p, live_p = matched_rows(seg_a, rows, cols)  # (layers, heads, matched rows, matched keys), (…, matched rows)
    q, live_q = matched_rows(seg_b, rows, cols)
    if pair_heads:
        heads_b = paired_heads(divergence_matrix(p, live_p, q, live_q))  # (layers, heads A)
    else:
        heads_b = np.broadcast_to(np.arange(a.num_heads), (a.num_layers, a.num_heads)).copy()
    divergence, diff = _paired(seg_a, seg_b, p, live_p, q, live_q, heads_b)
    return Comparison(
        kind=a.kind,
        rows=rows,
        cols=cols,
        divergence=divergence,
        heads_b=np.array([[b.head_number(h) if h != UNPAIRED else UNPAIRED for h in row] for row in heads_b]),
        layers_b=np.array([b.layer_number(int(position)) for position in beside], dtype=np.int64),
        diff=diff,
        layer_numbers=tuple(a.layer_number(i) for i in range(a.num_layers)),
        head_numbers=tuple(a.head_number(i) for i in range(a.num_heads)),
    )


def _paired(seg_a, seg_b, p, live_p, q, live_q, heads_b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(mean JS, A − B) of each head of A with its head of B; an unpaired head: NaN, and A alone."""
    unpaired = heads_b == UNPAIRED
    if seg_a.shape == seg_b.shape and (heads_b == np.arange(heads_b.shape[1])).all():  # head h with head h
        return mean_divergence(p, live_p, q, live_q), (seg_a - seg_b).astype(np.float32)
    layer_index = np.arange(heads_b.shape[0])[:, None]  # (layers, 1), beside heads_b (layers, heads A)
    picked = np.where(unpaired, 0, heads_b)
    divergence = mean_divergence(p, live_p, q[layer_index, picked], live_q[layer_index, picked])  # (layers, heads)
    diff = seg_a - np.where(unpaired[..., None, None], 0.0, seg_b[layer_index, picked])
    return np.where(unpaired, np.nan, divergence), diff.astype(np.float32)


def twin_kind(kind: str, kinds: list[str]) -> str:
    """B's map that reads what A's map `kind` reads: the same kind, else its twin ("self" for "encoder" and back),
    else `kind` itself (which B then says it lacks)."""
    spec = MAP_SPECS[kind]
    twins = [k for k in kinds if (MAP_SPECS[k].queries, MAP_SPECS[k].keys) == (spec.queries, spec.keys)]
    return kind if kind in kinds or not twins else twins[0]


def compare_captures(
    a: AttentionCapture,
    b: AttentionCapture,
    kind: str | None = None,
    kind_b: str | None = None,
    *,
    weighting: str = "weights",
    hide_special: bool = False,
    pair_heads: bool = False,
) -> Comparison:
    """Compare map `kind` of capture `a` (default: the map a view opens on) with map `kind_b` (default: the same)
    of `b`, each as the view prepares it (`selection.prepare_map`: weights or value-norm, special tokens hidden or
    not); see `compare_maps`."""
    kind = kind or selection.default_kind(a)
    kind_b = kind_b or twin_kind(kind, b.kinds)
    map_a = selection.prepare_map(a, kind, hide=hide_special, weighting=weighting)
    map_b = selection.prepare_map(b, kind_b, hide=hide_special, weighting=weighting)
    return compare_maps(
        map_a, selection.map_texts(a, kind), map_b, selection.map_texts(b, kind_b), pair_heads=pair_heads
    )
