"""An atlas with what opens its windows: the numpy `maps.atlas.Atlas` (block maps, sink mass, tokens, provenance)
and, per layer, the queries, keys and LSE that recompute any window of any head exactly (`blocks.window`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from attnviz.atlas.blocks import window
from attnviz.atlas.visibility import Visibility
from attnviz.errors import InputError, Phrase
from attnviz.indexing import indices
from attnviz.maps import analysis, atlas_stats
from attnviz.maps.atlas import Atlas, AtlasMap, WindowInputs
from attnviz.model.memory import FLOAT32, check_bytes
from attnviz.types import AttentionMap, position


@dataclass(frozen=True)
class AtlasLayer:
    """One layer of one example: what recomputes its windows."""

    query: torch.Tensor | None  # (1, heads, q, d), None when the run kept no queries
    key: torch.Tensor | None  # (1, kv_heads, k, d)
    lse: torch.Tensor  # float32 (1, heads, q)
    scale: float
    visibility: Visibility

    @property
    def opens(self) -> bool:
        return self.query is not None and self.key is not None

    def inputs(self) -> WindowInputs | None:
        """The same as numpy, for a file; None when the queries were not kept or the mask is not compact."""
        if not self.opens or self.visibility.dense is not None:
            return None
        keep = self.visibility.key_keep
        return WindowInputs(
            _numpy(self.query[0]),
            _numpy(self.key[0]),
            _numpy(self.lse[0]),
            self.scale,
            self.visibility.causal,
            None if keep is None else keep.cpu().numpy(),
        )

    @classmethod
    def of(cls, inputs: WindowInputs) -> AtlasLayer:
        """A layer of a saved atlas (numpy arrays shared, not copied)."""
        keep = None if inputs.key_keep is None else torch.from_numpy(inputs.key_keep)
        return cls(
            torch.from_numpy(inputs.query)[None],
            torch.from_numpy(inputs.key)[None],
            torch.from_numpy(inputs.lse)[None],
            inputs.scale,
            Visibility(inputs.causal, keep),
        )


def _numpy(tensor: torch.Tensor) -> np.ndarray:
    """float32 numpy (shared with the tensor when it is float32 on the CPU)."""
    return tensor.detach().to("cpu", torch.float32).numpy()


@dataclass(frozen=True)
class AtlasCapture:
    """Every head as block maps (`atlas`), statistics and labels from them, and exact windows on demand (`window`,
    `row`, `head_map`) where the run kept its queries and keys (`layers`)."""

    atlas: Atlas
    layers: dict[str, list[AtlasLayer]]  # kind -> per layer

    def __getitem__(self, kind: str) -> AtlasMap:
        return self.atlas[kind]

    @property
    def kinds(self) -> list[str]:
        return self.atlas.kinds

    def statistics(self, kind: str) -> dict[str, np.ndarray]:
        """`maps.atlas_stats.head_statistics` of the map: float64 (layers, heads) per statistic."""
        return atlas_stats.head_statistics(self.atlas[kind])

    def patterns(self, kind: str) -> np.ndarray:
        """`maps.atlas_stats.pattern_labels`: str (layers, heads)."""
        return atlas_stats.pattern_labels(self.atlas[kind])

    @property
    def window_bytes(self) -> int:
        """Bytes the kept queries, keys and LSE take."""
        tensors = [t for kind in self.layers.values() for layer in kind for t in (layer.query, layer.key, layer.lse)]
        return sum(t.numel() * t.element_size() for t in tensors if t is not None)

    def _layer(self, kind: str, layer: int) -> AtlasLayer:
        layers = self.layers.get(kind)
        if layers is None:
            self.atlas[kind]  # noqa: B018 - an unknown kind raises the error naming the known ones
        chosen = layers[position(layer, len(layers), "layer")]
        if not chosen.opens:
            raise InputError("atlas_no_windows")
        return chosen

    def windows(
        self,
        kind: str,
        layer: int,
        heads: int | list[int] | None = None,
        rows: tuple[int, int] | None = None,
        keys: tuple[int, int] | None = None,
    ) -> np.ndarray:
        """float32 (heads, rows, keys): exact weights of query rows `rows` × key columns `keys` ((start, stop), None =
        all) of `heads` (None = all) of one layer."""
        chosen = self._layer(kind, layer)
        amap = self.atlas[kind]
        head_idx = indices(heads, amap.num_heads, "head")
        span_rows = analysis.index_range(rows, len(amap.query_tokens), "query")
        span_keys = analysis.index_range(keys, len(amap.key_tokens), "key")
        cells = len(head_idx) * (span_rows[1] - span_rows[0]) * (span_keys[1] - span_keys[0])
        check_bytes(cells * FLOAT32, Phrase("atlas.memory_window", cells=cells), Phrase("atlas.memory_window_advice"))
        found = window(
            chosen.query, chosen.key, chosen.lse, chosen.visibility, chosen.scale, head_idx, span_rows, span_keys
        )
        return found.cpu().numpy()

    def window(self, kind: str, layer: int, head: int, rows=None, keys=None) -> np.ndarray:
        """float32 (rows, keys) of one head (`windows`)."""
        return self.windows(kind, layer, [head], rows, keys)[0]

    def row(self, kind: str, layer: int, head: int, query: int) -> np.ndarray:
        """float32 (keys,): one query token's weights over the whole context."""
        at = position(query, len(self.atlas[kind].query_tokens), "query row")
        return self.window(kind, layer, head, (at, at + 1))[0]

    def window_map(self, kind: str, layer: int, head: int, rows=None, keys=None) -> AttentionMap:
        """The exact window of one head as an AttentionMap (one layer, one head), with its tokens, for the figures
        that draw maps; still causal only where its masked cells are the triangle a causal map draws."""
        amap = self.atlas[kind]
        spans = analysis.crop_spans(len(amap.query_tokens), len(amap.key_tokens), amap.causal, rows, keys)
        (q0, q1), (k0, k1), causal = spans
        weights = self.window(kind, layer, head, (q0, q1), (k0, k1))[None, None]  # (1, 1, rows, keys)
        layer = position(layer, amap.num_layers, "layer")
        return AttentionMap(
            kind,
            weights,
            amap.query_tokens[q0:q1],
            amap.key_tokens[k0:k1],
            [amap.layer_names[layer]],
            causal,
            layer_numbers=(layer,),
            head_numbers=(position(head, amap.num_heads, "head"),),
        )

    def head_map(self, kind: str, layer: int, head: int) -> np.ndarray:
        """float32 (queries, keys): one head's every weight, when it fits the memory budget."""
        return self.window(kind, layer, head)

    def window_inputs(self) -> dict[str, list[WindowInputs]] | None:
        """Per kind, what a file keeps to reopen windows (`export.atlas_file`); None when the run kept no queries.
        A kind whose mask has no compact form is left out."""
        found = {}
        for kind, layers in self.layers.items():
            inputs = [layer.inputs() for layer in layers]
            if all(part is not None for part in inputs):
                found[kind] = inputs
        return found or None

    @classmethod
    def of_saved(cls, atlas: Atlas, windows: dict[str, list[WindowInputs]] | None) -> AtlasCapture:
        """A saved atlas (`export.atlas_file.read_atlas`) with its windows reopened when the file keeps them."""
        layers = {}
        for kind, amap in atlas.maps.items():
            saved = (windows or {}).get(kind)
            if saved is None:
                empty = torch.zeros(1, amap.num_heads, 0)
                layers[kind] = [AtlasLayer(None, None, empty, 1.0, Visibility(amap.causal))] * amap.num_layers
            else:
                layers[kind] = [AtlasLayer.of(part) for part in saved]
        return cls(atlas, layers)
