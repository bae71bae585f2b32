"""How a demo model's weights lie on disk: one `model.safetensors`, or shards listed by an index file.

The repository keeps no file over 20 MB, so weights larger than that are written as shards with
`model.safetensors.index.json`, the layout transformers' `save_pretrained` uses for large models; `from_pretrained`
loads either without being told. Every tool that reads or writes a demo model's weights (training stages, checkpoint
averaging, float16 storage, the model card) goes through this module.
"""

from __future__ import annotations

import json
from pathlib import Path

import torch
from safetensors import safe_open
from safetensors.torch import load_file, save_file

from attnviz.errors import InputError

WEIGHTS = "model.safetensors"
INDEX = "model.safetensors.index.json"
MAX_FILE_BYTES = 20_000_000  # the largest file the repository keeps


def weight_files(folder: Path) -> list[Path]:
    """The folder's weight files: the shards its index lists (in order), else the single file; [] when none."""
    folder = Path(folder)
    if (folder / INDEX).is_file():
        weight_map = json.loads((folder / INDEX).read_text(encoding="utf-8"))["weight_map"]
        return [folder / name for name in sorted(set(weight_map.values()))]
    return [folder / WEIGHTS] if (folder / WEIGHTS).is_file() else []


def has_weights(folder: Path) -> bool:
    return bool(weight_files(folder))


def weights_bytes(folder: Path) -> int:
    """The size of all the folder's weight files together."""
    return sum(path.stat().st_size for path in weight_files(folder))


def read_weights(folder: Path) -> dict[str, torch.Tensor]:
    """Every tensor of the folder's weights, by name, as stored (one file or all shards)."""
    tensors: dict[str, torch.Tensor] = {}
    for path in weight_files(folder):
        tensors.update(load_file(str(path)))
    return tensors


def stored_dtype(folder: Path) -> str:
    """The dtype the folder's weights are stored in ("float32", "float16"), read from the first file's header."""
    files = weight_files(folder)
    if not files:
        raise InputError("demo_average_not_a_model", path=str(folder))
    with safe_open(str(files[0]), framework="pt") as weights:
        first = next(iter(weights.keys()))
        code = weights.get_slice(first).get_dtype()  # "F32", "F16", "BF16"
    return {"F32": "float32", "F16": "float16", "BF16": "bfloat16"}.get(code, code.lower())


def write_weights(folder: Path, tensors: dict[str, torch.Tensor], max_file_bytes: int | None = None) -> list[Path]:
    """Write `tensors` as the folder's weights, replacing the ones there: one file when they fit in
    `max_file_bytes` (default `MAX_FILE_BYTES`), else shards of at most that size (a tensor larger than the limit
    gets a shard of its own) and their index. Returns the files written."""
    folder = Path(folder)
    groups = _shard_groups(tensors, MAX_FILE_BYTES if max_file_bytes is None else max_file_bytes)
    for old in weight_files(folder):
        old.unlink()
    (folder / INDEX).unlink(missing_ok=True)
    if len(groups) == 1:
        names = [folder / WEIGHTS]
    else:
        names = [folder / f"model-{i:05d}-of-{len(groups):05d}.safetensors" for i in range(1, len(groups) + 1)]
    for path, group in zip(names, groups, strict=True):
        save_file({name: tensors[name] for name in group}, str(path), metadata={"format": "pt"})
    if len(groups) > 1:
        index = {
            "metadata": {"total_size": sum(_tensor_bytes(t) for t in tensors.values())},
            "weight_map": {name: path.name for path, group in zip(names, groups) for name in group},
        }
        (folder / INDEX).write_text(json.dumps(index, indent=1) + "\n", encoding="utf-8")
    return names


def _tensor_bytes(tensor: torch.Tensor) -> int:
    return tensor.numel() * tensor.element_size()


def _shard_groups(tensors: dict[str, torch.Tensor], max_file_bytes: int) -> list[list[str]]:
    """Tensor names in groups of at most `max_file_bytes` (file headers aside: the limit keeps a margin), in the
    order given."""
    budget = max_file_bytes - min(1_000_000, max_file_bytes // 20)  # headers: names, shapes, offsets of the tensors
    groups: list[list[str]] = [[]]
    size = 0
    for name, tensor in tensors.items():
        if groups[-1] and size + _tensor_bytes(tensor) > budget:
            groups.append([])
            size = 0
        groups[-1].append(name)
        size += _tensor_bytes(tensor)
    return groups
