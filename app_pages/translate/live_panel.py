"""Translate & align's "Watch it write": the model writes the translation token by token (`app_pages.shared.live`:
each step's cross-attention row as it comes), then, once the writing has ended, each written token's source and
target-prefix shares (ALTI+) of the finished translation, above the page's normal replay view of the same capture."""

from __future__ import annotations

import streamlit as st

from app_pages.shared import caches, live, measures
from app_pages.shared.session import tr
from app_pages.shared.state import ViewState
from attnviz import run as runs
from attnviz.errors import AttnvizError
from attnviz.model.load import ModelHandle
from attnviz.types import AttentionCapture

SHARES = "live_shares"  # the key of the shares figure under the live writing


def watch(view: ViewState, read: ViewState, handle) -> None:
    """The "Watch it write" button for a translation model in generate mode, and the live writing once it is
    clicked (none for a capture opened from a file: there is no model to run)."""
    if view.mode != "generate" or not isinstance(handle, ModelHandle) or not handle.is_seq2seq:
        return
    if not live.clicked(view, "live_watch_help"):
        return
    request = runs.RunRequest(read.text, None, "generate", truncate=read.truncate)
    finished = live.write(view, handle, request)
    if finished is not None:
        shares(view, read, handle, finished)


def shares(view: ViewState, read: ViewState, handle: ModelHandle, finished: AttentionCapture) -> None:
    """Each written token's ALTI+ source and target-prefix shares, of the finished translation read back by the
    model (`caches.measure_of`: ALTI, once per input); a model ALTI cannot decompose is told so in a sentence."""
    try:
        measured = caches.measure_of(read, handle, finished, "alti")
    except AttnvizError as error:
        st.caption(error.message(view.lang))
        return
    st.caption(tr(view)("live_shares_note"))
    measures.shares(view, measured, key=SHARES)
