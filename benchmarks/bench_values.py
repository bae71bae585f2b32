"""What value norms cost: `capture`, `capture_lazy` and `generate` with the value norms ‖f_h(x_j)‖ (what they do
now) against the same calls with the norms switched off (plain capture, as before), same model, text and machine.

    python benchmarks/bench_values.py              # MiniLM at 64–512 tokens, the demo translator's pair and generation
    python benchmarks/bench_values.py --quick      # 64 and 128 tokens, 5 rounds

Goal: ≤ 1.3× plain capture. The methods run interleaved (each round runs every method once, so load from other jobs
hits them alike); the ratio is the median over rounds of each round's with-norms / plain time (`run.interleaved_ms`).
"Plain" replaces `Recorder.keep_norms` by a no-op for the call, so the forward pass, the weights and everything else
are the same code. Writes its section of benchmarks/RESULTS.md (between the value-norm markers; `run.py` keeps it).
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")

from run import interleaved_ms, text_of_tokens, write_section  # noqa: E402  (the shared measuring helpers)

GOAL = 1.3
PAIR = ("我喜欢学习。早上好！今天天气很好。", "I like studying. Good morning! The weather is nice today.")


@contextmanager
def without_norms():
    """Plain capture: the recorders keep no value norms (the maps then carry none)."""
    from attnviz.attention.recorder import Recorder

    kept = Recorder.keep_norms
    Recorder.keep_norms = lambda self, *args: None
    try:
        yield
    finally:
        Recorder.keep_norms = kept


def paired(run, repeats: int) -> dict:
    """`run()` with value norms and without, interleaved: best and median ms of each, the paired median ratio."""

    def plain():
        with without_norms():
            return run()

    timed = interleaved_ms({"plain": plain, "values": run}, repeats, baselines={"values": "plain"})
    return {
        "plain": timed["plain"]["best"],
        "values": timed["values"]["best"],
        "ratio": timed["values"]["paired"],
        "ratio_cpu": timed["values"]["paired_cpu"],
    }


def measure(sizes: list[int], repeats: int) -> list[tuple[str, dict]]:
    from attnviz.attention.capture import capture
    from attnviz.attention.generation import generate
    from attnviz.attention.ondemand import capture_lazy
    from attnviz.model.load import load_model

    rows = []
    minilm = load_model("minilm", "cpu")
    for n in sizes:
        text = text_of_tokens(minilm.tokenizer, n)
        rows.append((f"MiniLM, {n} tokens: capture", paired(lambda text=text: capture(minilm, text), repeats)))
        rows.append(
            (f"MiniLM, {n} tokens: capture_lazy", paired(lambda text=text: capture_lazy(minilm, text), repeats))
        )
        print(rows[-2], rows[-1], flush=True)
    demo = load_model("demo-zh-en", "cpu")
    source, target = PAIR
    rows.append(("demo-zh-en pair: capture", paired(lambda: capture(demo, source, target), repeats)))
    rows.append(("demo-zh-en pair: capture_lazy", paired(lambda: capture_lazy(demo, source, target), repeats)))
    rows.append(("demo-zh-en: generate 32 tokens", paired(lambda: generate(demo, source), max(3, repeats // 3))))
    return rows


def render(rows: list[tuple[str, dict]], meta: str) -> str:
    worst = max(row["ratio"] for _, row in rows)
    verdict = "met" if worst <= GOAL else "NOT met"
    lines = [
        "## Value norms (`python benchmarks/bench_values.py`)",
        "",
        f"{meta}. Capturing the value norms ‖f_h(x_j)‖ beside the weights costs at worst **{worst:.2f}×** plain "
        f"capture (goal ≤ {GOAL}×: {verdict}), as the median over interleaved rounds of each round's ratio. Plain: "
        "the same calls with `Recorder.keep_norms` a no-op. Generation computes the norms once, after the run.",
        "",
        "| case | plain (ms, best) | with value norms (ms, best) | ratio (paired median) | CPU ratio |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, row in rows:
        lines.append(
            f"| {name} | {row['plain']:.1f} | {row['values']:.1f} | **{row['ratio']:.2f}** | {row['ratio_cpu']:.2f} |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="64,128,256,512")
    parser.add_argument("--repeats", type=int, default=21)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--quick", action="store_true", help="sizes 64,128, 5 repeats")
    args = parser.parse_args()
    if args.quick:
        args.sizes, args.repeats = "64,128", 5
    import torch
    import transformers

    torch.set_num_threads(args.threads)
    rows = measure([int(s) for s in args.sizes.split(",") if s.strip()], args.repeats)
    meta = (
        f"Measured {datetime.now(timezone.utc):%Y-%m-%d %H:%M UTC} — {platform.machine()}, {os.cpu_count()} CPUs, "
        f"torch {torch.__version__}, transformers {transformers.__version__}, {args.threads} threads, "
        f"{args.repeats} interleaved rounds, load average {os.getloadavg()[0]:.1f}"
    )
    section = render(rows, meta)
    write_section("bench_values", section)
    print(section)


if __name__ == "__main__":
    main()
