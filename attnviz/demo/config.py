"""How a demo model is trained: the settings of one run, and the record that run leaves next to the weights.

attnviz.demo.train trains from a TrainConfig; attnviz.demo.card and attnviz.demo.evaluate read the record back.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

from attnviz.demo.corpus import DEFAULT_SEED
from attnviz.errors import AttnvizError, InputError

TRAINING_RECORD = "training.json"  # written by attnviz.demo.train next to the weights


@dataclass
class TrainConfig:
    direction: str = "zh-en"
    seed: int = DEFAULT_SEED
    d_model: int = 160
    layers: int = 3  # encoder layers = decoder layers
    heads: int = 4
    ffn_dim: int = 640
    dropout: float = 0.1
    steps: int = 1700
    batch_size: int = 96  # pairs per batch at most
    batch_tokens: int = 1600  # padded source + target tokens per batch at most (batches group similar lengths)
    learning_rate: float = 1e-3
    warmup_steps: int = 250
    label_smoothing: float = 0.1
    alignment_weight: float = 0.5
    alignment_layer: int = -1  # decoder layer of the supervised head; -1 = the last
    alignment_head: int = 0
    phrasebook_repeat: int = 20  # the phrasebook is small; repeating it makes its phrases exact
    hsk_repeat: int = 2  # the real sentences count most; the dictionary pairs are many and short
    max_pairs: int | None = None  # train on the first N corpus pairs only (the smoke test)
    max_heldout: int | None = None  # score the first N held-out pairs only (the smoke test)
    threads: int = 1  # on a shared 2-core machine a second thread waits on the first more than it helps
    log_every: int = 0  # print a plain progress line every N steps (for a log file); 0: none
    save_every: int = 0  # save the weights every N steps (a long run stopped early keeps its last); 0: at the end
    init_from: str | None = None  # continue from an earlier run's folder (a second stage, same corpus)

    @property
    def languages(self) -> tuple[str, str]:
        source, _, target = self.direction.partition("-")
        return source, target

    @property
    def supervised_layer(self) -> int:
        return self.alignment_layer % self.layers


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
    from attnviz.demo.weights import read_weights  # (torch: imported only when a stage continues)

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
    import torch

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


def run_tool(prog: str, work, *arguments):
    """`work(*arguments)` for a command-line tool: an AttnvizError is one line on stderr and exit code 2."""
    try:
        return work(*arguments)
    except AttnvizError as error:
        print(f"{prog}: error: {error.message('en')}", file=sys.stderr)
        sys.exit(2)
