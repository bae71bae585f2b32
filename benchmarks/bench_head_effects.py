"""What exact head effects cost, and how well the fast estimate ranks heads.

    python benchmarks/bench_head_effects.py            # demo-zh-en timing (5 rounds), Spearman on three models
    python benchmarks/bench_head_effects.py --quick    # 2 rounds

Speed goal: the exact effects of every head of demo-zh-en (encoder, decoder and cross-attention heads, on a ~30-token
pair) ≥ 3× faster batched (`head_effects`, heads as a batch dimension) than one forward per head (`rows=1`, the same
code with one ablated copy per pass). The two run interleaved (`run.interleaved_ms`); the ratio is the median over
rounds of each round's per-head / batched time. Quality: Spearman's ρ of the attribution-patching estimate
(`head_estimate`) against the exact effects, for demo-zh-en (log-prob of the given translation), MiniLM (1 − cos of
the pooled state) and demo-decoder (log-prob of a given continuation). Writes its section of benchmarks/RESULTS.md.
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

GOAL = 3.0
PAIR = (
    "我喜欢学习。早上好！今天天气很好，我们去公园散步吧。",
    "I like studying. Good morning! The weather is nice today.",
)
CASES = (  # model, text, target
    ("demo-zh-en", *PAIR),
    ("minilm", "Attention shows where a head looks, not what the model uses.", None),
    ("demo-decoder", "早上好！", "今天天气很好。"),
)


def timing(repeats: int) -> dict:
    from attnviz import load_model
    from attnviz.measures.head_effects import head_effects, prepare_scoring

    handle = load_model("demo-zh-en")
    scoring = prepare_scoring(handle, *PAIR)
    timed = interleaved_ms(
        {
            "per head": lambda: head_effects(handle, *PAIR, rows=1, scoring=scoring),
            "batched": lambda: head_effects(handle, *PAIR, scoring=scoring),
        },
        repeats,
        baselines={"per head": "batched"},
    )
    effects = head_effects(handle, *PAIR, scoring=scoring)
    return {
        "heads": sum(total.size for total in effects.total.values()),
        "tokens": (scoring.inputs["input_ids"].shape[1], scoring.inputs["decoder_input_ids"].shape[1]),
        "passes": effects.provenance["options"]["passes"],
        "per_head": timed["per head"]["best"],
        "batched": timed["batched"]["best"],
        "ratio": timed["per head"]["paired"],
    }


def agreement() -> list[dict]:
    from attnviz import load_model
    from attnviz.measures.head_effects import head_effects
    from attnviz.measures.head_estimate import head_estimate, rank_agreement

    rows = []
    for name, text, target in CASES:
        handle = load_model(name)
        exact, estimate = head_effects(handle, text, target), head_estimate(handle, text, target)
        rows.append(
            {
                "model": name,
                "metric": exact.metric,
                "heads": sum(total.size for total in exact.total.values()),
                "rho": rank_agreement(exact, estimate),
            }
        )
    return rows


def render(timed: dict, rows: list[dict], repeats: int) -> str:
    verdict = "met" if timed["ratio"] >= GOAL else "NOT met"
    lines = [
        "## Head effects: exact ablation, batched vs one forward per head; the estimate's rank agreement",
        "",
        f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, {platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} CPUs, {repeats} interleaved rounds (`benchmarks/bench_head_effects.py`).",
        "",
        f"demo-zh-en, {timed['heads']} heads (encoder, decoder, cross), {timed['tokens'][0]} source and "
        f"{timed['tokens'][1]} target tokens:",
        "",
        "| method | best ms | passes |",
        "|---|---|---|",
        f"| one forward per head (`rows=1`) | {timed['per_head']:.0f} | {timed['heads']} |",
        f"| batched (`head_effects`) | {timed['batched']:.0f} | {timed['passes']} |",
        "",
        f"Paired ratio per head / batched: **{timed['ratio']:.2f}×** (goal ≥ {GOAL:.0f}×: {verdict}).",
        "",
        "| model | metric | heads | Spearman ρ (estimate vs exact) |",
        "|---|---|---|---|",
        *[f"| {r['model']} | {r['metric']} | {r['heads']} | {r['rho']:.3f} |" for r in rows],
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="2 rounds instead of 5")
    parser.add_argument("--no-write", action="store_true", help="print only; leave RESULTS.md as it is")
    args = parser.parse_args()
    repeats = 2 if args.quick else 5
    section = render(timing(repeats), agreement(), repeats)
    print(section)
    if not args.no_write:
        write_section("head_effects", section)  # \w+ names: run.py keeps only those


if __name__ == "__main__":
    main()
