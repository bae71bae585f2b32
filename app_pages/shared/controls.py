"""Controls the attention pages share: which heads (aggregation, layer, head), the weakest link and the word and
special-token toggles, and the replay slider with its sentence about the newest token."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from app_pages.shared.session import bound, tr, widget_key
from app_pages.shared.state import MEASURE_CHOICES, ViewState
from attnviz import i18n
from attnviz.measures import names as measure_view
from attnviz.view import focus, viewing

REPLAY_FOR = "attnviz_replay_for"  # the input the replay slider belongs to


def head_choice(
    view: ViewState,
    columns,
    field: str,
    aggregations: Sequence[str],
    shape: tuple[int, int],
    one_head: bool = False,
    **aggregation_options,
) -> None:
    """The aggregation selector (ViewState `field`) and the layer and head selectors of a map of `shape` (layers,
    heads), each open only where the aggregation uses it; `one_head`: a long text shows one head whatever the view."""
    t = tr(view)
    labels = {"format_func": lambda a: t(f"aggregation_{a}")}
    bound(columns[0].selectbox, field, t("aggregation"), options=aggregations, **labels, **aggregation_options)
    aggregation, (layers, heads) = getattr(view, field), shape
    layer_off, head_off = aggregation not in ("head", "layer") and not one_head, aggregation != "head" and not one_head
    bound(columns[1].selectbox, "layer", t("layer"), options=range(layers), disabled=layer_off)
    bound(columns[2].selectbox, "head", t("head"), options=range(heads), disabled=head_off)


def link_controls(view: ViewState, threshold_column, toggles_column, lowest: float) -> None:
    """The weakest-link slider and the words / hide-special toggles, shared by the attention pages."""
    t = tr(view)
    bound(
        threshold_column.slider,
        "threshold",
        t("threshold"),
        min_value=lowest,
        max_value=0.9,
        step=0.05,
        help=t("threshold_help"),
    )
    with toggles_column:
        bound(st.toggle, "words", t("words"), help=t("words_help"))
        bound(st.toggle, "hide_special", t("hide_special"), help=t("hide_special_help"))
        scales = {"format_func": lambda s: t(f"find_color_scale_{s}"), "help": t("find_color_scale_help")}
        bound(st.selectbox, "color_scale", t("find_color_scale"), options=viewing.COLOR_SCALES, **scales)
        weighting_choice(view, st)
        measure_choice(view, st)


def weighting_choice(view: ViewState, column) -> None:
    """Weights, or weights scaled by each key's value norm (`viewing.WEIGHTINGS`), for every figure of the page."""
    t = tr(view)
    names = {"format_func": lambda w: t(f"values_weighting_{w.replace('-', '_')}"), "help": t("values_weighting_help")}
    bound(column.radio, "weighting", t("values_weighting"), options=viewing.WEIGHTINGS, **names)


def measure_choice(view: ViewState, column) -> None:
    """The attention weights, or a measure of what each layer uses (`state.MEASURE_CHOICES`), for every figure of
    the page; computed when chosen (`caches.measured`)."""
    t = tr(view)
    names = {"format_func": lambda m: t(f"measure_choice.{m}"), "help": t("measure_help")}
    bound(column.selectbox, "measure", t("measure"), options=MEASURE_CHOICES, **names)


def measuring(view: ViewState) -> bool:
    """Whether the page draws a measure of what each layer uses rather than attention weights."""
    return view.measure in measure_view.CONTRIBUTIONS


def replay_slider(view: ViewState, steps: int) -> int:
    """The generation step to replay up to (1..steps), 0 meaning all; back to all whenever the input changes."""
    key = widget_key("step")
    signature = (
        view.model,
        view.device,
        view.text,
        view.target,
        view.mode,
        view.segmented,
        view.words,
        view.hide_special,
    )
    if st.session_state.get(REPLAY_FOR) != signature:
        if REPLAY_FOR in st.session_state:  # a new input (not the first run, which may restore a step from a link)
            view.step = 0
            st.session_state.pop(key, None)
        st.session_state[REPLAY_FOR] = signature
    if steps < 2:
        view.step = 0
        return 0
    if key not in st.session_state or not 1 <= st.session_state[key] <= steps:
        st.session_state[key] = view.step if 1 <= view.step <= steps else steps
    label = i18n.t("replay_words" if view.words else "replay", view.lang)  # what its numbers count
    chosen = st.slider(label, 1, steps, key=key, help=i18n.t("replay_help", view.lang))
    view.step = 0 if chosen == steps else chosen
    return view.step


def step_focus(
    view: ViewState, chosen: viewing.HeadSelection, step: int, steps: int, hidden: focus.HiddenFocus | None = None
) -> None:
    """One sentence under the replay slider (`focus.focus_sentence`): the newest token and where it looked."""
    st.markdown(focus.focus_sentence(chosen, step, steps, view.lang, hidden, words=view.words))
