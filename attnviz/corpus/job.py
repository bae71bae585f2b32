"""The corpus job: every pair of an input file through capture and analysis, summed per layer × head, as a report.

    python -m attnviz corpus --model demo-zh-en --input pairs.tsv --gold -o report/

`run_job(config)` cuts the input into shards (`attnviz.corpus.shards`), has an engine compute the shards it lacks —
`inprocess` (the default: this process, one shard after another) or `ray` (`attnviz.corpus.ray_engine`: a pool of
Ray actors) — and merges the shards in shard order as they finish (`attnviz.corpus.report.ShardMerge`: while Ray's
workers compute, the driver merges), then writes the report. A job stopped half way and started again with `resume`
computes only the shards that are not finished; both engines give the same report.
Each run also writes `timeline.json` (`attnviz.corpus.timeline`): the engine's start, each worker's model load, each
shard's wall and CPU seconds, the merge, and the steady-state pairs per second.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from attnviz.corpus import html_report, ray_engine, report
from attnviz.corpus.shards import SHARDS, JobOptions, ShardSpec, is_done, run_shard, shard_specs
from attnviz.corpus.timeline import Timeline
from attnviz.corpus.worker import load_reverse_model, load_worker_model, torch_threads
from attnviz.errors import InputError

ENGINES = ("inprocess", "ray")
TIMELINE = "timeline.json"  # when each part of the last run ran (`attnviz.corpus.timeline`)
Progress = Callable[[int, int], None]  # (shards finished, shards in all)


@dataclass(frozen=True)
class JobConfig:
    model: str
    input: Path
    output: Path
    options: JobOptions = field(default_factory=JobOptions)
    device: str = "cpu"
    shard_size: int = 256  # lines per shard: the unit of work, retry and resume
    engine: str = "inprocess"
    workers: int = 2  # Ray: actors in the pool (each loads the model once)
    ray_address: str | None = None  # Ray: join this cluster; None starts a local one
    keep_workers: bool = False  # Ray, on a cluster joined: leave the loaded actors for the next job (ray_engine)
    threads: int | None = None  # torch threads per worker (None: torch's default in-process, 1 per Ray actor)
    resume: bool = False  # keep finished shards of an earlier run
    force: bool = False  # replace an earlier report
    app_url: str | None = None  # where each pair's `link` opens it (None: `report.APP_URL`, the app run locally)


def check_config(config: JobConfig) -> None:
    """An InputError for a job that cannot start: its input, engine, options, or an earlier report in its folder
    without `force` or `resume` (before anything is written)."""
    if Path(config.input).is_dir():
        raise InputError("corpus_input_folder", path=str(config.input))
    if not Path(config.input).is_file():
        raise InputError("cli_input_missing", path=str(config.input))
    with open(config.input, "rb") as start:
        if start.read(2) in (b"\xff\xfe", b"\xfe\xff"):  # what a spreadsheet's "Unicode text" writes
            raise InputError("corpus_input_utf16", path=str(config.input))
    if config.engine not in ENGINES:
        raise InputError("corpus_engine_unknown", engine=config.engine)
    if config.keep_workers and (config.engine != "ray" or not config.ray_address):
        raise InputError("corpus_keep_workers_needs_cluster")
    if config.options.reverse_model and not config.options.gold:
        raise InputError("corpus_reverse_needs_gold")
    if config.app_url is not None and not config.app_url.startswith(("http://", "https://")):
        raise InputError("corpus_app_url", url=config.app_url)
    folder = Path(config.output)
    earlier = (folder / "report.json").exists() or any((folder / SHARDS).glob("shard-*.json"))
    if earlier and not (config.force or config.resume):
        raise InputError("corpus_output_exists", path=str(folder))


def prepare_output(config: JobConfig) -> None:
    """The report folder, emptied of an earlier report when `force`; an earlier one is refused without `force` or
    `resume`."""
    check_config(config)
    folder = Path(config.output)
    if config.force and not config.resume:  # nothing of the earlier report stays to be taken for this one's
        shutil.rmtree(folder / SHARDS, ignore_errors=True)
        for name in (*report.OUTPUTS, TIMELINE):
            (folder / name).unlink(missing_ok=True)
    (folder / SHARDS).mkdir(parents=True, exist_ok=True)
    _check_same_job(config)


def job_signature(config: JobConfig) -> dict:
    """What the shards of a report depend on: a resumed job must have the same (the input's size and modification
    time too: an input edited since would mix two files' lines)."""
    stat = Path(config.input).stat()
    return {
        "model": config.model,
        "input": str(Path(config.input).resolve()),
        "input_bytes": stat.st_size,
        "input_mtime_ns": stat.st_mtime_ns,
        "shard_size": config.shard_size,
        "options": asdict(config.options),
    }


def _check_same_job(config: JobConfig) -> None:
    """Keep finished shards only for the same job (same model, input, shard size and options)."""
    path = Path(config.output) / SHARDS / "job.json"
    signature = job_signature(config)
    if config.resume and path.exists() and json.loads(path.read_text(encoding="utf-8")) != signature:
        raise InputError("corpus_resume_other_job", path=str(config.output))
    path.write_text(json.dumps(signature, ensure_ascii=False), encoding="utf-8")


def run_shards_inprocess(
    config: JobConfig,
    todo: list[ShardSpec],
    progress: Progress | None,
    total: int,
    handle=None,
    timeline: Timeline | None = None,
) -> None:
    if not todo:
        return
    timeline = timeline or Timeline("inprocess")
    worker = {"worker": os.getpid(), "requested": time.time()}
    handle = handle or load_worker_model(config.model, config.device, config.threads)
    reverse = load_reverse_model(config.options, config.device, config.threads)
    timeline.workers.append(
        worker | {"ready": time.time(), "load_s": time.time() - worker["requested"], "threads": torch_threads()}
    )
    done = total - len(todo)
    for spec in todo:
        timeline.shards.append(run_shard(handle, Path(config.input), spec, config.options, config.output, reverse))
        done += 1
        if progress:
            progress(done, total)


def run_job(config: JobConfig, progress: Progress | None = None, handle=None) -> dict:
    """Compute the shards that are not finished, then merge them all into the report; returns the report's summary
    (report.json). `handle`: a model already loaded (the app's), for the in-process engine."""
    started, cpu = time.time(), time.process_time()
    timeline = Timeline(config.engine, started)
    prepare_output(config)
    specs = shard_specs(Path(config.input), config.shard_size)
    todo = [spec for spec in specs if not (config.resume and is_done(config.output, spec.index))]
    merge = report.ShardMerge(
        Path(config.output), specs, config.model, config.app_url or report.APP_URL, config.options
    )

    def finished(done: int, total: int) -> None:  # merging while the other workers compute
        merge.advance()
        if progress:
            progress(done, total)

    try:
        if config.engine == "ray":
            ray_engine.run_shards(config, todo, finished, len(specs), timeline)
        else:
            run_shards_inprocess(config, todo, finished, len(specs), handle, timeline)
    except BaseException:  # stopped or failed: the finished shards stay for `resume`, the open pairs file is let go
        merge.close()
        raise
    merging = time.time()
    summary = report.write_report(config, specs, time.time() - started, merge)
    html_report.write_html(Path(config.output), summary)
    timeline.phases |= {
        "merge": time.time() - merging,
        "total": time.time() - started,
        "driver_cpu": time.process_time() - cpu,
    }  # this process: in-process, every shard too
    text = json.dumps(timeline.to_dict(), ensure_ascii=False, indent=1)
    (Path(config.output) / TIMELINE).write_text(text, encoding="utf-8")
    return summary
