"""A test whose package or browser is missing skips with the reason outside CI and fails in CI (tests.support.needs)."""

import pytest

from tests.support import needs


@pytest.mark.parametrize("ci, outcome", [("true", pytest.fail.Exception), ("", pytest.skip.Exception)])
def test_a_missing_package_fails_in_ci_and_skips_elsewhere(monkeypatch, ci, outcome):
    monkeypatch.setenv("CI", ci)
    with pytest.raises(outcome, match="no_such_package_here is not installed"):
        needs.module("no_such_package_here", "requirements-dev.txt")
    assert needs.module("json", "the standard library").dumps([1]) == "[1]"  # a package that is there is returned


def test_a_missing_chromium_names_it(monkeypatch):
    monkeypatch.setenv("CI", "true")
    monkeypatch.setattr(needs.shutil, "which", lambda name: None)
    with pytest.raises(pytest.fail.Exception, match="chromium is not installed"):
        needs.chromium()
