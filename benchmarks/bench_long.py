"""Long texts in the app, measured (not timed tests): the first figure of a long text and every control change after.

Budgets: every control change ≤ 1 s warm, at 512 tokens on MiniLM and at 4,000 tokens on the long-context decoder;
the first figure of a 4,000-token text ≤ 10 s. The app runs in-process (Streamlit's AppTest: the script run a
browser's change triggers, without the websocket) with its default settings: texts are pasted on the Self-attention
page of the default model, and the page itself picks the model a long text opens on.

- MiniLM, 512 tokens: 1,500 words of English, truncated to MiniLM's 512 positions (the default until a longer
  reader is in the catalogue).
- Decoder, 4,000 tokens: `demo-decoder` when it is in the catalogue; else a random Llama of its shape (rotary
  positions, 4,096 of them, grouped-query heads) added to the catalogue as a stand-in, and the results say so.

    python benchmarks/bench_long.py            # both; prints the table (bench_app.py writes it to RESULTS-app.md)
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # the project, importable from benchmarks/ (bench_app reads this module, not the reverse)
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")

CHANGE_BUDGET_S = 1.0
FIRST_FIGURE_BUDGET_S = 10.0
DECODER_TOKENS = 4000
# The stand-in's shape: what a ≤ 30 MB long-context decoder looks like (hidden 256, 6 layers, 8 heads, 4 kv heads).
STAND_IN = dict(positions=4096, hidden=256, layers=6, heads=8)


def texts_of(tokenizer, tokens: int | None, count: int, words: int = 1500) -> list[str]:
    """`count` different English texts (the demo corpus's sentences from different starts), each cut to `tokens`
    tokens of `tokenizer` when given."""
    from tests.support.long_texts import english_text

    base = english_text(words * (count + 1)).split(". ")
    found = []
    for start in range(count):
        text = ". ".join(base[start * 40 :]) if start else ". ".join(base)
        if tokens is not None:
            encoding = tokenizer(text, return_offsets_mapping=True)
            ends = [end for _, end in encoding["offset_mapping"][:tokens] if end]
            text = text[: max(ends)]
        else:
            text = " ".join(text.split()[:words])
        found.append(text)
    return found


@contextmanager
def long_reader_in_catalogue():
    """(name, whether it is a stand-in): demo-decoder when the catalogue has it, else a random Llama stand-in
    added to the catalogue for the run."""
    from attnviz.model import catalogue

    if any(entry.name == "demo-decoder" for entry in catalogue.catalogue()):
        yield "demo-decoder", False
        return
    from app_pages.shared import caches
    from tests.support.tiny import save_long_llama

    with tempfile.TemporaryDirectory() as folder:
        path = save_long_llama(Path(folder) / "decoder", **STAND_IN)
        shipped, cached = catalogue.catalogue_folders, caches.catalogue_entries
        stand_in = [*shipped(), ("demo-decoder", path, "decoder")]
        catalogue.catalogue_folders, caches.catalogue_entries = (lambda: stand_in), catalogue.catalogue
        try:
            yield "demo-decoder", True
        finally:
            catalogue.catalogue_folders, caches.catalogue_entries = shipped, cached


def timed(action) -> tuple[float, float]:
    """(wall seconds, process CPU seconds) of `action`: on a shared machine the CPU time says what it costs when
    a core is free (AppTest runs the script in a thread of this process, so the process time holds it)."""
    start, cpu = time.perf_counter(), time.process_time()
    action()
    return time.perf_counter() - start, time.process_time() - cpu


def page_ok(at) -> None:
    problems = [e.value for e in [*at.exception, *at.error]]
    assert not problems, problems
    keys = [e.proto.id.rsplit("-", 1)[-1] for e in at.get("plotly_chart")]
    assert {"chart_long_pooled", "chart_long_block", "chart_long_lines"} <= set(keys), keys


def control_changes(at, layers: int, tokens: int) -> dict[str, list[tuple[float, float]]]:
    """(wall, CPU) seconds of each control change of the long view, three changes each."""
    changes: dict[str, list[tuple[float, float]]] = {}
    for name, widget, values in [
        ("head", lambda: at.selectbox(key="w_head"), [1, 2, 3]),
        ("layer", lambda: at.selectbox(key="w_layer"), [1, 2, layers - 1]),
        ("head-lines window", lambda: at.slider(key="w_lines_from"), [40, tokens // 2, tokens - 60]),
        ("exact block: first row", lambda: at.number_input(key="w_long_row"), [64, tokens // 3, tokens - 200]),
        ("exact block: first key", lambda: at.number_input(key="w_long_key"), [64, tokens // 3, tokens - 200]),
    ]:
        changes[name] = []
        for value in values:
            start, cpu = time.perf_counter(), time.process_time()
            widget().set_value(value).run()
            changes[name].append((time.perf_counter() - start, time.process_time() - cpu))
            page_ok(at)
    return changes


def measure(texts: list[str], expected_tokens: int, params: dict | None = None) -> dict:
    """Paste texts[0] (warm-up: models loaded, code paths run), then texts[1] (timed: the first figure of a text the
    app has not seen), then time the control changes; `params`: the page link's settings to start from."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(REPO / "app_pages" / "main.py"), default_timeout=600)
    for name, value in (params or {}).items():
        at.query_params[name] = value
    at.run()
    at.switch_page("page_scripts/self_attention.py").run()
    cold = timed(lambda: at.text_input(key="w_text").input(texts[0]).run())
    page_ok(at)
    first = timed(lambda: at.text_input(key="w_text").input(texts[1]).run())
    page_ok(at)
    block = next(e for e in at.get("plotly_chart") if e.proto.id.endswith("chart_long_pooled"))
    import json

    meta = json.loads(block.proto.spec)["layout"]["meta"]
    tokens = meta["query_count"]
    assert abs(tokens - expected_tokens) <= 8, (tokens, expected_tokens)  # a cut may merge differently
    shown = " ".join(c.value for c in at.caption)
    model = (params or {}).get("model") or (
        "demo-decoder" if "demo-decoder" in shown else "minilm" if "minilm" in shown else "?"
    )
    layers = len(at.selectbox(key="w_layer").options)
    return {
        "model": model,
        "tokens": tokens,
        "cold_s": cold,
        "first_s": first,
        "changes": control_changes(at, layers, tokens),
    }


def run() -> dict:
    """Both measurements: MiniLM at 512 tokens, then the decoder at 4,000."""
    import torch

    from attnviz.model.load import load_model

    results = {}
    minilm_texts = texts_of(None, None, 2)
    # MiniLM chosen in the sidebar, the text cut to its 512 positions (by default a long English text opens on the
    # catalogue's longest reader, the decoder, measured next)
    results["minilm"] = measure(minilm_texts, 512, {"model": "minilm", "long_model": "0"})
    with long_reader_in_catalogue() as (name, stand_in):
        tokenizer = load_model(name, "cpu").tokenizer
        decoder_texts = texts_of(tokenizer, DECODER_TOKENS, 2, words=4000)
        results["decoder"] = {**measure(decoder_texts, DECODER_TOKENS), "stand_in": stand_in}
    results["threads"] = torch.get_num_threads()
    return results


def main() -> dict:
    """Run both measurements with the load average around them."""
    before = os.getloadavg()[0]
    measured = run()
    measured["load"] = (before, os.getloadavg()[0])
    return measured


def _ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:.0f} ms (max {max(values) * 1000:.0f})"


def _verdict(seconds: float, budget: float) -> str:
    return "met" if seconds <= budget else "NOT met"


def report_lines(results: dict) -> list[str]:
    """The section of RESULTS-app.md these measurements make: wall time, and process CPU time beside it."""
    decoder = results["decoder"]
    what = (
        f"a random Llama stand-in of demo-decoder's shape ({STAND_IN['layers']} layers, {STAND_IN['heads']} heads, "
        f"hidden {STAND_IN['hidden']}, {STAND_IN['positions']:,} positions; demo-decoder is not in the catalogue yet)"
        if decoder["stand_in"]
        else "demo-decoder"
    )
    load = results.get("load", (float("nan"), float("nan")))
    lines = [
        "## Long texts on Self-attention",
        "",
        "Each text is pasted on the Self-attention page. MiniLM: chosen in the sidebar, with the long-text reader "
        "turned off, so the text is cut to its 512 positions. Decoder: default settings — the default model "
        "(demo-zh-en) opens a text longer than it reads on the catalogue model with the most positions for the "
        f"text's language (truncated to that model's limit when it is still longer); {what}. "
        f"Load average (1 min) {load[0]:.1f} before, {load[1]:.1f} after, on 2 cores: wall times include waiting "
        "for a core; CPU time (this process, one torch thread as the app runs) is what each costs on a free core.",
        "",
        "| budget | limit | wall | CPU | verdict (wall / CPU) |",
        "|---|---|---|---|---|",
    ]
    for key, label in (("minilm", "MiniLM, 512 tokens"), ("decoder", f"decoder, {DECODER_TOKENS:,} tokens")):
        every = [t for values in results[key]["changes"].values() for t in values]
        wall, cpu = [w for w, _ in every], [c for _, c in every]
        lines.append(
            f"| every control change, warm ({label}: {len(every)} changes) | ≤ 1 s | median "
            f"{statistics.median(wall) * 1000:.0f} ms, slowest {max(wall) * 1000:.0f} ms | median "
            f"{statistics.median(cpu) * 1000:.0f} ms, slowest {max(cpu) * 1000:.0f} ms | "
            f"{_verdict(max(wall), CHANGE_BUDGET_S)} / {_verdict(max(cpu), CHANGE_BUDGET_S)} |"
        )
    first_wall, first_cpu = decoder["first_s"]
    lines.append(
        f"| first figure of a {DECODER_TOKENS:,}-token text (model loaded) | ≤ 10 s | {first_wall:.2f} s | "
        f"{first_cpu:.2f} s | {_verdict(first_wall, FIRST_FIGURE_BUDGET_S)} / "
        f"{_verdict(first_cpu, FIRST_FIGURE_BUDGET_S)} |"
    )
    lines += ["", "Details (each control change three times; wall median (max) / CPU median (max)):"]
    for key in ("minilm", "decoder"):
        result = results[key]
        changes = "; ".join(
            f"{name} {_ms([w for w, _ in values])} / {_ms([c for _, c in values])}"
            for name, values in result["changes"].items()
        )
        (cold_wall, cold_cpu), (first_wall, first_cpu) = result["cold_s"], result["first_s"]
        lines.append(
            f"- {result['model']}, {result['tokens']:,} tokens: first text pasted (model load included) "
            f"{cold_wall:.2f} s wall / {cold_cpu:.2f} s CPU; a new text, model loaded {first_wall:.2f} s / "
            f"{first_cpu:.2f} s; {changes}."
        )
    lines += [
        "",
        "How: AppTest (`streamlit.testing.v1`) runs `app_pages/main.py` in-process; each time is one whole script "
        "run after one widget change (`set_value(...).run()`), i.e. what the server does for that change (the "
        "head's pooled overview, its exact block, the head lines of the window, every figure built) plus the "
        "harness's handling of the result; the browser's own drawing is not included.",
        "",
    ]
    return lines


if __name__ == "__main__":
    print("\n".join(report_lines(main())))
