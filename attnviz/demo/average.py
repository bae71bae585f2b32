"""Checkpoint averaging: one model whose weights are the mean of several checkpoints of the same run.

    python -m attnviz.demo.train ... --save-every 250 --keep-checkpoints --out RUN
    python -m attnviz.demo.average --out MODEL RUN/checkpoints/2500 RUN/checkpoints/2750 RUN

The last checkpoints of a run whose learning rate has decayed lie close together around a minimum; their mean is
usually a better model than any one of them (Vaswani et al. 2017 averaged the last 5 or 20 checkpoints; Popel &
Bojar 2018, "Training Tips for the Transformer Model"). Every folder must hold a checkpoint of the same run (the
same training config in its training.json), each of another step. The output takes its tokenizer, configuration
and training record from the last folder given; the record gains `averaged_steps` (the step of each checkpoint),
which the model card reports.
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

import torch

from attnviz.demo.config import TRAINING_RECORD, run_tool
from attnviz.demo.weights import INDEX, has_weights, read_weights, weight_files, write_weights
from attnviz.errors import InputError

CARD = "README.md"  # written again by attnviz.demo.evaluate --write-card, for the averaged weights


def checkpoint_step(record: dict) -> int:
    """The step a saved folder holds: its checkpoint's, or the run's last step when the run ended."""
    return record.get("checkpoint_step", record["config"]["steps"])


def average(folders: list[Path], out: Path) -> dict:
    """Write to `out` the mean of the weights in `folders` (float32, the folders' order does not matter beyond the
    last one giving the tokenizer, config and record). Returns the record written as training.json."""
    records = _records_of_one_run(folders)
    total: dict[str, torch.Tensor] = {}  # one run's checkpoints: the same names and shapes
    for folder in folders:
        for name, tensor in read_weights(folder).items():
            summed = tensor.to(torch.float64)  # float64 sums: the mean is the same in any order
            total[name] = total[name] + summed if name in total else summed
    out.mkdir(parents=True, exist_ok=True)
    last = folders[-1]
    weights = {path.name for path in weight_files(last)} | {INDEX}
    for source in last.iterdir() if last.resolve() != out.resolve() else ():  # (the run's own folder: all there)
        if source.is_file() and source.name not in weights | {TRAINING_RECORD, CARD}:
            shutil.copyfile(source, out / source.name)
    write_weights(out, {name: (tensor / len(folders)).to(torch.float32) for name, tensor in total.items()})
    record = {key: value for key, value in records[-1].items() if key != "checkpoint_step"}
    record["averaged_steps"] = sorted(checkpoint_step(r) for r in records)
    (out / TRAINING_RECORD).write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    return record


def _records_of_one_run(folders: list[Path]) -> list[dict]:
    """The folders' training records, once it is sure they are checkpoints of one run, each of another step."""
    if len(folders) < 2:
        raise InputError("demo_average_needs_two")
    records = []
    for folder in folders:
        if not has_weights(folder) or not (folder / TRAINING_RECORD).is_file():
            raise InputError("demo_average_not_a_model", path=str(folder))
        records.append(json.loads((folder / TRAINING_RECORD).read_text(encoding="utf-8")))
        if records[-1]["config"] != records[0]["config"]:
            raise InputError("demo_average_other_run", path=str(folder), first=str(folders[0]))
        if checkpoint_step(records[-1]) in [checkpoint_step(r) for r in records[:-1]]:
            raise InputError("demo_average_same_step", path=str(folder), step=checkpoint_step(records[-1]))
    return records


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="+", type=Path, help="checkpoint folders of one run (the last gives the rest)")
    parser.add_argument("--out", type=Path, required=True, help="the averaged model's folder")
    args = parser.parse_args(argv)
    record = run_tool("attnviz.demo.average", average, args.folders, args.out)
    print(f"saved {args.out}: the mean of the checkpoints at steps {', '.join(map(str, record['averaged_steps']))}")


if __name__ == "__main__":
    main()
