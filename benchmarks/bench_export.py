"""How long exporting a 64×64 attention heatmap takes, per engine and format (goal: PNG under 1 s, warm).

    python benchmarks/bench_export.py            # table on stdout; exit 1 if a warm PNG misses the goal
    python benchmarks/bench_export.py --json     # the same numbers as JSON

"Warm" means after one untimed render: kaleido's first call starts Chromium (~2 s, once per process) and the
static engine's first call imports matplotlib and registers the CJK font (~0.5 s, once per process); both cold
times are reported too. Building the plotly figure is timed on its own.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from attnviz import export, figures  # noqa: E402
from attnviz.types import AttentionMap, Token  # noqa: E402

GOAL_SECONDS = 1.0
SIZE = 64


def heatmap_64() -> AttentionMap:
    """A causal 64×64 map with Chinese and English token labels (softmax rows)."""
    words = ["早上", "好", "Good", "morning", "我", "喜欢", "学习", "attention"]
    text, tokens = "", []
    for i in range(SIZE):
        word = words[i % len(words)]
        tokens.append(Token(word, len(text), len(text) + len(word)))
        text += word + " "
    rng = np.random.default_rng(0)
    logits = rng.normal(scale=2.0, size=(1, 1, SIZE, SIZE))
    logits = np.where(np.triu(np.ones((SIZE, SIZE), bool), 1), -np.inf, logits)
    weights = np.exp(logits - logits.max(-1, keepdims=True))
    weights /= weights.sum(-1, keepdims=True)
    return AttentionMap("self", weights.astype(np.float32), tokens, tokens, ["model.layers.0.attn"], causal=True)


def _time(call, repeats: int) -> list[float]:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return times


def run(repeats: int = 5, formats: tuple[str, ...] = ("png", "svg", "pdf")) -> dict:
    amap = heatmap_64()
    style = figures.FigureStyle(model="bench")
    build = _time(lambda: figures.heatmap(amap, layers=0, heads=0, style=style), repeats)
    fig = figures.heatmap(amap, layers=0, heads=0, style=style)
    engines = ["static"] + (["kaleido"] if export.kaleido.browser_path() else [])
    results = {"figure_build_s": statistics.median(build), "engines": {}}
    for engine in engines:
        per_format = {}
        for fmt in formats:
            render = lambda fmt=fmt, engine=engine: export.figure_bytes(fig, fmt, engine=engine)  # noqa: E731
            cold = _time(render, 1)[0]
            warm = _time(render, repeats)
            per_format[fmt] = {"cold_s": cold, "warm_median_s": statistics.median(warm), "warm_min_s": min(warm)}
        results["engines"][engine] = per_format
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = run(args.repeats)
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        print(f"64×64 heatmap figure build: {results['figure_build_s'] * 1000:.0f} ms (median)")
        print(f"{'engine':8} {'format':6} {'cold':>8} {'warm median':>12} {'warm min':>9}")
        for engine, per_format in results["engines"].items():
            for fmt, t in per_format.items():
                print(
                    f"{engine:8} {fmt:6} {t['cold_s'] * 1000:6.0f}ms {t['warm_median_s'] * 1000:10.0f}ms "
                    f"{t['warm_min_s'] * 1000:7.0f}ms"
                )
    slow = [e for e, f in results["engines"].items() if f["png"]["warm_median_s"] >= GOAL_SECONDS]
    if slow:
        print(f"PNG export slower than {GOAL_SECONDS:.0f} s (warm) with: {', '.join(slow)}", file=sys.stderr)
    return 1 if slow else 0


if __name__ == "__main__":
    sys.exit(main())
