"""The export engines as a fixture: each by name; kaleido skips without a browser, except in CI."""

import os

import pytest

from attnviz import export

HAS_BROWSER = export.kaleido.browser_path() is not None
NO_BROWSER = "the kaleido engine needs Chrome/Chromium (apt-get install chromium, or set BROWSER_PATH)"


@pytest.fixture(params=["static", "kaleido"])
def engine(request) -> str:
    """Each export engine by name. Without a browser the kaleido cases skip, except in CI (CI=true), where a
    missing browser is a failure."""
    if request.param == "kaleido" and not HAS_BROWSER:
        if os.environ.get("CI", "").strip().lower() == "true":
            pytest.fail(f"The kaleido export tests must run in CI: {NO_BROWSER}.")
        pytest.skip(NO_BROWSER)
    return request.param
