"""What every page shares: the view state bound to widgets and the URL, the sidebar, cached models and results,
figures with export buttons, and errors shown as sentences."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from contextlib import contextmanager
from dataclasses import fields

import plotly.graph_objects as go
import streamlit as st

from attnviz import i18n, views
from attnviz.devices import device_report
from attnviz.errors import AttnvizError, ModelLoadError
from attnviz.figures import FigureStyle
from attnviz.models import catalogue, load_model

log = logging.getLogger("attnviz.app")

VIEW = "attnviz_view"  # session key of this session's ViewState
UNREADABLE = "attnviz_unreadable_link"  # names of link parameters that could not be read
GOTO = "attnviz_goto"  # a page to switch to on the next run (set by callbacks, which cannot switch pages)
CUSTOM = "__custom__"  # the model picker's "any Hugging Face id or local folder" entry
PAGES = {  # page scripts, relative to main.py
    "translate": "translate.py",
    "self": "self_attention.py",
    "explainer": "how_attention_works.py",
    "heads": "heads.py",
}
# Fields whose widget value the view takes at the start of a run (the model has two widgets, the step its own slider).
VIEW_FIELDS = tuple(f.name for f in fields(views.ViewState) if f.name not in ("model", "step"))


def widget_key(field: str) -> str:
    return f"w_{field}"


# ----------------------------------------------------------------------------------------------------------------------
# View state: restored from the link once per session, then driven by the widgets


def state() -> views.ViewState:
    """This session's view. The first run reads the URL; later runs take the values the widgets hold now."""
    if VIEW not in st.session_state:
        view, unreadable = views.from_query_params(st.query_params.to_dict())
        st.session_state[VIEW] = view
        st.session_state[UNREADABLE] = unreadable
    view = st.session_state[VIEW]
    for name in VIEW_FIELDS:
        key = widget_key(name)
        if key in st.session_state:
            setattr(view, name, st.session_state[key])
    if "w_model_pick" in st.session_state:
        pick = st.session_state["w_model_pick"]
        view.model = st.session_state.get("w_model_custom", "").strip() if pick == CUSTOM else pick
    return view


def tr(view: views.ViewState) -> Callable[..., str]:
    """The page's translator: tr("key", **values) in the view's language."""
    return lambda key, **values: i18n.t(key, view.lang, **values)


def bound(widget: Callable, field: str, label: str, options: Sequence | None = None, **kwargs):
    """Render `widget` for one ViewState field: it starts from the view's value and writes its value back.

    Streamlit drops a widget's state when a page does not draw it; the view keeps it, so the widget starts where the
    person left it, on any page. A value the options no longer hold (another model) is reset to the first option.
    """
    view = st.session_state[VIEW]
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
        view.layer, view.head = views.head_at(rows[0], num_heads)
        st.session_state[widget_key("layer")], st.session_state[widget_key("head")] = view.layer, view.head


def explainer_start(view: views.ViewState, name: str):
    """The matrix the explainer's editor `name` starts from, kept while the editor lives.

    A data editor holds the person's edits relative to the data it was first given, so that data must not change
    under it. A new editor (first visit, or back from another page, where Streamlit dropped it) starts from the view,
    which holds the edits so far and whatever a link brought.
    """
    start_key = f"attnviz_matrix_start_{name}"
    if widget_key(f"matrix_{name}") not in st.session_state or start_key not in st.session_state:
        st.session_state[start_key] = views.explainer_start(view, name)
    return st.session_state[start_key]


def reset_explainer() -> None:
    """Button callback: the explainer's Q, K, V back to the seed's numbers."""
    view = st.session_state[VIEW]
    for name in views.EXPLAINER_SEEDS:
        setattr(view, name, "")
        st.session_state.pop(f"attnviz_matrix_start_{name}", None)
    reset_widgets(*(f"matrix_{name}" for name in views.EXPLAINER_SEEDS))


def follow_goto() -> None:
    page = st.session_state.pop(GOTO, None)
    if page:
        st.switch_page(page)


def sync_url(view: views.ViewState) -> None:
    """Keep the page's state in the URL, so the address bar is always a shareable link to this view."""
    wanted = views.to_query_params(view)
    if st.query_params.to_dict() != wanted:
        st.query_params.from_dict(wanted)


# ----------------------------------------------------------------------------------------------------------------------
# Errors


@contextmanager
def shown_errors(view: views.ViewState):
    """Anything that fails inside becomes a sentence on the page; the rest of the page goes on."""
    try:
        yield
    except AttnvizError as error:
        st.error(i18n.error_sentence(error, view.lang), icon=":material/error:")
    except Exception:  # an unexpected failure: a sentence for the person, the traceback for the log
        log.exception("unexpected error while drawing the page")
        st.error(i18n.t("error_unexpected", view.lang), icon=":material/error:")


def link_warnings(view: views.ViewState) -> None:
    unreadable = st.session_state.get(UNREADABLE)
    if unreadable:
        st.warning(i18n.t("warning_link", view.lang, names=", ".join(unreadable)), icon=":material/link_off:")


# ----------------------------------------------------------------------------------------------------------------------
# Models and results, cached


@st.cache_resource(show_spinner=False, max_entries=4)
def cached_model(name: str, device: str):
    views.use_interactive_threads()
    return load_model(name, device)


@st.cache_data(show_spinner=False, max_entries=128)
def cached_analysis(name: str, device: str, text: str, target: str, mode: str):
    return views.analyse(cached_model(name, device), text, target, mode)


@st.cache_resource(show_spinner=False, max_entries=2)  # shared, not copied: it holds every layer's queries and keys
def cached_lazy_analysis(name: str, device: str, text: str, target: str, mode: str):
    return views.analyse(cached_model(name, device), text, target, mode, lazy=True)


@st.cache_data(show_spinner=False, max_entries=16)
def cached_lazy_statistics(name: str, device: str, text: str, target: str, mode: str, kind: str):
    return cached_lazy_analysis(name, device, text, target, mode).head_statistics(kind)


@st.cache_data(show_spinner=False, max_entries=16)
def cached_pooled(name: str, device: str, text: str, target: str, mode: str, kind: str, layer: int, head: int):
    lazy = cached_lazy_analysis(name, device, text, target, mode)
    return lazy.downsampled(kind, layer, head, max_tokens=views.LONG_BINS)


@st.cache_data(show_spinner=False, max_entries=32)
def multi_head(batch: int, length: int, hidden: int, heads: int, device: str):
    return views.multi_head_walkthrough(batch, length, hidden, heads, device)


@st.cache_data(show_spinner=False, max_entries=1)
def catalogue_entries():
    return catalogue()


_loaded: set[tuple[str, str]] = set()  # (model, device) pairs this process has loaded


def model(view: views.ViewState):
    """The view's model, loaded once per process; raises AttnvizError with a sentence when it cannot be."""
    refusal = views.model_refusal(view.model, [entry.name for entry in catalogue_entries()])
    if refusal:
        raise ModelLoadError(i18n.t(refusal, view.lang, model=view.model))
    key = (view.model, view.device)
    waiting = st.empty()
    try:
        with waiting.container(), st.spinner(i18n.t("loading_model", view.lang, model=view.model), show_time=True):
            if key not in _loaded:  # an empty chart: the browser fetches its chart library while the model loads
                st.plotly_chart(_loading_figure(), key="chart_loading", config={"staticPlot": True})
            handle = cached_model(*key)
    finally:
        waiting.empty()
    _loaded.add(key)
    return handle


def _loading_figure() -> go.Figure:
    hidden = {"visible": False}
    return go.Figure(
        layout={"height": 40, "margin": {"l": 0, "r": 0, "t": 0, "b": 0}, "xaxis": hidden, "yaxis": hidden}
    )


def forced_target(view: views.ViewState) -> str:
    """The target the model reads: the one typed, in pair mode; none when the model writes its own."""
    return view.target if view.mode == "pair" else ""


def analysis(view: views.ViewState):
    """(model handle, capture) of the view's text, computed once per input: an AttentionCapture, or for a long text a
    LazyCapture (`views.analysis_mode`) that computes the heads a page shows."""
    handle = model(view)
    target = forced_target(view)
    lazy = views.analysis_mode(handle, view.text, target, view.mode) == "lazy"
    with st.spinner(i18n.t("analysing_long" if lazy else "analysing", view.lang), show_time=True):
        cached = cached_lazy_analysis if lazy else cached_analysis
        result = cached(view.model, view.device, view.text, target, view.mode)
    return handle, result


def lazy_statistics(view: views.ViewState, kind: str) -> dict:
    """The head statistics of a long text's map, streamed tile by tile once per input."""
    target = forced_target(view)
    with st.spinner(i18n.t("computing_statistics", view.lang), show_time=True):
        return cached_lazy_statistics(view.model, view.device, view.text, target, view.mode, kind)


# ----------------------------------------------------------------------------------------------------------------------
# Sidebar


def sidebar(view: views.ViewState) -> None:
    t = tr(view)
    with st.sidebar:
        bound(
            st.segmented_control,
            "lang",
            t("language"),
            options=views.LANGUAGES,
            format_func=lambda code: i18n.LANGUAGES[code],
            selection_mode="single",
            required=True,
        )
        _model_picker(view)
        bound(
            st.selectbox,
            "device",
            t("device"),
            options=views.DEVICES,
            format_func=lambda d: t(f"device_{d}"),
            help=t("device_help"),
        )
        report = device_report(view.device)
        with st.expander(t("device_report", chosen=report.chosen)):
            st.markdown(
                "\n".join(
                    f"- {'✅' if entry.available else '❌'} **{entry.name}** — {entry.reason}"
                    for entry in report.entries
                )
            )
        st.caption(t("sidebar_footer"))


def _model_picker(view: views.ViewState) -> None:
    t = tr(view)
    entries = {entry.name: entry for entry in catalogue_entries()}
    options = list(entries)
    allow_custom = views.custom_models_allowed()
    if allow_custom:
        options.append(CUSTOM)
    pick = view.model if view.model in entries or not allow_custom else CUSTOM
    if pick not in options:  # a model from a link that this deployment does not list: shown, and refused by name
        options.insert(0, pick)
    # Set every run, like `bound`: the picker then redraws its labels when the language changes.
    st.session_state["w_model_pick"] = pick
    st.session_state["w_model_custom"] = view.model if pick == CUSTOM else ""

    def label(name: str) -> str:
        if name == CUSTOM:
            return t("model_custom")
        return t(f"model_{name}") if i18n.has(f"model_{name}") else name

    pick = st.selectbox(
        t("model"),
        options,
        key="w_model_pick",
        format_func=label,
        help=entries[view.model].description if view.model in entries else None,
    )
    if pick == CUSTOM:
        view.model = st.text_input(t("model_custom_input"), key="w_model_custom", placeholder=t("model_custom_hint"))
        view.model = view.model.strip()
    else:
        view.model = pick


# ----------------------------------------------------------------------------------------------------------------------
# Controls shared by pages


REPLAY_FOR = "attnviz_replay_for"  # the input the replay slider belongs to


def replay_slider(view: views.ViewState, steps: int) -> int:
    """The generation step to replay up to (1..steps), 0 meaning all; back to all whenever the input changes."""
    key = widget_key("step")
    signature = (view.model, view.device, view.text, view.target, view.mode, view.words, view.hide)
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
    chosen = st.slider(i18n.t("replay", view.lang), 1, steps, key=key, help=i18n.t("replay_help", view.lang))
    view.step = 0 if chosen == steps else chosen
    return view.step


def step_focus(view: views.ViewState, selection: views.HeadSelection, step: int, steps: int) -> None:
    """One sentence under the replay slider: the newest token and the source tokens it looked at most."""
    token, looked = views.newest_focus(selection)
    t = tr(view)
    keys = ", ".join(t("weighted", token=key.text, weight=f"{weight:.2f}") for key, weight in looked)
    st.markdown(t("step_focus", step=step, steps=steps, token=token.text, keys=keys))


def alignment_words(view: views.ViewState) -> dict[str, str]:
    return {name: i18n.t(name, view.lang) for name in views.ALIGNMENT_WORDS}


def figure_options(selection: views.HeadSelection, view: views.ViewState, **style) -> dict:
    """Keyword arguments for attnviz.figures: the selection's layers/heads, and a FigureStyle in the page's language
    with the selection's labels (and any other `style` field, such as a height)."""
    options = dict(selection.figure_kwargs)
    labels = options.pop("labels", None)
    return {**options, "style": FigureStyle(lang=view.lang, labels=labels, **style)}


# ----------------------------------------------------------------------------------------------------------------------
# Figures


EXPORT_FORMATS = ("png", "svg", "pdf", "html", "json")
MIME_TYPES = {
    "png": "image/png",
    "svg": "image/svg+xml",
    "pdf": "application/pdf",
    "html": "text/html",
    "json": "application/json",
}


def figure(fig, name: str, key: str, view: views.ViewState, data=None, model: str | None = None) -> None:
    """A plotly figure (its modebar saves PNG) with a download button per format; files are made on click.

    JSON is the attention data the figure draws (`data`: an AttentionMap, in attnviz's capture schema) when given,
    else the plotly figure itself. On the page the sidebar names the model; an exported file names it in its title.
    """
    st.plotly_chart(
        fig,
        key=f"chart_{key}",
        width="stretch",
        config={"displaylogo": False, "toImageButtonOptions": {"format": "png", "filename": name, "scale": 2}},
    )
    with st.container(horizontal=True, gap="small"):
        for fmt in EXPORT_FORMATS:
            st.download_button(
                fmt.upper(),
                data=_exporter(fig, fmt, data, model),
                file_name=f"{name}.{fmt}",
                mime=MIME_TYPES[fmt],
                key=f"export_{key}_{fmt}",
                on_click="ignore",
                help=i18n.t("export_help", view.lang, format=fmt.upper()),
                icon=":material/download:",
                type="tertiary",
            )


def _exporter(fig, fmt: str, data, model: str | None) -> Callable[[], bytes]:
    """The bytes of one export, made only when its button is clicked (a static image takes a browser render)."""
    from attnviz import export

    if fmt == "json":
        return lambda: (export.capture_to_json(data) if data is not None else fig.to_json()).encode("utf-8")

    def render() -> bytes:
        title = views.exported_title(fig.layout.title.text or "", model)
        width, height = views.export_size(title, fig.layout.width, fig.layout.height)
        exported = go.Figure(fig).update_layout(title_text=title, width=width, height=height)
        return export.figure_bytes(exported, fmt)

    return render


def link_controls(threshold_column, toggles_column, t: Callable[[str], str], lowest: float) -> None:
    """The weakest-link slider and the words / hide-special toggles, shared by the attention pages."""
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
        bound(st.toggle, "hide", t("hide_special"), help=t("hide_special_help"))
