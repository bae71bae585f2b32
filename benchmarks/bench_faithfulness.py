"""What the faithfulness scoreboard costs: every measure scored for one output token of a 30-token pair on
demo-zh-en, batched against one forward pass per removal step.

    python benchmarks/bench_faithfulness.py            # 5 interleaved rounds, 2 torch threads
    python benchmarks/bench_faithfulness.py --quick    # 2 rounds

Goals: the whole scoreboard (`attnviz.measures.faithfulness.faithfulness`: the seven measures' relevances, then
every removal step of every order — seven measures and three random orders — under both baselines, deletion and
insertion) ≤ 20 s on 2 cores; and its batched, deduplicated removal passes against the same code with one forward
pass per edited input (`per_pass=1`, repeats included). The two run interleaved (`run.interleaved_ms`); the ratio
is the median over rounds of each round's one-per-step / batched time. Writes its section of benchmarks/RESULTS.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")

from run import interleaved_ms, write_section  # noqa: E402  (the shared measuring helpers)

from attnviz import load_model  # noqa: E402
from attnviz.attention.batching import prepare_batch  # noqa: E402
from attnviz.maps.faithfulness_scores import deletion_inputs, insertion_inputs  # noqa: E402
from attnviz.measures.faithfulness import faithfulness  # noqa: E402
from attnviz.measures.relevance import relevances  # noqa: E402
from attnviz.measures.removal import scored_output  # noqa: E402

GOAL_SECONDS = 20.0
THREADS = 2
PAIR = (
    "我们出去玩儿吧。他晚上常常学习，爷爷和奶奶身体都很好。明天我要去北京。",
    "Let's go out and play. He often studies in the evening, and grandpa and grandma are both healthy. "
    "Tomorrow I will go to Beijing.",
)
ROW = 30  # "Beijing": one output token, late in the target (the decoder reads 31 tokens)


def measure(repeats: int, threads: int) -> dict:
    import torch

    torch.set_num_threads(threads)
    handle = load_model("demo-zh-en")
    batch = prepare_batch(handle, [PAIR[0]], [PAIR[1]])
    timed = interleaved_ms(
        {
            "one forward per step": lambda: faithfulness(handle, *PAIR, row=ROW, per_pass=1),
            "batched": lambda: faithfulness(handle, *PAIR, row=ROW),
        },
        repeats,
        baselines={"one forward per step": "batched"},
    )
    board = faithfulness(handle, *PAIR, row=ROW)
    output = scored_output(handle, *PAIR, row=ROW)
    start = time.perf_counter()
    relevances(handle, PAIR[0], PAIR[1], output.relevance_rows)
    measures_ms = (time.perf_counter() - start) * 1000
    steps = len(next(iter(board.orders.values()))) + 1
    edited = len(board.baselines) * len(board.orders) * 2 * steps
    return {
        "tokens": (len(batch.sources[0].ids), len(batch.decoded[0].ids)),
        "token": board.explained,
        "orders": len(board.orders),
        "edited": edited,
        "distinct": _distinct(batch.sources[0].ids, board),
        "threads": threads,
        "measures_ms": measures_ms,
        **{name: timed[name] for name in timed},
    }


def _distinct(ids, board) -> int:
    """How many of the edited inputs differ (the batched passes run each once)."""
    import numpy as np

    rows = []
    for replacement in board.replacements.values():
        for order in board.orders.values():
            rows += [deletion_inputs(ids, order, replacement), insertion_inputs(ids, order, replacement)]
    return len(np.unique(np.concatenate(rows), axis=0))


def render(result: dict, repeats: int) -> str:
    import torch
    import transformers

    batched, single = result["batched"], result["one forward per step"]
    verdict = "met" if batched["best"] / 1000 <= GOAL_SECONDS else "NOT met"
    load = os.getloadavg()[0]
    return "\n".join(
        [
            "## Faithfulness scoreboard: batched removal passes vs one forward per removal step",
            "",
            f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, {platform.processor() or platform.machine()}, "
            f"{os.cpu_count()} CPUs, torch {torch.__version__}, transformers {transformers.__version__}, "
            f"{result['threads']} threads, {repeats} interleaved rounds, load average {load:.1f} "
            "(`benchmarks/bench_faithfulness.py`).",
            "",
            f"demo-zh-en, {result['tokens'][0]} source and {result['tokens'][1]} target tokens, one output token "
            f"(target row {ROW}, “{result['token']}”): seven measures, {result['orders'] - 7} random orders, two "
            f"baselines, deletion and insertion: {result['edited']} edited inputs, {result['distinct']} of them distinct. The measures' relevances alone "
            f"(capture, ALTI, value zeroing, saliency): {result['measures_ms'] / 1000:.2f} s.",
            "",
            "| method | best s | median s | CPU s (best) |",
            "|---|---:|---:|---:|",
            f"| one forward per removal step (`per_pass=1`) | {single['best'] / 1000:.2f} | "
            f"{single['median'] / 1000:.2f} | {single['cpu'] / 1000:.2f} |",
            f"| batched (`faithfulness`) | {batched['best'] / 1000:.2f} | {batched['median'] / 1000:.2f} | "
            f"{batched['cpu'] / 1000:.2f} |",
            "",
            f"Whole scoreboard, batched: **{batched['best'] / 1000:.2f} s** best, {batched['median'] / 1000:.2f} s "
            f"median (goal ≤ {GOAL_SECONDS:.0f} s on 2 cores: {verdict}). Paired ratio one-per-step / batched: "
            f"**{single['paired']:.2f}×** wall, {single['paired_cpu']:.2f}× CPU time.",
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="2 rounds instead of 5")
    parser.add_argument("--threads", type=int, default=THREADS, help="torch threads (2: the goal's two cores)")
    parser.add_argument("--no-write", action="store_true", help="print only; leave RESULTS.md as it is")
    args = parser.parse_args()
    repeats = 2 if args.quick else 5
    section = render(measure(repeats, args.threads), repeats)
    print(section)
    if not args.no_write:
        write_section("bench_faithfulness", section)


if __name__ == "__main__":
    main()
