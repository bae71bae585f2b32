"""`python -m attnviz corpus`: the corpus job from the command line (`attnviz.corpus.job`).

    python -m attnviz corpus --model demo-zh-en --input pairs.tsv --gold -o report/
    python -m attnviz corpus --model demo-zh-en --input pairs.tsv --gold --segmented --engine ray --workers 2 -o r/
    python -m attnviz corpus --model demo-zh-en --reverse-model demo-en-zh --input pairs.tsv --gold -o report/
    python -m attnviz corpus ... --engine ray --ray-address auto --keep-workers   # later jobs find the actors loaded
    python -m attnviz corpus-workers --stop --ray-address auto                   # stop the kept actors

Each line of --input is source<TAB>target, with --gold a third column of Pharaoh links; --segmented reads each side
as space-separated words. Bad lines are listed (bad_lines.parquet, and a count on stderr) and skipped. The report
folder receives heads/layers/pairs/bad_lines.parquet, report.json and report.html; --resume finishes a stopped job
from its finished shards, --force replaces an earlier report. --reverse-model M2 (a model translating target →
source, with --gold) adds the links both directions find (`attnviz.corpus.links`): their precision, recall and AER
per pair (`both_*` in pairs.parquet) and over the corpus (report.json's "links", beside the alignment view's own).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from attnviz.corpus.job import ENGINES, JobConfig, check_config, run_job
from attnviz.corpus.ray_engine import stop_kept_workers
from attnviz.corpus.report import read_report, unread_sentences
from attnviz.corpus.shards import JobOptions
from attnviz.errors import InputError


def add_parser(commands) -> None:
    corpus = commands.add_parser(
        "corpus",
        help="analyse a corpus of pairs: head statistics and AER per head",
        description="Analyse every pair of a file; write Parquet tables and an HTML report.",
    )
    corpus.add_argument("--model", "-m", required=True, help="catalogue name, HF folder or hub id")
    corpus.add_argument(
        "--input",
        "-i",
        required=True,
        type=Path,
        help="UTF-8 file: source<TAB>target[<TAB>links] (or source ||| target [||| links])",
    )
    corpus.add_argument("--output", "-o", required=True, type=Path, help="the report folder")
    corpus.add_argument(
        "--gold",
        action="store_true",
        help="the third column holds gold links (Pharaoh i-j, i?j; empty: a pair without links, "
        "whose every link found counts as extra)",
    )
    corpus.add_argument(
        "--segmented",
        action="store_true",
        help="each side is space-separated words, which the links index (Chinese read without "
        "spaces); default: plain text, links index the word view's words",
    )
    corpus.add_argument(
        "--reverse-model",
        metavar="M2",
        help="with --gold: a model translating the other way (target → source); also scores the links "
        "both directions find: the forward alignment view's links that M2's view of the pair "
        "read backwards also finds, on the same words (attnviz.corpus.links)",
    )
    corpus.add_argument(
        "--faithfulness",
        action="store_true",
        help="also score every measure on each pair by removing tokens in its order (ERASER, deletion curves; "
        "the whole target of a translation): the report gives each measure's mean scores. Costly: about forty "
        "model runs per input token",
    )
    _add_run_arguments(corpus)
    _add_workers_parser(commands)


def _add_run_arguments(corpus) -> None:
    """How the job runs: what is kept, in what batches and shards, where, on which engine, and what it says."""
    corpus.add_argument("--threshold", type=float, default=JobOptions.threshold, help="weakest link (default 0.1)")
    corpus.add_argument("--max-tokens", type=int, default=JobOptions.max_tokens, help="longer pairs are skipped")
    corpus.add_argument("--batch-size", type=int, default=JobOptions.batch_size, help="pairs per forward pass")
    corpus.add_argument("--shard-size", type=int, default=JobConfig.shard_size, help="lines per shard (256)")
    corpus.add_argument("--device", default="cpu", help="auto, cpu, cuda, npu, mps (default cpu)")
    corpus.add_argument(
        "--threads", type=int, help="torch threads per worker (default: torch's in-process, 1 per Ray actor)"
    )
    corpus.add_argument("--engine", choices=ENGINES, default="inprocess", help="inprocess (default) or ray")
    corpus.add_argument("--workers", type=int, default=JobConfig.workers, help="ray: actors in the pool (2)")
    corpus.add_argument("--ray-address", help="ray: join this cluster (default: start a local one)")
    corpus.add_argument(
        "--keep-workers",
        action="store_true",
        help="ray, with --ray-address: leave the loaded actors on the cluster, so the next job of the "
        "same model, device and threads starts at once (stop them: corpus-workers --stop)",
    )
    corpus.add_argument(
        "--app-url", metavar="URL", help="where each pair's link opens it in the app (default http://localhost:8501/)"
    )
    corpus.add_argument("--resume", action="store_true", help="keep the finished shards of an earlier run")
    corpus.add_argument("--force", "-f", action="store_true", help="replace an earlier report")
    corpus.add_argument("--quiet", "-q", action="store_true", help="no progress bar")


def _add_workers_parser(commands) -> None:
    workers = commands.add_parser(
        "corpus-workers",
        help="stop the actors corpus jobs kept on a Ray cluster",
        description="Stop the actors that corpus jobs run with --keep-workers left on a Ray cluster.",
    )
    workers.add_argument("--stop", action="store_true", required=True, help="stop them (the only action)")
    workers.add_argument("--ray-address", default="auto", help="the cluster (default: auto, the one running here)")


def stop_workers(args: argparse.Namespace) -> int:
    print(f"{stop_kept_workers(args.ray_address)} kept corpus actors stopped")
    return 0


def config_of(args: argparse.Namespace) -> JobConfig:
    if not 0 <= args.threshold < 1:
        raise InputError("cli_threshold_range")
    for name in ("max_tokens", "batch_size", "shard_size", "workers", "threads"):
        if getattr(args, name) is not None and getattr(args, name) < 1:
            raise InputError("corpus_positive", option="--" + name.replace("_", "-"))
    options = JobOptions(
        args.gold,
        args.segmented,
        args.batch_size,
        args.max_tokens,
        args.threshold,
        args.reverse_model,
        args.faithfulness,
    )
    return JobConfig(
        args.model,
        args.input,
        args.output,
        options,
        args.device,
        args.shard_size,
        args.engine,
        args.workers,
        args.ray_address,
        args.keep_workers,
        args.threads,
        args.resume,
        args.force,
        args.app_url,
    )


def run(args: argparse.Namespace) -> int:
    config = config_of(args)
    check_config(config)  # a job that cannot start says so before its progress bar
    bar = None
    if not args.quiet:
        from tqdm import tqdm

        bar = tqdm(desc="attnviz corpus", unit="shard", file=sys.stderr)

    def progress(done: int, total: int) -> None:
        bar.total = total
        bar.n = done
        bar.refresh()

    try:
        summary = run_job(config, progress if bar is not None else None)
    finally:
        if bar is not None:
            bar.close()
    if not summary["pairs"]:
        raise nothing_analysed(config, summary)

    for sentence in unread_sentences(summary):
        print(f"attnviz: warning: {sentence}", file=sys.stderr)
    if summary["bad_lines"]:
        print(
            f"attnviz: {summary['bad_lines']} lines skipped (see {args.output / 'bad_lines.parquet'})", file=sys.stderr
        )
    print(f"{summary['pairs']} pairs in {args.output}")
    return 0


def nothing_analysed(config: JobConfig, summary: dict):
    """The error of a job that could analyse no pair (its report, written, lists the lines): the first line's reason
    is often the whole story (a third column without --gold, a model without cross-attention)."""
    if not summary["bad_lines"]:
        return InputError("corpus_input_empty", path=str(config.input))
    first = read_report(config.output)["bad_lines"].iloc[0]
    return InputError(
        "corpus_nothing_analysed",
        path=str(config.input),
        bad=summary["bad_lines"],
        line=int(first["line"]),
        reason=first["message"],
        output=str(config.output),
    )
