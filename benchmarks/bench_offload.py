"""Peak memory of a model larger than its memory limit: a random 12-layer Qwen2 (1,024 hidden, 16 heads, 4 key/value
heads, feed-forward 2,816, 519 MiB of float32 weights) captured on the CPU alone, then with `max_memory` holding
half of it (accelerate offloads the other layers to disk), same text of exactly `--tokens` tokens, each in a fresh
process; the captures are compared bit for bit.

    python benchmarks/bench_offload.py              # 256 tokens, writes its section of benchmarks/RESULTS.md
    python benchmarks/bench_offload.py --tokens 64 --no-write

Peak memory: the process's resident high-water mark (`VmHWM`) less its resident set once torch, transformers,
accelerate and attnviz are imported (the floor, the same in both runs; printed, with torch's share of it). Resident
memory counts the weights' pages: transformers maps the safetensors file and a page joins the process when a layer
first reads it, so the whole run ends with every weight resident, the offloaded run with the CPU's half only (a disk
layer's weights are read for its call and dropped). Goal: the offloaded run's peak clearly below the whole one's.
Not `ru_maxrss`: Linux keeps it across exec, so a child forked from this process (which holds the model it saved)
would start from this process's resident set.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from run import write_section  # noqa: E402  (the shared measuring helpers)

LAYERS = 12
# The measuring process: its resident set after each import, then one capture; prints one JSON line.
CHILD = r"""
import json, os, sys, time
def resident(names=("VmRSS", "RssAnon", "RssFile")):  # bytes now (VmHWM: the high-water mark)
    fields = dict(line.split(":", 1) for line in open("/proc/self/status"))
    return [int(fields[name].split()[0]) * 1024 for name in names]
start = resident()[0]
import torch
with_torch = resident()[0]
import accelerate, numpy as np, transformers
from transformers import Qwen2ForCausalLM  # transformers imports its model classes lazily
with_libraries = resident()[0]
import attnviz, attnviz.attention.capture
from attnviz.model.load import load_model
floor = resident()
torch.set_num_threads(int(os.environ.get("BENCH_THREADS", "2")))
folder, text, out, limit, offload = sys.argv[1:6]
placing = {"max_memory": {"cpu": int(limit)}, "offload_folder": offload} if limit != "0" else {}
began = time.perf_counter()
handle = load_model(folder, device="cpu", **placing)
loaded, load_s = resident(), time.perf_counter() - began
began = time.perf_counter()
result = attnviz.capture(handle, text)
norms = result["self"].value_norms
capture_s = time.perf_counter() - began
peak = resident(("VmHWM",))[0]
np.savez(out, weights=result["self"].weights, norms=norms)
places = getattr(handle.model, "hf_device_map", {})
print(json.dumps({
    "start": start, "torch": with_torch, "libraries": with_libraries, "floor": floor, "loaded": loaded,
    "end": resident(), "peak": peak, "load_s": load_s, "capture_s": capture_s,
    "tokens": int(result["self"].weights.shape[-1]),
    "on_disk": sum(place == "disk" for path, place in places.items() if ".layers." in path),
}))
"""


def _model(folder: Path, tokens: int) -> tuple[int, str]:
    """Save the random model and its tokenizer in `folder`: (its weights' bytes, a text of exactly `tokens` tokens)."""
    import torch
    import transformers

    from tests.support import tiny

    torch.manual_seed(0)
    config = transformers.Qwen2Config(
        vocab_size=300,
        hidden_size=1024,
        num_hidden_layers=LAYERS,
        num_attention_heads=16,
        num_key_value_heads=4,
        intermediate_size=2816,
        max_position_embeddings=4096,
        **tiny.COMMON,
    )
    model = transformers.Qwen2ForCausalLM(config)
    model.save_pretrained(folder)
    tokenizer = tiny.byte_level_tokenizer(add_eos=False)
    tokenizer.save_pretrained(folder)
    size = sum(parameter.numel() * 4 for parameter in model.parameters())
    # The byte-level tokenizer splits a word into several tokens: cut the text at `tokens` of its tokens.
    text = tokenizer.decode(tokenizer(" ".join(["attention"] * tokens)).input_ids[:tokens])
    return size, text


def _run(folder: Path, text: str, out: Path, limit: int, offload: Path, threads: int) -> dict:
    env = dict(
        os.environ,
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_VERBOSITY="error",
        PYTHONPATH=str(REPO),
        BENCH_THREADS=str(threads),
    )
    args = [sys.executable, "-c", CHILD, str(folder), text, str(out), str(limit), str(offload)]
    done = subprocess.run(args, capture_output=True, text=True, env=env, check=True, cwd=REPO)
    return json.loads(done.stdout.strip().splitlines()[-1])


def _mb(count: float) -> str:
    return f"{count / 2**20:,.0f}"


def render(size: int, whole: dict, half: dict, same: bool, meta: str) -> str:
    tokens, heads = whole["tokens"], 16
    maps = LAYERS * heads * tokens * tokens * 4
    ratio = (half["peak"] - half["floor"][0]) / (whole["peak"] - whole["floor"][0])
    lines = [
        "## A model half on disk (`python benchmarks/bench_offload.py`)",
        "",
        f"{meta}. A random 12-layer Qwen2 (1,024 hidden, 16 heads, 4 key/value heads, {_mb(size)} MiB of float32 "
        f"weights), {tokens} tokens, captured in a fresh process on the CPU alone, then with `max_memory` "
        f"cpu={size // 2:,} B (half the weights; {half['on_disk']} of the {LAYERS} layers offloaded to disk by "
        f"accelerate). The offloaded run's peak extra memory is **{ratio:.2f}×** the whole run's (goal: clearly "
        f"below: {'met' if ratio < 0.8 else 'NOT met'}); captures (weights and value norms) bit-equal: "
        f"**{'yes' if same else 'NO'}**.",
        "",
        "Peak extra: the resident high-water mark (`VmHWM`) less the floor, the resident set once torch, "
        "transformers, accelerate and attnviz are imported. At the end: what is resident above the floor, "
        "anonymous memory (activations, the capture's maps) and file-mapped pages (the safetensors weights "
        "transformers maps; a page becomes resident when a layer first reads it).",
        "",
        "| run | floor (MiB) | peak extra (MiB) | end: anonymous + file-mapped (MiB) | load (s) | capture (s) |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for label, row in (("whole, on the CPU", whole), (f"half on disk ({half['on_disk']} layers)", half)):
        floor = row["floor"]
        lines.append(
            f"| {label} | {_mb(floor[0])} | **{_mb(row['peak'] - floor[0])}** "
            f"| {_mb(row['end'][1] - floor[1])} + {_mb(row['end'][2] - floor[2])} "
            f"| {row['load_s']:.1f} | {row['capture_s']:.1f} |"
        )
    lines += [
        "",
        f"The floor: {_mb(whole['start'])} MiB at Python's start, {_mb(whole['torch'])} MiB with torch, "
        f"{_mb(whole['libraries'])} MiB with transformers and accelerate, {_mb(whole['floor'][0])} MiB with attnviz. "
        f"The capture's maps: {LAYERS} × {heads} × {tokens}² × 4 B = {_mb(maps)} MiB.",
        "",
        f"Why the offloaded peak is lower: the whole run ends with every weight's pages resident "
        f"({_mb(whole['end'][2] - whole['floor'][2])} MiB file-mapped), the offloaded run with its CPU layers' only "
        f"({_mb(half['end'][2] - half['floor'][2])} MiB); a disk layer's weights (about {_mb(size / LAYERS)} MiB) "
        "are read for its call and dropped. What is left of each peak (the maps, one layer's activations, value "
        "states) is about the same in both runs.",
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=256)
    parser.add_argument("--threads", type=int, default=2, help="torch threads in the measuring processes")
    parser.add_argument("--no-write", action="store_true", help="print the section, leave RESULTS.md as it is")
    args = parser.parse_args()
    import numpy as np
    import torch
    import transformers

    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        size, text = _model(root / "model", args.tokens)
        whole = _run(root / "model", text, root / "whole.npz", 0, root / "offload", args.threads)
        half = _run(root / "model", text, root / "half.npz", size // 2, root / "offload", args.threads)
        with np.load(root / "whole.npz") as a, np.load(root / "half.npz") as b:
            same = all(np.array_equal(a[name], b[name]) for name in ("weights", "norms"))
    meta = (
        f"Measured {datetime.now(timezone.utc):%Y-%m-%d %H:%M UTC} — {platform.machine()}, {os.cpu_count()} CPUs, "
        f"torch {torch.__version__}, transformers {transformers.__version__}, {args.threads} torch threads, "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    section = render(size, whole, half, same, meta)
    if not args.no_write:
        write_section("bench_offload", section)
    print(section)


if __name__ == "__main__":
    main()
