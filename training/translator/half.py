"""Store a demo model's weights in float16, half the file: a model up to twice as large fits the size limit.

    python -m training.translator.half assets/models/en-zh

Training saves float32. The stored float16 weights are loaded as the config's float32 (transformers casts them), so
attnviz computes and captures in float32 as before; only the weights are rounded to float16 (the model card's scores
are those of the stored weights). Weights already float16 are left as they are.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import torch

from attnviz.errors import InputError
from training.common.tool import run_tool
from training.common.weights import has_weights, read_weights, weight_files, weights_bytes, write_weights


def store_half(folder: Path) -> int:
    """Rewrite the folder's float32 weights as float16 (in shards if they are still too large for one file);
    returns the size of the weight files written, in bytes."""
    if not has_weights(folder):
        raise InputError("demo_average_not_a_model", path=str(folder))
    weights = read_weights(folder)
    halved = {name: t.to(torch.float16) if t.dtype == torch.float32 else t for name, t in weights.items()}
    write_weights(folder, halved)
    return weights_bytes(folder)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, help="a saved model folder")
    args = parser.parse_args(argv)
    size = run_tool("training.translator.half", store_half, args.folder)
    names = ", ".join(path.name for path in weight_files(args.folder))
    print(f"{args.folder}: float16, {size / 1e6:.1f} MB ({names})")


if __name__ == "__main__":
    main()
