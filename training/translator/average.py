"""Checkpoint averaging: one model whose weights are the mean of several checkpoints of the same run.

    python -m training.translator.train ... --save-every 250 --keep-checkpoints --out RUN
    python -m training.translator.average --out MODEL RUN/checkpoints/2500 RUN/checkpoints/2750 RUN

The last checkpoints of a run whose learning rate has decayed lie close together around a minimum; their mean is
usually a better model than any one of them (Vaswani et al. 2017 averaged the last 5 or 20 checkpoints; Popel &
Bojar 2018, "Training Tips for the Transformer Model"). Checkpoints of sibling runs — stages that continue from the
same weights with the same model shape, but another seed, learning rate or data mix — may be averaged too: they
stay in one basin of the loss, and their mean is a "model soup" (Wortsman et al. 2022). Every folder must hold a
checkpoint of one such run, each (run, step) once. The output takes its tokenizer, configuration and training record
from the last folder given; the record gains `averaged_steps` (the steps of that run's checkpoints) and, for sibling
runs, `sibling_runs` (each one's config, seconds and steps), which the model card reports.
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

import torch

from attnviz.errors import InputError
from training.common.stages import TRAINING_RECORD
from training.common.tool import run_tool
from training.common.weights import INDEX, has_weights, read_weights, weight_files, write_weights

CARD = "README.md"  # written again by training.translator.evaluate --write-card, for the averaged weights


def checkpoint_step(record: dict) -> int:
    """The step a saved folder holds: its checkpoint's, or the run's last step when the run ended."""
    return record.get("checkpoint_step", record["config"]["steps"])


def average(folders: list[Path], out: Path) -> dict:
    """Write to `out` the mean of the weights in `folders` (float32, the folders' order does not matter beyond the
    last one giving the tokenizer, config and record). Returns the record written as training.json."""
    records = _records_of_sibling_runs(folders)
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
    record["averaged_steps"] = sorted(checkpoint_step(r) for r in records if r["config"] == record["config"])
    siblings = []  # the other runs, in the order given
    for run in records:
        if run["config"] != record["config"] and run["config"] not in [s["config"] for s in siblings]:
            kept = [r for r in records if r["config"] == run["config"]]
            seconds = max(r["seconds"] for r in kept)  # the run's, to its last checkpoint given
            siblings.append(
                {"config": run["config"], "seconds": seconds, "averaged_steps": sorted(map(checkpoint_step, kept))}
            )
    if siblings:
        record["sibling_runs"] = siblings
    (out / TRAINING_RECORD).write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    return record


# What a run's weights are shaped by: runs that differ here cannot be averaged
_SHAPE = ("direction", "d_model", "layers", "heads", "ffn_dim")


def _siblings(record: dict, first: dict) -> bool:
    """Whether two training records are of one run, or of runs that continue from the same weights to the same shape."""
    if record["config"] == first["config"]:
        return True
    same_shape = all(record["config"].get(key) == first["config"].get(key) for key in _SHAPE)
    return same_shape and "earlier_stage" in first and record.get("earlier_stage") == first["earlier_stage"]


def _records_of_sibling_runs(folders: list[Path]) -> list[dict]:
    """The folders' training records, once it is sure they are checkpoints of one run (or of sibling runs), each
    (run, step) once."""
    if len(folders) < 2:
        raise InputError("demo_average_needs_two")
    records = []
    for folder in folders:
        if not has_weights(folder) or not (folder / TRAINING_RECORD).is_file():
            raise InputError("demo_average_not_a_model", path=str(folder))
        records.append(json.loads((folder / TRAINING_RECORD).read_text(encoding="utf-8")))
        if not _siblings(records[-1], records[0]):
            raise InputError("demo_average_other_run", path=str(folder), first=str(folders[0]))
        same_run = [r for r in records[:-1] if r["config"] == records[-1]["config"]]
        if checkpoint_step(records[-1]) in [checkpoint_step(r) for r in same_run]:
            raise InputError("demo_average_same_step", path=str(folder), step=checkpoint_step(records[-1]))
    return records


def averaged_runs(record: dict) -> list[list[int]]:
    """The checkpoint steps averaged from each run: the sibling runs' in the order given, then the last folder's."""
    return [run["averaged_steps"] for run in record.get("sibling_runs", [])] + [record["averaged_steps"]]


def steps_text(runs: list[list[int]]) -> str:
    """ "1000, 1250; 1000, 1250": each run's steps, runs apart by a semicolon."""
    return "; ".join(", ".join(map(str, run_steps)) for run_steps in runs)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "folders",
        nargs="+",
        type=Path,
        help="checkpoint folders of one run or of sibling runs (the last gives the rest)",
    )
    parser.add_argument("--out", type=Path, required=True, help="the averaged model's folder")
    args = parser.parse_args(argv)
    record = run_tool("training.translator.average", average, args.folders, args.out)
    runs = averaged_runs(record)
    print(
        f"saved {args.out}: the mean of the checkpoints at steps {steps_text(runs)}"
        + (f" ({len(runs)} runs)" if len(runs) > 1 else "")
    )


if __name__ == "__main__":
    main()
