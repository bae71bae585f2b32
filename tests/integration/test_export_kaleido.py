"""The kaleido engine's browser is bounded: a Chromium that never answers, or one that dies at once, costs seconds and
is killed, the export says so (explicit engine) or draws with the static engine (auto), and the next render starts a
fresh browser. The stand-in browsers are shell scripts named by BROWSER_PATH."""

import os
import threading
import time
import warnings

import pytest

from attnviz import export, figures
from attnviz.errors import AttnvizError
from attnviz.export import kaleido
from tests.support.engines import require_kaleido
from tests.support.maps import seed_pair_map

START_S = 2.0  # the start deadline in these tests
# A start that overruns, the kill and its cleanup, and room for a loaded machine: without the deadline the render
# would wait forever, so any finite bound catches that; how close to START_S it stays is not a unit test's business.
BOUND_S = START_S + kaleido.KILLED_CLOSE_TIMEOUT_S + 30


@pytest.fixture
def fresh_browser(monkeypatch):
    """No warm browser: the next render starts one (the warm one, if any, comes back after the test)."""
    monkeypatch.setattr(kaleido, "_browser", None)
    monkeypatch.setattr(kaleido, "START_TIMEOUT_S", START_S)


def stand_in(tmp_path, monkeypatch, body: str):
    """A 'browser' running `body` (sh), named by BROWSER_PATH; it writes its pid to `pid` first."""
    script = tmp_path / "browser.sh"
    script.write_text(f'#!/bin/sh\necho $$ > "{tmp_path / "pid"}"\n{body}\n')
    script.chmod(0o755)
    monkeypatch.setenv("BROWSER_PATH", str(script))
    return tmp_path / "pid"


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as stat:  # a zombie waits only for its parent to read its status
        return stat.read().split(")")[-1].split()[0] != "Z"


def test_a_browser_that_never_answers_is_killed_within_the_deadline(fresh_browser, tmp_path, monkeypatch):
    pid_file = stand_in(tmp_path, monkeypatch, "exec sleep 600")
    start = time.monotonic()
    with pytest.raises(kaleido.KaleidoFailed, match=f"did not start within {START_S:.0f} s"):
        kaleido.render(figures.heatmap(seed_pair_map()), "png")
    assert time.monotonic() - start < BOUND_S
    assert kaleido._browser is None  # the next render starts afresh
    pid = int(pid_file.read_text())
    deadline = time.monotonic() + 30  # polled until it is gone: a killed process ends at once, a loaded machine aside
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not alive(pid)


def test_a_failed_browser_falls_back_to_the_static_engine_under_auto(fresh_browser, tmp_path, monkeypatch):
    stand_in(tmp_path, monkeypatch, "exit 3")
    fig = figures.heatmap(seed_pair_map())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        png = export.figure_bytes(fig, "png", engine="auto", scale=2)
    assert png.startswith(b"\x89PNG")
    assert any("static engine instead" in str(warning.message) for warning in caught)
    with pytest.raises(AttnvizError, match="Chromium") as refused:
        export.figure_bytes(fig, "png", engine="kaleido")
    assert refused.value.key == "export_chromium_failed"


def test_a_browser_that_fails_is_one_sentence_without_the_browser_librarys_own_lines(
    fresh_browser, tmp_path, monkeypatch, capfd
):
    script = stand_in(tmp_path, monkeypatch, "exit 3").with_name("browser.sh")
    monkeypatch.setattr(kaleido, "START_TIMEOUT_S", 30.0)  # time for a cold start to see the browser exit
    warm_before = set(threading.enumerate())  # an earlier test's warm browser keeps its thread for later renders
    with pytest.raises(AttnvizError) as refused:
        export.figure_bytes(figures.heatmap(seed_pair_map()), "png", engine="kaleido")
    said = str(refused.value)
    assert f"seemed to close immediately after starting (browser: {script})" in said
    assert "choreo_get_chrome" not in said and "logging.Logger" not in said  # its advice for its own API
    assert "--engine static on the command line" in said and "engine='static' in Python" in said
    # The library's watchdog reports the exit from a task on the browser's event loop: once that loop's thread has
    # ended, nothing is left to report it, so what stderr holds then is all it will ever hold.
    for thread in set(threading.enumerate()) - warm_before:
        if thread.name == "attnviz-kaleido":
            thread.join(6 * kaleido.CLOSE_TIMEOUT_S)  # a bound to wait, not a speed check: loaded cores are slow
            assert not thread.is_alive()
    assert "watchdog" not in capfd.readouterr().err


def test_after_a_failure_the_next_render_starts_a_working_browser(fresh_browser, tmp_path, monkeypatch):
    require_kaleido()
    real = kaleido.browser_path()
    stand_in(tmp_path, monkeypatch, "exit 3")
    with pytest.raises(kaleido.KaleidoFailed):
        kaleido.render(figures.heatmap(seed_pair_map()), "png")
    monkeypatch.setenv("BROWSER_PATH", real)
    monkeypatch.setattr(kaleido, "START_TIMEOUT_S", 45.0)
    try:
        assert kaleido.render(figures.heatmap(seed_pair_map()), "png").startswith(b"\x89PNG")
    finally:
        kaleido._stop()  # this test's browser; the warm one comes back with the fixture
