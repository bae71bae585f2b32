"""What the contribution measures cost against a plain `capture` of the same text, same model and machine, in one run.

    python benchmarks/bench_measures.py            # demo-zh-en on a ~30-token pair, MiniLM at 64 and 128 tokens
    python benchmarks/bench_measures.py --quick    # 5 rounds

Goals (issue 45): every measure but value zeroing ≤ 3× a plain capture on a ~30-token pair of demo-zh-en. The
methods run interleaved (each round runs every method once, so load from other jobs hits them alike); the ratio is
the median over rounds of each round's measure / capture time (`run.interleaved_ms`). Each measure is one entry of
`MEASURES` (name -> function of handle, text, target). Writes its section of benchmarks/RESULTS.md.
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

from run import interleaved_ms, text_of_tokens, write_section  # noqa: E402  (the shared measuring helpers)

GOAL = 3.0
# About 30 tokens on each side for demo-zh-en.
PAIR = (
    "我喜欢学习中文。早上好！今天天气很好，我们一起去公园散步吧。晚上我想读一本书。",
    "I like studying Chinese. Good morning! The weather is nice today, let's walk in the park. I want to read.",
)


def _measures() -> dict:
    from attnviz.measures.alti import alti

    return {
        "ALTI": lambda handle, text, target: alti(handle, text, target),
        "ALTI rollout (+ ALTI+)": lambda handle, text, target: alti(handle, text, target, method="alti-rollout"),
    }


def compare(handle, text: str, target: str | None, repeats: int) -> dict:
    """Best ms of a plain capture and of each measure, with each measure's paired median ratio to the capture."""
    from attnviz.attention.capture import capture

    measures = {name: (lambda run=run: run(handle, text, target)) for name, run in _measures().items()}
    methods = {"capture": lambda: capture(handle, text, target), **measures}
    return interleaved_ms(methods, repeats, baselines={name: "capture" for name in measures})


def measure(repeats: int) -> list[tuple[str, str, dict]]:
    from attnviz.model.load import load_model

    demo = load_model("demo-zh-en", "cpu")
    source, target = PAIR
    tokens = (len(demo.tokenizer(source)["input_ids"]), len(demo.tokenizer(text_target=target)["input_ids"]))
    rows = [(f"demo-zh-en, {tokens[0]} + {tokens[1]} tokens", "pair", compare(demo, source, target, repeats))]
    minilm = load_model("minilm", "cpu")
    for n in (64, 128):
        rows.append(
            (f"MiniLM, {n} tokens", "self", compare(minilm, text_of_tokens(minilm.tokenizer, n), None, repeats))
        )
    return rows


def _ratios(row: dict, name: str) -> tuple[float, float]:
    """(best / best capture, paired median ratio) of measure `name` in one case."""
    return row[name]["best"] / row["capture"]["best"], row[name]["paired"]


def render(rows: list[tuple[str, str, dict]], meta: str) -> str:
    names = list(_measures())
    pair = [row for label, kind, row in rows if kind == "pair"][0]
    worst = max(max(_ratios(pair, name)) for name in names)  # the larger of the two ratios: load moves both
    verdict = "met" if worst <= GOAL else "NOT met"
    lines = [
        "## Contribution measures (`python benchmarks/bench_measures.py`)",
        "",
        f"{meta}. On the demo-zh-en pair the slowest measure costs **{worst:.2f}×** a plain capture (goal ≤ {GOAL}×: "
        f"{verdict}), the larger of its best time over the capture's best and the median over interleaved rounds of "
        "each round's ratio (CPU: the same of this process's CPU time, which does not count waiting for a core). A "
        "measure runs the whole model (a capture stops after the last attention call) and decomposes every block.",
        "",
        "| case | capture (ms, best) | "
        + " | ".join(f"{name}: ms (best); best ratio; paired; CPU paired" for name in names)
        + " |",
        "|---|---:|" + "---:|" * len(names),
    ]
    for label, _kind, row in rows:
        cells = []
        for name in names:
            best, paired = _ratios(row, name)
            cells.append(f"{row[name]['best']:.1f}; **{best:.2f}×**; {paired:.2f}×; {row[name]['paired_cpu']:.2f}×")
        lines.append(f"| {label} | {row['capture']['best']:.1f} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=21)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--quick", action="store_true", help="5 repeats")
    parser.add_argument("--no-write", action="store_true", help="print the section, leave RESULTS.md as it is")
    args = parser.parse_args()
    if args.quick:
        args.repeats = 5
    import torch
    import transformers

    torch.set_num_threads(args.threads)
    rows = measure(args.repeats)
    meta = (
        f"Measured {datetime.now(timezone.utc):%Y-%m-%d %H:%M UTC} — {platform.machine()}, {os.cpu_count()} CPUs, "
        f"torch {torch.__version__}, transformers {transformers.__version__}, {args.threads} threads, "
        f"{args.repeats} interleaved rounds, load average {os.getloadavg()[0]:.1f}"
    )
    section = render(rows, meta)
    if not args.no_write:
        write_section("bench_measures", section)
    print(section)


if __name__ == "__main__":
    main()
