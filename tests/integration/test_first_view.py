"""The default view computed ahead (app_pages/shared/first_view.py): the saved capture is what the shipped model
computes now, bit for bit on the machine that saved it; the first page draws it, while the server is still loading,
with the same figures the model gives and a line saying so; any other input, device, model file, machine or thread
count gets the model itself."""

import json
import threading

import numpy as np
import pytest

from app_pages.shared import caches, first_view, model_runs, save_first_view, server_load, startup
from app_pages.shared.state import ViewState
from attnviz.export.schema import capture_from_npz
from attnviz.model.load import catalogue_folder, load_model
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
    if _manifest(COMMITTED).get("computed_on") == first_view.computed_on():
        return COMMITTED
    import torch

    threads, folder = torch.get_num_threads(), tmp_path_factory.mktemp("first-view")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(first_view, "FOLDER", folder)
        save_first_view.write()
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
    saved = capture_from_npz(COMMITTED / manifest["file"])
    wanted = manifest["input"]
    # computed at the app's thread count (app_threads): another count sums in another order
    handle = load_model(DEFAULT.model, "cpu")
    request = RunRequest(wanted["text"], wanted["target"], wanted["mode"], truncate=wanted["truncate"])
    fresh = caches.compute_analysis(handle, request)
    assert saved.source_text == fresh.source_text and saved.target_text == fresh.target_text
    assert saved.maps.keys() == fresh.maps.keys()
    # bit for bit where it was saved; elsewhere only the last bits may differ (and the page does not show it there)
    here = manifest["computed_on"] == first_view.computed_on()
    for kind, amap in fresh.maps.items():
        if here:
            np.testing.assert_array_equal(saved[kind].weights, amap.weights)
        else:
            np.testing.assert_allclose(saved[kind].weights, amap.weights, rtol=1e-5, atol=1e-6)
        assert saved[kind].query_tokens == amap.query_tokens and saved[kind].key_tokens == amap.key_tokens
    assert [step.token for step in saved.steps] == [step.token for step in fresh.steps]
    probabilities = [step.probability for step in fresh.steps]
    assert [step.probability for step in saved.steps] == (probabilities if here else pytest.approx(probabilities))


def test_a_view_computed_on_another_machine_or_thread_count_gets_the_model(monkeypatch):
    monkeypatch.setattr(server_load, "loading", lambda: True)
    assert first_view.current(ViewState()) is not None
    monkeypatch.setenv("ATTNVIZ_TORCH_THREADS", str(first_view.computed_on()["threads"] + 1))
    assert first_view.current(ViewState()) is None  # another thread count sums in another order
    monkeypatch.delenv("ATTNVIZ_TORCH_THREADS")
    here = first_view.computed_on()
    monkeypatch.setattr(first_view, "computed_on", lambda: {**here, "instructions": [*here["instructions"], "amx"]})
    assert first_view.current(ViewState()) is None


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
