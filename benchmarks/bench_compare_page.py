"""The Compare page's rerun after a view change (which heads: all, one layer's, one head; which layer; which head),
against the goal of ≤ 1 s on 2 cores (issue 46).

    python benchmarks/bench_compare_page.py              # MiniLM and the demo translator, 15 view changes each
    python benchmarks/bench_compare_page.py --quick      # MiniLM only, 6 view changes

The page runs in-process under streamlit's AppTest (the script run a browser triggers, without the websocket), opened
by a link with A and B (two ~20-token inputs, one word changed) as the app's tests open it. The first run captures
both and compares them (cached); then each view change is one timed rerun of the whole script, harness included: the
diff figure, the two alignment diagrams and the ranking drawn again. Each change sets one control (scope, layer or
head, in turn) to a value the one before did not have. The baseline in
the same run is a rerun with nothing changed, so the ratio says what the view change itself adds. Beside each wall
time, the process's CPU time over the same rerun (every thread: the script's and the harness's): what the rerun costs
on a free core, where the wall time also holds the wait for one on a shared machine. Writes its section of
benchmarks/RESULTS-app.md (between the compare_page markers; bench_app.py keeps it).
"""

from __future__ import annotations

import argparse
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

from run import write_section  # noqa: E402  (the shared results section writer)

GOAL_S = 1.0
RESULTS_APP = REPO / "benchmarks" / "RESULTS-app.md"
PAGE = "page_scripts/compare.py"
CASES = {  # model: (text A, text B), each about 20 tokens, B with one word changed
    "minilm": (
        "The animal did not cross the street because it was too tired, so it waited on the corner.",
        "The animal did not cross the street because it was too wide, so it waited on the corner.",
    ),
    "demo-zh-en": (
        "我喜欢学习。早上好！今天天气很好，我们去公园散步吧。",
        "我喜欢学习。晚上好！今天天气很好，我们去公园散步吧。",
    ),
}
SCOPES = ("head", "layer", "all")


def opened(model: str, text_a: str, text_b: str):
    """The Compare page opened by a link on `model` with A and B, its first run done (captures cached): (AppTest,
    seconds of that first run)."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(REPO / "app_pages" / "main.py"), default_timeout=600)
    for name, value in {"model": model, "text": text_a, "text_b": text_b, "device": "cpu"}.items():
        at.query_params[name] = value
    at.run()
    start = time.perf_counter()
    at.switch_page(PAGE).run()
    first = time.perf_counter() - start
    checked(at)
    return at, first


def checked(at) -> None:
    problems = [e.value for e in [*at.exception, *at.error]]
    if problems:
        raise SystemExit(f"The Compare page failed: {problems}")


def changes_of(layers: int, heads: int, count: int) -> list[tuple[str, str, object]]:
    """`count` view changes, one control each, in turn: the scope (head → layer → all → head …), the layer, the head
    (each to its next value), so every rerun draws a view the one before did not."""
    controls = {
        "scope": ("segmented_control", "w_compare_scope", lambda i: SCOPES[(i // 3) % 3]),
        "layer": ("selectbox", "w_layer", lambda i: (i // 3 + 1) % layers),
        "head": ("selectbox", "w_head", lambda i: (i // 3 + 1) % heads),
    }
    order = ("scope", "layer", "head")
    return [(*controls[order[i % 3]][:2], controls[order[i % 3]][2](i)) for i in range(count)]


def timed_change(at, widget: str, key: str, value) -> tuple[float, float]:
    """(wall seconds, process CPU seconds) of the rerun after one view control is set to `value`."""
    getattr(at, widget)(key=key).set_value(value)
    return timed_run(at)


def timed_run(at) -> tuple[float, float]:
    """(wall seconds, process CPU seconds) of one rerun of the page."""
    start, cpu = time.perf_counter(), time.process_time()
    at.run()
    elapsed = time.perf_counter() - start, time.process_time() - cpu
    checked(at)
    return elapsed


def measure(model: str, changes: int) -> dict:
    text_a, text_b = CASES[model]
    at, first = opened(model, text_a, text_b)
    layers = len(at.selectbox(key="w_layer").options)
    heads = len(at.selectbox(key="w_head").options)
    unchanged = timed_run(at)[0]  # nothing changed: the baseline
    timed = [timed_change(at, *change) for change in changes_of(layers, heads, changes)]
    times, cpu = [wall for wall, _ in timed], [used for _, used in timed]
    return {"first_s": first, "unchanged_s": unchanged, "times": times, "cpu": cpu, "layers": layers, "heads": heads}


def render(rows: dict[str, dict], meta: str) -> str:
    lines = [
        "## Compare page: rerun after a view change",
        "",
        f"{meta}. Goal: ≤ {GOAL_S:.0f} s per rerun after a view change (scope, layer or head), on 2 cores. The page "
        "runs under streamlit's AppTest; A and B are ~20-token inputs differing in one word, captured and compared "
        "once (the first run), then each view change reruns the whole script (diff figure, two alignment diagrams, "
        "ranking). Baseline: a rerun with nothing changed, in the same run. CPU: the process's CPU time over the "
        "same rerun (what it costs on a free core; the wall time also waits for a core on a shared machine).",
        "",
        "| model | heads (layers × heads) | first run (s) | rerun, nothing changed (s) | view change: median (s) "
        "| max (s) | CPU: median (s) | CPU: max (s) | median / unchanged | goal met |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for model, row in rows.items():
        median, most = statistics.median(row["times"]), max(row["times"])
        met = "yes" if most <= GOAL_S else ("median only" if median <= GOAL_S else "no")
        lines.append(
            f"| {model} | {row['layers']} × {row['heads']} | {row['first_s']:.2f} | {row['unchanged_s']:.3f} | "
            f"**{median:.3f}** | {most:.3f} | {statistics.median(row['cpu']):.3f} | {max(row['cpu']):.3f} | "
            f"{median / row['unchanged_s']:.2f} | {met} ({len(row['times'])} changes) |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--changes", type=int, default=15, help="view changes timed per model")
    parser.add_argument("--models", nargs="+", default=list(CASES), choices=list(CASES))
    parser.add_argument("--quick", action="store_true", help="MiniLM only, 6 view changes")
    parser.add_argument("--no-write", action="store_true", help="print the section, leave RESULTS-app.md as it is")
    args = parser.parse_args()
    models, changes = (["minilm"], 6) if args.quick else (args.models, args.changes)
    rows = {model: measure(model, changes) for model in models}
    when = datetime.now(timezone.utc).strftime("%Y-%m-%d")
    cores = len(os.sched_getaffinity(0))
    load = os.getloadavg()[0]
    meta = f"{when}, {platform.processor() or platform.machine()}, {cores} cores, python {platform.python_version()}"
    meta += f", load average (1 min) {load:.1f} after"
    section = render(rows, meta)
    print(section)
    if not args.no_write:
        write_section("compare_page", section, RESULTS_APP)


if __name__ == "__main__":
    main()
