"""Store a demo model's weights in float16, half the file: a model up to twice as large fits the size limit.

    python -m attnviz.demo.half assets/models/en-zh

Training saves float32. The stored float16 weights are loaded as the config's float32 (transformers casts them), so
attnviz computes and captures in float32 as before; only the weights are rounded to float16 (the model card's scores
are those of the stored weights). Weights already float16 are left as they are.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import torch

from attnviz.demo.config import run_tool
from attnviz.errors import InputError

WEIGHTS = "model.safetensors"


def stored_dtype(folder: Path) -> str:
    """The dtype the folder's weights are stored in ("float32", "float16"), read from the file's header."""
    from safetensors import safe_open

    with safe_open(str(Path(folder) / WEIGHTS), framework="pt") as weights:
        first = next(iter(weights.keys()))
        code = weights.get_slice(first).get_dtype()  # "F32", "F16", "BF16"
    return {"F32": "float32", "F16": "float16", "BF16": "bfloat16"}.get(code, code.lower())


def store_half(folder: Path) -> int:
    """Rewrite the folder's float32 weights as float16; returns the new file's size in bytes."""
    from safetensors.torch import load_file, save_file

    path = Path(folder) / WEIGHTS
    if not path.is_file():
        raise InputError("demo_average_not_a_model", path=str(folder))
    weights = load_file(str(path))
    halved = {name: t.to(torch.float16) if t.dtype == torch.float32 else t for name, t in weights.items()}
    save_file(halved, str(path), metadata={"format": "pt"})
    return path.stat().st_size


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, help="a saved model folder")
    args = parser.parse_args(argv)
    size = run_tool("attnviz.demo.half", store_half, args.folder)
    print(f"{args.folder / WEIGHTS}: float16, {size / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
