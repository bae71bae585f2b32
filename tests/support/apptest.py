"""The app in-process (Streamlit's AppTest), opened as a link opens it."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[2] / "app_pages" / "main.py")


def app(page: str | None = None, **link) -> AppTest:
    """The app opened by a link (query parameters `link`), then switched to `page` (a script of app_pages)."""
    at = AppTest.from_file(APP, default_timeout=180)
    for name, value in link.items():
        at.query_params[name] = str(value)
    at.run()
    if page:
        at.switch_page(page).run()
    return at
