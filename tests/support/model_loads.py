"""What keeps model loads out of tests/unit. A unit test checks one module's logic on small data: it loads no model
(`attnviz.model.load.load_model` reaching a model's files, or transformers' `from_pretrained`) and saves no tiny one (the
`tiny_folder` fixture, `save_tiny`, `save_long_llama`); those tests live in tests/integration, in a
test_<module>_models.py beside the unit file of the same module. A test that only checks a refusal made before any
model file is read (a policy, a missing folder, the hub offline) stays a unit test.

tests/unit/conftest.py applies this while the tests run; tests/unit/test_no_model_loads.py reads their source."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from unittest import mock

import pytest

from attnviz.model import load as models

UNIT = Path(__file__).resolve().parents[1] / "unit"
# Unit files whose model-loading tests are being moved to tests/integration; being moved, must end empty.
PENDING = frozenset()
TINY_FIXTURE = "tiny_folder"  # a saved random tiny model, made once per session
# What a unit file never calls: the calls that read or write a model's files.
LOADER_CALLS = ("from_pretrained(", "save_tiny(", "save_long_llama(")
# What marks a pending file as still loading models (remove it from PENDING when none is left).
LOADER_MARKS = ("load_model(", TINY_FIXTURE, *LOADER_CALLS)
ADVICE = "unit tests load no model: move the test to tests/integration/test_<module>_models.py"


def guarded(path: Path) -> bool:
    """Whether the test file at `path` is held to the rule: under tests/unit, and not pending."""
    return UNIT in path.resolve().parents and path.name not in PENDING


@contextmanager
def models_refused(test: str) -> Iterator[None]:
    """Within this block, a model load that gets past every refusal fails `test` (a node id) with the advice.
    pytest.fail raises an exception outside Exception, so an `except Exception` in the code under test cannot
    swallow it."""

    def refuse(name_or_path: str, *args, **kwargs):
        pytest.fail(f"{test} loads the model {name_or_path!r}; {ADVICE}", pytrace=False)

    with mock.patch.object(models, "_load_pretrained", refuse):
        yield


def unit_files() -> list[Path]:
    """The unit test files, this rule's own checks left out."""
    return sorted(path for path in UNIT.glob("test_*.py") if path.name != "test_no_model_loads.py")


def marks_in(path: Path, marks: tuple[str, ...]) -> list[str]:
    source = path.read_text(encoding="utf-8")
    return [mark for mark in marks if mark in source]
