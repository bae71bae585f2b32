"""Moving between pages: the page scripts, and callbacks that open a head on another page (a callback cannot switch
pages itself, so it leaves the page for the next run)."""

from __future__ import annotations

import streamlit as st

from app_pages.heads.choices import head_at
from app_pages.shared.figure_export import clicked_points
from app_pages.shared.session import VIEW, reset_widgets, widget_key

GOTO = "attnviz_goto"  # a page to switch to on the next run (set by callbacks, which cannot switch pages)
# Page scripts, relative to main.py: in page_scripts/, since Streamlit reads a folder named pages/ beside the main
# script as a page list of its own (and then keeps the address bar from following the view).
PAGES = {
    "translate": "page_scripts/translate.py",
    "self": "page_scripts/self_attention.py",
    "explainer": "page_scripts/how_attention_works.py",
    "heads": "page_scripts/heads.py",
    "open": "page_scripts/open_capture.py",
    "qk": "page_scripts/qk_space.py",
    "corpus": "page_scripts/corpus.py",
    "compare": "page_scripts/compare.py",
    "atlas": "page_scripts/atlas.py",
}


URL_PATHS = {  # each page's URL path (main.py gives them to st.Page), by its PAGES name
    "translate": "",
    "self": "self-attention",
    "explainer": "how-attention-works",
    "heads": "heads",
    "qk": "query-key-space",
    "open": "open-capture",
    "corpus": "corpus",
    "compare": "compare",
    "atlas": "atlas",
}


def page_at(url_path: str) -> str | None:
    """The PAGES name of the page at `url_path` (the default page's is "")."""
    return next((name for name, path in URL_PATHS.items() if path == url_path), None)


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


def grid_opens_head(chart: str, page: str, view_changes: dict) -> None:
    """Chart callback: the head clicked on a layer × head grid (`figures.clickable_heads`) opens on `page`."""
    points = clicked_points(chart)
    if points and points[0].get("customdata"):
        layer, head = points[0]["customdata"][:2]
        open_head(page, int(layer), int(head), **view_changes)


def follow_goto() -> None:
    page = st.session_state.pop(GOTO, None)
    if page:
        st.switch_page(page)
