"""The explainer's Q, K, V editors: what each starts from while it lives, and the button that resets them."""

from __future__ import annotations

import streamlit as st

from app_pages.how_attention_works import steps
from app_pages.shared.session import VIEW, reset_widgets, widget_key
from app_pages.shared.state import ViewState


def _start_key(name: str) -> str:
    return f"attnviz_matrix_start_{name}"


def explainer_start(view: ViewState, name: str):
    """The matrix the explainer's editor `name` starts from, kept while the editor lives.

    A data editor holds the person's edits relative to the data it was first given, so that data must not change
    under it. A new editor (first visit, or back from another page, where Streamlit dropped it) starts from the view,
    which holds the edits so far and whatever a link brought.
    """
    if widget_key(f"matrix_{name}") not in st.session_state or _start_key(name) not in st.session_state:
        st.session_state[_start_key(name)] = steps.explainer_start(view, name)
    return st.session_state[_start_key(name)]


def reset_explainer() -> None:
    """Button callback: the explainer's Q, K, V back to the seed's numbers."""
    view = st.session_state[VIEW]
    for name in steps.EXPLAINER_SEEDS:
        setattr(view, name, "")
        st.session_state.pop(_start_key(name), None)
    reset_widgets(*(f"matrix_{name}" for name in steps.EXPLAINER_SEEDS))
