"""Unit tests load no model (tests/support/model_loads.py says why and where such tests go): a test that asks for
a saved tiny model, or whose model load gets past every refusal, fails with a sentence saying where it belongs."""

import pytest

from tests.support.model_loads import ADVICE, TINY_FIXTURE, guarded, models_refused


def pytest_runtest_setup(item):
    """Before any fixture is made, so that the tiny model is not even saved."""
    if guarded(item.path) and TINY_FIXTURE in item.fixturenames:
        pytest.fail(f"{item.nodeid} saves a tiny model (the {TINY_FIXTURE} fixture); {ADVICE}", pytrace=False)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """Around setup, call and teardown, so a fixture of any scope that loads a model fails too. pytest calls this
    hook for every item, whichever folder it is in: the path decides."""
    if not guarded(item.path):
        return (yield)
    with models_refused(item.nodeid):
        return (yield)
