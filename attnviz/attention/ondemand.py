"""On-demand exact attention: run the model with fused attention, keep queries and keys, compute a head when opened.

Why: `capture` keeps every layer × head × n² weight (what eager `output_attentions` does), which is gigabytes at a few
thousand tokens and makes the forward pass slower. A person looks at a few heads at a time. So `capture_lazy` runs
the model once with a fused kernel — `torch.nn.functional.scaled_dot_product_attention`, or on an Ascend NPU
`torch_npu.npu_fusion_attention` (`attention.npu`), neither of which materialises the weights — and keeps, per
attention call, exactly what recomputes any head and any query row later (`compact.LayerInputs`). Opening a head
then costs one head's QKᵀ and softmax, computed in fp32 by `attention.math`, the definition `capture` uses, so the
values equal eager attention within float rounding (on an NPU, from the kernel's own row log-sum-exp).

Big maps are never held whole: `head`/`layer` compute in row tiles (`attention.tiles`), `head_statistics` streams
tiles into sums (`head_stats.statistic_sums`, the definitions `head_stats.head_statistics` uses), and `downsampled` pools
tile by tile (`analysis.downsample`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from attnviz.attention import tiles
from attnviz.attention.batching import prepare_batch, run_batch
from attnviz.attention.compact import LayerInputs
from attnviz.attention.recorder import QueryKeyRecorder
from attnviz.errors import InputError
from attnviz.maps import analysis, head_stats
from attnviz.maps.analysis import Pooled
from attnviz.model.load import ModelHandle
from attnviz.model.memory import FLOAT32, check_bytes
from attnviz.provenance import alignment_meta, build_provenance
from attnviz.types import AttentionCapture, AttentionMap, Token, map_specs, missing_map, position, row_span


@dataclass(frozen=True)
class LazyStack:
    """One map kind of a lazy capture: a `LayerInputs` per layer and the tokens along each axis."""

    kind: str
    layers: list[LayerInputs]
    layer_names: list[str]
    query_tokens: list[Token]
    key_tokens: list[Token]
    causal: bool
    value_norms: np.ndarray | None = None  # float32 (layers, heads, keys): `AttentionMap.value_norms`


def _fill(inputs: LayerInputs, heads: list[int], rows: tuple[int, int], keys: tuple[int, int], out: np.ndarray):
    """Write the weights of `heads` × query rows × key columns into `out` (heads, rows, keys), one tile at a time."""
    start, stop = rows
    for first, last in tiles.spans(start, stop, tiles.tile_rows(len(heads) * inputs.keys)):
        tile = inputs.probabilities(heads, first, last, keys=keys)  # (heads', tile rows, keys')
        out[:, first - start : last - start] = tile.cpu().numpy()


@dataclass(frozen=True)
class LazyCapture:
    """Attention of one run, computed exactly when asked (an `AttentionResult`): `head`, `layer`, `map`,
    `head_statistics`, `downsampled`.

    Kinds are those of `capture` (`types.MAP_SPECS`), with the same token conventions. Every result is float32
    numpy, computed in fp32 from the kept queries and keys.
    """

    model: str
    device: str
    stacks: dict[str, LazyStack]
    source_text: str = ""
    target_text: str | None = None
    provenance: dict = field(default_factory=dict)  # as AttentionCapture.provenance (attnviz.provenance)
    meta: dict = field(default_factory=dict)  # as AttentionCapture.meta: the model's alignment heads

    is_complete: ClassVar[bool] = False  # each weight is computed when asked

    @property
    def kinds(self) -> list[str]:
        return list(self.stacks)

    def stack(self, kind: str) -> LazyStack:
        try:
            return self.stacks[kind]
        except KeyError:
            raise missing_map(kind, self.stacks) from None

    def shape(self, kind: str) -> tuple[int, int, int, int]:
        """(layers, heads, queries, keys) of the map `capture` would have returned for `kind`."""
        stack = self.stack(kind)
        return len(stack.layers), stack.layers[0].heads, len(stack.query_tokens), len(stack.key_tokens)

    def tokens(self, kind: str) -> tuple[list[Token], list[Token]]:
        stack = self.stack(kind)
        return stack.query_tokens, stack.key_tokens

    def layer_names(self, kind: str) -> list[str]:
        return self.stack(kind).layer_names

    def causal(self, kind: str) -> bool:
        return self.stack(kind).causal

    def value_norms(self, kind: str) -> np.ndarray | None:
        return self.stack(kind).value_norms

    @property
    def nbytes(self) -> int:
        """Bytes this capture keeps alive (queries, keys, compact masks; each shared tensor counted once)."""
        storages = {}
        for stack in self.stacks.values():
            for inputs in stack.layers:
                for tensor in inputs.tensors():
                    storage = tensor.untyped_storage()
                    storages[(storage.data_ptr(), tensor.device)] = storage.nbytes()
        return sum(storages.values())

    def _layer(self, kind: str, layer: int) -> tuple[LazyStack, LayerInputs, int]:
        stack = self.stack(kind)
        index = position(layer, len(stack.layers), "layer")
        return stack, stack.layers[index], index

    def head(
        self,
        kind: str,
        layer: int,
        head: int,
        rows: int | tuple[int, int] | None = None,
        keys: tuple[int, int] | None = None,
    ) -> np.ndarray:
        """One head: float32 (rows, keys) for query rows `rows` (an index, (start, stop) or None = all) and key
        columns `keys` ((start, stop) or None = all). Costs that head's rows only."""
        return self.layer(kind, layer, rows, keys, heads=[head])[0]

    def layer(
        self,
        kind: str,
        layer: int,
        rows: int | tuple[int, int] | None = None,
        keys: tuple[int, int] | None = None,
        heads: int | Sequence[int] | None = None,
    ) -> np.ndarray:
        """Every head (or `heads`) of one layer: float32 (heads, rows, keys), computed in row tiles."""
        _, inputs, index = self._layer(kind, layer)
        head_idx = analysis.indices(heads, inputs.heads, "head")
        start, stop = row_span(rows, inputs.queries)
        k0, k1 = analysis.index_range(keys, inputs.keys, "key")
        check_bytes(
            len(head_idx) * (stop - start) * (k1 - k0) * FLOAT32,
            f"Opening {len(head_idx)} head(s) of layer {index} over {stop - start:,} × {k1 - k0:,} tokens",
            "open fewer heads or a range of rows",
        )
        if len(head_idx) * (stop - start) * inputs.keys <= tiles.TILE_CELLS:  # one tile: hand its buffer over
            tile = inputs.probabilities(head_idx, start, stop, keys=(k0, k1))  # (heads', rows, keys')
            return np.ascontiguousarray(tile.cpu().numpy())
        result = np.empty((len(head_idx), stop - start, k1 - k0), dtype=np.float32)
        _fill(inputs, head_idx, (start, stop), (k0, k1), result)
        return result

    def map(
        self,
        kind: str,
        layers: int | Sequence[int] | None = None,
        heads: int | Sequence[int] | None = None,
        queries: tuple[int, int] | None = None,
        keys: tuple[int, int] | None = None,
    ) -> AttentionMap:
        """An exact AttentionMap of the chosen layers, heads and query/key ranges (None = all), for figures and
        analysis. Its head axis holds `heads` in the order given; its layer names are the chosen modules'."""
        stack = self.stack(kind)
        layer_idx = analysis.indices(layers, len(stack.layers), "layer")
        q_span, k_span, causal = analysis.crop_spans(
            len(stack.query_tokens), len(stack.key_tokens), stack.causal, queries, keys
        )
        (q0, q1), (k0, k1) = q_span, k_span
        head_idx = analysis.indices(heads, stack.layers[0].heads, "head")
        check_bytes(
            len(layer_idx) * len(head_idx) * (q1 - q0) * (k1 - k0) * FLOAT32,
            f"Building a {kind} map of {len(layer_idx)} layer(s) × {len(head_idx)} head(s) over "
            f"{q1 - q0:,} × {k1 - k0:,} tokens",
            "choose fewer layers or heads, or a range of tokens",
        )
        weights = np.empty((len(layer_idx), len(head_idx), q1 - q0, k1 - k0), dtype=np.float32)
        for slot, layer in enumerate(layer_idx):  # written in place: never two copies of the map
            _fill(stack.layers[layer], head_idx, q_span, k_span, weights[slot])
        norms = stack.value_norms
        if norms is not None:
            norms = norms[np.ix_(layer_idx, head_idx, range(k0, k1))]  # (layers', heads', keys')
        return AttentionMap(
            kind,
            weights,
            stack.query_tokens[q0:q1],
            stack.key_tokens[k0:k1],
            [stack.layer_names[i] for i in layer_idx],
            causal,
            norms,
            layer_numbers=tuple(layer_idx),
            head_numbers=tuple(head_idx),
        )

    def to_capture(self) -> AttentionCapture:
        """Everything, as `capture` would return it (checked against the memory budget first)."""
        maps = {kind: self.map(kind) for kind in self.stacks}
        return AttentionCapture(
            self.model,
            self.device,
            maps,
            self.source_text,
            self.target_text,
            meta={**self.meta, "lazy": True},
            provenance=dict(self.provenance),
        )

    def head_statistics(
        self, kind: str, layers: int | Sequence[int] | None = None, heads: int | Sequence[int] | None = None
    ) -> dict[str, np.ndarray]:
        """`head_stats.head_statistics` of the map, float32 (layers', heads') per statistic, streamed in row tiles:
        no more than one tile of one layer is ever held."""
        stack = self.stack(kind)
        layer_idx = analysis.indices(layers, len(stack.layers), "layer")
        head_idx = analysis.indices(heads, stack.layers[0].heads, "head")
        queries, keys = len(stack.query_tokens), len(stack.key_tokens)
        known = head_stats.statistic_inputs(kind, stack.query_tokens, stack.key_tokens)
        induction = known.pop("induction")
        shape = (len(layer_idx), len(head_idx))
        sums: dict[str, tuple[np.ndarray, np.ndarray]] = {}  # statistic -> (sums, counts), each (layers', heads', …)
        for slot, layer in enumerate(layer_idx):
            inputs = stack.layers[layer]
            for first, last in tiles.spans(0, queries, tiles.tile_rows(len(head_idx) * keys)):
                tile = inputs.probabilities(head_idx, first, last).cpu().numpy()  # (heads', rows, keys)
                rows_induction = None if induction is None else induction[first:last]
                parts = head_stats.statistic_sums(tile, first, induction=rows_induction, **known)
                for name, (total, count) in parts.items():
                    running = sums.setdefault(
                        name, (np.zeros(shape + total.shape[1:]), np.zeros(shape + count.shape[1:]))
                    )
                    running[0][slot] += total
                    running[1][slot] += count
        return head_stats.statistic_means(sums, shape)

    def head_statistics_table(self, kind: str) -> list[dict]:
        """One row per (layer, head), as `head_stats.head_statistics_table` gives for a full map."""
        return head_stats.statistics_table(self.head_statistics(kind), self.stack(kind).layer_names)

    def downsampled(
        self, kind: str, layer: int, head: int, max_tokens: int = 256, pool: str = "max", value_weighted: bool = False
    ) -> Pooled:
        """One head pooled to at most `max_tokens` bins per side, tile by tile (`analysis.downsample`: "max" keeps
        peaks visible, "mean" keeps mass). Cells a causal map masks are NaN before pooling, as the heatmap draws
        them; the result equals pooling the full map, which is never held. `value_weighted`: the head as
        `analysis.value_weighted` shows it (each tile holds whole rows, so each row is scaled exactly)."""
        if max_tokens < 1:
            raise InputError("max_tokens_too_small")
        stack, inputs, index = self._layer(kind, layer)
        if value_weighted and stack.value_norms is None:
            raise InputError("values_missing", kind=kind)
        head_idx = analysis.indices(head, inputs.heads, "head")
        queries, keys = inputs.queries, inputs.keys
        query_factor, key_factor = max(1, -(-queries // max_tokens)), max(1, -(-keys // max_tokens))
        factors = (query_factor, key_factor)
        spans = tiles.spans(0, queries, tiles.tile_rows(keys, multiple=query_factor))
        if pool == "max" and not value_weighted:  # pooled where the tile is computed, never copied out whole
            shape = (queries, keys)
            parts = [
                _max_pooled(inputs.probabilities(head_idx, *span)[0], span, factors, shape, stack.causal)
                for span in spans
            ]
            return Pooled(np.concatenate(parts), query_factor, key_factor, pool)
        masked = analysis.mask_of(queries, keys, stack.causal)  # (queries, keys) bool
        parts = []
        for first, last in spans:
            tile = inputs.probabilities(head_idx, first, last)[0].cpu().numpy()  # (rows, keys)
            if value_weighted:
                tile = analysis.weigh_rows(tile, stack.value_norms[index, head_idx[0]])
            tile = np.where(masked[first:last], np.nan, tile)
            parts.append(analysis.downsample(tile, query_factor, key_factor, pool))
        return Pooled(np.concatenate(parts), query_factor, key_factor, pool)


def _max_pooled(
    tile, rows: tuple[int, int], factors: tuple[int, int], shape: tuple[int, int], causal: bool
) -> np.ndarray:
    """`analysis.downsample(…, "max")` of one tile of probabilities (rows, keys) whose masked cells are NaN, computed
    on the tile as the model's device holds it: masked cells are exactly 0 and every weight is ≥ 0, so a block's
    largest cell is its largest unmasked one; a block with no unmasked cell is NaN (a causal map's blocks wholly
    above its diagonal, `analysis.mask_of`). `rows`: the tile's query rows; `shape`: the whole map's (queries, keys)."""
    import torch

    query_factor, key_factor = factors
    pooled = torch.nn.functional.max_pool2d(tile[None, None], factors, ceil_mode=True)[0, 0]  # (row bins, key bins)
    pooled = pooled.cpu().numpy().astype(np.float32)
    if causal:
        (first, last), (queries, keys) = rows, shape
        block_last = np.minimum(np.arange(first, last, query_factor) + query_factor, last) - 1  # (row bins,)
        key_first = np.arange(0, keys, key_factor)  # (key bins,)
        pooled[key_first[None, :] > block_last[:, None] + (keys - queries)] = np.nan  # every key of the block masked
    return pooled


# ----------------------------------------------------------------------------------------------------------------------
# Public entry point


def capture_lazy(handle: ModelHandle, text: str, target: str | None = None, truncate: bool = False) -> LazyCapture:
    """Run the model once on `text` (force-decoding `target` for encoder-decoder models) keeping queries and keys,
    so that any layer, head or row can be computed exactly later. Same maps, tokens and `truncate` as `capture`.

    Checked first: the text length (ATTNVIZ_MAX_CHARS) and the lazy memory estimate (ATTNVIZ_MEMORY_BUDGET_MB).
    """
    return lazy_run(handle, text, target, truncate)[0]


def lazy_run(
    handle: ModelHandle,
    text: str,
    target: str | None = None,
    truncate: bool = False,
    recorder_class: type[QueryKeyRecorder] = QueryKeyRecorder,
) -> tuple[LazyCapture, QueryKeyRecorder]:
    """`capture_lazy`, with the recorder of the pass (of `recorder_class`, a QueryKeyRecorder that may keep more per
    call) and, per map kind, the (module path, call) of each layer: `recorder.layers_by_role(handle.is_seq2seq)`."""
    batch = prepare_batch(handle, [text], None if target is None else [target], truncate, mode="lazy")
    recorder = run_batch(handle, batch, recorder_class)
    recorder.release()
    layers = recorder.layers_by_role(handle.is_seq2seq)
    norms = {role: recorder.value_norms(role_layers) for role, role_layers in layers.items()}  # (layers, 1, h, k)
    stacks = {
        spec.kind: LazyStack(
            spec.kind,
            [recorder.calls[name][call] for name, call in layers[spec.kind]],
            recorder.layer_names(layers[spec.kind]),
            batch.tokens(0, spec.queries),
            batch.tokens(0, spec.keys),
            spec.is_causal(handle.kind),
            None if norms[spec.kind] is None else norms[spec.kind][:, 0],
        )
        for spec in map_specs(handle.is_seq2seq, batch.decoded is not None)
    }
    record = build_provenance(handle, batch.texts[0], target, {"mode": "lazy", "truncate": truncate})
    if placed := recorder.placement(handle.model):  # a model spread over devices: where each layer was and ran
        record["placement"] = placed
    texts = dict(source_text=batch.texts[0], target_text=target)
    lazy = LazyCapture(handle.name, handle.device, stacks, **texts, provenance=record, meta=alignment_meta(handle))
    return lazy, recorder
