"""A render that lands in a tab whose page script is not loaded yet (kaleido's start race) is tried once more, since
kaleido reloads the tab after each render; any other failure is not retried. A stand-in for kaleido, no browser."""

import asyncio
import threading

import pytest

from attnviz.export import kaleido

NOT_READY = "{'className': 'ReferenceError', 'description': 'ReferenceError: kaleido_scopes is not defined'}"


class StandInKaleido:
    """Fails the first `failures` renders with `error`, then returns PNG bytes."""

    def __init__(self, error: Exception, failures: int):
        self.error, self.failures, self.calls = error, failures, 0

    async def calc_fig(self, fig, opts):
        self.calls += 1
        if self.calls <= self.failures:
            raise self.error
        return b"\x89PNG"


@pytest.fixture
def browser():
    made = object.__new__(kaleido._Browser)  # no Chromium: only the loop the waits run on
    made.loop = asyncio.new_event_loop()
    made.thread = threading.Thread(target=made.loop.run_forever, daemon=True)
    made.thread.start()
    yield made
    made.loop.call_soon_threadsafe(made.loop.stop)
    made.thread.join(5)
    made.loop.close()


def test_a_page_that_was_not_ready_is_rendered_again(browser):
    browser.kaleido = StandInKaleido(RuntimeError(NOT_READY), failures=1)
    assert browser.render({}, {}) == b"\x89PNG"
    assert browser.kaleido.calls == 2


def test_a_page_that_is_never_ready_fails_after_the_second_try(browser):
    browser.kaleido = StandInKaleido(RuntimeError(NOT_READY), failures=5)
    with pytest.raises(kaleido.KaleidoFailed, match="kaleido_scopes is not defined"):
        browser.render({}, {})
    assert browser.kaleido.calls == 2


def test_other_failures_are_not_retried(browser):
    browser.kaleido = StandInKaleido(RuntimeError("Error 525: plotly.js could not draw the figure"), failures=1)
    with pytest.raises(kaleido.KaleidoFailed, match="Error 525"):
        browser.render({}, {})
    assert browser.kaleido.calls == 1
