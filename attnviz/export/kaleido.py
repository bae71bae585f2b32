"""The kaleido engine: plotly's own renderer in headless Chrome/Chromium, pixel for pixel what the app shows.

Needs a browser (Debian: `apt install chromium`; or `plotly_get_chrome`; or BROWSER_PATH). One kaleido server is
started on the first render and kept warm for the process (the first call starts Chromium: ~2 s). Chinese glyphs come
from the packaged Noto Sans SC through a fonts.conf that `attnviz.fonts` hands to Chromium.
"""

from __future__ import annotations

import atexit
import os
import shutil
import threading

from attnviz import fonts

_BROWSER_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")


def browser_path() -> str | None:
    """The Chrome/Chromium kaleido would use: $BROWSER_PATH, one downloaded by kaleido, or one on PATH."""
    if os.environ.get("BROWSER_PATH"):
        return os.environ["BROWSER_PATH"]
    try:
        from choreographer.browsers.chromium import Chromium

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


_lock = threading.Lock()
_running = False


def _stop() -> None:
    import kaleido

    kaleido.stop_sync_server(silence_warnings=True)


def _start() -> None:
    """Start the process-wide kaleido server (the caller holds `_lock`)."""
    import kaleido

    os.environ.update(fonts.chromium_environment())  # before Chromium starts: it reads fontconfig once
    os.environ.setdefault("BROWSER_PATH", browser_path() or "")
    kaleido.start_sync_server(silence_warnings=True, mathjax=False)  # MathJax would come from a CDN


def render(fig, fmt: str = "png", *, width: int | None = None, height: int | None = None, scale: float = 1.0) -> bytes:
    """PNG, SVG or PDF bytes of a plotly figure, drawn by plotly.js in the warm Chromium."""
    global _running
    import kaleido

    with _lock:
        first = not _running
        if first:
            _start()
            _running = True
        opts = dict(format=fmt, width=width or fig.layout.width or 700, height=height or fig.layout.height or 500,
                    scale=scale)  # fmt: skip
        image = kaleido.calc_fig_sync(fig, opts=opts)
        if first:
            # Registered only now that Chromium's profile folder exists: atexit runs handlers last-in first-out,
            # so the browser stops before tempfile's finalizers try to delete the folder it is still writing.
            atexit.register(_stop)
        return image
