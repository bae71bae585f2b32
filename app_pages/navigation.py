"""Moving between pages: the page scripts, and callbacks that open a head on another page (a callback cannot switch
pages itself, so it leaves the page for the next run)."""

from __future__ import annotations

import streamlit as st

from app_pages.heads_choices import head_at
from app_pages.session import VIEW, reset_widgets, widget_key

GOTO = "attnviz_goto"  # a page to switch to on the next run (set by callbacks, which cannot switch pages)
PAGES = {  # page scripts, relative to main.py
    "translate": "translate.py",
    "self": "self_attention.py",
    "explainer": "how_attention_works.py",
    "heads": "heads.py",
    "open": "open_capture.py",
    "corpus": "corpus.py",
}


def open_head(page: str, layer: int, head: int, **view_changes) -> None:
    """Button callback: show (layer, head) on another page (the switch happens in the next run)."""
    view = st.session_state[VIEW]
    view.layer, view.head = layer, head
    for name, value in view_changes.items():
        setattr(view, name, value)
    reset_widgets("layer", "head", *view_changes)
    st.session_state[GOTO] = PAGES[page]


def table_selects_head(num_heads: int) -> None:
    """Table callback: a selected row of the head table becomes the chosen layer and head."""
    rows = st.session_state["w_head_table"]["selection"]["rows"]
    if rows:
        view = st.session_state[VIEW]
        view.layer, view.head = head_at(rows[0], num_heads)
        st.session_state[widget_key("layer")], st.session_state[widget_key("head")] = view.layer, view.head


def follow_goto() -> None:
    page = st.session_state.pop(GOTO, None)
    if page:
        st.switch_page(page)
