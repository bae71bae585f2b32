"""The corpus job on Ray Data, on a local cluster of two Ray nodes started here: the same report as in-process, a
worker killed mid-run has its shard retried, and a stopped job resumes from its finished shards, counting nothing
twice."""

from __future__ import annotations

import json
import os
import shutil
import signal
from pathlib import Path

# hypothesis is imported now: its pytest plugin would import it at the session's end, while Ray Data's metrics
# thread still runs, and Python 3.11 fails compiling in two threads at once ("AST constructor recursion depth").
import hypothesis  # noqa: F401
import pandas as pd
import pytest

from attnviz.corpus.job import TIMELINE, JobConfig, run_job
from attnviz.corpus.shards import JobOptions, shard_paths
from attnviz.errors import ModelLoadError
from tests.support import needs
from tests.support.corpus_files import corpus_file

pytestmark = pytest.mark.slow

MODEL = "demo-zh-en"
TABLES = ("heads", "layers", "pairs", "bad_lines")


@pytest.fixture(scope="module")
def cluster():
    """A head node and a worker node, one CPU each (so actors at half a CPU spread over both). Without ray each test
    here is skipped with the reason, except in CI, where it fails (a module-level skip would hide them all)."""
    ray = needs.module("ray", "the Ray engine needs ray[data]: requirements-ray.txt")
    from ray.cluster_utils import Cluster

    local = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    local.add_node(num_cpus=1)
    local.wait_for_nodes()
    ray.init(address=local.address, log_to_driver=False)
    yield local
    ray.shutdown()
    local.shutdown()


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    folder = tmp_path_factory.mktemp("ray-corpus")
    path, _ = corpus_file(folder, count=8, bad_every=4)
    return folder, path


def config(corpus, name: str, **changes) -> JobConfig:
    folder, path = corpus
    options = JobOptions(gold=True, segmented=True, batch_size=2)
    base = dict(model=MODEL, input=path, output=folder / name, options=options, shard_size=3, threads=1, workers=2)
    return JobConfig(**(base | changes))


@pytest.fixture(scope="module")
def in_process(corpus) -> Path:
    run_job(config(corpus, "inprocess"))
    return config(corpus, "inprocess").output


def assert_same_report(folder: Path, reference: Path) -> None:
    for name in TABLES:
        pd.testing.assert_frame_equal(
            pd.read_parquet(folder / f"{name}.parquet"),
            pd.read_parquet(reference / f"{name}.parquet"),
            check_exact=True,
        )


def test_ray_and_in_process_give_identical_reports(cluster, corpus, in_process):
    summary = run_job(config(corpus, "ray", engine="ray"))
    assert summary["engine"] == "ray" and summary["workers"] == 2 and summary["shards"] == 4
    assert_same_report(config(corpus, "ray").output, in_process)


def test_a_model_that_cannot_load_is_said_as_in_process(cluster, corpus, tmp_path):
    with pytest.raises(ModelLoadError) as raised:
        run_job(config(corpus, "no-model", engine="ray", model=str(tmp_path)))  # a folder with no model in it
    assert raised.value.key == "model_no_config"


def _ours(pid: int) -> bool:
    """Whether `pid` descends from this test process (a worker of the cluster it started)."""
    while pid > 1:
        try:
            pid = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            return False
        if pid == os.getpid():
            return True
    return False


def _shard_workers() -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                command = (entry / "cmdline").read_bytes().decode(errors="replace")
            except OSError:
                continue
            if "ShardWorker" in command and _ours(int(entry.name)):
                found.append(int(entry.name))
    return found


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="finds Ray's worker processes through /proc")
def test_a_worker_killed_mid_run_has_its_shard_retried_and_the_report_is_the_same(cluster, corpus, in_process):
    """A worker is killed from the job's own progress callback, as the first shard is counted: mid-run by
    construction (one shard written, the others not yet counted), with no polling that the job could outrun."""
    job = config(corpus, "killed", engine="ray")
    killed: list[int] = []

    def kill_one_worker(done: int, total: int) -> None:
        if done == 1 and done < total and not killed:
            workers = _shard_workers()
            assert workers, "no ShardWorker process found while shards were running"
            killed.append(workers[0])
            os.kill(workers[0], signal.SIGKILL)  # a worker of the cluster this test started

    run_job(job, progress=kill_one_worker)
    assert killed
    assert_same_report(job.output, in_process)


def test_a_stopped_job_resumes_from_finished_shards_and_counts_nothing_twice(cluster, corpus, in_process):
    job = config(corpus, "resumed", engine="ray")
    shutil.copytree(in_process, job.output)
    for index in (1, 3):  # as if the job had stopped before these shards were written
        for path in shard_paths(job.output, index).values():
            path.unlink()
    kept = shard_paths(job.output, 0)["json"].stat().st_mtime_ns
    run_job(JobConfig(**(vars(job) | {"resume": True})))
    assert shard_paths(job.output, 0)["json"].stat().st_mtime_ns == kept and shard_paths(job.output, 3)["json"].exists()
    assert_same_report(job.output, in_process)


def test_kept_workers_serve_the_next_job_loaded_and_it_gives_the_same_report(cluster, corpus, in_process):
    from attnviz.corpus.ray_engine import stop_kept_workers

    jobs = [config(corpus, f"kept-{n}", engine="ray", ray_address=cluster.address, keep_workers=True) for n in (1, 2)]
    try:
        for job in jobs:
            run_job(job)
    finally:
        stopped = stop_kept_workers(cluster.address)
    first, second = (json.loads((job.output / TIMELINE).read_text(encoding="utf-8"))["workers"] for job in jobs)
    assert stopped == 2 and {w["worker"] for w in first} == {w["worker"] for w in second}  # the same two actors
    assert not any(w.get("kept") for w in first) and all(w["kept"] and w["load_s"] == 0 for w in second)
    assert all(w["load_s"] > 0 for w in first)
    assert_same_report(jobs[1].output, in_process)
    assert stop_kept_workers(cluster.address) == 0  # none left
