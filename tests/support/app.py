"""The app under streamlit's AppTest, opened by a link: shared by the app's integration tests."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

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
