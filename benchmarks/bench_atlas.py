"""The long-context atlas against a plain SDPA forward of the same model over the same text, paired, and beside
today's on-demand path: a random Qwen2.5-0.5B-shaped decoder (24 layers, 14 query heads, 2 key/value heads, head
width 64, hidden 896, its real vocabulary) on the CPU.

    python benchmarks/bench_atlas.py                  # 16,384 tokens (paired rounds) and 32,768 (one round); writes RESULTS.md
    python benchmarks/bench_atlas.py --tokens 2048 --long-tokens 0 --no-write   # a quick look

Measured, per size: wall and process CPU time of a plain forward (`model(ids, use_cache=False, logits_to_keep=1)`
under SDPA, what the atlas's own pass skips at the end included) and of `capture_atlas(handle, text)` (tokenizing,
the forward through the fused kernels, every head's block masses, sink shares), alternated round by round so that
load from other processes hits both alike; the ratio is the median of each round's atlas / plain. Peak extra
memory: the resident high-water mark each call adds (`/proc/self/clear_refs`, then VmHWM − VmRSS before; malloc
gives large blocks back to the system, MALLOC_MMAP_THRESHOLD_), the atlas's with what it keeps (queries, keys, LSE).
Windows: 256 × 256 exact windows of random heads at random places. Today's path: `capture_lazy` (its forward keeps
queries and keys under transformers' eager mask) and its overview of one head, `downsampled(..., max_tokens=256,
pool="mean")` — the 64 × 64-token blocks of the atlas — timed on a few heads and multiplied by the heads.

Goals (issue 55): atlas ≤ 2× the plain forward, peak memory above the plain forward ≤ 2 GiB, a 256 × 256 window
≤ 0.5 s, 32,768 tokens completes. Correctness is tested, not benchmarked (tests/integration/test_atlas.py); the
benchmark checks only that every block row of the run sums to 1.
"""

from __future__ import annotations

import argparse
import functools
import os
import platform
import statistics
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

ENV = dict(
    MALLOC_MMAP_THRESHOLD_="131072",  # large buffers go back to the system when freed: each call's peak is its own
    MALLOC_TRIM_THRESHOLD_="131072",
    ATTNVIZ_MEMORY_BUDGET_MB="65536",  # the default 4 GiB refuses today's path at 16k (its estimate is reported)
    ATTNVIZ_MAX_CHARS="2000000",
    TORCH_DEVICE_BACKEND_AUTOLOAD="0",
    HF_HUB_OFFLINE="1",
    TRANSFORMERS_VERBOSITY="error",
)
if any(os.environ.get(name) != value for name, value in ENV.items()):  # malloc reads its settings at start
    os.execve(sys.executable, [sys.executable, *sys.argv], {**os.environ, **ENV})

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from run import _mb, peak_extra_bytes, text_of_tokens, write_section  # noqa: E402  (the shared measuring helpers)

from attnviz.atlas import atlas_bytes, capture_atlas  # noqa: E402
from attnviz.attention.ondemand import capture_lazy  # noqa: E402
from attnviz.model.memory import estimate_bytes  # noqa: E402
from attnviz.model.objects import from_objects  # noqa: E402
from tests.support.tiny import byte_level_tokenizer  # noqa: E402

SHAPE = dict(
    vocab_size=151936,
    hidden_size=896,
    intermediate_size=4864,
    num_hidden_layers=24,
    num_attention_heads=14,
    num_key_value_heads=2,
    max_position_embeddings=32768,
    rope_theta=1000000.0,
    tie_word_embeddings=True,
    pad_token_id=0,
    eos_token_id=1,
    bos_token_id=3,
)
WINDOW = 256
GOALS = {"ratio": 2.0, "memory": 2 * 2**30, "window": 0.5}


def _log(message: str) -> None:
    stamp = datetime.now().strftime("%H:%M:%S")
    print(f"[{stamp}] {message}", file=sys.stderr, flush=True)


def decoder(layers: int):
    """A random Qwen2 of the shape above (weights seeded), with a byte-level tokenizer, as a handle."""
    import torch
    import transformers

    torch.manual_seed(0)
    model = transformers.Qwen2ForCausalLM(transformers.Qwen2Config(**{**SHAPE, "num_hidden_layers": layers})).eval()
    model.set_attn_implementation("sdpa")
    return from_objects(model, byte_level_tokenizer(add_eos=False), name="random Qwen2.5-0.5B-shaped decoder")


def timed(run) -> tuple[float, float, object]:
    """(wall s, process CPU s, result) of run()."""
    start, cpu = time.perf_counter(), time.process_time()
    result = run()
    return time.perf_counter() - start, time.process_time() - cpu, result


def measured(run) -> tuple[float, float, int, object]:
    """(wall s, CPU s, peak extra bytes, result) of run(), its result alive at the peak's reading."""
    found = {}

    def keep():
        found["wall"], found["cpu"], found["result"] = timed(run)
        return found["result"]

    peak = peak_extra_bytes(keep)
    return found["wall"], found["cpu"], peak, found.pop("result")


def _said(found: tuple) -> str:
    wall, cpu, peak = found[:3]
    return f"{wall:.1f} s wall, {cpu:.1f} s CPU, peak extra {_mb(peak)}"


def plain_forward(handle, text: str) -> None:
    import torch

    ids = handle.tokenizer(text, return_tensors="pt")
    with torch.inference_mode():
        handle.model(**ids, use_cache=False, logits_to_keep=1)


def one_size(handle, tokens: int, rounds: int, windows: int, with_plain: bool = True) -> dict:
    """Paired rounds of plain forward (unless not `with_plain`) and atlas at `tokens`, then window timings on the
    last atlas."""
    import numpy as np

    text = text_of_tokens(handle.tokenizer, tokens)
    plain, atlas, kept = [], [], None
    for round_ in range(rounds):
        if with_plain:
            _log(f"{tokens:,} tokens, round {round_ + 1}/{rounds}: plain forward")
            *found, _ = measured(lambda: plain_forward(handle, text))
            plain.append(tuple(found))
            _log(f"  plain {_said(plain[-1])}")
        _log(f"{tokens:,} tokens, round {round_ + 1}/{rounds}: atlas")
        kept = None  # the previous round's atlas is not held during this one
        *found, kept = measured(lambda: capture_atlas(handle, text))
        atlas.append(tuple(found))
        _log(f"  atlas {_said(atlas[-1])}")
    window_times = []
    rng = np.random.default_rng(0)
    for _ in range(windows):
        layer, head = int(rng.integers(SHAPE["num_hidden_layers"])), int(rng.integers(14))
        first = int(rng.integers(WINDOW, tokens - WINDOW))
        rows, keys = (first, first + WINDOW), (first - WINDOW // 2, first + WINDOW // 2)
        window_times.append(timed(functools.partial(kept.window, "self", layer, head, rows, keys))[:2])
    _log(f"  windows {window_times}")
    found = {
        "tokens": tokens,
        "plain": plain,
        "atlas": atlas,
        "windows": window_times,
        "kept": kept.window_bytes,
        "estimate": atlas_bytes(handle, tokens),
        "row_sums": float(np.abs(kept["self"].blocks.sum(-1) - 1).max()),  # every query row sees a key
        "routes": sorted({entry["used"] for entry in kept.atlas.provenance["routes"]}),
    }
    if plain:
        found["ratio"] = statistics.median(a[0] / p[0] for a, p in zip(atlas, plain))
        found["ratio_cpu"] = statistics.median(a[1] / p[1] for a, p in zip(atlas, plain))
    return found


def today(handle, tokens: int, heads: int) -> dict:
    """capture_lazy at `tokens`, then the mean-pooled 256 × 256 overview of `heads` heads."""

    text = text_of_tokens(handle.tokenizer, tokens)
    _log(f"today's path at {tokens:,} tokens: capture_lazy")
    found = {}
    found["forward"], found["forward_cpu"], found["memory"], lazy = measured(lambda: capture_lazy(handle, text))
    _log(f"  capture_lazy {_said((found['forward'], found['forward_cpu'], found['memory']))}")
    found["per_head"] = []
    for index in range(heads):
        _log(f"  overview of head {index + 1}/{heads}")
        wall, cpu, _ = timed(functools.partial(lazy.downsampled, "self", index, index % 14, 256, "mean"))
        found["per_head"].append((wall, cpu))
        _log(f"  {wall:.1f} s wall, {cpu:.1f} s CPU")
    found["estimate"] = estimate_bytes(handle, tokens, mode="lazy")
    return found


def default_budget_limit(handle) -> int:
    """The most tokens today's path (lazy mode) accepts under the default 4 GiB budget, by its own estimate."""

    low, high = 1, SHAPE["max_position_embeddings"]
    while low < high:
        middle = (low + high + 1) // 2
        low, high = (middle, high) if estimate_bytes(handle, middle, mode="lazy") <= 4096 * 2**20 else (low, middle - 1)
    return low


def render(sizes: list[dict], lazy: dict | None, limit: int, meta: dict) -> str:
    heads = SHAPE["num_hidden_layers"] * SHAPE["num_attention_heads"]
    lines = [
        "## Long-context atlas (`python benchmarks/bench_atlas.py`)",
        "",
        f"Random Qwen2.5-0.5B-shaped decoder ({SHAPE['num_hidden_layers']} layers, 14 query heads, 2 key/value heads, "
        "head width 64, hidden 896, "
        f"vocabulary 151,936), float32, CPU ({meta['cpu']}), {meta['threads']} torch threads, {meta['date']}; load "
        f"average {meta['load_start']} at the start and {meta['load_end']} at the end (a shared machine: compare the "
        "paired ratios and CPU times, not the wall times, across runs). Blocks of 64 × 64 tokens; routes used: "
        f"{', '.join(sizes[0]['routes'] or ['—'])}.",
        "",
        "| tokens | rounds | plain SDPA forward | atlas | atlas / plain (paired, wall) | (paired, CPU) | peak extra: "
        "plain | peak extra: atlas | atlas − plain | kept for windows | 256 × 256 window (median / max) | max abs(block "
        "row sum − 1) |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for size in sizes:
        atlas_wall = min(a[0] for a in size["atlas"])
        atlas_cpu = min(a[1] for a in size["atlas"])
        atlas_peak = max(a[2] for a in size["atlas"])
        windows = size["windows"]
        walls, cpus = [wall for wall, _ in windows], [cpu for _, cpu in windows]
        window = "—"
        if windows:
            window = f"{statistics.median(walls):.3f} s / {max(walls):.3f} s ({statistics.median(cpus):.3f} s CPU)"
        if size["plain"]:
            plain_wall = min(p[0] for p in size["plain"])
            plain_cpu = min(p[1] for p in size["plain"])
            plain_peak = max(p[2] for p in size["plain"])
            compared = (
                f"{plain_wall:.1f} s ({plain_cpu:.1f} s CPU) | {atlas_wall:.1f} s ({atlas_cpu:.1f} s CPU) | "
                f"**{size['ratio']:.2f}×** | {size['ratio_cpu']:.2f}× | {_mb(plain_peak)} | {_mb(atlas_peak)} | "
                f"**{_mb(atlas_peak - plain_peak)}**"
            )
        else:
            compared = f"— | {atlas_wall:.1f} s ({atlas_cpu:.1f} s CPU) | — | — | — | {_mb(atlas_peak)} | —"
        lines.append(
            f"| {size['tokens']:,} | {len(size['atlas'])} | {compared} | {_mb(size['kept'])} | {window} | "
            f"{size['row_sums']:.1e} |"
        )
    lines += ["", _goals(sizes), ""]
    if lazy is not None:
        lines += [_today(sizes[0], lazy, limit, heads), ""]
    return "\n".join(lines)


def _today(size: dict, lazy: dict, limit: int, heads: int) -> str:
    """Today's path beside the atlas: its forward, and its overview of every head extrapolated from the heads timed."""
    per_head = statistics.median(wall for wall, _ in lazy["per_head"])
    per_head_cpu = statistics.median(cpu for _, cpu in lazy["per_head"])
    total, total_cpu = lazy["forward"] + per_head * heads, lazy["forward_cpu"] + per_head_cpu * heads
    atlas, atlas_cpu = min(a[0] for a in size["atlas"]), min(a[1] for a in size["atlas"])
    refused = "refused under" if lazy["estimate"] > 4096 * 2**20 else "within"
    return (
        f"Today's on-demand path at {size['tokens']:,} tokens (same model and text): `capture_lazy` "
        f"{lazy['forward']:.1f} s ({lazy['forward_cpu']:.1f} s CPU), peak extra {_mb(lazy['memory'])} (its estimate "
        f"{_mb(lazy['estimate'])}: {refused} the default 4 GiB budget, under which today's path accepts up to "
        f"{limit:,} tokens); its overview of one head (`downsampled(..., 256, 'mean')`, the same 64-token blocks) "
        f"{per_head:.1f} s ({per_head_cpu:.1f} s CPU; median of {len(lazy['per_head'])} heads), so the overview of all "
        f"{heads} heads ≈ {total / 60:.0f} min ({total_cpu / 60:.0f} min CPU), extrapolated from the heads timed, "
        f"against the atlas's {atlas / 60:.1f} min ({atlas_cpu / 60:.1f} min CPU): **{total / atlas:.0f}×** "
        f"({total_cpu / atlas_cpu:.0f}× in CPU time)."
    )


def _goals(sizes: list[dict]) -> str:
    first = sizes[0]
    extra = max(a[2] for a in first["atlas"]) - max(p[2] for p in first["plain"])
    windows = first["windows"]
    said = [
        f"atlas ≤ {GOALS['ratio']:.0f}× plain: {'met' if first['ratio'] <= GOALS['ratio'] else 'not met'} "
        f"({first['ratio']:.2f}×)",
        f"peak above plain ≤ 2 GiB: {'met' if extra <= GOALS['memory'] else 'not met'} ({_mb(extra)})",
    ]
    if windows:
        slowest = max(wall for wall, _ in windows)
        said.append(
            f"256 × 256 window ≤ 0.5 s: {'met' if slowest <= GOALS['window'] else 'not met'} (slowest {slowest:.3f} s)"
        )
    if len(sizes) > 1:
        said.append(f"{sizes[1]['tokens']:,} tokens: completes ({min(a[0] for a in sizes[1]['atlas']) / 60:.1f} min)")
    return f"Goals at {first['tokens']:,} tokens: " + "; ".join(said) + "."


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tokens", type=int, default=16384)
    parser.add_argument("--long-tokens", type=int, default=32768, help="0: skip")
    parser.add_argument("--rounds", type=int, default=1, help="paired rounds at --tokens (at --long-tokens: one atlas)")
    parser.add_argument("--windows", type=int, default=5)
    parser.add_argument("--today-heads", type=int, default=2, help="heads of today's overview timed (0: skip it)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--layers", type=int, default=SHAPE["num_hidden_layers"])
    parser.add_argument("--no-write", action="store_true", help="print, do not write RESULTS.md")
    args = parser.parse_args()
    import torch

    torch.set_num_threads(args.threads)
    SHAPE["num_hidden_layers"] = args.layers
    meta = {
        "cpu": platform.processor() or platform.machine(),
        "threads": args.threads,
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d"),
        "load_start": os.getloadavg()[0],
    }
    handle = decoder(args.layers)
    warm = text_of_tokens(handle.tokenizer, 256)
    plain_forward(handle, warm)  # warm-up; the atlas's also hashes the weights for its provenance, once per model
    capture_atlas(handle, warm)
    sizes = [one_size(handle, args.tokens, args.rounds, args.windows)]
    lazy = today(handle, args.tokens, args.today_heads) if args.today_heads else None
    limit = default_budget_limit(handle)
    _report(sizes, lazy, limit, meta, args.no_write)  # what is measured so far, before the longest run
    if args.long_tokens:
        sizes.append(one_size(handle, args.long_tokens, 1, args.windows, with_plain=False))
        _report(sizes, lazy, limit, meta, args.no_write)


def _report(sizes: list[dict], lazy: dict | None, limit: int, meta: dict, no_write: bool) -> None:
    meta["load_end"] = os.getloadavg()[0]
    section = render(sizes, lazy, limit, meta)
    print(section, flush=True)
    if not no_write:
        write_section("bench_atlas", section)


if __name__ == "__main__":
    main()
