"""Which keys each query of one example sees, in the forms a fused kernel takes: its own causal triangle, a mask of
hidden keys, or (for anything else) a dense additive mask.

The atlas reads the masks transformers builds for SDPA (`attention.recorder.FUSED_IMPLEMENTATION`): None — no mask,
or the kernel's causal flag —, or a boolean (batch, 1, q, k) mask, True where a query may attend, where padding needs
one. `visibility_of` turns one example's share of that mask into the compact form whenever it is one (causal or not,
plus the keys hidden from every query), so that no n × n mask is kept; a mask of another shape stays dense.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from attnviz.attention import tiles
from attnviz.attention.npu import MASKED_BIAS_THRESHOLD


@dataclass(frozen=True)
class Visibility:
    """The keys the queries of one example see: query i sees key j when `causal` allows it (j ≤ i, top-left, as the
    kernels' flag; only for as many queries as keys), `key_keep[j]` is True (None: every key) and `dense[…, i, j]`
    is not −inf (None: no dense mask). A dense mask is additive (1, 1|heads, queries, keys) and may carry a position
    bias (T5); with it, the other two are off."""

    causal: bool
    key_keep: torch.Tensor | None = None  # bool (keys,)
    dense: torch.Tensor | None = None  # float (1, 1|heads, queries, keys), −inf where hidden

    def mask(
        self, rows: tuple[int, int], keys: tuple[int, int], dtype: torch.dtype, device=None
    ) -> torch.Tensor | None:
        """Additive (1, 1|heads, rows|1, keys) mask of query rows × key columns, −inf where hidden; None: all seen."""
        (r0, r1), (k0, k1) = rows, keys
        if self.dense is not None:
            return self.dense[..., r0:r1, k0:k1].to(dtype)
        keep = None if self.key_keep is None else self.key_keep[k0:k1][None, :]  # (1, keys)
        if self.causal:
            key_at = torch.arange(k0, k1, device=device)[None, :]
            triangle = key_at <= torch.arange(r0, r1, device=device)[:, None]  # (rows, keys)
            keep = triangle if keep is None else keep & triangle
        if keep is None:
            return None
        return torch.zeros(keep.shape, dtype=dtype, device=keep.device).masked_fill_(~keep, float("-inf"))[None, None]

    def pieces(self, queries: int, keys: tuple[int, int], dtype: torch.dtype, device=None) -> list[tuple]:
        """The kernel calls that cover every query row against key columns `keys` = (k0, k1): (first row, last row,
        additive mask or None, the kernel's causal flag). Under a causal mask the rows before k0 see none of these
        keys and are left out; rows k0 … k1 − 1 take the kernel's triangle (a square: every kernel aligns it alike);
        the rows after see every one of them."""
        k0, k1 = keys
        if self.dense is not None or not self.causal:
            return [(0, queries, self.mask((0, queries), keys, dtype, device), False)]
        hidden = self._hidden_keys(keys, dtype)
        diagonal_end = min(k1, queries)
        found = [(k0, diagonal_end, hidden, True)] if k0 < diagonal_end else []
        if diagonal_end < queries:
            found.append((diagonal_end, queries, hidden, False))
        return found

    def _hidden_keys(self, keys: tuple[int, int], dtype: torch.dtype) -> torch.Tensor | None:
        """(1, 1, 1, keys) additive mask of the keys hidden from every query, or None."""
        if self.key_keep is None:
            return None
        keep = self.key_keep[keys[0] : keys[1]]
        return torch.zeros(keep.shape, dtype=dtype, device=keep.device).masked_fill_(~keep, float("-inf"))[
            None, None, None
        ]


def visibility_of(
    mask: torch.Tensor | None, causal: bool, queries: tuple[int, int], keys: tuple[int, int], example: int
) -> Visibility:
    """One example's `Visibility` over its query rows `queries` = (q0, q1) and key columns `keys` = (k0, k1) of the
    padded batch (its own tokens), from what the model passed to the attention call: no mask (then `causal` is the
    kernel's flag, as SDPA reads it), a boolean (batch, 1|heads, q, k) SDPA mask, or an additive float one (−10⁴ or
    less counts as hidden). A mask holds its causal triangle itself."""
    if mask is None:
        return Visibility(causal)
    (q0, q1), (k0, k1) = queries, keys
    part = mask[example, :, q0:q1, k0:k1]  # (1|heads, rows, keys)
    keep = part if part.dtype == torch.bool else part > MASKED_BIAS_THRESHOLD
    compact = _compact(keep)
    if compact is not None:
        return compact
    if part.dtype == torch.bool:
        dense = torch.zeros(part.shape, dtype=torch.float32, device=part.device).masked_fill_(~part, float("-inf"))
    else:
        dense = part.float().masked_fill(~keep, float("-inf"))
    return Visibility(False, None, dense[None])


def _compact(keep: torch.Tensor) -> Visibility | None:
    """The compact Visibility equal to the boolean mask `keep` (1|heads, rows, keys), or None when it has none."""
    if keep.shape[0] != 1:
        return None
    keep = keep[0]
    rows, keys = keep.shape
    key_keep = keep[-1]  # the last query row sees every key but those hidden from all
    for causal in (False, True) if rows == keys else (False,):
        form = Visibility(causal, None if bool(key_keep.all()) else key_keep)
        if _equal(form, keep):
            return form
    return None


def _equal(form: Visibility, keep: torch.Tensor) -> bool:
    """Whether `form` hides exactly what `keep` (rows, keys) hides."""
    rows, keys = keep.shape
    for first, last in tiles.spans(0, rows, tiles.tile_rows(keys)):
        seen = form.mask((first, last), (0, keys), torch.float32, keep.device)
        expected = keep[first:last]
        got = torch.ones_like(expected) if seen is None else torch.isfinite(seen[0, 0]).expand_as(expected)
        if not torch.equal(got, expected):
            return False
    return True
