"""The sidebar: language, model (a catalogue entry or, where allowed, any Hugging Face id or folder), device and
placement (`model_placement`)."""

from __future__ import annotations

import streamlit as st

from app_pages.shared import model_placement, server_load
from app_pages.shared.caches import catalogue_entries
from app_pages.shared.page_errors import shown_errors
from app_pages.shared.session import CUSTOM, MODEL_CUSTOM, MODEL_PICK, bound, tr
from app_pages.shared.state import DEVICES, LANGUAGES, ViewState
from attnviz import i18n, settings
from attnviz.model import hub


def sidebar(view: ViewState) -> None:
    t = tr(view)
    with st.sidebar:
        bound(
            st.segmented_control,
            "lang",
            t("language"),
            options=LANGUAGES,
            format_func=lambda code: i18n.LANGUAGES[code],
            selection_mode="single",
            required=True,
        )
        with shown_errors(view):  # a setting the picker reads may be unusable: said here, and again by the page
            _model_picker(view)
        bound(
            st.selectbox,
            "device",
            t("device"),
            options=DEVICES,
            format_func=lambda d: t(f"device_{d}"),
            help=t("device_help"),
        )
        _device_report(view)
        model_placement.placement_controls(view)
        st.caption(t("sidebar_footer"))


LOADED_POLL_S = 1.0  # while the server loads torch, the sidebar asks this often whether it has finished


def _device_report(view: ViewState) -> None:
    """Which devices torch sees, and the one chosen; while the server is still importing torch, a line saying so
    (asking torch would make the first page wait for it), which gives way to the list once torch has loaded."""
    if server_load.loading():
        _until_loaded(view)
        return
    _listed_devices(view)


@st.fragment(run_every=LOADED_POLL_S)
def _until_loaded(view: ViewState) -> None:
    """The line "listed once torch has loaded", asked again every LOADED_POLL_S until the start-up load ends; then
    the page runs again, whole: its sidebar lists the devices and its figures come from the model (no longer from
    the view computed ahead), and nothing polls any more."""
    if server_load.loading():
        st.caption(tr(view)("device_report_loading"))
        return
    st.rerun()


def _listed_devices(view: ViewState) -> None:
    t = tr(view)
    from attnviz.model.devices import device_report  # imports torch: asked only once the start-up load has imported it

    report = device_report(view.device, view.lang)
    with st.expander(t("device_report", chosen=report.chosen)):
        st.markdown(
            "\n".join(
                f"- {'✅' if entry.available else '❌'} **{entry.name}** — {entry.reason_in(view.lang)}"
                for entry in report.entries
            )
        )


def offered_models(view: ViewState) -> dict:
    """name → catalogue entry of every model this deployment offers: the catalogue's, and the hub's where any id may
    be given (hub models are hub ids; server mode: the allowlisted)."""
    entries = {entry.name: entry for entry in catalogue_entries(view.lang)}
    if settings.current().allow_custom_models:
        entries.update({entry.name: entry for entry in hub.hub_catalogue(view.lang)})
    return entries


def model_label(view: ViewState, name: str, entries: dict) -> str:
    """How a model is listed: a hub model with what picking it downloads, a catalogue model by its name."""
    if name in entries and name in hub.BY_ID:
        return hub.option_label(entries[name], view.lang)
    return picker_label(view, name)


def picker_label(view: ViewState, name: str) -> str:
    """How the model picker lists a model: short enough to be read whole in the sidebar (app_pages/main.py's `SIDEBAR_PX`,
    checked in a browser) — a hub model by its id, what it is and its size said under the picker once picked."""
    if name in hub.BY_ID:
        return name
    return i18n.t(f"model_{name}", view.lang) if i18n.has(f"model_{name}") else name


def _model_picker(view: ViewState) -> None:
    t = tr(view)
    entries = offered_models(view)
    allow_custom = settings.current().allow_custom_models
    options = list(entries)
    if allow_custom:
        options.append(CUSTOM)
    pick = view.model if view.model in entries or not allow_custom else CUSTOM
    if pick not in options:  # a model from a link that this deployment does not list: shown, and refused by name
        options.insert(0, pick)
    # Set every run, like `bound`: the picker then redraws its labels when the language changes.
    st.session_state[MODEL_PICK] = pick
    st.session_state[MODEL_CUSTOM] = view.model if pick == CUSTOM else ""

    def label(name: str) -> str:
        return t("model_custom") if name == CUSTOM else picker_label(view, name)

    pick = st.selectbox(
        t("model"),
        options,
        key=MODEL_PICK,
        format_func=label,
        help=entries[view.model].description if view.model in entries else None,
    )
    if pick == CUSTOM:
        view.model = st.text_input(t("model_custom_input"), key=MODEL_CUSTOM, placeholder=t("model_custom_hint"))
        view.model = view.model.strip()
    else:
        view.model = pick
        if pick in entries and pick in hub.BY_ID:  # a hub model: what it is, and what picking it will fetch
            st.caption(hub.picked_caption(entries[pick], view.lang))
