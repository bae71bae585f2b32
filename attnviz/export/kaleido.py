"""The kaleido engine: plotly's own renderer in headless Chrome/Chromium, pixel for pixel what the app shows.

Needs a browser (Debian: `apt install chromium`; or `plotly_get_chrome`; or BROWSER_PATH). One Chromium is started on
the first render and kept warm for the process (~2 s to start). Chinese glyphs come from the packaged Noto Sans SC
through a fonts.conf that `attnviz.figures.fonts` hands to Chromium.

Every wait is bounded: kaleido's own sync server waits forever for a browser that failed to start, so the browser
runs here on an event loop of its own, and a start or render that fails or overruns its time raises
`KaleidoFailed` (the export then falls back to the static engine, or says why) and the next render starts afresh.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import contextlib
import logging
import os
import shutil
import signal
import threading

from attnviz.figures import fonts

_BROWSER_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")
START_TIMEOUT_S = 45.0  # Chromium's start on a busy two-core machine takes seconds, not minutes
RENDER_TIMEOUT_S = 60.0  # one figure, even a 4× PNG of a large grid, renders in seconds
CLOSE_TIMEOUT_S = 20.0  # choreographer's own close waits up to ~15 s before it kills the browser
KILLED_CLOSE_TIMEOUT_S = 3.0  # … and after a kill its cleanup can wait for a reply that never comes
log = logging.getLogger(__name__)
BROWSER_LOGGERS = ("choreographer", "kaleido")  # their warnings narrate a failure KaleidoFailed says in one sentence


class KaleidoFailed(RuntimeError):
    """Chromium did not start or did not render in time, or failed."""


def browser_path() -> str | None:
    """The Chrome/Chromium kaleido would use: $BROWSER_PATH, one downloaded by kaleido, or one on PATH."""
    if os.environ.get("BROWSER_PATH"):
        return os.environ["BROWSER_PATH"]
    try:
        from choreographer.browsers.chromium import Chromium  # kaleido's browser finder: loaded when looked for

        found = Chromium.find_browser(skip_local=False)
        if found:
            return found
    except Exception:  # noqa: BLE001 - an internal API; fall back to a PATH search
        pass
    for name in _BROWSER_NAMES:
        found = shutil.which(name)
        if found:
            return found
    return None


class _Browser:
    """One warm kaleido Chromium, driven from an event loop in its own daemon thread."""

    def __init__(self) -> None:
        import kaleido  # kaleido loads only when the browser engine draws

        os.environ.update(fonts.chromium_environment())  # before Chromium starts: it reads fontconfig once
        for name in BROWSER_LOGGERS:  # "Wait expired, Browser is being closed by watchdog." and the like
            logging.getLogger(name).setLevel(logging.ERROR)
        os.environ.setdefault("BROWSER_PATH", browser_path() or "")
        self.loop = asyncio.new_event_loop()
        # what a cancelled start leaves behind is reported by `_wait`, not printed by asyncio as "never retrieved"
        self.loop.set_exception_handler(lambda _loop, context: log.debug("kaleido: %s", context.get("message")))
        self.thread = threading.Thread(target=self.loop.run_forever, name="attnviz-kaleido", daemon=True)
        self.thread.start()
        self.kaleido = None
        try:
            # MathJax would come from a CDN; kaleido's own render timeout sits inside ours
            self.kaleido = kaleido.Kaleido(mathjax=False, timeout=RENDER_TIMEOUT_S)
            self._wait(self.kaleido.open(), START_TIMEOUT_S, "start")
        except BaseException:
            self.close(failed=True)
            raise

    def render(self, fig, opts: dict) -> bytes:
        try:
            return self._wait(self.kaleido.calc_fig(fig, opts=opts), RENDER_TIMEOUT_S, "render")
        except KaleidoFailed as failure:
            if not _page_was_not_ready(failure.__cause__):
                raise
            # kaleido can point a new tab at the blank page's context rather than its own page's (about 1 start in
            # 20 on a busy machine); it reloads the tab after every render, failed or not, so once more is enough
            log.debug("kaleido: the tab's page was not ready; rendering again")
            return self._wait(self.kaleido.calc_fig(fig, opts=opts), RENDER_TIMEOUT_S, "render")

    def _wait(self, coroutine, timeout: float, what: str):
        future = asyncio.run_coroutine_threadsafe(coroutine, self.loop)
        try:
            return future.result(timeout)
        except concurrent.futures.TimeoutError as error:
            future.cancel()
            raise KaleidoFailed(f"Chromium did not {what} within {timeout:.0f} s") from error
        except Exception as error:  # noqa: BLE001 - whatever the browser raised, one type for the caller
            raise KaleidoFailed(f"Chromium failed to {what}: {_reason(error)}") from error

    def close(self, failed: bool = False) -> None:
        """Stop the browser process (bounded) and the loop. `failed`: it failed or overran a start or render, so it
        is killed first (a hung browser would hold a graceful close for ~15 s), then cleaned up."""
        if failed:
            self._kill()
        try:
            if self.kaleido is not None:
                self._wait(self.kaleido.close(), KILLED_CLOSE_TIMEOUT_S if failed else CLOSE_TIMEOUT_S, "close")
        except KaleidoFailed:
            self._kill()  # hung: it would otherwise outlive this process
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(CLOSE_TIMEOUT_S)
            if not self.thread.is_alive():
                self.loop.close()

    def _kill(self) -> None:
        process = getattr(self.kaleido, "subprocess", None)  # the browser's launcher, leader of its process group
        if process is not None and process.poll() is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)


def _page_was_not_ready(error: BaseException | None) -> bool:
    """The render ran in a context without kaleido's page script: a JavaScript ReferenceError naming it."""
    return error is not None and "ReferenceError" in str(error) and "kaleido_scopes" in str(error)


def _reason(error: Exception) -> str:
    """What went wrong, without the advice the browser library adds for its own API ("set the logging.Logger level
    lower", "run choreo_get_chrome"): the first of its message's parts, when it gives several."""
    parts = [str(part) for part in error.args if str(part).strip()]
    first = parts[0] if parts else type(error).__name__
    return first.rstrip(".") + (f" (browser: {os.environ['BROWSER_PATH']})" if os.environ.get("BROWSER_PATH") else "")


_lock = threading.Lock()  # one render at a time: the browser has one tab
_browser: _Browser | None = None


def _stop(failed: bool = False) -> None:
    global _browser
    if _browser is not None:
        _browser.close(failed)
        _browser = None


def render(fig, fmt: str = "png", *, width: int | None = None, height: int | None = None, scale: float = 1.0) -> bytes:
    """PNG, SVG or PDF bytes of a plotly figure, drawn by plotly.js in the warm Chromium. Raises `KaleidoFailed`
    when Chromium fails or overruns (see the module docstring); the next call then starts a new one."""
    global _browser
    opts = dict(
        format=fmt, width=width or fig.layout.width or 700, height=height or fig.layout.height or 500, scale=scale
    )
    with _lock:
        if _browser is None:
            _browser = _Browser()
            # Registered (once) only now that Chromium's profile folder exists: atexit runs handlers last-in
            # first-out, so the browser stops before tempfile's finalizers try to delete the folder it still writes.
            atexit.unregister(_stop)
            atexit.register(_stop)
        try:
            return _browser.render(fig, opts)
        except KaleidoFailed:
            _stop(failed=True)
            raise
