"""Every page opened after a long text, measured (not a timed test). Budget: no page takes more than 5 s to open on
2 cores, whatever the session holds.

The app runs in-process (Streamlit's AppTest: the script run a browser's page switch triggers, without the
websocket), as a person would use it: a text of about 2,000 tokens is pasted on Self-attention (it opens on the
long-context decoder, demo-decoder), then every page is opened once, in the sidebar's order, with that text in the
session; once on the sidebar's default model, once with demo-decoder chosen there. Each round pastes a text the
app has not seen, so each page opens on work it has not cached; the time of a page is the median over the rounds
(wall, and this process's CPU time, which does not count waiting for a core).

    python benchmarks/bench_pages_long.py                  # 3 rounds on each model; prints the tables
    python benchmarks/bench_pages_long.py --write          # … and writes its section of benchmarks/RESULTS-app.md
    python benchmarks/bench_pages_long.py --profile translate   # cProfile of one page's opening (its top 25)
    python benchmarks/bench_pages_long.py --profile heads --model demo-decoder
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import platform
import pstats
import statistics
from contextlib import contextmanager
from datetime import datetime, timezone

from bench_app import REPO, RESULTS  # the repository on the path, offline settings
from bench_long import texts_of, timed
from run import write_section  # the shared results section writer (bench_app.py keeps the section)

from app_pages.shared.navigation import PAGES
from attnviz import i18n
from attnviz.model.load import load_model

SECTION = "## Every page after a long text"

OPEN_BUDGET_S = 5.0
TOKENS = 2000
# The pages in the sidebar's order (app_pages/shared/navigation.py), Self-attention last: the text is pasted there.
ORDER = (
    "translate",
    "how_attention_works",
    "heads",
    "query_key_space",
    "open_capture",
    "corpus",
    "compare",
    "self_attention",
)
PASTED = "pasted"  # Self-attention as the text is pasted: its first figures
# The sidebar's model: the app's default, then the long reader itself (every page then reads the long text).
MODELS = (None, "demo-decoder")
TITLES = {PASTED: "page_self_attention"}  # catalogue keys of the pages' names (else page_<name>)


def new_session(model: str | None = None):
    """A session of the app, on the sidebar's default model or on `model` (as a link opens it)."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(REPO / "app_pages" / "main.py"), default_timeout=600)
    if model:
        at.query_params["model"] = model
    at.run()
    return at


def paste(at, text: str) -> dict:
    """Paste `text` on Self-attention; its time is the page's first figures of a text it has not seen."""

    at.switch_page(PAGES["self_attention"]).run()
    wall, cpu = timed(lambda: at.text_input(key="w_text").input(text).run())
    problems = [e.value for e in [*at.exception, *at.error]]
    assert not problems, problems
    return {"wall": wall, "cpu": cpu, "exceptions": 0, "errors": []}


def open_page(at, name: str) -> dict:
    """Open page `name` (one script run) and say what it showed: its time, and any exception or error."""

    wall, cpu = timed(lambda: at.switch_page(PAGES[name]).run())
    return {"wall": wall, "cpu": cpu, "exceptions": len(at.exception), "errors": [e.value for e in at.error]}


def measure(rounds: int, model: str | None = None) -> dict:
    """Per page, each round's opening after a new long text; the first round also warms imports and models."""

    tokenizer = load_model("demo-decoder", "cpu").tokenizer
    texts = texts_of(tokenizer, TOKENS, rounds + 1, words=TOKENS)
    at = new_session(model)
    opened: dict[str, list[dict]] = {name: [] for name in (PASTED, *ORDER)}
    for index, text in enumerate(texts):
        pasted = paste(at, text)
        if index:
            opened[PASTED].append(pasted)
        for name in ORDER:
            result = open_page(at, name)
            if index:  # round 0 warms up: modules imported, models loaded, figures' code run once
                opened[name].append(result)
    tokens = len(tokenizer(texts[1])["input_ids"])
    return {"pages": opened, "tokens": tokens, "rounds": rounds, "model": model or "the default (demo-zh-en)"}


def profile(name: str, model: str | None = None, lines: int = 25) -> str:
    """cProfile's cumulative top `lines` of opening page `name` after a long text (both pasted after a warm-up)."""

    tokenizer = load_model("demo-decoder", "cpu").tokenizer
    warm, text = texts_of(tokenizer, TOKENS, 2, words=TOKENS)
    at = new_session(model)
    paste(at, warm)
    open_page(at, name)
    paste(at, text)
    profiler = cProfile.Profile()
    with profiled_script_runs(profiler):
        result = open_page(at, name)
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(lines)
    return f"{name}: {result['wall']:.2f} s wall, {result['cpu']:.2f} s CPU\n{out.getvalue()}"


@contextmanager
def profiled_script_runs(profiler: cProfile.Profile):
    """Profile the script runs AppTest starts meanwhile: they run in a thread of their own, which a profiler
    enabled here would not see."""
    from streamlit.runtime.scriptrunner.script_runner import ScriptRunner

    original = ScriptRunner._run_script

    def run_script(self, *args, **kwargs):
        profiler.enable()
        try:
            return original(self, *args, **kwargs)
        finally:
            profiler.disable()

    ScriptRunner._run_script = run_script
    try:
        yield
    finally:
        ScriptRunner._run_script = original


def report_lines(scenarios: list[dict], load: tuple[float, float]) -> list[str]:
    when = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    first = scenarios[0]
    lines = [
        SECTION,
        "",
        f"Measured {when} by `python benchmarks/bench_pages_long.py` on {platform.machine()}, {os.cpu_count()} CPU "
        f"cores, Python {platform.python_version()}. A {first['tokens']:,}-token English text (demo-decoder's "
        f"tokens) pasted on Self-attention, where it opens on demo-decoder, then every page opened; "
        f"{first['rounds']} rounds, each on a text not seen before. Load average (1 min) {load[0]:.1f} before, "
        f"{load[1]:.1f} after: the machine is shared, and wall times include waiting for a core.",
    ]
    for results in scenarios:
        lines += ["", f"Sidebar model: {results['model']}.", "", *_table(results)]
    lines += [
        "",
        "How: AppTest (`streamlit.testing.v1`) runs `app_pages/main.py` in-process; a page's time is the whole script "
        "run of `switch_page(...).run()` with the long text in the session (what the server does to open it) plus "
        "the harness's handling of the result; the browser's own drawing is not included. CPU is this process's "
        "time (the script runs in a thread of it), what the opening costs on a free core.",
        "",
    ]
    return lines


def _table(results: dict) -> list[str]:

    lines = [
        "| page | limit | wall: median (max) | CPU: median (max) | it showed | verdict (wall / CPU) |",
        "|---|---|---|---|---|---|",
    ]
    for name in (PASTED, *ORDER):
        runs = results["pages"][name]
        wall, cpu = [r["wall"] for r in runs], [r["cpu"] for r in runs]
        verdict = " / ".join("met" if max(v) <= OPEN_BUDGET_S else "NOT met" for v in (wall, cpu))
        title = i18n.t(TITLES.get(name, f"page_{name}"), "en") + (" (the text pasted)" if name == PASTED else "")
        lines.append(
            f"| {title} | ≤ {OPEN_BUDGET_S:.0f} s | {statistics.median(wall):.2f} s "
            f"({max(wall):.2f}) | {statistics.median(cpu):.2f} s ({max(cpu):.2f}) | {_shown(runs)} | {verdict} |"
        )
    return lines


def _shown(runs: list[dict]) -> str:
    """What the page showed: its figures, or the sentence it said instead (a text too long for the sidebar's model)."""
    if any(r["exceptions"] for r in runs):
        return "an exception"
    said = next((r["errors"][0] for r in runs if r["errors"]), None)
    if said is None:
        return "its view"
    sentence = said.replace("**", "").replace("|", "/")
    return f"a sentence: “{sentence[:90]}…”" if len(sentence) > 90 else f"a sentence: “{sentence}”"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3, help="texts opened on every page (after one warm-up)")
    parser.add_argument("--write", action="store_true", help="write the section of benchmarks/RESULTS-app.md")
    parser.add_argument("--profile", choices=ORDER, help="profile opening this page instead")
    parser.add_argument("--model", help="the sidebar's model for --profile (default: the app's default)")
    args = parser.parse_args()
    if args.profile:
        print(profile(args.profile, args.model))
        return
    before = os.getloadavg()[0]
    scenarios = [measure(args.rounds, model) for model in MODELS]
    lines = report_lines(scenarios, (before, os.getloadavg()[0]))
    print("\n".join(lines))
    if args.write:
        write_section("pages_long", "\n".join(lines), RESULTS)
        print(f"written to {RESULTS.relative_to(REPO)}")


if __name__ == "__main__":
    main()
