"""The corpus job against the loop a researcher would write, on the same pairs, machine and run.

    python benchmarks/bench_corpus.py                 # 2,000 pairs of the demo corpus (assets/corpus/train.tsv)
    python benchmarks/bench_corpus.py --pairs 300     # a shorter run
    python benchmarks/bench_corpus.py --no-ray        # without the Ray rows
    python benchmarks/bench_corpus.py --no-large      # without the rows of opus-mt-zh-en's size (~80 s of them)
    python benchmarks/bench_corpus.py --no-cluster    # without the rows on a running cluster (~3 min of them)

Measured, each from the pairs file to the per-head statistics of every map (model loading included, the same for all;
the naive loop and the in-process job each run once untimed on 50 pairs first, so that neither pays the process's
lazy imports and first calls for the other):
- naive loop: `MarianMTModel(attn_implementation="eager")`, one `output_attentions=True` forward per pair, every
  map stacked into numpy and its head statistics computed (`attnviz.maps.head_stats.statistic_sums`, the job's own maths);
- in-process corpus job: `python -m attnviz corpus` (`attnviz.corpus.job.run_job`, batches grouped by length);
- Ray engine with 1 and 2 actors at one torch thread each (a local Ray started by the job, its start included),
  with demo-zh-en and again with a translator of opus-mt-zh-en's size (`--no-large` leaves it out): Ray's start,
  each actor's (Python, torch, transformers), the merge and the stop (~6-7 s on an idle 2-core machine) weigh the
  same whatever the model, so only a model of the size researchers run (opus-mt-zh-en, 6 + 6 layers of width 512)
  shows how the job scales when it is the work, not the start, that takes the time. No hub model can be downloaded here: the stand-in has opus-mt-zh-en's shape
  and random weights (seed 0), which take the same time per pair — the pairs are forced, nothing is generated;
- the Ray rows again on a cluster that is already running (`ray start --head`; `--no-cluster` leaves them out),
  each job joining it with `--ray-address` and keeping its actors with `--keep-workers`: the first job of a pool
  pays the actors' start, the next finds them loaded, as job after job on a researcher's cluster does;
- for every job, its timeline (`timeline.json`, `attnviz.corpus.timeline`): the engine's start, the workers' start
  and model load, the shards' compute (wall and CPU seconds per worker: how many shards and pairs each got, whether
  they ran side by side), the merge, and the steady-state throughput (pairs/s once every worker is ready), which
  end-to-end seconds hide when a corpus is short next to the pool's start;
- peak memory (VmHWM of a fresh process) of the in-process job on a quarter of the pairs and on all of them.
Results are printed and written to benchmarks/RESULTS.md, in its own marked section (the rest is left as it is; `run.py` keeps it).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import re
import socket
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from run import write_section  # noqa: E402  (the shared RESULTS.md section writer)

from attnviz.corpus.job import JobConfig  # noqa: E402
from attnviz.corpus.shards import JobOptions  # noqa: E402

SECTION = "## Corpus job"
MODEL = "demo-zh-en"


def write_pairs(path: Path, count: int) -> Path:
    rows = (ROOT / "assets" / "corpus" / "train.tsv").read_text(encoding="utf-8").splitlines()[1:]
    lines = ["\t".join(rows[i % len(rows)].split("\t")[:2]) for i in range(count)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def naive(path: Path, threads: int) -> float:
    """One eager output_attentions forward per pair, statistics in numpy; returns seconds."""
    import numpy as np
    import torch

    from attnviz.maps import head_stats
    from training.translator import model_dir
    from training.translator.evaluate import load

    started = time.perf_counter()
    torch.set_num_threads(threads)
    model, tokenizer = load(model_dir("zh-en"))
    special = set(tokenizer.all_special_ids)
    totals: dict = {}
    with torch.no_grad():
        for line in path.read_text(encoding="utf-8").splitlines():
            source, target = line.split("\t")
            batch = tokenizer(source, text_target=target, return_tensors="pt")
            labels = batch.pop("labels")
            decoder_ids = torch.cat([torch.tensor([[model.config.decoder_start_token_id]]), labels[:, :-1]], dim=1)
            out = model(**batch, decoder_input_ids=decoder_ids, output_attentions=True)
            source_ids, target_ids = batch["input_ids"][0].tolist(), decoder_ids[0].tolist()
            maps = {
                "encoder": (out.encoder_attentions, source_ids, True),
                "decoder": (out.decoder_attentions, target_ids, True),
                "cross": (out.cross_attentions, source_ids, False),
            }
            for kind, (attentions, key_ids, square) in maps.items():
                weights = torch.stack(attentions)[:, 0].numpy()  # (layers, heads, queries, keys)
                sinks = np.array([i in special for i in key_ids])
                sinks[0] = True
                sums = head_stats.statistic_sums(weights, 0, weights.shape[2], sinks, square)
                means = head_stats.statistic_means(sums, weights.shape[:2])
                for name, values in means.items():
                    totals[(kind, name)] = totals.get((kind, name), 0.0) + np.nan_to_num(values)
    return time.perf_counter() - started


# opus-mt-zh-en's shape (its config.json on the hub): what a researcher's corpus job runs
OPUS_MT_SHAPE = dict(
    d_model=512,
    encoder_layers=6,
    decoder_layers=6,
    encoder_attention_heads=8,
    decoder_attention_heads=8,
    encoder_ffn_dim=2048,
    decoder_ffn_dim=2048,
    max_position_embeddings=512,
)
TOKENIZER_FILES = ("source.spm", "target.spm", "vocab.json", "tokenizer_config.json", "generation_config.json")


def opus_sized_model(folder: Path) -> Path:
    """A Marian translator of opus-mt-zh-en's shape with random weights (seed 0), demo-zh-en's vocabulary and
    tokenizer (so it reads the same pairs), saved to `folder`: it takes the time per pair opus-mt-zh-en would."""
    import shutil

    import torch
    from transformers import MarianConfig, MarianMTModel

    from training.translator import model_dir

    demo = model_dir("zh-en")
    settings = {
        key: value for key, value in MarianConfig.from_pretrained(demo).to_dict().items() if key != "alignment_heads"
    }
    torch.manual_seed(0)
    model = MarianMTModel(MarianConfig(**{**settings, **OPUS_MT_SHAPE})).eval()
    model.save_pretrained(folder)
    for name in TOKENIZER_FILES:
        shutil.copy(demo / name, folder / name)
    return folder


WARM_UP_PAIRS = 50  # each method runs once on these, untimed, before the timed runs (the first pays ~1.5 s more)
SHARD_SIZE = 32  # Ray rows: lines per shard, enough shards for two actors to share at any corpus size here
# The in-process row and the memory rows run as `python -m attnviz corpus` does by default (JobConfig's shard
# size): longer shards group more pairs of similar length into each forward pass.


def job(path: Path, out: Path, engine: str, workers: int, threads: int, model: str = MODEL, **cluster) -> float:
    """Seconds of one corpus job; `cluster`: ray_address and keep_workers, for a cluster already running."""
    from attnviz.corpus.job import JobConfig, run_job

    started = time.perf_counter()
    shard_size = SHARD_SIZE if engine == "ray" else JobConfig.shard_size
    run_job(
        JobConfig(
            model,
            path,
            out,
            shard_size=shard_size,
            engine=engine,
            workers=workers,
            threads=threads,
            force=True,
            **cluster,
        )
    )
    return time.perf_counter() - started


def timed_job(path: Path, out: Path, engine: str, workers: int, threads: int, model: str = MODEL, **cluster) -> dict:
    """End-to-end seconds and the job's own timeline summary."""
    from attnviz.corpus.job import TIMELINE

    seconds = job(path, out, engine, workers, threads, model, **cluster)
    return {"seconds": seconds, "timeline": json.loads((out / TIMELINE).read_text(encoding="utf-8"))["summary"]}


@contextlib.contextmanager
def running_cluster():
    """A local Ray cluster started apart from the jobs, as a researcher's cluster runs (`ray start --head`, two
    CPUs); stopped afterwards with `ray stop`. Its workers import attnviz from this checkout."""
    ray_cli = str(Path(sys.executable).with_name("ray"))
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    subprocess.run(
        [
            ray_cli,
            "start",
            "--head",
            f"--port={port}",
            "--num-cpus=2",
            "--include-dashboard=false",
            "--disable-usage-stats",
        ],
        env=env,
        check=True,
        capture_output=True,
    )
    try:
        yield f"127.0.0.1:{port}"
    finally:
        subprocess.run([ray_cli, "stop", "--force"], capture_output=True, check=False)


def cluster_jobs(results: dict, path: Path, folder: Path, models: dict[str, str]) -> None:
    """On a running cluster with kept actors: for each model and pool size, the first job (the actors start and
    load) and the next one (they are loaded already), then the pool is stopped."""
    from attnviz.corpus.ray_engine import stop_kept_workers

    with running_cluster() as address:
        for suffix, model in models.items():
            for workers in (1, 2):
                for run in ("first", "next"):
                    key = f"cluster{workers}{suffix}_{run}"
                    results[key] = timed_job(
                        path, folder / key, "ray", workers, 1, model, ray_address=address, keep_workers=True
                    )
                stop_kept_workers(address)


def peak_memory(path: Path, out: Path, threads: int) -> float:
    """VmHWM (MiB) of a fresh process that runs the in-process job on `path`."""
    code = (
        f"import sys; sys.path.insert(0, {str(ROOT)!r}); from benchmarks.bench_corpus import job; "
        f"job(__import__('pathlib').Path({str(path)!r}), __import__('pathlib').Path({str(out)!r}), "
        f"'inprocess', 1, {threads}); print(open('/proc/self/status').read())"
    )
    status = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return int(re.search(r"VmHWM:\s+(\d+) kB", status)[1]) / 1024


def ray_available() -> bool:
    try:
        import ray  # noqa: F401
    except ImportError:
        return False
    return True


def measure(args) -> dict:
    folder = Path(tempfile.mkdtemp(prefix="attnviz-bench-corpus-"))
    path = write_pairs(folder / "pairs.tsv", args.pairs)
    quarter = write_pairs(folder / "quarter.tsv", max(args.pairs // 4, 1))
    results = {"pairs": args.pairs, "threads": args.threads, "load_before": os.getloadavg()}
    warm_up = write_pairs(folder / "warm-up.tsv", WARM_UP_PAIRS)
    naive(warm_up, args.threads)  # untimed: the first run in a process pays lazy imports and first-call costs
    job(warm_up, folder / "warm-up", "inprocess", 1, args.threads)
    results["naive"] = naive(path, args.threads)
    results["job"] = timed_job(path, folder / "job", "inprocess", 1, args.threads)
    if not args.no_ray and ray_available():
        results["ray1"] = timed_job(path, folder / "ray1", "ray", 1, 1)
        results["ray2"] = timed_job(path, folder / "ray2", "ray", 2, 1)
        models = {"": MODEL}
        if not args.no_large:
            large = str(opus_sized_model(folder / "opus-sized"))
            results["ray1_large"] = timed_job(path, folder / "ray1-large", "ray", 1, 1, large)
            results["ray2_large"] = timed_job(path, folder / "ray2-large", "ray", 2, 1, large)
            models["_large"] = large
        if not args.no_cluster:
            cluster_jobs(results, path, folder, models)
    results["memory_quarter"] = peak_memory(quarter, folder / "mq", args.threads)
    results["memory_all"] = peak_memory(path, folder / "ma", args.threads)
    results["load_after"] = os.getloadavg()
    return results


JOBS = {"job": "corpus job, in-process", "ray1": "Ray, 1 actor × 1 thread", "ray2": "Ray, 2 actors × 1 thread"}
LARGE = {
    "ray1_large": "Ray, 1 actor × 1 thread, opus-mt-zh-en's size",
    "ray2_large": "Ray, 2 actors × 1 thread, opus-mt-zh-en's size",
}
CLUSTER = {
    f"cluster{workers}{suffix}_{run}": f"running cluster, {workers} actor{'s' * (workers > 1)}{size}, {said}"
    for suffix, size in (("", ""), ("_large", ", opus-mt-zh-en's size"))
    for workers in (1, 2)
    for run, said in (("first", "first job (actors start)"), ("next", "next job (actors kept)"))
}


READING = (
    "Reading the breakdown: *engine start* is `ray.init` (a local Ray); a worker is *ready* when its model is loaded "
    "(an actor's process start, torch and transformers imports and the model load; *load s* is that worker's own "
    "share); *side by side* is the workers' busy seconds over the compute span (2.00× = two workers busy all along); "
    "*CPU s* near *busy s* means one core per worker; *steady pairs/s* counts the pairs computed after the last worker "
    "was ready, per second of that window (– when no shard ran in it: the corpus was done before the last worker "
    "started). Both engines batch {batch} pairs a forward pass, grouped by length within a shard (the in-process row "
    "with the job's default, longer shards; the Ray rows with {shard}-line shards). End-to-end seconds include the pool's start, which on a short corpus of a small model "
    "outweighs the compute: the steady-state ratio is the one that says whether the per-pair work parallelises."
)


def _number(value, digits: int = 1) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def breakdown(r: dict) -> list[str]:
    """One row per job: where its seconds went (from its timeline), and what each worker did."""
    lines = [
        "| job | engine start | first / last worker ready | compute (first shard → last) | merge | engine stop "
        "| side by side | steady pairs/s | driver CPU s | per worker: shards, pairs, busy s, CPU s, write s, torch "
        "threads, load s |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for key, name in {**JOBS, **LARGE, **CLUSTER}.items():
        if key not in r:
            continue
        t = r[key]["timeline"]
        workers = "; ".join(
            f"{w['shards']}, {w['pairs']}, {w['busy_s']:.1f}, {w['cpu_s']:.1f}, {w['write_s']:.1f}, "
            f"{w.get('threads', '?')}, "
            f"{_number(w.get('load_s'))}"
            for w in t.get("workers", {}).values()
        )
        lines.append(
            f"| {name} | {_number(t.get('engine_start_s'))} | {_number(t.get('first_ready_s'))} / "
            f"{_number(t.get('all_ready_s'))} | {_number(t.get('compute_s'))} | {_number(t.get('merge_s'))} | "
            f"{_number(t.get('engine_stop_s'))} | {_number(t.get('concurrency'), 2)}× | "
            f"{_number(t.get('steady_pairs_per_s'))} | {_number(t.get('driver_cpu_s'))} | {workers} |"
        )
    return lines


def section(r: dict) -> str:
    import torch

    seconds = {key: r[key]["seconds"] for key in JOBS if key in r}
    speed = r["naive"] / seconds["job"]
    lines = [
        SECTION,
        "",
        f"Generated by `python benchmarks/bench_corpus.py --pairs {r['pairs']}` on "
        f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC — {platform.machine()}, {os.cpu_count()} CPUs, "
        f"torch {torch.__version__}, {r['threads']} torch threads (Ray actors: 1 each). Load average before/after: "
        f"{' '.join(f'{x:.1f}' for x in r['load_before'])} / {' '.join(f'{x:.1f}' for x in r['load_after'])} "
        "(other jobs share this machine). Same pairs (the demo corpus' first pairs, demo-zh-en), one run, "
        f"model loading included in every row, the naive loop and the in-process job each warmed up once "
        f"untimed on {WARM_UP_PAIRS} pairs, {SHARD_SIZE} lines per shard on Ray, the job's default "
        f"({JobConfig.shard_size}) in-process.",
        "",
        "| method | seconds | pairs/s | vs naive | steady pairs/s (all workers ready) |",
        "|---|---:|---:|---:|---:|",
        f"| naive loop (eager output_attentions per pair, numpy statistics) | {r['naive']:.1f} | "
        f"{r['pairs'] / r['naive']:.1f} | 1.00 | – |",
    ]
    for key, name in JOBS.items():
        if key in seconds:
            steady = r[key]["timeline"].get("steady_pairs_per_s")
            ratio = f"**{speed:.2f}×**" if key == "job" else f"{r['naive'] / seconds[key]:.2f}×"
            lines.append(
                f"| {name} | {seconds[key]:.1f} | {r['pairs'] / seconds[key]:.1f} | {ratio} | {_number(steady)} |"
            )
    large = [key for key in LARGE if key in r]
    if large:
        lines += [
            "",
            "The same pairs on Ray with a translator of opus-mt-zh-en's size (6 + 6 layers, width 512, 8 heads, "
            "feed-forward 2048; random weights, demo-zh-en's vocabulary: the time per pair of the real model, "
            "which cannot be downloaded here):",
            "",
            "| method | seconds | pairs/s | steady pairs/s |",
            "|---|---:|---:|---:|",
        ]
        for key in large:
            seconds_here, steady = r[key]["seconds"], r[key]["timeline"].get("steady_pairs_per_s")
            lines.append(f"| {LARGE[key]} | {seconds_here:.1f} | {r['pairs'] / seconds_here:.1f} | {_number(steady)} |")
    cluster = [key for key in CLUSTER if key in r]
    if cluster:
        lines += [
            "",
            "The same pairs on a Ray cluster that is already running (`ray start --head`, as a researcher's "
            "cluster runs; each job joins it with `--ray-address` and keeps its actors with `--keep-workers`): "
            "the first job of a pool starts its actors and loads the model, the next job finds them loaded.",
            "",
            "| method | seconds | pairs/s | steady pairs/s |",
            "|---|---:|---:|---:|",
        ]
        for key in cluster:
            seconds_here, steady = r[key]["seconds"], r[key]["timeline"].get("steady_pairs_per_s")
            lines.append(
                f"| {CLUSTER[key]} | {seconds_here:.1f} | {r['pairs'] / seconds_here:.1f} | {_number(steady)} |"
            )
    lines += [
        "",
        "Where the seconds went (each job's `timeline.json`; seconds from the job's start):",
        "",
        *breakdown(r),
        "",
        READING.format(batch=JobOptions.batch_size, shard=SHARD_SIZE),
    ]
    goals = [f"1. In-process corpus job ≥ 3× the naive loop: {speed:.2f}× ({'met' if speed >= 3 else 'NOT met'})."]
    if "ray1" in r:
        scale = seconds["ray1"] / seconds["ray2"]
        one, two = (r[key]["timeline"].get("steady_pairs_per_s") for key in ("ray1", "ray2"))
        steady = two / one if one and two else None
        verdict = "–" if steady is None else ("met" if steady >= 1.7 else "NOT met")
        goal = (
            f"2. Ray 2 actors ≥ 1.7× 1 actor: steady state (pairs/s once the actors are ready) "
            f"{_number(steady, 2)}× ({verdict}); end to end, Ray's and the actors' start included, "
            f"{scale:.2f}× with demo-zh-en ({'met' if scale >= 1.7 else 'NOT met'})"
        )
        if "ray2_large" in r:
            scale = r["ray1_large"]["seconds"] / r["ray2_large"]["seconds"]
            goal += f", {scale:.2f}× with a model of opus-mt-zh-en's size ({'met' if scale >= 1.7 else 'NOT met'})"
        kept = [
            (label, r[f"cluster1{suffix}_next"]["seconds"] / r[f"cluster2{suffix}_next"]["seconds"])
            for suffix, label in (("", "demo-zh-en"), ("_large", "opus-mt-zh-en's size"))
            if f"cluster2{suffix}_next" in r
        ]
        if kept:
            goal += "; on a running cluster with the actors kept from the job before, end to end: " + ", ".join(
                f"{scale:.2f}× with {label} ({'met' if scale >= 1.7 else 'NOT met'})" for label, scale in kept
            )
        goals.append(goal + ".")
    growth = r["memory_all"] / r["memory_quarter"]
    goals.append(
        f"3. Peak memory flat in corpus size: {r['memory_quarter']:.0f} MiB for {max(r['pairs'] // 4, 1)} "
        f"pairs, {r['memory_all']:.0f} MiB for {r['pairs']} ({growth:.2f}×; "
        f"{'met' if growth <= 1.1 else 'NOT met'})."
    )
    return "\n".join([*lines, "", "Goals:", "", *goals, ""])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pairs", type=int, default=2000)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--no-ray", action="store_true")
    parser.add_argument("--no-large", action="store_true", help="without the Ray rows of opus-mt-zh-en's size")
    parser.add_argument("--no-cluster", action="store_true", help="without the rows on a running cluster")
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args()
    results = measure(args)
    print(json.dumps(results, indent=2))
    text = section(results)
    print(text)
    if not args.no_write:
        write_section("bench_corpus", text)


if __name__ == "__main__":
    main()
