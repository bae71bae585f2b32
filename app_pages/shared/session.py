"""This session's view, bound to the widgets and the URL: restored from the link once, then driven by the widgets,
and written back to the address bar so that it is always a shareable link."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import fields

import streamlit as st

from app_pages.shared.state import ViewState, cut_texts, from_query_params, to_query_params
from attnviz import i18n

VIEW = "attnviz_view"  # session key of this session's ViewState
UNREADABLE = "attnviz_unreadable_link"  # names of link parameters that could not be read
LINK_CUT = "attnviz_link_cut"  # texts the opening link held only the start of: field → (kept, whole length)
CUSTOM = "__custom__"  # the model picker's "any Hugging Face id or local folder" entry
MODEL_PICK, MODEL_CUSTOM = (
    "w_model_pick",
    "w_model_custom",
)  # the model picker's two widgets (app_pages/shared/sidebar.py)
# Fields whose widget value the view takes at the start of a run (the model has two widgets, the step its own slider).
VIEW_FIELDS = tuple(f.name for f in fields(ViewState) if f.name not in ("model", "step"))


def widget_key(field: str) -> str:
    return f"w_{field}"


def state() -> ViewState:
    """This session's view. The first run reads the URL; later runs take the values the widgets hold now."""
    if VIEW not in st.session_state:
        view, unreadable = from_query_params(st.query_params.to_dict())
        st.session_state[VIEW] = view
        st.session_state[UNREADABLE] = unreadable
        st.session_state[LINK_CUT] = cut_texts(st.query_params.to_dict(), view)
    view = st.session_state[VIEW]
    for name in VIEW_FIELDS:
        key = widget_key(name)
        if key in st.session_state:
            setattr(view, name, st.session_state[key])
    if MODEL_PICK in st.session_state:
        pick = st.session_state[MODEL_PICK]
        view.model = st.session_state.get(MODEL_CUSTOM, "").strip() if pick == CUSTOM else pick
    return view


def held(key: str, kind: type):
    """This session's settings object of dataclass `kind` (kept under `key`), holding what its widgets hold now (as
    `state` does for the view): the `holder` of `bound` widgets whose values outlive a page they are not drawn on."""
    holder = st.session_state.setdefault(key, kind())
    for name in (entry.name for entry in fields(kind)):
        if widget_key(name) in st.session_state:
            setattr(holder, name, st.session_state[widget_key(name)])
    return holder


def tr(view: ViewState) -> Callable[..., str]:
    """The page's translator: tr("key", **values) in the view's language."""
    return lambda key, **values: i18n.t(key, view.lang, **values)


def bound(widget: Callable, field: str, label: str, options: Sequence | None = None, *, holder=None, **kwargs):
    """Render `widget` for one ViewState field (or a field of `holder`, another settings object kept in the
    session): it starts from the view's value and writes its value back.

    Streamlit drops a widget's state when a page does not draw it; the view keeps it, so the widget starts where the
    person left it, on any page. A value the options no longer hold (another model) is reset to the first option.
    """
    view = st.session_state[VIEW] if holder is None else holder
    key = widget_key(field)
    value = getattr(view, field)
    if options is not None:
        options = list(options)
        if value not in options:
            value = options[0]
    # Set every run: a widget with the same key on another page is another widget (Streamlit's ids include the page).
    st.session_state[key] = value
    value = widget(label, options, key=key, **kwargs) if options is not None else widget(label, key=key, **kwargs)
    setattr(view, field, value)
    return value


def reset_widgets(*names: str) -> None:
    """Forget widget values so the widgets start again from the view (after a callback changed the view)."""
    for name in names:
        st.session_state.pop(widget_key(name), None)


def sync_url(view: ViewState, page: str | None = None) -> None:
    """Keep the page's state in the URL, so the address bar is always a shareable link to this view: on `page`
    (navigation.PAGES names), only the state that page uses."""
    wanted = to_query_params(view, page)
    if st.query_params.to_dict() != wanted:
        st.query_params.from_dict(wanted)


def text_page_top(view: ViewState, title: str, intro: str) -> None:
    """The top of a page that reads the view's text: its title and intro (already in the page's language), what a
    link could not restore, and the text box."""
    st.title(title)
    st.caption(intro)
    link_warnings(view)
    bound(st.text_input, "text", i18n.t("source_text", view.lang), placeholder=i18n.t("source_placeholder", view.lang))


def link_warnings(view: ViewState) -> None:
    unreadable = st.session_state.get(UNREADABLE)
    if unreadable:
        st.warning(i18n.t("warning_link", view.lang, names=", ".join(unreadable)), icon=":material/link_off:")
    for field, (kept, whole) in st.session_state.get(LINK_CUT, {}).items():
        if len(getattr(view, field)) == kept:  # said while the text is still the one the link held
            what = i18n.t(f"warning_link_cut_{field}", view.lang)
            said = i18n.t("warning_link_cut", view.lang, what=what, kept=f"{kept:,}", whole=f"{whole:,}")
            st.warning(said, icon=":material/content_cut:")


def page_start(title_key: str, intro_key: str) -> tuple[ViewState, Callable[..., str]]:
    """A page's start: this session's view and translator, the page's title and intro, and any link warnings."""
    view = state()
    t = tr(view)
    st.title(t(title_key))
    st.caption(t(intro_key))
    link_warnings(view)
    return view, t
