"""What the server does once, when it starts: load the default model in the background."""

from __future__ import annotations

import gc
import logging
import threading
from contextlib import asynccontextmanager

log = logging.getLogger("attnviz.app")


def warm_up() -> None:
    """Import torch and transformers and load the default model into the app's model cache.

    It runs beside the server's start and the first browser's page load; a session that needs the model meanwhile
    waits for this same load (the cache computes each model once). A failure is only logged: the page that needs the
    model then says what went wrong.
    """
    gc.disable()  # imports make millions of objects and no cycles worth collecting: a third faster without the GC
    try:
        from app_pages import caches
        from app_pages.state import DEFAULT_MODEL

        caches.cached_model(DEFAULT_MODEL, "auto")
    except Exception:  # shown on the page when a session asks for the model
        log.warning("could not load the default model at start-up", exc_info=True)
    finally:
        gc.freeze()  # what start-up made lives as long as the server: later collections need not scan it again
        gc.enable()


@asynccontextmanager
async def lifespan(_app):
    """The server's lifespan: start the warm-up, and let the server serve at once."""
    threading.Thread(target=warm_up, name="attnviz-warm-up", daemon=True).start()
    yield
