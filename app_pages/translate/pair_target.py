"""The Translate page's given target, never stale: switching to "Give the translation" starts from the model's own
translation of the text now shown (or an empty target), unless a target was given for that very text."""

from __future__ import annotations

import streamlit as st

from app_pages.shared.session import VIEW, widget_key
from app_pages.shared.state import ViewState
from app_pages.shared.view_groups import DEFAULT_TARGET, DEFAULT_TEXT

TARGET_FOR = "attnviz_target_for"  # the source text the view's target was given for
TRANSLATED = "attnviz_translated"  # (model, text, translation) the page last showed the model write


def start(view: ViewState) -> None:
    """On the page's first run: the target a link (or the default view) brings belongs to its text."""
    if TARGET_FOR not in st.session_state:
        st.session_state[TARGET_FOR] = DEFAULT_TEXT if view.target == DEFAULT_TARGET else view.text


def target_typed() -> None:
    """The target input's callback: what was typed is the target of the text shown."""
    view = st.session_state[VIEW]
    st.session_state[TARGET_FOR] = st.session_state.get(widget_key("text"), view.text)


def remember(view: ViewState, translation: str | None) -> None:
    """What the model wrote for the text shown, where a switch to a given pair starts from."""
    st.session_state[TRANSLATED] = (view.model, view.text, translation or "")


def written(view: ViewState, text: str | None = None) -> str:
    """What the model wrote for `text` (by default the view's), when the page has shown it ("" before, or for
    another text or model)."""
    model, shown, translation = st.session_state.get(TRANSLATED, ("", "", ""))
    return translation if (model, shown) == (view.model, view.text if text is None else text) else ""


def mode_changed() -> None:
    """The mode radio's callback: on a switch to a given pair, a target given for another text gives way to the
    model's translation of this one (empty when the page has not shown it)."""
    view = st.session_state[VIEW]
    if st.session_state.get(widget_key("mode")) != "pair":
        return
    text = st.session_state.get(widget_key("text"), view.text)
    if st.session_state.get(TARGET_FOR) == text:
        return
    view.target = written(view, text)
    st.session_state[widget_key("target")] = view.target
    st.session_state[TARGET_FOR] = text
