"""The sidebar's "Advanced: placement": where the models of this session place their layers (accelerate's device map,
a memory limit per device, a folder for the layers kept on disk), and the report of where each layer of a capture
was kept and ran. The values are parsed by `attnviz.model.placement`, as the command line's --device-map, --max-memory and
--offload-folder are; the caches key every model on them (`caches.cached_model`).

Kept in this session only, never in the link: a placement names this machine's accelerators, memory and folders,
which mean nothing (or something else) on the machine that opens a shared link.
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from app_pages.shared.session import bound, held, tr
from app_pages.shared.state import ViewState
from attnviz import settings
from attnviz.errors import AttnvizError
from attnviz.model.placement import DEVICE_MAP_NAMES, Placement

PLACEMENT = "attnviz_placement"  # session key of this session's PlacementChoice
ONE_DEVICE = ""  # the device map choice that loads the model onto the sidebar's one device
EXAMPLE_MEMORY = "cpu=8GiB,npu:0=30GiB"


@dataclass
class PlacementChoice:
    """What the placement widgets hold (blank: not given)."""

    device_map: str = ONE_DEVICE
    max_memory: str = ""
    offload_folder: str = ""


def offered() -> bool:
    """Whether this deployment lets a visitor place models: not in server mode, where the machine's memory and folders
    are the operator's (a visitor could fill its disk through an offload folder)."""
    try:
        return not settings.current().server_mode
    except AttnvizError:  # a setting that cannot be read (said by the model picker and the page): none offered
        return False


def placement() -> Placement:
    """This session's placement, as `load_model` reads it once parsed (`Placement.load_options`), normalised: the
    caches key on it, and one way of loading must not load the model twice."""
    if not offered():
        return Placement()
    chosen = held(PLACEMENT, PlacementChoice)
    return Placement(chosen.device_map, chosen.max_memory, chosen.offload_folder).normalised()


def placement_controls(view: ViewState) -> None:
    """The expander's widgets; a value the parser refuses is said under them in the page's language (and again by
    the page, whose model load refuses it)."""
    if not offered():
        return
    t = tr(view)
    holder = held(PLACEMENT, PlacementChoice)
    with st.expander(t("placement")):
        maps = {"format_func": lambda name: name or t("placement_one_device"), "help": t("placement_device_map_help")}
        bound(
            st.selectbox,
            "device_map",
            t("placement_device_map"),
            (ONE_DEVICE, *DEVICE_MAP_NAMES),
            holder=holder,
            **maps,
        )
        memory = {"placeholder": EXAMPLE_MEMORY, "help": t("placement_max_memory_help")}
        bound(st.text_input, "max_memory", t("placement_max_memory"), holder=holder, **memory)
        bound(
            st.text_input,
            "offload_folder",
            t("placement_offload_folder"),
            holder=holder,
            help=t("placement_offload_help"),
        )
        st.caption(t("placement_note"))
        try:
            placement().load_options()
        except AttnvizError as error:
            st.error(error.message(view.lang), icon=":material/error:")


def layer_report(view: ViewState, result) -> None:
    """Where each attention layer of `result` kept its weights and where it ran (`placement.layer_report`, recorded in
    its provenance), in the sidebar; nothing for a model on one device."""
    report = (getattr(result, "provenance", None) or {}).get("placement")
    if not report:
        return
    t = tr(view)
    places = sorted({entry["placed"] for entry in report.values()})
    lines = [f"| {t('placement_report_layer')} | {t('placement_report_placed')} | {t('placement_report_ran')} |"]
    lines.append("|---|---|---|")
    lines += [f"| `{path}` | {entry['placed']} | {entry['ran']} |" for path, entry in report.items()]
    with st.sidebar.expander(t("placement_report", layers=len(report), places=", ".join(places))):
        st.markdown("\n".join(lines))
