"""The export engines as a fixture: each by name; kaleido skips without a browser, except in CI."""

import pytest

from attnviz import export
from tests.support import needs

HAS_BROWSER = export.kaleido.browser_path() is not None
NO_BROWSER = "the kaleido engine needs Chrome/Chromium (apt-get install chromium, or set BROWSER_PATH)"


@pytest.fixture(params=["static", "kaleido"])
def engine(request) -> str:
    """Each export engine by name. Without a browser the kaleido cases skip, except in CI (CI=true), where a
    missing browser is a failure."""
    if request.param == "kaleido" and not HAS_BROWSER:
        needs.missing(NO_BROWSER)
    return request.param


def require_kaleido() -> None:
    """A test of the kaleido engine itself: skipped without a browser, except in CI, where it fails."""
    if not HAS_BROWSER:
        needs.missing(NO_BROWSER)
