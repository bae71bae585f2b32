"""The long-context atlas as numpy: every head's block masses and the exact sink shares (`Atlas`), and what recomputes
any window exactly — the queries, keys and row log-sum-exps (`WindowInputs`, kept when asked). Made by `attnviz.atlas` (which runs the model), read by
figures, the app and the file format (`maps.atlas_file`) without torch.

A block map is the attention of one head seen through a grid of `block` × `block` tokens:
`blocks[l, h, I, J]` = (1 / |I|) · Σ_{i ∈ I} Σ_{j ∈ J} a_ij, the mean share of a query of block I's attention that goes
to key block J (each block row sums to 1, less the rows that see no key). It is exact (computed from every weight,
in one fused pass), not pooled from a sample.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from attnviz.errors import InputError
from attnviz.types import Token, missing_map


@dataclass(frozen=True)
class WindowInputs:
    """What recomputes any window of one layer exactly: weights = exp(scale · q kᵀ + mask − lse)."""

    query: np.ndarray  # float32 (heads, queries, d)
    key: np.ndarray  # float32 (kv_heads, keys, d): un-repeated under grouped queries
    lse: np.ndarray  # float32 (heads, queries); −inf for a row that sees no key
    scale: float
    causal: bool  # keys after each query hidden (top-left: query i sees keys 0 … i)
    key_keep: np.ndarray | None = None  # bool (keys,): keys hidden from every query where False; None: every key

    @property
    def nbytes(self) -> int:
        kept = (self.query, self.key, self.lse) + (() if self.key_keep is None else (self.key_keep,))
        return sum(array.nbytes for array in kept)


@dataclass(frozen=True)
class AtlasMap:
    """One map kind of an atlas ("self", "encoder", "decoder" or "cross", as `types.MAP_SPECS`)."""

    kind: str
    blocks: np.ndarray  # float32 (layers, heads, query blocks, key blocks): module docstring
    block: int  # tokens per block along each axis (the last block may hold fewer)
    query_tokens: list[Token]
    key_tokens: list[Token]
    layer_names: list[str]
    causal: bool
    sink_mass: np.ndarray  # float32 (layers, heads): `attnviz.maps.atlas_stats.STATISTICS["sink"]`, exact
    sink_tokens: int

    def __post_init__(self):
        layers, heads, row_blocks, key_blocks = self.blocks.shape
        expected = (-(-len(self.query_tokens) // self.block), -(-len(self.key_tokens) // self.block))
        if (row_blocks, key_blocks) != expected or len(self.layer_names) != layers:
            raise InputError(
                "atlas_shape",
                shape=tuple(self.blocks.shape),
                queries=len(self.query_tokens),
                keys=len(self.key_tokens),
                block=self.block,
                layers=len(self.layer_names),
            )
        if self.sink_mass.shape != (layers, heads):
            raise InputError("atlas_sink_shape", shape=tuple(self.sink_mass.shape), layers=layers, heads=heads)

    @property
    def num_layers(self) -> int:
        return self.blocks.shape[0]

    @property
    def num_heads(self) -> int:
        return self.blocks.shape[1]

    def block_rows(self) -> np.ndarray:
        """int (query blocks,): how many query rows each block holds (the last may hold fewer)."""
        return block_sizes(len(self.query_tokens), self.block)

    def block_keys(self) -> np.ndarray:
        """int (key blocks,): how many keys each key block holds."""
        return block_sizes(len(self.key_tokens), self.block)


def block_sizes(tokens: int, block: int) -> np.ndarray:
    """int (blocks,): tokens per block of `block` tokens, the last holding the rest."""
    sizes = np.full(-(-tokens // block), block, dtype=np.int64)
    if sizes.size:
        sizes[-1] = tokens - block * (sizes.size - 1)
    return sizes


@dataclass(frozen=True)
class Atlas:
    """Every head of every layer of one run, as block maps, with where it came from."""

    model: str
    device: str
    maps: dict[str, AtlasMap]
    source_text: str = ""
    target_text: str | None = None
    provenance: dict = field(default_factory=dict)

    @property
    def kinds(self) -> list[str]:
        return list(self.maps)

    def __getitem__(self, kind: str) -> AtlasMap:
        try:
            return self.maps[kind]
        except KeyError:
            raise missing_map(kind, list(self.maps)) from None
