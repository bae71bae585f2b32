"""On-demand exact attention: run the model with fused attention, keep queries and keys, compute a head when opened.

Why: `capture` keeps every layer × head × n² weight (what eager `output_attentions` does), which is gigabytes at a few
thousand tokens and makes the forward pass slower. A person looks at a few heads at a time. So `capture_lazy` runs
the model once with `torch.nn.functional.scaled_dot_product_attention` (fast, never materialises the weights) and
keeps, per attention call, exactly what recomputes any head and any query row later:
  queries (b, heads, q, d) and keys (b, kv_heads, k, d) as the model computed them (keys before grouped-query
  expansion), the scaling, the soft-cap, the mask in compact form (which keys each example sees + causal or not)
  and a relative position bias (T5) as one value per key − query offset.
Opening a head then costs one head's QKᵀ and softmax, computed in fp32 by `capture.attention_probabilities`, the same
definition `capture` uses, so the values equal eager attention within float rounding.

Big maps are never held whole: `weights`/`layer` compute in row tiles, `head_statistics` streams tiles into sums
(`analysis.statistic_sums`, the definitions `analysis.head_statistics` uses), and `downsampled` pools tile by tile
(`analysis.downsample`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import torch

from attnviz import analysis
from attnviz.analysis import Pooled
from attnviz.capture import (
    Recorder,
    _layers_by_role,
    attention_probabilities,
    layer_names,
    prepare_batch,
    repeat_kv,
    run_batch,
)
from attnviz.errors import InputError
from attnviz.memory import FLOAT32, check_bytes
from attnviz.models import ModelHandle
from attnviz.types import AttentionCapture, AttentionMap, Token

TILE_CELLS = 2**22  # cells of attention computed at once (16 MB in fp32); bounds the memory of every computation


def _tile_rows(cells_per_row: int, multiple: int = 1) -> int:
    """Query rows per tile so that a tile holds about TILE_CELLS cells; a multiple of `multiple` (pooling blocks)."""
    rows = max(1, TILE_CELLS // max(cells_per_row, 1))
    return max(multiple, rows // multiple * multiple)


def _spans(start: int, stop: int, step: int):
    for first in range(start, stop, step):
        yield first, min(first + step, stop)


# ----------------------------------------------------------------------------------------------------------------------
# Compact forms of what transformers passes to the attention function


@dataclass(frozen=True)
class CompactMask:
    """An eager additive mask (batch, 1, queries, keys) of 0 (attend) and `fill` (masked), kept as what makes it:
    the keys each example may see (padding) and whether keys after the query are hidden (causal, aligned so the last
    query sits on the last key). O(batch · keys) instead of O(batch · queries · keys)."""

    key_keep: torch.Tensor  # bool (batch, keys)
    causal: bool
    queries: int
    fill: float  # torch.finfo(dtype).min, what eager_mask writes into masked cells
    dtype: torch.dtype

    @property
    def keys(self) -> int:
        return self.key_keep.shape[-1]

    @property
    def hides_nothing(self) -> bool:
        return not self.causal and bool(self.key_keep.all())

    @property
    def plain_causal(self) -> bool:
        """Exactly SDPA's own `is_causal` triangle (top-left aligned, no padding)."""
        return self.causal and self.keys == self.queries and bool(self.key_keep.all())

    def rows(self, batch: int, start: int, stop: int) -> torch.Tensor:
        """The additive mask of query rows [start, stop): (1, 1, rows, keys), bit-for-bit what eager_mask built."""
        keep = self.key_keep[batch].expand(stop - start, -1)  # (rows, keys)
        if self.causal:
            positions = torch.arange(start, stop, device=keep.device)[:, None] + (self.keys - self.queries)
            keep = keep & (torch.arange(self.keys, device=keep.device)[None, :] <= positions)
        zero = torch.zeros((), dtype=self.dtype, device=keep.device)
        return torch.where(keep, zero, self.fill)[None, None]

    @classmethod
    def of(cls, mask: torch.Tensor, queries: int, keys: int) -> CompactMask | None:
        """The compact form of `mask`, or None when it is something else (sliding window, a learned bias…)."""
        if mask.dim() != 4 or mask.shape[1] != 1 or mask.shape[2] != queries or not mask.is_floating_point():
            return None
        mask = mask[..., :keys]
        fill = torch.finfo(mask.dtype).min
        key_keep = mask[:, 0, -1, :] == 0  # (batch, keys): the last query row sees every key but padding
        for causal in (False, True):
            candidate = cls(key_keep, causal, queries, fill, mask.dtype)
            if candidate._equals(mask):
                return candidate
        return None

    def _equals(self, mask: torch.Tensor) -> bool:
        step = _tile_rows(self.keys)
        return all(
            torch.equal(self.rows(batch, start, stop), mask[batch : batch + 1, :, start:stop])
            for batch in range(mask.shape[0])
            for start, stop in _spans(0, self.queries, step)
        )


@dataclass(frozen=True)
class RelativeBias:
    """A per-head additive bias that depends only on (key position − query position), as T5's relative attention
    bias does, kept as one value per offset: (batch, heads, queries + keys − 1) instead of (batch, heads, q, k)."""

    diagonals: torch.Tensor  # (batch, heads, queries + keys - 1); index = key - query + queries - 1
    queries: int
    keys: int

    def rows(self, batch: int, heads: Sequence[int], start: int, stop: int) -> torch.Tensor:
        """(1, len(heads), rows, keys) of the bias for query rows [start, stop)."""
        device = self.diagonals.device
        offsets = torch.arange(self.keys, device=device)[None, :] - torch.arange(start, stop, device=device)[:, None]
        per_example = self.diagonals[min(batch, self.diagonals.shape[0] - 1)]  # (heads, q + k - 1)
        return per_example[list(heads)][:, offsets + self.queries - 1][None]  # (1, heads', rows, keys)

    @classmethod
    def of(cls, bias: torch.Tensor) -> RelativeBias | None:
        """The diagonal form of `bias` (batch, heads, q, k), or None when it does not depend on the offset alone."""
        if bias.dim() != 4:
            return None
        queries, keys = bias.shape[-2:]
        # Offsets −(q−1)…0 run down the first column (read bottom-up), offsets 1…k−1 along the first row.
        diagonals = torch.cat([bias[..., :, 0].flip(-1), bias[..., 0, 1:]], dim=-1)  # (batch, heads, q + k - 1)
        candidate = cls(diagonals.contiguous(), queries, keys)
        heads = range(bias.shape[1])
        step = _tile_rows(keys * bias.shape[1])
        for batch in range(bias.shape[0]):
            for start, stop in _spans(0, queries, step):
                if not torch.equal(candidate.rows(batch, heads, start, stop), bias[batch : batch + 1, :, start:stop]):
                    return None
        return candidate


# ----------------------------------------------------------------------------------------------------------------------
# One attention call, kept to be recomputed


@dataclass
class LayerInputs:
    """What recomputes one attention call exactly: softmax(q·kᵀ·scaling + bias + mask), soft-capped if asked."""

    query: torch.Tensor  # (batch, heads, queries, d), on the model's device, in the model's dtype
    key: torch.Tensor  # (batch, kv_heads, keys, d): before grouped-query expansion
    mask: CompactMask | torch.Tensor | None  # None: every key visible
    bias: RelativeBias | torch.Tensor | None  # None: no position bias (or an all-zero one)
    scaling: float | None
    softcap: float | None = None

    @property
    def heads(self) -> int:
        return self.query.shape[1]

    @property
    def queries(self) -> int:
        return self.query.shape[2]

    @property
    def keys(self) -> int:
        return self.key.shape[2]

    def probabilities(self, heads: Sequence[int], start: int, stop: int, batch: int = 0) -> torch.Tensor:
        """fp32 (len(heads), stop − start, keys): the weights of query rows [start, stop) of the given heads."""
        heads = list(heads)
        group = self.heads // self.key.shape[1]  # query heads per key head (grouped-query attention)
        query = self.query[batch, heads, start:stop].float()[None]  # (1, heads', rows, d)
        key = self.key[batch, [h // group for h in heads]].float()[None]  # (1, heads', keys, d)
        return attention_probabilities(
            query, key, self._mask_rows(batch, heads, start, stop), self.scaling,
            self._bias_rows(batch, heads, start, stop), self.softcap,
        )[0]  # fmt: skip

    def _mask_rows(self, batch, heads, start, stop):
        if self.mask is None:
            return None
        if isinstance(self.mask, CompactMask):
            return self.mask.rows(batch, start, stop)
        return _dense_rows(self.mask, batch, heads, start, stop)

    def _bias_rows(self, batch, heads, start, stop):
        if self.bias is None:
            return None
        if isinstance(self.bias, RelativeBias):
            return self.bias.rows(batch, heads, start, stop)
        return _dense_rows(self.bias, batch, heads, start, stop)

    def tensors(self) -> list[torch.Tensor]:
        """Every tensor this record keeps alive (for counting memory)."""
        kept = [self.query, self.key]
        for part in (self.mask, self.bias):
            if isinstance(part, torch.Tensor):
                kept.append(part)
            elif isinstance(part, CompactMask):
                kept.append(part.key_keep)
            elif isinstance(part, RelativeBias):
                kept.append(part.diagonals)
        return kept


def _dense_rows(tensor: torch.Tensor, batch: int, heads: Sequence[int], start: int, stop: int) -> torch.Tensor:
    """Rows of a dense (batch|1, heads|1, queries|1, keys) mask or bias, keeping its broadcast dimensions."""
    part = tensor[min(batch, tensor.shape[0] - 1)][None]
    if part.shape[1] > 1:
        part = part[:, list(heads)]
    return part[:, :, start:stop] if part.shape[2] > 1 else part


# ----------------------------------------------------------------------------------------------------------------------
# The recorder: fused attention for the output, queries and keys for later


@dataclass
class QueryKeyRecorder(Recorder):
    """Computes each attention output with SDPA (no weights) and keeps a `LayerInputs` per module call."""

    calls: dict[str, list[LayerInputs]] = field(default_factory=dict)
    # The same mask / bias tensor serves every layer of a stack: compact it once. id -> (tensor kept alive, form).
    _compacted: dict[int, tuple[torch.Tensor, object]] = field(default_factory=dict)

    def forward(self, module, query, key, value, attention_mask, scaling=None, dropout=0.0, **kwargs):
        position_bias, softcap = kwargs.get("position_bias"), kwargs.get("softcap")
        query, key = _own_storage(query), _own_storage(key)
        if attention_mask is not None:
            attention_mask = attention_mask[..., : key.shape[-2]]
        inputs = LayerInputs(
            query, key, self._compact_mask(attention_mask, query.shape[-2], key.shape[-2]),
            self._compact_bias(position_bias), scaling, softcap,
        )  # fmt: skip
        name = self.module_names.get(id(module))
        if name is not None:
            self.keep(name, inputs)
        dropout = dropout if module.training else 0.0
        if softcap:  # SDPA cannot soft-cap: this layer's output comes from the eager math instead
            probabilities = attention_probabilities(
                query, repeat_kv(key, query.shape[1]), attention_mask, scaling, position_bias, softcap
            ).to(value.dtype)
            probabilities = torch.nn.functional.dropout(probabilities, p=dropout) if dropout else probabilities
            output = torch.matmul(probabilities, repeat_kv(value, query.shape[1]))  # (b, heads, q, d)
        else:
            output = _fused_attention(inputs, value, attention_mask, position_bias, dropout)
        return output.transpose(1, 2).contiguous(), None  # (b, q, heads, d)

    def _compact_mask(self, mask, queries, keys):
        if mask is None:
            return None
        form = self._once(mask, lambda: CompactMask.of(mask, queries, keys) or mask)
        return None if isinstance(form, CompactMask) and form.hides_nothing else form

    def _compact_bias(self, bias):
        if bias is None:
            return None
        return self._once(bias, lambda: None if not bool(bias.any()) else RelativeBias.of(bias) or bias)

    def _once(self, tensor, make):
        seen = self._compacted.get(id(tensor))
        if seen is None or seen[0] is not tensor:
            seen = (tensor, make())
            self._compacted[id(tensor)] = seen
        return seen[1]

    def release(self) -> None:
        """Forget the full masks and biases held while the model ran (the records keep their compact forms)."""
        self._compacted.clear()


def _own_storage(tensor: torch.Tensor) -> torch.Tensor:
    """The tensor itself, or a copy when it is a view into a larger buffer (GPT-2 splits one fused q|k|v
    projection): keeping the view would keep the values too."""
    if tensor.untyped_storage().nbytes() > tensor.numel() * tensor.element_size():
        return tensor.clone()
    return tensor


def _fused_attention(inputs: LayerInputs, value, attention_mask, position_bias, dropout: float) -> torch.Tensor:
    """SDPA with the cheapest equivalent mask: SDPA's own causal triangle, nothing, or the additive mask (+ bias)."""
    if isinstance(inputs.mask, CompactMask) and inputs.mask.plain_causal and inputs.bias is None:
        additive, causal = None, True
    else:
        additive = None if inputs.mask is None else attention_mask
        if inputs.bias is not None:
            additive = position_bias if additive is None else additive + position_bias  # (b, heads, q, k)
        causal = False
    return torch.nn.functional.scaled_dot_product_attention(
        inputs.query, inputs.key, value, attn_mask=additive, dropout_p=dropout, is_causal=causal,
        scale=inputs.scaling, enable_gqa=inputs.key.shape[1] != inputs.heads,
    )  # (b, heads, q, d)  # fmt: skip


# ----------------------------------------------------------------------------------------------------------------------
# The result


@dataclass(frozen=True)
class LazyStack:
    """One map kind of a lazy capture: a `LayerInputs` per layer and the tokens along each axis."""

    kind: str
    layers: list[LayerInputs]
    layer_names: list[str]
    query_tokens: list[Token]
    key_tokens: list[Token]
    causal: bool


def _fill(inputs: LayerInputs, heads: list[int], rows: tuple[int, int], keys: tuple[int, int], out: np.ndarray):
    """Write the weights of `heads` × query rows × key columns into `out` (heads, rows, keys), one tile at a time."""
    (start, stop), (k0, k1) = rows, keys
    for first, last in _spans(start, stop, _tile_rows(len(heads) * inputs.keys)):
        tile = inputs.probabilities(heads, first, last)  # (heads', tile rows, keys)
        out[:, first - start : last - start] = tile[:, :, k0:k1].cpu().numpy()


def _row_span(rows: int | tuple[int, int] | None, size: int) -> tuple[int, int]:
    if isinstance(rows, (int, np.integer)) and not isinstance(rows, bool):
        index = analysis.indices(int(rows), size, "query row")[0]
        return index, index + 1
    return analysis.index_range(rows, size, "query")


@dataclass(frozen=True)
class LazyCapture:
    """Attention of one run, computed exactly when asked: `weights`, `layer`, `map`, `head_statistics`, `downsampled`.

    Kinds are those of `capture`: "self" for one-stack models, "encoder", "decoder", "cross" for encoder-decoder ones,
    with the same token conventions. Every result is float32 numpy, computed in fp32 from the kept queries and keys.
    """

    model: str
    device: str
    stacks: dict[str, LazyStack]
    source_text: str = ""
    target_text: str | None = None

    @property
    def kinds(self) -> list[str]:
        return list(self.stacks)

    def stack(self, kind: str) -> LazyStack:
        try:
            return self.stacks[kind]
        except KeyError:
            raise InputError(f"This capture has no {kind!r} map; it has {', '.join(self.stacks) or 'none'}.") from None

    def shape(self, kind: str) -> tuple[int, int, int, int]:
        """(layers, heads, queries, keys) of the map `capture` would have returned for `kind`."""
        stack = self.stack(kind)
        return len(stack.layers), stack.layers[0].heads, len(stack.query_tokens), len(stack.key_tokens)

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
        index = analysis.indices(layer, len(stack.layers), "layer")[0]
        return stack, stack.layers[index], index

    def weights(
        self, kind: str, layer: int, head: int, rows: int | tuple[int, int] | None = None,
        keys: tuple[int, int] | None = None,
    ) -> np.ndarray:  # fmt: skip
        """One head: float32 (rows, keys) for query rows `rows` (an index, (start, stop) or None = all) and key
        columns `keys` ((start, stop) or None = all). Costs that head's rows only."""
        return self.layer(kind, layer, rows, keys, heads=[head])[0]

    def layer(
        self, kind: str, layer: int, rows: int | tuple[int, int] | None = None, keys: tuple[int, int] | None = None,
        heads: int | Sequence[int] | None = None,
    ) -> np.ndarray:  # fmt: skip
        """Every head (or `heads`) of one layer: float32 (heads, rows, keys), computed in row tiles."""
        _, inputs, index = self._layer(kind, layer)
        head_idx = analysis.indices(heads, inputs.heads, "head")
        start, stop = _row_span(rows, inputs.queries)
        k0, k1 = analysis.index_range(keys, inputs.keys, "key")
        check_bytes(
            len(head_idx) * (stop - start) * (k1 - k0) * FLOAT32,
            f"Opening {len(head_idx)} head(s) of layer {index} over {stop - start:,} × {k1 - k0:,} tokens",
            "open fewer heads or a range of rows",
        )
        if len(head_idx) * (stop - start) * inputs.keys <= TILE_CELLS:  # one tile: hand its buffer over, no copy
            tile = inputs.probabilities(head_idx, start, stop)[:, :, k0:k1]  # (heads', rows, keys')
            return np.ascontiguousarray(tile.cpu().numpy())
        result = np.empty((len(head_idx), stop - start, k1 - k0), dtype=np.float32)
        _fill(inputs, head_idx, (start, stop), (k0, k1), result)
        return result

    def map(
        self, kind: str, layers: int | Sequence[int] | None = None, heads: int | Sequence[int] | None = None,
        queries: tuple[int, int] | None = None, keys: tuple[int, int] | None = None,
    ) -> AttentionMap:  # fmt: skip
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
        return AttentionMap(
            kind, weights, stack.query_tokens[q0:q1], stack.key_tokens[k0:k1],
            [stack.layer_names[i] for i in layer_idx], causal,
        )  # fmt: skip

    def to_capture(self) -> AttentionCapture:
        """Everything, as `capture` would return it (checked against the memory budget first)."""
        maps = {kind: self.map(kind) for kind in self.stacks}
        return AttentionCapture(self.model, self.device, maps, self.source_text, self.target_text, meta={"lazy": True})

    def head_statistics(
        self, kind: str, layers: int | Sequence[int] | None = None, heads: int | Sequence[int] | None = None
    ) -> dict[str, np.ndarray]:
        """`analysis.head_statistics` of the map, float32 (layers', heads') per statistic, streamed in row tiles:
        no more than one tile of one layer is ever held."""
        stack = self.stack(kind)
        layer_idx = analysis.indices(layers, len(stack.layers), "layer")
        head_idx = analysis.indices(heads, stack.layers[0].heads, "head")
        queries, keys = len(stack.query_tokens), len(stack.key_tokens)
        square = kind in analysis.SQUARE_KINDS and queries == keys
        sinks = analysis.sink_keys(stack.key_tokens)
        shape = (len(layer_idx), len(head_idx))
        sums: dict[str, tuple[np.ndarray, np.ndarray]] = {}  # statistic -> (sums, counts), each (layers', heads')
        for slot, layer in enumerate(layer_idx):
            inputs = stack.layers[layer]
            for first, last in _spans(0, queries, _tile_rows(len(head_idx) * keys)):
                tile = inputs.probabilities(head_idx, first, last).cpu().numpy()  # (heads', rows, keys)
                for name, (total, count) in analysis.statistic_sums(tile, first, queries, sinks, square).items():
                    running = sums.setdefault(name, (np.zeros(shape), np.zeros(shape)))
                    running[0][slot] += total
                    running[1][slot] += count
        return analysis.statistic_means(sums, shape)

    def head_statistics_table(self, kind: str) -> list[dict]:
        """One row per (layer, head), as `analysis.head_statistics_table` gives for a full map."""
        return analysis.statistics_table(self.head_statistics(kind), self.stack(kind).layer_names)

    def downsampled(self, kind: str, layer: int, head: int, max_tokens: int = 256, pool: str = "max") -> Pooled:
        """One head pooled to at most `max_tokens` bins per side, tile by tile (`analysis.downsample`: "max" keeps
        peaks visible, "mean" keeps mass). Cells a causal map masks are NaN before pooling, as the heatmap draws
        them; the result equals pooling the full map, which is never held."""
        if max_tokens < 1:
            raise InputError("max_tokens must be at least 1.")
        stack, inputs, _ = self._layer(kind, layer)
        head_idx = analysis.indices(head, inputs.heads, "head")
        queries, keys = inputs.queries, inputs.keys
        query_factor, key_factor = max(1, -(-queries // max_tokens)), max(1, -(-keys // max_tokens))
        masked = analysis.mask_of(queries, keys, stack.causal)  # (queries, keys) bool
        parts = []
        for first, last in _spans(0, queries, _tile_rows(keys, multiple=query_factor)):
            tile = inputs.probabilities(head_idx, first, last)[0].cpu().numpy()  # (rows, keys)
            tile = np.where(masked[first:last], np.nan, tile)
            parts.append(analysis.downsample(tile, query_factor, key_factor, pool))
        return Pooled(np.concatenate(parts), query_factor, key_factor, pool)


# ----------------------------------------------------------------------------------------------------------------------
# Public entry point


def capture_lazy(handle: ModelHandle, text: str, target: str | None = None, truncate: bool = False) -> LazyCapture:
    """Run the model once on `text` (force-decoding `target` for encoder-decoder models) keeping queries and keys,
    so that any layer, head or row can be computed exactly later. Same maps, tokens and `truncate` as `capture`.

    Checked first: the text length (ATTNVIZ_MAX_CHARS) and the lazy memory estimate (ATTNVIZ_MEMORY_BUDGET_MB).
    """
    batch = prepare_batch(handle, [text], None if target is None else [target], truncate, mode="lazy")
    recorder = run_batch(handle, batch, QueryKeyRecorder)
    recorder.release()
    layers = _layers_by_role(handle.model, recorder, handle.is_seq2seq)
    source = batch.sources[0]

    def stack(kind, role, query_tokens, key_tokens, causal=False) -> LazyStack:
        inputs = [recorder.calls[name][call] for name, call in layers[role]]
        return LazyStack(kind, inputs, layer_names(recorder, layers[role]), query_tokens, key_tokens, causal)

    if not handle.is_seq2seq:
        stacks = {"self": stack("self", "self", source.tokens, source.tokens, causal=handle.kind == "decoder")}
    else:
        stacks = {"encoder": stack("encoder", "encoder", source.tokens, source.tokens)}
        if batch.decoded is not None:
            decoded = batch.decoded[0]
            stacks["decoder"] = stack("decoder", "decoder", decoded.tokens, batch.decoder_keys(0), causal=True)
            stacks["cross"] = stack("cross", "cross", decoded.tokens, source.tokens)
    return LazyCapture(handle.name, handle.device, stacks, source_text=batch.texts[0], target_text=target)
