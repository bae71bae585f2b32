"""The rule that keeps tests/unit quick (tests/support/model_loads.py): read from the source, and seen at work."""

import pytest

from attnviz.model.load import load_model
from tests.support.model_loads import LOADER_CALLS, LOADER_MARKS, PENDING, UNIT, guarded, marks_in, unit_files


def test_no_unit_file_reads_or_writes_a_models_files():
    offenders = {path.name: marks_in(path, LOADER_CALLS) for path in unit_files() if guarded(path)}
    assert {name: calls for name, calls in offenders.items() if calls} == {}


def test_each_pending_file_still_loads_models():
    """A pending file that is gone or loads nothing any more leaves the list."""
    stale = sorted(name for name in PENDING if not (UNIT / name).exists() or not marks_in(UNIT / name, LOADER_MARKS))
    assert stale == []


def test_a_model_load_that_passes_every_refusal_fails_a_unit_test(tmp_path):
    (tmp_path / "config.json").write_text("{}", encoding="utf-8")
    (tmp_path / "model.safetensors").write_bytes(b"")  # a folder that passes the checks before its files are read
    with pytest.raises(pytest.fail.Exception, match="move the test to tests/integration"):
        load_model(str(tmp_path), "cpu")
