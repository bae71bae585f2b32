"""What the server does once, when it starts: load the default model in the background."""

from __future__ import annotations

import gc
import importlib
import logging
import threading
import time
from contextlib import asynccontextmanager

from app_pages.shared import caches, server_load, serving
from app_pages.shared.state import ViewState, view_options
from attnviz.view import selection

log = logging.getLogger("attnviz.app")

FIRST_PAGE_WAIT_S = 8.0  # the warm-up lets a first page run (from `first_view`) before it imports torch, this long
BROWSER_DRAW_S = 2.0  # … and then the browser draw its charts (measured: ~0.7 s later with an import beside it)
# plotly's validators and JSON encoder look these up in `sys.modules` without importing them (`get_module(name,
# should_load=False)`), and a module enters `sys.modules` before its body has run: while one session's first table
# imports pandas, another session's (or the warm-up's) figure finds it half-built and fails ("partially initialized
# module 'pandas' has no attribute 'Series'"). Imported whole before the server serves, they are never seen half-built.
PEEKED_BY_PLOTLY = ("numpy", "pandas", "PIL.Image")


def _warm_up_after_first_page() -> None:
    # Importing torch holds the GIL and a core for seconds: started beside the first page, it would slow the page's
    # script and the browser drawing its charts.
    if server_load.wait_for_first_page(FIRST_PAGE_WAIT_S):
        time.sleep(BROWSER_DRAW_S)
    warm_up()


def warm_up() -> None:
    """Import torch and transformers, load the default model into the app's model cache, and compute the default
    view's capture and figures once.

    It runs beside the server's start and the first browser's page load; a session that needs the model meanwhile
    waits for this same load (the cache computes each model once), and the first page then finds the default text's
    capture in the result cache and figure code already warm (plotly's template and validators load on first use).
    A failure is only logged: the page that needs the model then says what went wrong.
    """
    gc.disable()  # imports make millions of objects and no cycles worth collecting: a third faster without the GC
    try:
        default = ViewState()  # what a first visitor opens
        handle = caches.cached_model(caches.ModelKey(default.model, default.device))  # the pages' cache key
    except Exception:  # shown on the page when a session asks for the model
        log.warning("could not load the default model at start-up", exc_info=True)
    else:
        try:
            if handle is not None:  # a model to compute with (a stand-in cache may give none)
                default_figures(handle, default)
        except Exception:  # the page computes it again, and says what went wrong
            log.warning("could not compute the default view at start-up", exc_info=True)
    finally:
        server_load.ended()
        gc.freeze()  # what start-up made lives as long as the server: later collections need not scan it again
        gc.enable()


def default_figures(handle, view: ViewState) -> None:
    """The default `view` (Translate & align of the default text), computed as its page computes it: the capture
    lands in the page's result cache; the figures are made once and dropped."""
    request = caches.run_request(view, handle.is_seq2seq)
    result = caches.cached_analysis(caches.ModelKey(view.model, view.device), request)
    options = view_options(view, "cross", view.cross_aggregation)
    shown = selection.show(result, options, handle.alignment_heads, ("alignment", "heatmap"))
    for fig in shown.figures.values():
        fig.to_json()  # what the page sends: plotly's JSON encoder loads on first use


def import_what_plotly_peeks_at() -> None:
    """Import `PEEKED_BY_PLOTLY` whole, once, before any session's script or the warm-up runs (~0.4 s, pandas)."""
    for name in PEEKED_BY_PLOTLY:
        importlib.import_module(name)


@asynccontextmanager
async def lifespan(_app):
    """The server's lifespan: import what plotly peeks at, server mode on when the server listens beyond loopback
    (`serving`), then start the warm-up, and let the server serve at once."""
    import_what_plotly_peeks_at()
    serving.require_server_mode_beyond_loopback()
    server_load.began()
    threading.Thread(target=_warm_up_after_first_page, name="attnviz-warm-up", daemon=True).start()
    yield
