"""The app under streamlit's AppTest, opened by a link or on a page, its figures read back, its download buttons and
its torch threads: shared by the app's integration tests."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from app_pages.shared.navigation import PAGES

APP = str(Path(__file__).resolve().parents[2] / "app_pages" / "main.py")


def open_by_link(page: str | None = None, timeout: float = 180, **link) -> AppTest:
    """The app opened by a link (query parameters `link`), then switched to `page` (a script of app_pages)."""
    at = AppTest.from_file(APP, default_timeout=timeout)
    for name, value in link.items():
        at.query_params[name] = str(value)
    at.run()
    if page:
        at.switch_page(page).run()
    return at


def open_app(page: str = "translate", **params) -> AppTest:
    """The app opened by a link, on one of PAGES by its name (the first page needs no switch)."""
    return open_by_link(None if page == "translate" else PAGES[page], **params)


def chart_specs(at: AppTest) -> list[dict]:
    """The page's plotly figures in the order drawn, as plotly JSON."""
    return [json.loads(element.proto.spec) for element in at.get("plotly_chart")]


def charts(at: AppTest) -> dict[str, dict]:
    """The page's plotly figures by view name (heatmap, alignment, lines, grid, …), as plotly JSON."""
    return {spec["layout"]["meta"]["view"]: spec for spec in chart_specs(at)}


def opened_without_errors(page: str | None = None, **link) -> AppTest:
    """`open_by_link`, with no exception and no error on the page."""
    at = open_by_link(page, **link)
    assert_page_ok(at)
    return at


def assert_page_ok(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


@pytest.fixture
def downloads(monkeypatch):
    """The app's download buttons by file name: {file name: the callable that makes the file when it is clicked}."""
    from streamlit.runtime.media_file_manager import MediaFileManager

    made = {}
    register = MediaFileManager.add_deferred

    def recorded(self, data_callable, mimetype, coordinates, file_name=None, **options):
        made[file_name] = data_callable
        return register(self, data_callable, mimetype, coordinates, file_name, **options)

    monkeypatch.setattr(MediaFileManager, "add_deferred", recorded)
    return made


@pytest.fixture(scope="module", autouse=True)  # autouse in the modules that import it
def one_torch_thread():
    """The app runs torch with one thread (app_pages/shared/model_runs.py); the CLI's captures here do too, so that both
    sides compute bit-equal weights."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)
