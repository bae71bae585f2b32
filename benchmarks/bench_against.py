"""Capture against eager attention, today's code beside an earlier commit's, in one run on one machine:

    python benchmarks/bench_against.py                       # against a961368 (before the renovation), 64 and 128 tokens
    python benchmarks/bench_against.py --commit REV --rounds 3

The earlier commit is checked out into a temporary git worktree. Each round runs, one process after another (the order rotated round by round): the
earlier code, today's code, and today's code with the two per-capture costs added after that commit switched off
(value norms — `Recorder.keep_norms` a no-op — and the provenance record), so that what a change of structure costs
is told apart from what a feature costs. Each process times eager `output_attentions` and `capture` back to back,
pair by pair, on all-MiniLM-L6-v2 (2 torch threads) and reports the median of the paired ratios.
The eager baseline runs under `torch.no_grad()`, as a researcher's loop would; capture runs its pass in
`torch.inference_mode()` since 32a1da6 (about 2% of a short pass).
Writes its section of benchmarks/RESULTS.md.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from run import write_section  # noqa: E402  (the shared RESULTS.md section writer)

SECTION = "bench_against"
BEFORE_RENOVATION = "a961368"  # the last benchmarked commit before the renovation issue (capture/eager ≤ 0.96)

WORKER = r"""
import json, os, statistics, sys, time
import torch
torch.set_num_threads(2)
try:
    from attnviz.attention.capture import capture
except ImportError:  # before the renovation
    from attnviz.capture import capture
try:
    from attnviz.model.load import load_model
except ImportError:  # before the library's top floor moved into folders
    from attnviz.models import load_model
from transformers import AutoModel

if os.environ.get("WITHOUT_LATER_FEATURES"):
    import attnviz.attention.capture as captures, attnviz.attention.recorder as recorders
    recorders.Recorder.keep_norms = lambda self, *arguments: None
    captures.build_provenance = lambda *arguments, **options: {}
handle = load_model("minilm", device="cpu")
eager = AutoModel.from_pretrained(handle.model.name_or_path, attn_implementation="eager").eval()
words = "The animal did not cross the street because it was too tired to walk any further today . "
result = {}
for tokens in json.loads(sys.argv[1]):
    text = words * (tokens // 8 + 2)
    ids = handle.tokenizer(text)["input_ids"]
    while len(ids) > tokens:
        text = text.rstrip().rsplit(" ", 1)[0]
        ids = handle.tokenizer(text)["input_ids"]
    def run_eager():
        with torch.no_grad():
            return eager(**handle.tokenizer(text, return_tensors="pt"), output_attentions=True)
    for _ in range(5):
        capture(handle, text), run_eager()
    ratios = []
    for _ in range(int(sys.argv[2])):
        start = time.perf_counter(); run_eager(); eager_s = time.perf_counter() - start
        start = time.perf_counter(); capture(handle, text); capture_s = time.perf_counter() - start
        ratios.append(capture_s / eager_s)
    result[str(len(ids))] = statistics.median(ratios)
print(json.dumps(result))
"""


def measure(tree: Path, sizes: list[int], pairs: int, without_later_features: bool = False) -> dict[str, float]:
    """{tokens: median paired capture/eager ratio} of the code in `tree`, in a fresh process."""
    env = {**os.environ, "PYTHONPATH": str(tree), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_VERBOSITY": "error"}
    if without_later_features:
        env["WITHOUT_LATER_FEATURES"] = "1"
    done = subprocess.run(
        [sys.executable, "-c", WORKER, json.dumps(sizes), str(pairs)],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--commit", default=BEFORE_RENOVATION)
    parser.add_argument("--sizes", default="64,128", help="MiniLM token counts (comma-separated)")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--pairs", type=int, default=60, help="eager/capture pairs timed per size and process")
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    rows: dict[str, list[dict[str, float]]] = {"earlier": [], "today": [], "today without": []}
    with tempfile.TemporaryDirectory() as folder:
        earlier = Path(folder) / "earlier"
        subprocess.run(["git", "worktree", "add", "-q", "--detach", str(earlier), args.commit], cwd=ROOT, check=True)
        try:
            runs = {
                "earlier": lambda: measure(earlier, sizes, args.pairs),
                "today": lambda: measure(ROOT, sizes, args.pairs),
                "today without": lambda: measure(ROOT, sizes, args.pairs, without_later_features=True),
            }
            for round_number in range(args.rounds):
                order = list(runs)[round_number % 3 :] + list(runs)[: round_number % 3]  # no code always goes first
                for name in order:
                    rows[name].append(runs[name]())
                print(f"round {round_number + 1}: " + json.dumps({name: runs[-1] for name, runs in rows.items()}))
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(earlier)], cwd=ROOT, check=False)
    write_section(SECTION, report(args, rows))


def report(args, rows: dict[str, list[dict[str, float]]]) -> str:
    sizes = list(rows["today"][0])
    names = {
        "earlier": f"`{args.commit}`",
        "today": "today",
        "today without": "today, value norms and provenance off",
    }
    lines = [
        "## Capture vs eager, against an earlier commit (`python benchmarks/bench_against.py`)",
        "",
        f"Measured {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, load average {os.getloadavg()[0]:.1f}: "
        f"all-MiniLM-L6-v2, 2 torch threads, {args.pairs} eager/capture pairs per size and process, {args.rounds} "
        "rounds of three processes one after another, the order rotated each round. Each cell: the median over rounds of each process's median "
        "paired capture/eager ratio (per-round values in brackets).",
        "",
        "| code | " + " | ".join(f"{size} tokens" for size in sizes) + " |",
        "|---|" + "---:|" * len(sizes),
    ]
    for key, name in names.items():
        cells = []
        for size in sizes:
            values = [run[size] for run in rows[key]]
            cells.append(f"{statistics.median(values):.3f} ({', '.join(f'{v:.3f}' for v in values)})")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "Value norms (‖f(x)‖ of every key, for the value-weighted views) and the provenance record (model, weights "
        "hash, versions, options) were added to every capture after the renovation, each by its own issue; the "
        "third row switches them off to show what the renovated structure alone costs.",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
