"""What on-demand capture keeps of one attention call, in compact form, to recompute any head exactly later.

Per call: the queries (b, heads, q, d) and keys (b, kv_heads, k, d) as the model computed them (keys before
grouped-query expansion), the scaling, the soft-cap, the mask in compact form (which keys each example sees + causal
or not) and a relative position bias (T5) as one value per key − query offset — O(n·d), where the weights are O(n²).
On an NPU each row's log-sum-exp from the fused kernel is kept too, so that a block of keys costs only itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch

from attnviz.attention import tiles
from attnviz.attention.math import attention_probabilities, attention_scores, causal_keep, probabilities_from_lse


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
        """Exactly a kernel's own causal triangle (no padding, as many queries as keys)."""
        return self.causal and self.keys == self.queries and bool(self.key_keep.all())

    def rows(self, batch: int, start: int, stop: int) -> torch.Tensor:
        """The additive mask of query rows [start, stop): (1, 1, rows, keys), bit-for-bit what eager_mask built."""
        keep = self.key_keep[batch].expand(stop - start, -1)  # (rows, keys)
        if self.causal:
            keep = keep & causal_keep(self.queries, self.keys, "bottom_right", rows=(start, stop), device=keep.device)
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
        step = tiles.tile_rows(self.keys)
        return all(
            torch.equal(self.rows(batch, start, stop), mask[batch : batch + 1, :, start:stop])
            for batch in range(mask.shape[0])
            for start, stop in tiles.spans(0, self.queries, step)
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
        step = tiles.tile_rows(keys * bias.shape[1])
        for batch in range(bias.shape[0]):
            for start, stop in tiles.spans(0, queries, step):
                if not torch.equal(candidate.rows(batch, heads, start, stop), bias[batch : batch + 1, :, start:stop]):
                    return None
        return candidate


@dataclass(frozen=True)
class LayerInputs:
    """What recomputes one attention call exactly: softmax(q·kᵀ·scaling + bias + mask), soft-capped if asked."""

    query: torch.Tensor  # (batch, heads, queries, d), on the model's device, in the model's dtype
    key: torch.Tensor  # (batch, kv_heads, keys, d): before grouped-query expansion
    mask: CompactMask | torch.Tensor | None  # None: every key visible
    bias: RelativeBias | torch.Tensor | None  # None: no position bias (or an all-zero one)
    scaling: float | None
    softcap: float | None = None
    lse: torch.Tensor | None = None  # float32 (batch, heads, queries): each row's log-sum-exp, from a fused kernel

    @property
    def heads(self) -> int:
        """Query heads; the keys may have fewer (grouped-query attention)."""
        return self.query.shape[1]

    @property
    def queries(self) -> int:
        """Query rows, as many as the map has."""
        return self.query.shape[2]

    @property
    def keys(self) -> int:
        """Key columns, as many as the map has."""
        return self.key.shape[2]

    def probabilities(
        self, heads: Sequence[int], start: int, stop: int, batch: int = 0, keys: tuple[int, int] | None = None
    ) -> torch.Tensor:
        """fp32 (len(heads), stop − start, keys): the weights of query rows [start, stop) of the given heads, over
        key columns `keys` ((first, last), None = all). With a kept LSE only those columns are computed; without,
        the softmax needs whole rows, and they are cut afterwards."""
        heads = list(heads)
        k0, k1 = (0, self.keys) if keys is None else keys
        columns = slice(k0, k1) if self.lse is not None else slice(None)
        group = self.heads // self.key.shape[1]  # query heads per key head (grouped-query attention)
        query = self.query[batch, heads, start:stop].float()[None]  # (1, heads', rows, d)
        key = self.key[batch, [h // group for h in heads], columns].float()[None]  # (1, heads', keys', d)
        mask = self._mask_rows(batch, heads, start, stop)
        bias = self._bias_rows(batch, heads, start, stop)
        mask, bias = (None if part is None else part[..., columns] for part in (mask, bias))
        if self.lse is None:
            weights = attention_probabilities(query, key, mask, self.scaling, bias, self.softcap)[0]
            return weights if keys is None else weights[:, :, k0:k1]
        scores = attention_scores(query, key, mask, self.scaling, bias, self.softcap)  # (1, heads', rows, keys')
        return probabilities_from_lse(scores, self.lse[batch, heads, start:stop][None])[0]

    def mask_and_bias(self, head: int, start: int, stop: int, batch: int = 0) -> tuple[torch.Tensor | None, ...]:
        """(additive mask, position bias) of one head's query rows [start, stop), each (rows, keys) or None: the two
        terms eager attention adds to q·kᵀ·scaling, for a page that shows every step of one row."""
        shape = (stop - start, self.keys)
        parts = (self._mask_rows(batch, [head], start, stop), self._bias_rows(batch, [head], start, stop))
        return tuple(None if part is None else part[0, 0].expand(shape) for part in parts)  # (rows, keys)

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
        kept = [self.query, self.key] + ([] if self.lse is None else [self.lse])
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
