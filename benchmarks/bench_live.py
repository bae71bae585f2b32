"""Live generation: how long each update of "Watch it write" takes, per step, for the demo translators (Translate &
align) and the demo decoder (Self-attention).

    python benchmarks/bench_live.py            # demo-zh-en, demo-en-zh, demo-decoder, three texts each, 5 rounds
    python benchmarks/bench_live.py --quick    # 2 rounds

Goal (issue 47): each step's update ≤ 100 ms on 2 cores. An update is what the page does per item `run.run_live`
yields (`attention.live`): waiting for the model's next step (a beam search step, or a written token read from the
recorder with its probability), then building that step's figure (`figures.live.step_row` of the row the page draws,
`LiveStep.row`: a translator's cross-attention, a decoder's self-attention over its prompt and what it wrote) and its
JSON, which is what Streamlit sends. The decoder writes the app's `run.MAX_NEW_TOKENS` tokens (it rarely stops
sooner), so its later steps draw its longest rows. Measured as the consumer sees it: the time between the ends of two consecutive updates. The
first update also runs the encoder and the first decoder pass, so it is reported apart (time to first update).
Baseline in the same run: `generate` of the same text, against which the whole live run's time is a ratio (what
watching costs). Writes its section of benchmarks/RESULTS.md.
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import statistics
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")

from run import write_section  # noqa: E402  (the shared measuring helpers)

from attnviz.attention.generation import generate  # noqa: E402
from attnviz.attention.live_items import LiveStep  # noqa: E402
from attnviz.figures.live import step_row  # noqa: E402
from attnviz.figures.style import FigureStyle  # noqa: E402
from attnviz.model.load import load_model  # noqa: E402
from attnviz.run import MAX_NEW_TOKENS, RunRequest, run_live  # noqa: E402

GOAL_MS = 100.0
TEXTS = {
    "demo-zh-en": ["早上好！", "我喜欢学习中文。", "今天天气很好，我们一起去公园散步吧。"],
    "demo-en-zh": ["Good morning!", "I like studying Chinese.", "The weather is nice today, let's walk in the park."],
    "demo-decoder": ["The cat", "我喜欢学习中文。", "The weather is nice today, let's walk in the park."],
}


def live_updates(handle, text: str, style) -> tuple[list[tuple[str, float]], list[float], float]:
    """One live run: ((kind, ms) of each update after the first, kind "token" or "beams"; ms of each figure build;
    ms to the first update)."""

    updates, figures = [], []
    start = last = time.perf_counter()
    first = None
    for item in run_live(handle, RunRequest(text, None, "generate")):
        if isinstance(item, LiveStep):
            built = time.perf_counter()
            weights, keys = item.row()  # (layers, heads, keys)
            step_row(weights, keys, item.step.token, kind=item.kind, style=style).to_json()
            figures.append((time.perf_counter() - built) * 1000)
        now = time.perf_counter()
        if first is None:
            first = (now - start) * 1000
        else:
            updates.append(("token" if isinstance(item, LiveStep) else "beams", (now - last) * 1000))
        last = now
    return updates[:-1], figures, first  # the last item is the finished capture, not a step


def _collector_pauses() -> list[float]:
    """A list the garbage collector's full (generation 2) collections append their ms to, from now on: the
    slowest updates are read against them."""
    pauses, started = [], []

    def timed(phase: str, info: dict) -> None:
        if info["generation"] != 2:
            return
        if phase == "start":
            started.append(time.perf_counter())
        elif started:
            pauses.append((time.perf_counter() - started.pop()) * 1000)

    gc.callbacks.append(timed)
    return pauses


def measure(rounds: int) -> list[dict]:

    rows = []
    pauses = _collector_pauses()
    for name, texts in TEXTS.items():
        handle = load_model(name, "cpu")
        style = FigureStyle(lang="en")
        live_updates(handle, texts[0], style)  # warm-up
        generate(handle, texts[0], MAX_NEW_TOKENS)  # what run_live writes at most, as the page asks
        gc.freeze()  # as the app's start-up does (app_pages/shared/startup.py): later collections skip what it made
        pauses.clear()
        updates, figures, firsts, ratios = [], [], [], []
        for _ in range(rounds):
            for text in texts:  # interleaved: generate, then the live run of the same text
                started = time.perf_counter()
                generate(handle, text, MAX_NEW_TOKENS)
                plain = time.perf_counter() - started
                started = time.perf_counter()
                steps, built, first = live_updates(handle, text, style)
                ratios.append((time.perf_counter() - started) / plain)
                updates += steps
                figures += built
                firsts.append(first)
        rows.append(
            dict(
                model=name,
                beams=getattr(handle.model.generation_config, "num_beams", None) or 1,
                updates=updates,
                figures=figures,
                firsts=firsts,
                ratio=statistics.median(ratios),
                longest_collection=max(pauses, default=0.0),
            )
        )
    return rows


def _times(row: dict, kind: str) -> list[float]:
    return [ms for what, ms in row["updates"] if what == kind]


def render(rows: list[dict], meta: str) -> str:
    every = [ms for row in rows for _, ms in row["updates"]]
    worst_median = max(statistics.median(ms for _, ms in row["updates"]) for row in rows)
    verdict = (
        "met"
        if max(every) <= GOAL_MS
        else ("met by the median, not by the max" if worst_median <= GOAL_MS else "NOT met")
    )
    lines = [
        "## Live generation (`python benchmarks/bench_live.py`)",
        "",
        f'{meta}. Per update of "Watch it write" after the first (a beam search step, or a written token with its '
        f"figure built and serialised): median **{worst_median:.0f} ms** in the slowest model, max "
        f"**{max(every):.0f} ms** over every update (goal ≤ {GOAL_MS:.0f} ms per step: {verdict}). The first update "
        "also runs the encoder and the first decoder pass. Live / generate: the whole live run (every update) over "
        "`generate` of the same text in the same round (what the per-step reading and the figures add). What loading "
        "and the warm-up made is frozen out of the garbage collector (`gc.freeze()`), as the app's start-up does for "
        "the default model; a model the app loads later is not frozen, and there a full collection can land in one "
        "update (without the freeze: ~220 ms once in a figure's build, the max of an otherwise equal run). The last "
        "column is the longest full collection during the timed runs.",
        "",
        "| model (beams) | token updates: n, median ms, max | beam updates: n, median ms, max | figure ms: median, "
        "max | first update ms (median) | live / generate (median) | longest full collection ms |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        cells = []
        for kind in ("token", "beams"):
            times = _times(row, kind)
            cells.append(f"{len(times)}, **{statistics.median(times):.0f}**, {max(times):.0f}" if times else "—")
        lines.append(
            f"| {row['model']} ({row['beams']}) | {cells[0]} | {cells[1]} "
            f"| {statistics.median(row['figures']):.1f}, {max(row['figures']):.1f} "
            f"| {statistics.median(row['firsts']):.0f} | {row['ratio']:.2f}× | {row['longest_collection']:.0f} |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--threads", type=int, default=1, help="torch threads (the app's default, 1)")
    parser.add_argument("--quick", action="store_true", help="2 rounds")
    parser.add_argument("--no-write", action="store_true", help="print the section, leave RESULTS.md as it is")
    args = parser.parse_args()
    if args.quick:
        args.rounds = 2
    import torch
    import transformers

    torch.set_num_threads(args.threads)
    rows = measure(args.rounds)
    meta = (
        f"Measured {datetime.now(timezone.utc):%Y-%m-%d %H:%M UTC} — {platform.machine()}, {os.cpu_count()} CPUs, "
        f"torch {torch.__version__}, transformers {transformers.__version__}, {args.threads} torch thread(s), "
        f"{args.rounds} rounds of 3 texts, load average {os.getloadavg()[0]:.1f}"
    )
    section = render(rows, meta)
    if not args.no_write:
        write_section("bench_live", section)
    print(section)


if __name__ == "__main__":
    main()
