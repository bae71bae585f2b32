"""Moving between pages: the page scripts, and callbacks that open a head on another page (a callback cannot switch
pages itself, so it leaves the page for the next run)."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from app_pages.heads.choices import head_at
from app_pages.shared.figure_export import clicked_points
from app_pages.shared.session import VIEW, reset_widgets, widget_key

GOTO = "attnviz_goto"  # a page to switch to on the next run (set by callbacks, which cannot switch pages)


@dataclass(frozen=True)
class Page:
    """One page of the app, known everywhere by one name: its script is page_scripts/<name>.py, its code (if it has
    more than the script) app_pages/<name>/, its address /<name> with hyphens, its title the string "page_<name>"."""

    name: str
    icon: str  # a Material icon name (drawn from Streamlit's own font, not fetched)

    @property
    def script(self) -> str:
        # Relative to main.py, in page_scripts/: Streamlit reads a folder named pages/ beside the main script as a
        # page list of its own (and then keeps the address bar from following the view).
        return f"page_scripts/{self.name}.py"

    @property
    def url_path(self) -> str:
        return "" if self.name == DEFAULT else self.name.replace("_", "-")

    @property
    def title_key(self) -> str:
        return f"page_{self.name}"


DEFAULT = "translate"  # the page at the app's own address
_PAGE_LIST = (
    Page("translate", ":material/translate:"),
    Page("self_attention", ":material/hub:"),
    Page("how_attention_works", ":material/school:"),
    Page("heads", ":material/grid_view:"),
    Page("query_key_space", ":material/scatter_plot:"),
    Page("open_capture", ":material/file_open:"),
    Page("corpus", ":material/dataset:"),
    Page("compare", ":material/compare:"),
    Page("atlas", ":material/apps:"),
)
PAGE = {page.name: page for page in _PAGE_LIST}  # in the navigation's order
PAGES = {page.name: page.script for page in _PAGE_LIST}  # what st.switch_page and st.page_link take


def page_at(url_path: str) -> str | None:
    """The PAGES name of the page at `url_path` (the default page's is "")."""
    return next((page.name for page in _PAGE_LIST if page.url_path == url_path), None)


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
