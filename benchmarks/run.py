"""Long inputs and speed: attnviz against eager `output_attentions` and BertViz, same model, text and machine, one run.

    python benchmarks/run.py              # the full run (MiniLM at 64–512 tokens, a random 12-layer decoder at 8,192)
    python benchmarks/run.py --quick      # a smoke run: 64 and 128 tokens, 1,024 for the long decoder

What is measured (best and median of interleaved rounds, so a busy machine slows every method alike, and the
median of each round's ratio to the method's baseline):
- MiniLM (the real all-MiniLM-L6-v2, 6 layers × 12 heads) at n tokens, CPU, `--threads` threads:
  SDPA forward without weights; eager forward with output_attentions; attnviz on-demand (`capture_lazy` from the
  text, then one whole layer opened); attnviz capture of everything (`capture`, and `capture_lazy(...).to_capture()`);
  peak extra memory of each (VmHWM − VmRSS after /proc/self/clear_refs, in a fresh worker process); BertViz
  `head_view(..., html_action="return")` HTML size; the plotly JSON the app sends for one view (the layer × head
  statistic overview + one head at full resolution, built by attnviz.figures).
- A random Qwen2-config decoder (12 layers, 8 heads, 512 hidden) at 8,192 tokens: `capture_lazy`, then one whole
  head opened; peak extra memory, against the memory eager attention would keep.

BertViz is installed from PyPI into benchmarks/.benchvenv (a venv that sees the project's packages through a .pth
file, gitignored); the measuring workers run in it. Results go to benchmarks/RESULTS.md.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import site
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH_VENV = ROOT / "benchmarks" / ".benchvenv"
RESULTS = ROOT / "benchmarks" / "RESULTS.md"
TEXT = (
    "Attention lets every token look at every other token, and the model decides how much each one matters. "
    "A translation model reads the source sentence, then writes the target one word at a time, looking back at the "
    "source words that carry the meaning it is about to write. "
)
ISSUE = {  # the issue's own measurements, for reference in the report
    64: (16.7, 17.6, "13.3 MB"),
    128: (25.3, 27.7, "53.5 MB"),
    256: (47.3, 55.4, "216 MB"),
    512: (83.6, 152.8, "—"),
}


# ----------------------------------------------------------------------------------------------------------------------
# Measuring helpers (run inside the workers)


def _status(field: str) -> int:
    """A /proc/self/status memory field (VmRSS, VmHWM) in bytes."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(f"{field} not in /proc/self/status")


def peak_extra_bytes(run) -> int:
    """Peak resident memory `run()` adds: the high-water mark is reset first (Linux clear_refs = 5)."""
    gc.collect()
    with open("/proc/self/clear_refs", "w") as clear:
        clear.write("5")
    before = _status("VmRSS")
    result = run()
    peak = _status("VmHWM")
    del result
    gc.collect()
    return max(peak - before, 0)  # RSS can dip below the starting point (pages returned), never the peak


def interleaved_ms(methods: dict, repeats: int, baselines: dict[str, str] | None = None) -> dict[str, dict[str, float]]:
    """Per method over `repeats` rounds: best and median wall milliseconds, best CPU milliseconds of this process
    (all its threads), and — for a method given a baseline in `baselines` — the median over rounds of its wall and
    CPU time divided by the baseline's in the same round. Each round runs every method once, so load from other processes
    hits all of them alike; the best run is the least disturbed one, a paired ratio cancels what a round shared, and
    CPU time does not count waiting for a core at all."""
    for run in methods.values():
        run()  # warm-up
    wall = {name: [] for name in methods}
    cpu = {name: [] for name in methods}
    for _ in range(repeats):
        for name, run in methods.items():
            start, start_cpu = time.perf_counter(), time.process_time()
            run()
            wall[name].append((time.perf_counter() - start) * 1000)
            cpu[name].append((time.process_time() - start_cpu) * 1000)
    timed = {
        name: {"best": min(wall[name]), "median": statistics.median(wall[name]), "cpu": min(cpu[name])}
        for name in methods
    }
    for name, baseline in (baselines or {}).items():
        timed[name]["paired"] = statistics.median(a / b for a, b in zip(wall[name], wall[baseline]))
        timed[name]["paired_cpu"] = statistics.median(a / b for a, b in zip(cpu[name], cpu[baseline]))
    return timed


def text_of_tokens(tokenizer, n: int) -> str:
    """A text that the tokenizer turns into exactly n tokens (specials included)."""
    long_text = TEXT * (n // 20 + 2)
    specials = len(tokenizer("")["input_ids"])
    offsets = tokenizer(long_text, return_offsets_mapping=True, add_special_tokens=False)["offset_mapping"]
    text = long_text[: offsets[n - specials - 1][1]]
    got = len(tokenizer(text)["input_ids"])
    if got != n:
        raise RuntimeError(f"Built a text of {got} tokens instead of {n}.")
    return text


def _log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# ----------------------------------------------------------------------------------------------------------------------
# Worker: MiniLM, n tokens


def timed_methods(handle, eager_model, text: str, layer: int) -> dict:
    """The ways to run the model that the MiniLM table compares, each from the text (tokenizing included), as
    zero-argument callables."""
    import torch

    from attnviz.attention.capture import capture
    from attnviz.attention.ondemand import capture_lazy
    from attnviz.attention.recorder import recording

    tokenizer = handle.tokenizer

    def record_only():  # the whole forward pass with every weight recorded (capture stops at the last attention call)
        with recording(handle.model) as recorder:
            handle.model(**tokenizer(text, return_tensors="pt"))
        return recorder

    def sdpa():
        with torch.no_grad():
            return handle.model(**tokenizer(text, return_tensors="pt"))

    def eager():
        with torch.no_grad():
            return eager_model(**tokenizer(text, return_tensors="pt"), output_attentions=True)

    return {
        "sdpa": sdpa,
        "eager": eager,
        "lazy_layer": lambda: capture_lazy(handle, text).layer("self", layer),
        "full": lambda: capture(handle, text),
        "lazy_all": lambda: capture_lazy(handle, text).to_capture(),
        "record": record_only,
    }


# What each timed method is compared with, round by round (the paired ratios).
BASELINES = {"lazy_layer": "sdpa", "eager": "sdpa", "full": "eager", "lazy_all": "eager", "record": "eager"}


def short_worker(sizes: list[int], repeats: int, bertviz_max: int, part: str) -> dict:
    """part "time": timings, statistics, payloads and BertViz; part "memory": peak extra memory of each method (run
    in a worker whose malloc returns large blocks at once, which would slow the timings)."""
    import numpy as np
    import transformers

    from attnviz.attention.ondemand import capture_lazy
    from attnviz.figures.grid import statistic_grid
    from attnviz.figures.heatmap import heatmap
    from attnviz.figures.style import FigureStyle
    from attnviz.maps import head_stats
    from attnviz.model.load import load_model

    try:
        from bertviz import head_view
    except ImportError as error:
        head_view, bertviz_error = None, f"bertviz not importable: {error}"
    else:
        bertviz_error = None
    handle = load_model("minilm", "cpu")
    eager_model = transformers.AutoModel.from_pretrained(handle.path, attn_implementation="eager").eval()
    tokenizer = handle.tokenizer
    layers, heads = handle.num_layers, handle.num_heads
    layer, head = layers // 2, heads // 2
    rows = []
    for n in sizes:
        _log(f"MiniLM, {n} tokens, {part} …")
        text = text_of_tokens(tokenizer, n)
        methods = timed_methods(handle, eager_model, text, layer)
        row = {"n": n}
        if part == "memory":
            for run in methods.values():
                run()  # warm-up: first-call allocations are not the method's
            row["peak"] = {name: peak_extra_bytes(run) for name, run in methods.items()}
            rows.append(row)
            continue
        timed = interleaved_ms(methods, repeats, BASELINES)
        row["ms"] = {name: t["best"] for name, t in timed.items()}
        row["median_ms"] = {name: t["median"] for name, t in timed.items()}
        row["cpu_ms"] = {name: t["cpu"] for name, t in timed.items()}
        row["paired"] = {name: t["paired"] for name, t in timed.items() if "paired" in t}
        row["paired_cpu"] = {name: t["paired_cpu"] for name, t in timed.items() if "paired_cpu" in t}

        lazy = capture_lazy(handle, text)
        start = time.perf_counter()
        overview = lazy.head_statistics("self")  # streamed, tile by tile
        row["statistics_ms"] = (time.perf_counter() - start) * 1000
        amap = lazy.map("self")  # the exact map: to check the streamed statistics, and for the head's heatmap
        row["statistics_match"] = float(
            max(
                np.nanmax(np.abs(overview[k] - v)) if np.isfinite(v).any() else 0.0
                for k, v in head_stats.head_statistics(amap).items()
            )
        )
        start = time.perf_counter()
        style = FigureStyle(model="minilm")
        grid_json = statistic_grid(values=overview, statistic="entropy", kind="self", style=style).to_json()
        head_json = heatmap(amap, layers=layer, heads=head, max_tokens=n, style=style).to_json()
        row["figure_ms"] = (time.perf_counter() - start) * 1000
        row["payload"] = {"overview": len(grid_json.encode()), "head": len(head_json.encode())}

        if head_view is not None and n <= bertviz_max:
            attentions = methods["eager"]().attentions
            tokens = tokenizer.convert_ids_to_tokens(tokenizer(text)["input_ids"])
            start = time.perf_counter()
            html = head_view(attentions, tokens, html_action="return").data
            row["bertviz"] = {"bytes": len(html.encode()), "ms": (time.perf_counter() - start) * 1000}
            del html, attentions
        else:
            row["bertviz"] = {"skipped": bertviz_error or f"above --bertviz-max {bertviz_max} tokens"}
        rows.append(row)
        _log(f"  {json.dumps(row)}")
    return {"model": "all-MiniLM-L6-v2", "layers": layers, "heads": heads, "opened": [layer, head], "rows": rows}


# ----------------------------------------------------------------------------------------------------------------------
# Worker: a random 12-layer decoder at 8,192 tokens


def _word_tokenizer(vocab: int):
    """A whitespace word-level tokenizer over words w0 … w{vocab−1}: one token per word, offsets included."""
    import transformers
    from tokenizers import Tokenizer, models, pre_tokenizers

    specials = ["<pad>", "</s>", "<unk>", "<s>"]
    words = {token: i for i, token in enumerate(specials + [f"w{i}" for i in range(vocab - len(specials))])}
    tokenizer = Tokenizer(models.WordLevel(words, unk_token="<unk>"))
    tokenizer.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    return transformers.PreTrainedTokenizerFast(
        tokenizer_object=tokenizer, pad_token="<pad>", eos_token="</s>", unk_token="<unk>", bos_token="<s>"
    )


def long_worker(tokens: int) -> dict:
    import numpy as np
    import torch
    import transformers

    from attnviz.attention.ondemand import capture_lazy
    from attnviz.errors import ResourceLimitError
    from attnviz.model import memory
    from attnviz.model.load import load_model

    vocab = 8192
    config = transformers.Qwen2Config(
        vocab_size=vocab,
        hidden_size=512,
        num_hidden_layers=12,
        num_attention_heads=8,
        num_key_value_heads=2,
        intermediate_size=1536,
        max_position_embeddings=max(2 * tokens, 4096),
        pad_token_id=0,
        eos_token_id=1,
        bos_token_id=3,
        architectures=["Qwen2ForCausalLM"],
    )
    folder = tempfile.mkdtemp(prefix="attnviz-bench-")
    torch.manual_seed(0)
    transformers.Qwen2ForCausalLM(config).save_pretrained(folder)
    handle = load_model(folder, "cpu")
    # Given directly: AutoTokenizer would pick Qwen2's BPE tokenizer class for this folder, whatever is saved there.
    handle.tokenizer = _word_tokenizer(vocab)
    words = np.random.default_rng(0).integers(0, vocab - 4, size=tokens)
    text = " ".join(f"w{i}" for i in words)
    kept_by_eager = config.num_hidden_layers * config.num_attention_heads * tokens * tokens * 4
    result = {
        "tokens": tokens,
        "layers": 12,
        "heads": 8,
        "kv_heads": 2,
        "hidden": 512,
        "estimate_full": memory.estimate_bytes(handle, tokens, mode="full"),
        "estimate_lazy": memory.estimate_bytes(handle, tokens, mode="lazy"),
        "eager_weights": kept_by_eager,
    }
    try:
        memory.check_budget(handle, tokens, mode="full")
        result["refusal"] = None
    except ResourceLimitError as refusal:
        result["refusal"] = str(refusal)

    _log(f"Random Qwen2 decoder, {tokens} tokens: capture_lazy …")
    timings = {}

    def run():
        start = time.perf_counter()
        lazy = capture_lazy(handle, text)
        timings["forward_s"] = time.perf_counter() - start
        result["forward_peak"] = _status("VmHWM") - before
        start = time.perf_counter()
        weights = lazy.head("self", 11, 5)  # one whole head: tokens × tokens
        timings["open_head_s"] = time.perf_counter() - start
        start = time.perf_counter()
        lazy.head("self", 3, 1, rows=(tokens - 64, tokens))  # the last 64 query rows of another head
        timings["open_rows_s"] = time.perf_counter() - start
        result["kept_bytes"] = lazy.nbytes
        result["head_shape"] = list(weights.shape)
        result["row_sum_error"] = float(np.abs(weights.sum(axis=-1, dtype=np.float64) - 1).max())
        result["upper_triangle_max"] = float(np.triu(weights, k=1).max())
        return lazy, weights

    capture_lazy(handle, " ".join(f"w{i}" for i in words[:64])).head("self", 0, 0)  # first-call costs (lib pages)
    gc.collect()
    with open("/proc/self/clear_refs", "w") as clear:
        clear.write("5")
    before = _status("VmRSS")
    kept = run()
    result["peak_extra"] = _status("VmHWM") - before
    del kept
    result.update(timings)
    _log(f"  {json.dumps(result)}")
    return result


# ----------------------------------------------------------------------------------------------------------------------
# The benchmark environment (BertViz) and the report


def bench_python(install_bertviz: bool) -> tuple[str, str]:
    """The python the workers run in, and a sentence on BertViz's availability."""
    if not install_bertviz:
        return sys.executable, "not run (--no-bertviz)"
    python = BENCH_VENV / "bin" / "python"
    try:
        if not python.exists():
            subprocess.run([sys.executable, "-m", "venv", str(BENCH_VENV)], check=True)
            purelib = subprocess.check_output(
                [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], text=True
            ).strip()
            # The benchmark venv sees the project's packages (torch, transformers, …) instead of reinstalling them.
            Path(purelib, "_attnviz_project.pth").write_text("\n".join(site.getsitepackages()) + "\n")
        probe = [str(python), "-c", "import bertviz, importlib.metadata as m; print(m.version('bertviz'))"]
        if subprocess.run(probe, capture_output=True, check=False).returncode != 0:
            _log("Installing bertviz from PyPI into benchmarks/.benchvenv …")
            subprocess.run([str(python), "-m", "pip", "install", "--quiet", "bertviz"], check=True)
        version = subprocess.check_output(probe, text=True).strip()
        return str(python), f"bertviz {version} from PyPI, in benchmarks/.benchvenv"
    except (subprocess.CalledProcessError, OSError) as error:
        return sys.executable, f"could not be installed or imported ({error}); its columns are empty"


def run_worker(python: str, args: list[str], threads: int, measure_memory: bool) -> dict:
    env = dict(os.environ)
    env.update(
        PYTHONPATH=str(ROOT),
        OMP_NUM_THREADS=str(threads),
        MKL_NUM_THREADS=str(threads),
        TORCH_DEVICE_BACKEND_AUTOLOAD="0",
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_VERBOSITY="error",
        HF_HUB_DISABLE_PROGRESS_BARS="1",
        TOKENIZERS_PARALLELISM="false",
        ATTNVIZ_MAX_CHARS="200000",  # the 8,192-word text of the long run is 48,000 characters (default limit 20,000)
    )
    if measure_memory:  # large blocks come from mmap and go back on free: each method's peak is its own
        env.update(MALLOC_MMAP_THRESHOLD_="131072", MALLOC_TRIM_THRESHOLD_="131072")
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        subprocess.run([python, __file__, "--json-out", out.name, *args], check=True, env=env, cwd=ROOT)
        return json.loads(Path(out.name).read_text())


def _memory_beside_eager(row: dict) -> str:
    """Goal 4 is about time; peak memory, which it does not promise, said beside it at the largest size."""
    full, eager = row["peak"]["full"], row["peak"]["eager"]
    return (
        f"Memory is not part of this goal: at {row['n']} tokens `capture`'s peak extra memory is {_mb(full)} against "
        f"eager's {_mb(eager)} ({full / eager:.2f}×): both hold every weight, and `capture` its value norms too."
    )


def _mb(count: float) -> str:
    return f"{count / 2**20:,.1f} MiB" if count < 2**30 else f"{count / 2**30:,.2f} GiB"


def _series(rows: list[dict], key: str) -> str:
    """'64: a, b, c, d, e; 128: …' for the five timed methods, in table order."""
    order = ("sdpa", "eager", "lazy_layer", "full", "lazy_all", "record")
    return "; ".join(f"{row['n']}: " + ", ".join(f"{row[key][k]:.1f}" for k in order) for row in rows)


def write_section(name: str, section: str, path: Path | None = None) -> None:
    """Replace benchmark `name`'s section of RESULTS.md (between its `<!-- name: start/end -->` markers), or append
    it; this file's own runs keep such sections (`kept_sections`)."""
    path = path or RESULTS
    start, end = f"<!-- {name}: start -->", f"<!-- {name}: end -->"
    marked = f"{start}\n{section.strip()}\n{end}\n"
    text = path.read_text(encoding="utf-8") if path.exists() else "# Benchmark results\n"
    if start in text and end in text:
        before, rest = text.split(start, 1)
        text = before + marked.rstrip("\n") + rest.split(end, 1)[1]
    else:
        text = text.rstrip("\n") + "\n\n" + marked
    path.write_text(text, encoding="utf-8")


def kept_sections(path: Path) -> str:
    """The sections other benchmark scripts wrote into the results file (between their own start/end markers, as
    bench_values.py does), kept when this run rewrites it."""
    import re

    text = path.read_text(encoding="utf-8") if path.exists() else ""
    found = re.finditer(r"<!-- (\w+): start -->.*?<!-- \1: end -->", text, flags=re.S)
    return "".join(f"\n{match.group(0)}\n" for match in found)


def _ratio(value: float, reference: float) -> str:
    return f"{value / reference:.2f}"


def render(short: dict | None, long: dict | None, bertviz: str, meta: dict) -> str:
    header = [
        "# Benchmark results",
        "",
        f"Generated by `python benchmarks/run.py{meta['argv']}` on {meta['date']} — {meta['machine']}, torch "
        f"{meta['torch']}, transformers {meta['transformers']}, {meta['threads']} threads; BertViz: {bertviz}. "
        f"Load average before/after: {meta['load_before']} / {meta['load_after']} (other jobs share this machine; "
        f"times are the best of {meta['repeats']} interleaved rounds; medians below each table). Goals are judged "
        "first by the median of paired rounds — each round runs the methods back to back, so a burst of load that "
        "hits a round cancels in its ratio, while the best of each method may come from different, luckier rounds.",
        "",
    ]
    lines: list[str] = []
    goals = []
    if short:
        rows = short["rows"]
        layer, head = short["opened"]
        lines += [
            f"## {short['model']} ({short['layers']} layers × {short['heads']} heads), CPU",
            "",
            "Time (ms, best of the interleaved rounds), every method from the text (tokenizing included). "
            "*lazy + layer*: `capture_lazy(text)` then all heads of layer "
            f"{layer} opened; *capture all*: `capture(text)`; *lazy → all*: `capture_lazy(text).to_capture()`; "
            "*whole forward recorded*: the model run to the end of its forward pass under "
            "`attnviz.attention.recorder.recording` (weights recorded per layer, not stacked into one array); "
            "`capture` itself stops after the last "
            "attention call, as nothing later changes a weight.",
            "",
            "| n tokens | SDPA, no weights | eager + output_attentions | eager/SDPA | attnviz lazy + layer | "
            "lazy/SDPA | attnviz capture all | capture/eager | attnviz lazy → all | lazy→all/eager | "
            "whole forward recorded | its /eager | issue: SDPA / eager |",
            "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for row in rows:
            ms = row["ms"]
            issue = ISSUE.get(row["n"])
            lines.append(
                f"| {row['n']} | {ms['sdpa']:.1f} | {ms['eager']:.1f} | {_ratio(ms['eager'], ms['sdpa'])} | "
                f"{ms['lazy_layer']:.1f} | **{_ratio(ms['lazy_layer'], ms['sdpa'])}** | {ms['full']:.1f} | "
                f"**{_ratio(ms['full'], ms['eager'])}** | {ms['lazy_all']:.1f} | {_ratio(ms['lazy_all'], ms['eager'])} "
                f"| {ms['record']:.1f} | {_ratio(ms['record'], ms['eager'])} "
                f"| {f'{issue[0]} / {issue[1]}' if issue else '—'} |"
            )
        lines += [
            "",
            "Medians (ms), same order: " + _series(rows, "median_ms") + ".",
            "",
            "Median over rounds of each round's ratio (the two methods ran back to back, so load the round shared "
            "cancels): "
            + "; ".join(
                f"{label}: {', '.join(_ratio(r['paired'][method], 1.0) for r in rows)}"
                for method, label in (
                    ("lazy_layer", "lazy/SDPA"),
                    ("eager", "eager/SDPA"),
                    ("full", "capture/eager"),
                    ("lazy_all", "lazy→all/eager"),
                    ("record", "whole forward recorded/eager"),
                )
            )
            + ".",
            "",
            "CPU time of the measuring process (ms, best; not slowed by waiting for a core): "
            + _series(rows, "cpu_ms")
            + f". lazy/SDPA: {', '.join(_ratio(r['cpu_ms']['lazy_layer'], r['cpu_ms']['sdpa']) for r in rows)}; "
            f"capture/eager: {', '.join(_ratio(r['cpu_ms']['full'], r['cpu_ms']['eager']) for r in rows)}; "
            f"lazy→all/eager: {', '.join(_ratio(r['cpu_ms']['lazy_all'], r['cpu_ms']['eager']) for r in rows)}; "
            f"whole forward recorded/eager: "
            f"{', '.join(_ratio(r['cpu_ms']['record'], r['cpu_ms']['eager']) for r in rows)}.",
            "",
            "Peak extra memory (VmHWM − VmRSS before the call, fresh high-water mark per method; includes what the "
            "call returns) and what the browser receives.",
            "",
            "| n tokens | SDPA | eager + output_attentions | attnviz lazy + layer | attnviz capture all | "
            "attnviz lazy → all | whole forward recorded | "
            f"BertViz head_view HTML (build) | attnviz view: overview + head {layer}.{head} (figures) | "
            "view / BertViz |",
            "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for row in rows:
            peak, payload, bertviz_row = row["peak"], row["payload"], row["bertviz"]
            view = payload["overview"] + payload["head"]
            html = bertviz_row.get("bytes")
            lines.append(
                f"| {row['n']} | {_mb(peak['sdpa'])} | {_mb(peak['eager'])} | {_mb(peak['lazy_layer'])} | "
                f"{_mb(peak['full'])} | {_mb(peak['lazy_all'])} | {_mb(peak['record'])} | "
                + (f"{_mb(html)} ({bertviz_row['ms'] / 1000:.1f} s)" if html else f"— ({bertviz_row['skipped']})")
                + f" | {_mb(view)} ({_mb(payload['overview'])} + {_mb(payload['head'])}) | "
                + (f"**{100 * view / html:.2f}%**" if html else "—")
                + " |"
            )
        lines += [
            "",
            "Streamed head statistics (all statistics, every layer × head, tile by tile) vs "
            "`head_stats.head_statistics` on the full map: "
            + ", ".join(f"{r['n']}: {r['statistics_ms']:.0f} ms (max diff {r['statistics_match']:.1e})" for r in rows)
            + ".",
            "",
        ]
        by_n = {row["n"]: row for row in rows}
        if 256 in by_n and by_n[256]["bertviz"].get("bytes"):
            row = by_n[256]
            html = row["bertviz"]["bytes"]
            view = row["payload"]["overview"] + row["payload"]["head"]
            goals.append(
                f"1. Browser payload per view at 256 tokens ≤ 1% of BertViz's HTML: {100 * view / html:.2f}% "
                f"({_mb(view)} against {_mb(html)}; {'met' if view <= html / 100 else 'NOT met'})."
            )
        if 512 in by_n:
            row = by_n[512]
            ratio = row["ms"]["lazy_layer"] / row["ms"]["sdpa"]
            paired = row["paired"]["lazy_layer"]
            cpu_ratio = row["paired_cpu"]["lazy_layer"]
            goals.append(
                f"2. Opening one layer at 512 tokens ≤ 1.2× the SDPA forward: {paired:.2f}× as the median of paired "
                f"rounds ({'met' if paired <= 1.2 else 'NOT met'}); {ratio:.2f}× wall best against best "
                f"({'met' if ratio <= 1.2 else 'NOT met'}), {cpu_ratio:.2f}× CPU time, paired "
                f"({'met' if cpu_ratio <= 1.2 else 'NOT met'}); eager + output_attentions: "
                f"{row['paired']['eager']:.2f}× wall, {row['paired_cpu']['eager']:.2f}× CPU (paired). "
                "(`capture_lazy`, like `capture`, ends "
                "the forward pass after the last attention call; the SDPA forward runs to its end.)"
            )
    if long:
        lines += [
            f"## Random Qwen2-config decoder ({long['layers']} layers, {long['heads']} heads, {long['kv_heads']} "
            f"key/value heads, {long['hidden']} hidden), {long['tokens']:,} tokens, CPU",
            "",
            "| what | value |",
            "|---|---|",
            f"| `capture_lazy` (tokenize + SDPA forward keeping q, k) | {long['forward_s']:.1f} s |",
            f"| open one whole head ({long['head_shape'][0]:,} × {long['head_shape'][1]:,}, exact fp32) | "
            f"{long['open_head_s']:.2f} s |",
            f"| open the last 64 query rows of another head | {long['open_rows_s'] * 1000:.0f} ms |",
            f"| peak extra memory: forward | {_mb(long['forward_peak'])} |",
            f"| peak extra memory: forward + opened head (kept) | **{_mb(long['peak_extra'])}** |",
            f"| kept by the lazy capture (queries, keys, compact masks) | {_mb(long['kept_bytes'])} |",
            f"| memory guard estimate, lazy mode | {_mb(long['estimate_lazy'])} |",
            f"| weights eager output_attentions would keep (12 × 8 × n² × 4 B) | {_mb(long['eager_weights'])} |",
            f"| memory guard estimate, full mode | {_mb(long['estimate_full'])} |",
            f"| opened head: max abs(row sum − 1), max above the diagonal | {long['row_sum_error']:.1e}, "
            f"{long['upper_triangle_max']:.1e} |",
            "",
            f"Full mode under the default budget is refused before running: “{long['refusal']}”"
            if long["refusal"]
            else "Full mode fits the default budget at this size.",
            "",
        ]
        goals.append(
            f"3. {long['tokens']:,} tokens, any head opens, peak extra memory ≤ 2 GB (1.86 GiB): "
            f"{_mb(long['peak_extra'])} ({'met' if long['peak_extra'] <= 2e9 else 'NOT met'}); eager would "
            f"keep {_mb(long['eager_weights'])}."
        )
    if short:

        def worst(method: str, key: str) -> float:
            if key in ("paired", "paired_cpu"):
                return max(row[key][method] for row in short["rows"])
            return max(row[key][method] / row[key]["eager"] for row in short["rows"])

        def verdict(method: str) -> str:
            ratios = {key: worst(method, key) for key in ("ms", "paired", "paired_cpu")}
            met = {key: "met" if value <= 1.0 else "NOT met" for key, value in ratios.items()}
            return (
                f"worst ratio {ratios['paired']:.2f} as the median of paired rounds ({met['paired']}); "
                f"{ratios['ms']:.2f} wall best against best ({met['ms']}), {ratios['paired_cpu']:.2f} CPU time, "
                f"paired ({met['paired_cpu']})"
            )

        goals.append(
            f"4. Capturing everything ≤ eager + output_attentions: `capture` {verdict('full')}. It computes the "
            "weights as eager attention does (bit for bit), writes them straight into the stacked array, checks them "
            "through each attention output, reads tokens from the Rust tokenizer directly, and stops the forward "
            "pass after the last attention call (eager runs the last feed-forward block and pooler too). For "
            f"comparison: the whole forward recorded, worst {worst('record', 'ms'):.2f}× eager wall; a lazy capture "
            f"made whole afterwards (`capture_lazy(...).to_capture()`, which computes every weight a second time "
            f"after an SDPA forward, and is not how everything is captured) {verdict('lazy_all')}. "
            + _memory_beside_eager(short["rows"][-1])
        )
    lines = header + (["## Goals", "", *goals, ""] if goals else []) + lines
    lines += [
        "## Notes",
        "",
        "- Correctness of the on-demand path is tested in `tests/integration/test_ondemand.py` (equal to `capture`, itself equal "
        "to eager attention, within 1e-5 on BERT, GPT-2, Llama (GQA), BART, Marian and T5), not here.",
        "- *View*: the plotly JSON (`fig.to_json()`) of `attnviz.figures.grid.statistic_grid` (layer × head entropy, "
        "drawn from the streamed statistics) and `attnviz.figures.heatmap.heatmap` for one head at full resolution "
        "(weights as base64 float32, hover "
        "labels from one label per token and one hovertemplate, not one string per cell).",
        "- BertViz's HTML holds every layer × head × n² weight as JSON text, which is why it grows as n².",
        "",
    ]
    return "\n".join(lines)


def _load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="64,128,256,512", help="MiniLM token counts (comma-separated)")
    parser.add_argument("--repeats", type=int, default=61, help="timed rounds per size (more: a steadier best)")
    parser.add_argument("--bertviz-max", type=int, default=256, help="largest n BertViz is run at (it builds n² JSON)")
    parser.add_argument("--long-tokens", type=int, default=8192, help="tokens for the long decoder run (0 = skip)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--no-bertviz", action="store_true", help="do not install or run BertViz")
    parser.add_argument("--quick", action="store_true", help="sizes 64,128, 3 repeats, 1,024 long tokens")
    parser.add_argument("--output", default=str(RESULTS))
    parser.add_argument("--worker", choices=["short", "long"], help=argparse.SUPPRESS)
    parser.add_argument("--part", choices=["time", "memory"], default="time", help=argparse.SUPPRESS)
    parser.add_argument("--json-out", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.quick:
        args.sizes, args.repeats, args.long_tokens = "64,128", 3, 1024
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]

    if args.worker:
        import torch

        torch.set_num_threads(args.threads)
        if args.worker == "short":
            result = short_worker(sizes, args.repeats, args.bertviz_max, args.part)
        else:
            result = long_worker(args.long_tokens)
        Path(args.json_out).write_text(json.dumps(result))
        return

    import torch
    import transformers

    started = time.time()
    load_before = _load()
    python, bertviz = bench_python(not args.no_bertviz)
    common = [
        "--threads",
        str(args.threads),
        "--sizes",
        ",".join(map(str, sizes)),
        "--repeats",
        str(args.repeats),
        "--bertviz-max",
        str(args.bertviz_max),
        "--long-tokens",
        str(args.long_tokens),
    ]
    short = None
    if sizes:
        short = run_worker(python, ["--worker", "short", "--part", "time", *common], args.threads, False)
        memory = run_worker(python, ["--worker", "short", "--part", "memory", *common], args.threads, True)
        for row, peaks in zip(short["rows"], memory["rows"]):
            row["peak"] = peaks["peak"]
    long = run_worker(python, ["--worker", "long", *common], args.threads, True) if args.long_tokens else None
    meta = {
        "argv": "".join(" " + a for a in sys.argv[1:]),
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, {platform.python_version()}",
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "threads": args.threads,
        "repeats": args.repeats,
        "load_before": load_before,
        "load_after": _load(),
    }
    report = render(short, long, bertviz, meta)
    report += f"Total benchmark time: {time.time() - started:.0f} s.\n"
    Path(args.output).write_text(report + kept_sections(Path(args.output)))
    print(report)
    print(f"Written to {args.output}", file=sys.stderr)


if __name__ == "__main__":
    main()
