"""What comparing costs on top of the captures: `compare_captures` of two 50-token inputs (every head: word
matching, JS of every head, the diff map), against one `capture` of one of them, same model and machine.

    python benchmarks/bench_compare.py              # MiniLM (6 layers × 12 heads) and the demo translator, 21 rounds
    python benchmarks/bench_compare.py --quick      # 5 rounds

Goal: the comparison of every head costs ≤ 0.5× one capture (so A and B compared cost ≤ 2.5 captures in all). The
methods run interleaved (each round runs each once); the ratio is the median over rounds of compare / capture in
the same round (`run.interleaved_ms`). "paired heads" compares as for two models: every head of A against every
head of B in its layer, then the assignment. Writes its section of benchmarks/RESULTS.md (between the compare
markers; `run.py` keeps it).
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

GOAL = 0.5
TOKENS = 50
ZH_A = "我喜欢学习。早上好！今天天气很好，我们去公园散步吧。昨天我读了一本很有意思的书，是关于历史的。"
ZH_B = "我喜欢读书。晚上好！今天天气不好，我们在家里看电影吧。昨天我读了一本很有意思的书，是关于音乐的。"
EN = "I like studying. Good morning! The weather is nice today, let us walk in the park. I read a book about history."


def case(handle, text_a: str, text_b: str, target: str | None, repeats: int) -> dict:
    """Interleaved: one capture of A, and the comparison of the captures of A and B (same heads; paired heads)."""
    from attnviz.attention.capture import capture
    from attnviz.compare import compare_captures

    result_a, result_b = capture(handle, text_a, target), capture(handle, text_b, target)
    methods = {
        "capture": lambda: capture(handle, text_a, target),
        "compare": lambda: compare_captures(result_a, result_b),
        "paired": lambda: compare_captures(result_a, result_b, pair_heads=True),
    }
    timed = interleaved_ms(methods, repeats, baselines={"compare": "capture", "paired": "capture"})
    shape = result_a[compare_captures(result_a, result_b).kind].weights.shape
    return {"shape": shape, **{name: timed[name] for name in methods}}


def measure(repeats: int) -> list[tuple[str, dict]]:
    from attnviz.model.load import load_model

    minilm = load_model("minilm", "cpu")
    text_a = text_of_tokens(minilm.tokenizer, TOKENS)
    words = text_a.split()
    words[len(words) // 2] = "yesterday"  # B: one word changed in the middle
    rows = [(f"MiniLM, {TOKENS} tokens, one word changed", case(minilm, text_a, " ".join(words), None, repeats))]
    print(rows[-1], flush=True)
    demo = load_model("demo-zh-en", "cpu")
    rows.append(("demo-zh-en, two Chinese sentences, one target (cross)", case(demo, ZH_A, ZH_B, EN, repeats)))
    print(rows[-1], flush=True)
    return rows


def render(rows: list[tuple[str, dict]], meta: str) -> str:
    worst = max(row["compare"]["paired"] for _, row in rows)
    verdict = "met" if worst <= GOAL else "NOT met"
    lines = [
        "## Compare (`python benchmarks/bench_compare.py`)",
        "",
        f"{meta}. Comparing every head of two captures (`attnviz.compare.compare_captures`: word matching, the JS "
        f"of every head, the diff map) costs at worst **{worst:.2f}×** one capture (goal ≤ {GOAL}×: {verdict}), "
        "as the median over interleaved rounds of each round's ratio (best / best: the least disturbed runs' "
        "ratio, the stricter reading on a busy machine). Paired heads: each head of A against each "
        "head of B in its layer, then the minimum-cost assignment (two models).",
        "",
        "| case | map (layers, heads, q, k) | capture (ms, best) | compare (ms, best) | ratio | best / best "
        "| paired heads (ms, best) | ratio |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name, row in rows:
        lines.append(
            f"| {name} | {tuple(row['shape'])} | {row['capture']['best']:.1f} | {row['compare']['best']:.1f} | "
            f"**{row['compare']['paired']:.2f}** | {row['compare']['best'] / row['capture']['best']:.2f} | "
            f"{row['paired']['best']:.1f} | {row['paired']['paired']:.2f} |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=21)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--quick", action="store_true", help="5 repeats")
    parser.add_argument("--no-write", action="store_true", help="print the section, leave RESULTS.md as it is")
    args = parser.parse_args()
    import torch

    torch.set_num_threads(args.threads)
    rows = measure(5 if args.quick else args.repeats)
    when = datetime.now(timezone.utc).strftime("%Y-%m-%d")
    meta = f"{when}, {platform.processor() or platform.machine()}, torch {torch.__version__}, {args.threads} threads"
    section = render(rows, meta)
    print(section)
    if not args.no_write:
        write_section("compare", section)


if __name__ == "__main__":
    main()
