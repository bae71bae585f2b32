"""The corpus job with --faithfulness: each pair's row holds its scoreboard's numbers (what `faithfulness()` gives on
that pair), report.json each measure's means over the pairs, report.html their table in both languages — in-process
and on Ray alike."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from attnviz.corpus.html_report import faithfulness_table
from attnviz.corpus.job import JobConfig, run_job
from attnviz.corpus.shards import JobOptions
from attnviz.maps.faithfulness_verdict import verdict
from attnviz.measures.faithfulness import faithfulness
from attnviz.model.load import load_model
from attnviz.run import RunRequest, run

PAIRS = [("早上好！", "Good morning!"), ("我喜欢学习。", "I like studying."), ("晚上好，晚安。", "Good night.")]


def _job(tmp_path, folder, name: str, **changes) -> JobConfig:
    path = tmp_path / "pairs.tsv"
    path.write_text("".join(f"{source}\t{target}\n" for source, target in PAIRS), encoding="utf-8")
    options = JobOptions(batch_size=2, faithfulness=True)
    base = dict(model=folder, input=path, output=tmp_path / name, options=options, shard_size=2, threads=1)
    return JobConfig(**(base | changes))


def _direct(folder):
    handle = load_model(folder)
    boards = []
    for source, target in PAIRS:
        read = run(handle, RunRequest(source, target))
        boards.append(faithfulness(handle, read.source_text, read.target_text))
    return boards


def test_rows_and_means_are_the_scoreboards_of_each_pair(tmp_path, tiny_folder):
    folder = tiny_folder("marian")
    config = _job(tmp_path, folder, "report")
    run_job(config)
    pairs = pd.read_parquet(config.output / "pairs.parquet").sort_values("line")
    summary = json.loads((config.output / "report.json").read_text(encoding="utf-8"))
    boards = _direct(folder)
    for (_, row), board in zip(pairs.iterrows(), boards):
        assert row["faithfulness.best"] == verdict(board).best
        for expected in board.table():
            column = f"faithfulness.{expected['measure']}.{expected['baseline']}.margin"
            assert row[column] == pytest.approx(expected["margin"], abs=1e-9)
    means = summary["faithfulness"]["means"]
    for measure in boards[0].measures:
        margins = [board.margin("mask", measure) for board in boards]
        assert means[measure]["mask"]["margin"] == pytest.approx(np.mean(margins), abs=1e-9)
    assert summary["faithfulness"]["decides"] == pytest.approx(np.mean([verdict(b).decides for b in boards]))
    page = (config.output / "report.html").read_text(encoding="utf-8")
    assert "Which explanation should I believe here?" in page and "attention weights" in page
    assert "该相信哪种解释" in "".join(faithfulness_table(summary["faithfulness"], "zh"))


@pytest.mark.slow
def test_ray_gives_the_same_faithfulness(tmp_path, tiny_folder):
    pytest.importorskip("ray", reason="the Ray engine needs ray[data] (requirements-ray.txt)")
    folder = tiny_folder("marian")
    local, on_ray = _job(tmp_path, folder, "local"), _job(tmp_path, folder, "ray", engine="ray", workers=2)
    run_job(local)
    run_job(on_ray)
    same = [json.loads((c.output / "report.json").read_text(encoding="utf-8"))["faithfulness"] for c in (local, on_ray)]
    assert same[0] == same[1] and same[0]["means"]
    pd.testing.assert_frame_equal(
        pd.read_parquet(local.output / "pairs.parquet"), pd.read_parquet(on_ray.output / "pairs.parquet")
    )
