"""The atlas as a file: one `.npz` (numpy's zip of arrays, read without pickle and without the model) holding every map's
block masses, sink mass, head statistics and pattern labels, the tokens, layer names and provenance — and, when kept,
the queries, keys and row log-sum-exps that recompute any window exactly (`maps.atlas.WindowInputs`), with their size
written in the metadata.

Arrays: `<kind>.blocks` (layers, heads, query blocks, key blocks) float32, `<kind>.sink_mass` and `<kind>.stat.<name>`
(layers, heads), `<kind>.pattern` (layers, heads) text; with windows `<kind>.query` (layers, heads, q, d) float32,
`<kind>.key` (layers, kv_heads, k, d), `<kind>.lse` (layers, heads, q) and `<kind>.key_keep` (layers, k) bool. `meta`:
one JSON text (format, model, texts, provenance, and per kind its block, tokens, layer names, windows' scales and
causal flags, and the bytes the windows take).
"""

from __future__ import annotations

import io
import json
import os
import zipfile
from pathlib import Path

import numpy as np

from attnviz.errors import InputError
from attnviz.export.files import write_atomic
from attnviz.export.schema import _token_dict, _token_from
from attnviz.maps import atlas_stats
from attnviz.maps.atlas import Atlas, AtlasMap, WindowInputs
from attnviz.provenance import json_safe

FORMAT = "attnviz-atlas/1"
Windows = dict[str, list[WindowInputs]]  # kind -> per layer


def atlas_arrays(atlas: Atlas, windows: Windows | None = None) -> dict[str, np.ndarray]:
    """Every array of the file, `meta` included."""
    arrays: dict[str, np.ndarray] = {}
    meta = {
        "format": FORMAT,
        "model": atlas.model,
        "device": atlas.device,
        "source_text": atlas.source_text,
        "target_text": atlas.target_text,
        "provenance": json_safe(atlas.provenance),
        "maps": {},
    }
    for kind, amap in atlas.maps.items():
        stats = atlas_stats.head_statistics(amap)
        arrays[f"{kind}.blocks"] = amap.blocks.astype(np.float32)
        arrays[f"{kind}.sink_mass"] = amap.sink_mass.astype(np.float32)
        arrays.update({f"{kind}.stat.{name}": values for name, values in stats.items()})
        arrays[f"{kind}.pattern"] = atlas_stats.pattern_labels(amap, stats).astype(str)
        meta["maps"][kind] = _map_meta(amap)
        if windows is not None and kind in windows:
            arrays.update(_window_arrays(kind, windows[kind]))
            meta["maps"][kind]["windows"] = _windows_meta(windows[kind])
    arrays["meta"] = np.array(json.dumps(meta, ensure_ascii=False))
    return arrays


def _map_meta(amap: AtlasMap) -> dict:
    return {
        "block": amap.block,
        "causal": amap.causal,
        "layer_names": list(amap.layer_names),
        "sink_tokens": amap.sink_tokens,
        "query_tokens": [_token_dict(token) for token in amap.query_tokens],
        "key_tokens": [_token_dict(token) for token in amap.key_tokens],
    }


def _window_arrays(kind: str, layers: list[WindowInputs]) -> dict[str, np.ndarray]:
    found = {
        f"{kind}.query": np.stack([layer.query for layer in layers]).astype(np.float32, copy=False),
        f"{kind}.key": np.stack([layer.key for layer in layers]).astype(np.float32, copy=False),
        f"{kind}.lse": np.stack([layer.lse for layer in layers]).astype(np.float32, copy=False),
    }
    if any(layer.key_keep is not None for layer in layers):
        keys = layers[0].key.shape[1]
        found[f"{kind}.key_keep"] = np.stack(
            [np.ones(keys, dtype=bool) if layer.key_keep is None else layer.key_keep for layer in layers]
        )
    return found


def _windows_meta(layers: list[WindowInputs]) -> dict:
    return {
        "scale": [float(layer.scale) for layer in layers],
        "causal": [bool(layer.causal) for layer in layers],
        "bytes": int(sum(layer.nbytes for layer in layers)),
    }


def save_atlas(path: str | os.PathLike, atlas: Atlas, windows: Windows | None = None, overwrite: bool = False) -> Path:
    """Write the atlas (and the windows' inputs, when given) to `path` atomically, uncompressed (the arrays are
    float noise to a compressor)."""
    arrays = atlas_arrays(atlas, windows)
    return write_atomic(path, lambda handle: np.savez(handle, **arrays), overwrite=overwrite)


def atlas_npz_bytes(atlas: Atlas, windows: Windows | None = None) -> bytes:
    """The file `save_atlas` writes, as bytes (a download)."""
    buffer = io.BytesIO()
    np.savez(buffer, **atlas_arrays(atlas, windows))
    return buffer.getvalue()


def read_atlas(path: str | os.PathLike) -> tuple[Atlas, Windows | None]:
    """(the atlas, the windows' inputs per kind or None) of a file `save_atlas` wrote; no model needed."""
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {name: data[name] for name in data.files}
    except (OSError, ValueError, zipfile.BadZipFile) as error:
        raise InputError("atlas_file_unreadable", path=str(path), detail=str(error)[:200]) from None
    meta = _meta(arrays, path)
    maps, windows = {}, {}
    for kind, described in meta["maps"].items():
        maps[kind] = AtlasMap(
            kind,
            arrays[f"{kind}.blocks"],
            int(described["block"]),
            [_token_from(token) for token in described["query_tokens"]],
            [_token_from(token) for token in described["key_tokens"]],
            list(described["layer_names"]),
            bool(described["causal"]),
            arrays[f"{kind}.sink_mass"],
            int(described["sink_tokens"]),
        )
        if "windows" in described:
            windows[kind] = _windows_of(kind, arrays, described["windows"])
    atlas = Atlas(
        meta["model"], meta["device"], maps, meta["source_text"], meta["target_text"], dict(meta["provenance"])
    )
    return atlas, (windows or None)


def _meta(arrays: dict[str, np.ndarray], path) -> dict:
    if "meta" not in arrays:
        raise InputError("atlas_file_not_atlas", path=str(path))
    meta = json.loads(str(arrays["meta"]))
    if meta.get("format") != FORMAT:
        raise InputError("atlas_file_not_atlas", path=str(path))
    return meta


def _windows_of(kind: str, arrays: dict[str, np.ndarray], described: dict) -> list[WindowInputs]:
    keep = arrays.get(f"{kind}.key_keep")
    return [
        WindowInputs(
            arrays[f"{kind}.query"][layer],
            arrays[f"{kind}.key"][layer],
            arrays[f"{kind}.lse"][layer],
            float(scale),
            bool(causal),
            None if keep is None or keep[layer].all() else keep[layer],
        )
        for layer, (scale, causal) in enumerate(zip(described["scale"], described["causal"]))
    ]
