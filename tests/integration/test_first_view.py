"""The default view computed ahead (app_pages/shared/first_view.py): the saved capture is what the shipped model
computes now, bit for bit on the machine that saved it; the first page draws it, while the server is still loading,
with the same figures the model gives and a line saying so; any other input, device, model file, machine or thread
count gets the model itself, and a machine that computes other bits is said on the page and in the log.

What the bits depend on is measured, not assumed: torch's dispatched CPU kernels (ATEN_CPU_CAPABILITY), not the list
of instruction sets a CPU reports — an AVX-512 CPU running AVX2 kernels computes the view an AVX2-only CPU saved, bit
for bit, while its own AVX512 kernels give the written tokens' probabilities other last bits."""

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from app_pages.shared import caches, first_view, model_runs, save_first_view, server_load, startup
from app_pages.shared.state import ViewState
from attnviz import i18n, provenance
from attnviz.export.schema import capture_from_npz
from attnviz.model.load import catalogue_folder, load_model
from attnviz.provenance import kernel_capabilities, kernel_capability
from attnviz.run import RunRequest
from tests.support.app import assert_page_ok, charts, open_app

DEFAULT = ViewState()
COMMITTED = first_view.FOLDER  # the view saved beside the models


def _manifest(folder) -> dict:
    return json.loads((folder / f"{DEFAULT.model}.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def folder_here(tmp_path_factory):
    """A first-view folder computed on this machine: the committed one where it was, else one written here (another
    CPU gives other last bits, and the page then rightly computes from the model)."""
    if any(saved["computed_on"] == first_view.computed_on() for saved in _manifest(COMMITTED)["views"]):
        return COMMITTED
    import torch

    threads, folder = torch.get_num_threads(), tmp_path_factory.mktemp("first-view")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(first_view, "FOLDER", folder)
        save_first_view.write(folder=folder)
    torch.set_num_threads(threads)
    return folder


@pytest.fixture(autouse=True)
def view_computed_here(folder_here, monkeypatch):
    monkeypatch.setattr(first_view, "FOLDER", folder_here)
    first_view._saved.cache_clear()
    yield
    first_view._saved.cache_clear()


@pytest.fixture
def server_loading(monkeypatch):
    """The page as a first visitor meets it: the start-up load still running, the model not loaded."""
    monkeypatch.setattr(server_load, "loading", lambda: True)

    def no_model(*arguments):
        raise AssertionError("the first page asked for the model while it was loading")

    monkeypatch.setattr(caches, "cached_model", no_model)


@pytest.fixture
def app_threads():
    """The app's torch thread count for one test, the earlier one restored after it."""
    import torch

    before = torch.get_num_threads()
    model_runs.use_interactive_threads()
    yield
    torch.set_num_threads(before)


def test_the_saved_first_view_is_what_the_shipped_model_computes_now(app_threads):
    manifest = _manifest(COMMITTED)
    assert manifest["input"] == first_view.input_of(DEFAULT)  # the view a first visitor opens
    folder = catalogue_folder(DEFAULT.model)
    assert manifest["files_sha256"] == first_view.model_files_sha256(folder), (
        "python -m app_pages.shared.save_first_view"
    )
    assert {saved["computed_on"]["capability"] for saved in manifest["views"]} == {"AVX2", "AVX512"}
    wanted = manifest["input"]
    # computed at the app's thread count (app_threads): another count sums in another order
    handle = load_model(DEFAULT.model, "cpu")
    request = RunRequest(wanted["text"], wanted["target"], wanted["mode"], truncate=wanted["truncate"])
    fresh = caches.compute_analysis(handle, request)
    for entry in manifest["views"]:
        saved = capture_from_npz(COMMITTED / entry["file"])
        assert saved.source_text == fresh.source_text and saved.target_text == fresh.target_text
        assert saved.maps.keys() == fresh.maps.keys()
        # bit for bit where it was computed as here; elsewhere only the last bits may differ (and it is not shown)
        here = entry["computed_on"] == first_view.computed_on()
        for kind, amap in fresh.maps.items():
            if here:
                np.testing.assert_array_equal(saved[kind].weights, amap.weights)
            else:
                np.testing.assert_allclose(saved[kind].weights, amap.weights, rtol=1e-5, atol=1e-6)
            assert saved[kind].query_tokens == amap.query_tokens and saved[kind].key_tokens == amap.key_tokens
        assert [step.token for step in saved.steps] == [step.token for step in fresh.steps]
        probabilities = [step.probability for step in fresh.steps]
        assert [step.probability for step in saved.steps] == (probabilities if here else pytest.approx(probabilities))


def test_a_view_computed_on_other_kernels_or_thread_count_gets_the_model(monkeypatch):
    monkeypatch.setattr(server_load, "loading", lambda: True)
    assert first_view.current(ViewState()) is not None
    monkeypatch.setenv("ATTNVIZ_TORCH_THREADS", str(first_view.computed_on()["threads"] + 1))
    assert first_view.current(ViewState()) is None  # another thread count sums in another order
    monkeypatch.delenv("ATTNVIZ_TORCH_THREADS")
    here = first_view.computed_on()
    monkeypatch.setattr(first_view, "computed_on", lambda: {**here, "capability": "SVE256"})
    assert first_view.current(ViewState()) is None
    monkeypatch.setattr(first_view, "computed_on", lambda: {**here, "vendor": "GenuineIntel"})
    assert first_view.current(ViewState()) is None  # another maker's BLAS kernels may sum in another order


def test_instruction_sets_the_kernels_do_not_use_do_not_refuse_the_view(monkeypatch):
    """The refusal this replaces: a CPU that reports AVX-512 (or AMX) besides AVX2 lost the view computed on an AVX2
    CPU, though run as AVX2 it computes the same bits. Extra flags change nothing while torch runs the same kernels."""

    monkeypatch.setattr(server_load, "loading", lambda: True)
    monkeypatch.setenv("ATEN_CPU_CAPABILITY", "avx2")  # this server runs AVX2 kernels, whatever its CPU has
    flags = "fpu sse sse2 avx avx2 fma avx512f avx512bw avx512vl avx512dq avx512_fp16 amx_tile"
    cpu = {"vendor_id": provenance.cpu_vendor(), "model name": "another CPU", "flags": flags}
    monkeypatch.setattr(provenance, "_cpuinfo", lambda: cpu)
    shown = first_view.current(ViewState())
    assert shown is not None and shown.file_name == "demo-zh-en.AVX2.npz"


def _computed_as(capability: str) -> dict:
    """The default view computed in a process of its own whose torch runs `capability`'s kernels (set before torch
    loads), as (maps' weights, written tokens' probabilities), with torch's own word for its kernels."""
    script = (
        "import json, torch;"
        "from app_pages.shared import caches, model_runs;"
        "from attnviz.model.load import load_model;"
        "model_runs.use_interactive_threads();"
        "from attnviz.run import RunRequest;"
        "request = RunRequest('早上好！', '', 'generate', truncate=True);"
        "c = caches.compute_analysis(load_model('demo-zh-en', 'cpu'), request);"
        "print(json.dumps({'capability': torch.backends.cpu.get_cpu_capability(),"
        " 'weights': {k: m.weights.tolist() for k, m in c.maps.items()},"
        " 'probabilities': [s.probability for s in c.steps]}))"
    )
    env = {**os.environ, "ATEN_CPU_CAPABILITY": capability.lower(), "PYTHONPATH": str(Path.cwd())}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_bits_follow_the_kernels_torch_runs_not_the_cpus_instruction_list():
    """Run as AVX2, this CPU computes the view an AVX2-only CPU saved (tests/support/first_view_avx2_machine.npz),
    bit for bit; run as AVX512 (where it can), the weights are the same bits but the probabilities are not."""

    elsewhere = capture_from_npz(Path(__file__).parents[1] / "support" / "first_view_avx2_machine.npz")
    avx2 = _computed_as("AVX2")
    assert avx2["capability"] == "AVX2"
    for kind, amap in elsewhere.maps.items():
        np.testing.assert_array_equal(np.asarray(avx2["weights"][kind], dtype=np.float32), amap.weights)
    assert avx2["probabilities"] == [step.probability for step in elsewhere.steps]
    if "AVX512" not in kernel_capabilities():
        pytest.skip("this CPU cannot run AVX512 kernels")
    avx512 = _computed_as("AVX512")
    assert avx512["capability"] == "AVX512"
    for kind, amap in elsewhere.maps.items():
        np.testing.assert_array_equal(np.asarray(avx512["weights"][kind], dtype=np.float32), amap.weights)
    assert avx512["probabilities"] != [step.probability for step in elsewhere.steps]  # other kernels, other bits
    assert avx512["probabilities"] == pytest.approx([step.probability for step in elsewhere.steps], rel=1e-5)


@pytest.mark.parametrize("asked", [None, "avx2", "default", "avx512"])
def test_the_kernels_are_told_as_torch_chooses_them_without_importing_torch(asked):

    if asked == "avx512" and "AVX512" not in kernel_capabilities():
        pytest.skip("this CPU cannot run AVX512 kernels")
    env = {name: value for name, value in os.environ.items() if name != "ATEN_CPU_CAPABILITY"}
    env |= {"ATEN_CPU_CAPABILITY": asked} if asked else {}
    script = "import torch; print(torch.backends.cpu.get_cpu_capability())"
    said = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
    assert kernel_capability(env) == said.stdout.strip()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_view_not_computed_as_here_is_said_on_the_page_and_in_the_log(monkeypatch, caplog, lang):
    monkeypatch.setattr(server_load, "loading", lambda: True)  # the model may load: the page then computes from it
    here = first_view.computed_on()
    other = {**here, "capability": "SVE256"}
    monkeypatch.setattr(first_view, "computed_on", lambda: other)
    with caplog.at_level("WARNING", logger="attnviz.app"):
        at = open_app(lang=lang)
    assert_page_ok(at)
    said = [caption.value for caption in at.caption]
    saved = " / ".join(first_view.described(entry["computed_on"]) for entry in _manifest(first_view.FOLDER)["views"])
    expected = i18n.t("first_view_unused_machine", lang, saved=saved, here=first_view.described(other))
    assert expected in said
    assert any("not shown" in record.getMessage() for record in caplog.records if record.levelname == "WARNING")
    assert {"alignment", "heatmap"} <= set(charts(at))  # computed by the model instead


def test_the_first_page_draws_the_saved_view_without_the_model_and_says_so(server_loading):
    at = open_app()
    assert_page_ok(at)
    first = charts(at)
    assert {"alignment", "heatmap"} <= set(first)
    assert any("Computed ahead by demo-zh-en" in caption.value for caption in at.caption)
    assert "good morning" in " ".join(m.value for m in at.markdown).lower()
    assert "chart_preload" not in json.dumps([e.proto.id for e in at.get("plotly_chart")])


def test_the_saved_view_draws_the_figures_the_model_draws(monkeypatch):
    from_model = open_app()
    assert not any("Computed ahead" in caption.value for caption in from_model.caption)
    monkeypatch.setattr(server_load, "loading", lambda: True)
    ahead = open_app()
    assert any("Computed ahead" in caption.value for caption in ahead.caption)
    assert charts(ahead) == charts(from_model)


def test_the_zh_page_says_it_in_chinese(server_loading):
    at = open_app(lang="zh")
    assert_page_ok(at)
    assert any("预先为这段文本计算" in caption.value for caption in at.caption)


@pytest.mark.parametrize(
    "change", [{"text": "你好"}, {"mode": "pair"}, {"device": "cuda"}, {"model": "demo-en-zh"}], ids=str
)
def test_any_other_input_gets_the_model(monkeypatch, change):
    monkeypatch.setattr(server_load, "loading", lambda: True)
    view = ViewState(**change)
    assert first_view.current(view) is None
    assert first_view.current(ViewState()) is not None


def test_a_deployment_that_runs_auto_on_a_gpu_gets_the_model(monkeypatch):
    monkeypatch.setattr(server_load, "loading", lambda: True)
    monkeypatch.setenv("ATTNVIZ_DEVICE", "cuda")
    assert first_view.current(ViewState()) is None  # computed ahead on CPU: not what this deployment runs
    monkeypatch.setenv("ATTNVIZ_DEVICE", "cpu")
    assert first_view.current(ViewState()) is not None


def test_changed_model_files_or_a_finished_load_get_the_model(monkeypatch):
    assert first_view.current(ViewState()) is None  # no server start-up under way (as in every other test)
    monkeypatch.setattr(server_load, "loading", lambda: True)
    first_view._saved.cache_clear()
    monkeypatch.setattr(first_view, "model_files_sha256", lambda folder: {"model.safetensors": "retrained"})
    try:
        assert first_view.current(ViewState()) is None
    finally:
        first_view._saved.cache_clear()


class WatchedEvent(threading.Event):
    """An Event that says when someone has begun waiting on it (`waiting`)."""

    def __init__(self) -> None:
        super().__init__()
        self.waiting = threading.Event()

    def wait(self, timeout=None) -> bool:
        self.waiting.set()
        return super().wait(timeout)


def test_the_warm_up_imports_after_the_first_page_and_loading_lasts_until_it_ends(monkeypatch):
    began = []
    monkeypatch.setattr(startup, "warm_up", lambda: began.append(server_load.loading()))
    monkeypatch.setattr(startup, "BROWSER_DRAW_S", 0.0)
    monkeypatch.setattr(startup, "FIRST_PAGE_WAIT_S", 600.0)  # only the first page ends the wait here
    for event in ("_started", "_finished"):
        monkeypatch.setattr(server_load, event, threading.Event())
    first_page = WatchedEvent()
    monkeypatch.setattr(server_load, "_first_page", first_page)
    assert not server_load.loading()  # no server start-up: pages compute from the model
    server_load._started.set()
    assert server_load.loading()
    thread = threading.Thread(target=startup._warm_up_after_first_page)
    thread.start()
    assert first_page.waiting.wait(timeout=30)  # the warm-up waits for the first page …
    assert began == []  # … and has imported nothing beside the first page's script
    server_load.first_page_drawn()
    thread.join(timeout=10)
    assert began == [True]
    server_load._finished.set()
    assert not server_load.loading()
