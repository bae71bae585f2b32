"""The server's start-up load as the pages see it: whether it still runs (`loading`), and the empty chart a page draws
while something loads.

`startup` begins and ends the load; `first_view` and the sidebar only ask whether it still runs. Kept apart from
`startup`, which uses the caches, so that the caches and the first view depend on this and on nothing above them."""

from __future__ import annotations

import threading

_started = threading.Event()  # the server's lifespan began the warm-up
_finished = threading.Event()  # … and it has ended (loaded, or failed and logged why)
_first_page = threading.Event()  # a first script run has ended


def began() -> None:
    """The server's lifespan started the warm-up."""
    _started.set()


def ended() -> None:
    """The warm-up has ended: the model is loaded, or why not is logged."""
    _finished.set()


def loading() -> bool:
    """Whether the server's start-up load is still running: the first page may then show the default view computed
    ahead (`first_view`) instead of waiting for torch and the model."""
    return _started.is_set() and not _finished.is_set()


def first_page_drawn() -> None:
    """Called at the end of every script run: the warm-up may start importing (it has the cores to itself)."""
    _first_page.set()


def wait_for_first_page(timeout_s: float) -> bool:
    """Wait until a first script run has ended, at most `timeout_s`; whether one has."""
    return _first_page.wait(timeout_s)


def empty_chart(key: str) -> None:
    """An empty, invisible chart: drawn before the real ones, so that the browser fetches its chart library (seconds
    on a busy machine) while the server still works on what the charts will show."""
    import plotly.graph_objects as go  # plotly and streamlit: loaded by the first page that draws, not at start-up
    import streamlit as st

    hidden = {"visible": False}
    layout = {"height": 40, "margin": {"l": 0, "r": 0, "t": 0, "b": 0}, "xaxis": hidden, "yaxis": hidden}
    st.plotly_chart(go.Figure(layout=layout), key=key, config={"staticPlot": True})
