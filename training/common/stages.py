"""A training run in stages: the record each run leaves next to its weights, and continuing from an earlier stage.

A stage that continues from an earlier folder keeps that folder's record as its `earlier_stage`, so a model card can
tell the whole chain of commands; both the translators and the decoder train this way.
"""

from __future__ import annotations

import json
from pathlib import Path

import torch

from attnviz.errors import InputError
from training.common.weights import read_weights

TRAINING_RECORD = "training.json"  # written by each training run next to the weights


def training_stages(record: dict) -> list[dict]:
    """The training records of every stage, first to last (a stage continued from an earlier one keeps its record)."""
    stages = [record]
    while "earlier_stage" in stages[0]:
        stages.insert(0, stages[0]["earlier_stage"])
    return stages


def continue_from(model, folder: str | Path, derived: tuple[str, ...]) -> dict:
    """Load an earlier stage's weights from `folder` into `model` (the same shape); returns that stage's training
    record, to keep in this one's. `derived`: parameter names the file may lack (tied or computed ones). Read before
    training, so `folder` may be the output folder."""
    folder = Path(folder)
    earlier = json.loads((folder / TRAINING_RECORD).read_text(encoding="utf-8"))
    stored = widened_into(model.state_dict(), read_weights(folder), earlier["config"].get("ffn_dim"))
    missing, unexpected = model.load_state_dict(stored, strict=False)
    if unexpected or any(not any(part in name for part in derived) for name in missing):
        raise InputError("demo_stage_weights_differ", path=str(folder), names=", ".join(unexpected + missing))
    return earlier


def widened_into(fresh: dict, stored: dict, stored_ffn: int | None) -> dict:
    """The earlier stage's weights fitted to a model whose feed-forward blocks are wider (a larger `ffn_dim`, all else
    the same), computing what the earlier model computed: each block keeps its units, and the new ones get the fresh
    model's random input weights, zero bias and zero output weights — so they add nothing until training moves them
    (Net2Net's function-preserving widening, Chen et al. 2016). Tensors of any other shape pass unchanged (a wrong
    folder is still refused by the caller)."""
    grown = dict(stored)
    for name, old in stored.items():
        new = fresh.get(name)
        if new is None or new.shape == old.shape or old.shape[0] != stored_ffn and old.shape[-1] != stored_ffn:
            continue
        if name.endswith("fc1.weight"):  # (ffn, d): new units' rows stay random
            grown[name] = torch.cat([old.to(new.dtype), new[old.shape[0] :]])
        elif name.endswith("fc1.bias"):  # (ffn,)
            grown[name] = torch.cat([old.to(new.dtype), torch.zeros(new.shape[0] - old.shape[0], dtype=new.dtype)])
        elif name.endswith("fc2.weight"):  # (d, ffn): the new units' outputs start at zero
            zeros = torch.zeros(new.shape[0], new.shape[1] - old.shape[1], dtype=new.dtype)
            grown[name] = torch.cat([old.to(new.dtype), zeros], dim=1)
    return grown
