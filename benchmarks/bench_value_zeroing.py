"""What value zeroing and saliency cost beside a plain `attnviz.capture`, same model, pair and machine, in one run.

    python benchmarks/bench_value_zeroing.py            # demo-zh-en, a ~30-token pair, 15 rounds
    python benchmarks/bench_value_zeroing.py --quick    # 5 rounds

Goals (issue 45): value zeroing ≤ 10× a plain capture (every layer of the encoder, decoder and cross-attention,
each layer's block run once on the input repeated once per key), saliency ≤ 3× (one chosen target token: one
forward and one backward pass). The methods run interleaved (each round runs every method once, so load from other
jobs hits them alike); a ratio is the median over rounds of that round's measure / capture time
(`run.interleaved_ms`). Writes its section of benchmarks/RESULTS.md (between the value-zeroing markers).
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
from datetime import datetime, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")

from run import interleaved_ms, write_section  # noqa: E402  (the shared measuring helpers)

MODEL = "demo-zh-en"
PAIR = (
    "我喜欢学习。早上好！今天天气很好。",
    "I like studying. Good morning! The weather is nice today.",
)  # 13 + 14 tokens
GOALS = {"value zeroing": 10.0, "saliency (one target token)": 3.0}


def measure(repeats: int) -> tuple[dict, dict]:
    import attnviz
    from attnviz.measures.saliency import saliency
    from attnviz.measures.value_zeroing import value_zeroing

    handle = attnviz.load_model(MODEL)
    text, target = PAIR
    plain = attnviz.capture(handle, text, target)
    middle = len(plain["cross"].query_tokens) // 2  # a target token in the middle of the sentence
    methods = {
        "capture": lambda: attnviz.capture(handle, text, target),
        "value zeroing": lambda: value_zeroing(handle, text, target),
        "saliency (one target token)": lambda: saliency(handle, text, target, rows=middle),
    }
    timed = interleaved_ms(methods, repeats, baselines={name: "capture" for name in GOALS})
    sizes = {
        "source tokens": len(plain["cross"].key_tokens),
        "target tokens": len(plain["cross"].query_tokens),
        "layers": plain["encoder"].weights.shape[0],
    }
    return timed, sizes


def render(timed: dict, sizes: dict, meta: str) -> str:
    lines = [
        "## Value zeroing and saliency against a plain capture",
        "",
        f"`{MODEL}`, {sizes['source tokens']} source and {sizes['target tokens']} target tokens, "
        f"{sizes['layers']} layers per stack. {meta}.",
        "",
        "| method | best ms | median ms | × capture (paired median) | × capture, CPU time | goal |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name, row in timed.items():
        ratio = f"**{row['paired']:.2f}**" if "paired" in row else "1"
        cpu = f"{row['paired_cpu']:.2f}" if "paired_cpu" in row else "1"
        goal = f"≤ {GOALS[name]:g}×" if name in GOALS else ""
        lines.append(f"| {name} | {row['best']:.1f} | {row['median']:.1f} | {ratio} | {cpu} | {goal} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--quick", action="store_true", help="5 repeats")
    args = parser.parse_args()
    if args.quick:
        args.repeats = 5
    import torch
    import transformers

    torch.set_num_threads(args.threads)
    timed, sizes = measure(args.repeats)
    meta = (
        f"Measured {datetime.now(timezone.utc):%Y-%m-%d %H:%M UTC} — {platform.machine()}, {os.cpu_count()} CPUs, "
        f"torch {torch.__version__}, transformers {transformers.__version__}, {args.threads} threads, "
        f"{args.repeats} interleaved rounds, load average {os.getloadavg()[0]:.1f}"
    )
    section = render(timed, sizes, meta)
    write_section("bench_value_zeroing", section)
    print(section)
    missed = [name for name, goal in GOALS.items() if timed[name]["paired"] > goal]
    if missed:
        print(f"Over the goal: {', '.join(missed)}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
