"""Models and results, cached: each model loads once per process, each input runs once, and a long text's
statistics and pooled heads are computed once.

Every cached function takes one `ModelKey` (which loaded model) and what it computes of it: a `RunRequest` (the
run every face shares, `attnviz.run`) or a measure's name, so that a page asks for a result in the library's own
words and two pages asking for the same one share it."""

from __future__ import annotations

from dataclasses import dataclass, replace

import streamlit as st

from app_pages.how_attention_works import multi_head
from app_pages.shared import first_view, model_placement, model_runs, opened, server_load
from app_pages.shared.state import ViewState
from attnviz import i18n
from attnviz import run as runs
from attnviz.measures import names as measure_view
from attnviz.model.load import catalogue, load_model
from attnviz.model.placement import Placement
from attnviz.view import viewing

ONE_DEVICE = Placement()  # no device map: the model loads onto the sidebar's device


@dataclass(frozen=True)
class ModelKey:
    """Which loaded model a cached result comes from: its name, device, placement over devices (`model_placement`)
    and precision (None: float32; Compare's B may ask for a half precision)."""

    name: str
    device: str
    placement: Placement = ONE_DEVICE
    dtype: str | None = None


def key_of(view: ViewState, name: str | None = None, device: str | None = None, dtype: str | None = None) -> ModelKey:
    """The key of the view's model (or the model `name`, on `device`, in `dtype`) as the sidebar places it."""
    return ModelKey(name or view.model, device or view.device, model_placement.placement(), dtype)


@st.cache_resource(show_spinner=False, max_entries=4)
def cached_model(key: ModelKey):
    """One model, loaded once per key. A placement's bad value raises its sentence (ModelLoadError) before anything
    loads."""
    model_runs.use_interactive_threads()
    # only Compare's B asks for a dtype: a comparison of precisions, which the CPU runs too
    options = key.placement.load_options()
    return load_model(key.name, key.device, dtype=key.dtype, compared=key.dtype is not None, **options)


@st.cache_data(show_spinner=False, max_entries=128)
def cached_analysis(key: ModelKey, request: runs.RunRequest):
    """The whole capture of one request, with its provenance (what the app's JSON/NPZ downloads save)."""
    return compute_analysis(cached_model(key), request)


def compute_analysis(handle, request: runs.RunRequest):
    """`cached_analysis` without the cache: also what `first_view` saves for the first page."""
    return runs.run_recorded(handle, replace(request, capture="full"))


@st.cache_resource(show_spinner=False, max_entries=2)  # shared, not copied: it holds every layer's queries and keys
def cached_lazy_analysis(key: ModelKey, request: runs.RunRequest):
    return runs.run(cached_model(key), replace(request, capture="lazy"))


@st.cache_data(show_spinner=False, max_entries=16)
def cached_lazy_statistics(key: ModelKey, request: runs.RunRequest, kind: str):
    return cached_lazy_analysis(key, request).head_statistics(kind)


@st.cache_data(show_spinner=False, max_entries=16)
def cached_pooled(key: ModelKey, request: runs.RunRequest, kind: str, layer: int, head: int, weighted: bool = False):
    lazy = cached_lazy_analysis(key, request)
    return lazy.downsampled(kind, layer, head, max_tokens=viewing.LONG_BINS, value_weighted=weighted)


@st.cache_data(show_spinner=False, max_entries=256)
def cached_source_tokens(key: ModelKey, text: str) -> int:
    return runs.source_tokens(cached_model(key), text)


@st.cache_resource(show_spinner=False, max_entries=2)  # shared: it holds every layer's queries, keys and values
def cached_vectors(key: ModelKey, request: runs.RunRequest):
    from attnviz.attention.vectors import capture_with_values  # imports torch: only when a page asks for vectors

    return capture_with_values(cached_model(key), request.text, request.target)


@st.cache_data(show_spinner=False, max_entries=16)
def cached_head_effects(key: ModelKey, request: runs.RunRequest):
    """(exact head effects, Spearman ρ of the fast estimate against them, stack -> ρ over that stack's heads) of one
    input: every head of every stack removed in turn (`measures.head_effects`), and attribution patching
    (`measures.head_estimate`) on the same example (a target the model writes is written once, for both)."""
    from attnviz.measures import head_effects, head_estimate  # torch: only when a page asks for head effects

    handle = cached_model(key)
    scoring = head_effects.prepare_scoring(handle, request.text, request.target)
    exact = head_effects.head_effects(handle, request.text, request.target, scoring=scoring)
    estimate = head_estimate.head_estimate(handle, request.text, request.target, scoring=scoring)
    return exact, head_estimate.stack_agreement(exact, estimate)


@st.cache_data(show_spinner=False, max_entries=16)
def cached_measure(key: ModelKey, request: runs.RunRequest, measure: str):
    """A measure of what the model uses (`attnviz.measuring.MEASURES`: ALTI, its rollout, value zeroing as one map
    per layer; saliency as scores per output token) of one input."""
    from attnviz import measuring  # torch: only when a page asks for a measure

    handle = cached_model(key)
    return measuring.measured(handle, request.text, request.target, measure=measure, truncate=request.truncate)


@st.cache_data(show_spinner=False, max_entries=8)
def cached_faithfulness(key: ModelKey, request: runs.RunRequest, row: int | None):
    """Every measure scored on one input for one output (`attnviz.measures.faithfulness`): a translator's target row
    `row` (None: the whole target), a decoder's next token, an encoder's pooled output."""
    from attnviz.measures.faithfulness import faithfulness  # torch: only when a page asks for the scoreboard

    return faithfulness(cached_model(key), request.text, request.target, row=row)


@st.cache_data(show_spinner=False, max_entries=32)
def cached_detachment(key: ModelKey, request: runs.RunRequest):
    """The detached-translation flag's numbers of one translation (`attnviz.measures.detached`)."""
    from attnviz.measures.detached import detachment  # torch: only when a page shows a translation

    return detachment(cached_model(key), request.text, request.target)


@st.cache_data(show_spinner=False, max_entries=32)
def cached_multi_head(batch: int, length: int, hidden: int, heads: int, device: str):
    return multi_head.multi_head_walkthrough(batch, length, hidden, heads, device)


@st.cache_data(show_spinner=False, max_entries=2)  # one per language
def catalogue_entries(lang: str):
    return catalogue(lang)


_loaded: set[ModelKey] = set()  # the models this process has loaded


def model(view: ViewState, name: str | None = None, device: str | None = None, dtype: str | None = None):
    """The view's model (or the model `name`, on `device` instead of the view's, in the half precision `dtype`),
    loaded once per process; raises AttnvizError with a sentence when it cannot be."""
    name = name or view.model
    refusal = model_runs.model_refusal(name, [entry.name for entry in catalogue_entries(view.lang)])
    if refusal:
        raise refusal
    key = key_of(view, name, device, dtype)
    waiting = st.empty()
    try:
        with waiting.container(), st.spinner(i18n.t("loading_model", view.lang, model=name), show_time=True):
            if key not in _loaded:  # an empty chart: the browser fetches its chart library while the model loads
                server_load.empty_chart(f"chart_loading_{name}")
            handle = cached_model(key)
    finally:
        waiting.empty()
    _loaded.add(key)
    return handle


def reloading(handle) -> str:
    """The name a model is loaded again by (the cached functions key on it): what the view gave `load_model`, not
    the name files record (a folder is recorded by its own name, which does not load it)."""
    return getattr(handle, "loaded_from", "") or handle.name


def forced_target(view: ViewState, seq2seq: bool) -> str:
    """The target the model reads: the one typed, in pair mode, for a translation model; none when the model writes
    its own, or has no target side (the Translate page says a typed one is not read: `target_not_read`)."""
    return view.target if view.mode == "pair" and seq2seq else ""


def run_request(view: ViewState, seq2seq: bool, capture: str = "full") -> runs.RunRequest:
    """The run the view asks for of a model (`seq2seq`: one with a target side): its text, the target the model
    reads, its mode and truncation."""
    target = forced_target(view, seq2seq)
    return runs.RunRequest(view.text, target, view.mode, capture=capture, truncate=view.truncate)


def shown_request(view: ViewState, handle, result) -> runs.RunRequest:
    """The input `result` shows, read again: its source and the target the model read or wrote (none for a model
    without a target side)."""
    target = result.target_text if handle.is_seq2seq else None
    return runs.RunRequest(result.source_text, target or None, truncate=view.truncate)


def without_model(view: ViewState) -> opened.Opened | None:
    """The capture a page shows without its model: one opened from a file, or the default view computed ahead while
    the server is still loading the model (`first_view`); None when the page computes from the model."""
    return opened.current(view) or first_view.current(view)


def analysis(view: ViewState, name: str | None = None):
    """(model handle, capture) of the view's text with the view's model (or the model `name`), computed once per
    input: an AttentionCapture, or for a long text a LazyCapture (`attnviz.run.capture_kind`) that computes the heads
    a page shows; truncated to the model's positions when the view says so. While a saved capture is open
    (`opened`), or while the default view computed ahead stands in (`first_view`), that capture, and what it tells of
    its model, without loading the model."""
    shown = opened.current(view)
    if shown is None and name in (None, view.model):
        shown, not_used = first_view.lookup(view)
        if shown is not None:  # computed ahead: said in a line
            st.caption(i18n.t("first_view_note", view.lang, model=shown.model.name))
        elif not_used is not None:  # one was computed ahead for this input, but not as this server computes: said
            st.caption(i18n.t(not_used.key, view.lang, **not_used.words))
    if shown is not None:
        model_placement.layer_report(view, shown.capture)
        return shown.model, shown.capture
    handle = model(view, name)
    request = run_request(view, handle.is_seq2seq, "auto")
    request = replace(request, capture=runs.capture_kind(handle, request))
    lazy = request.capture == "lazy"
    with st.spinner(i18n.t("analysing_long" if lazy else "analysing", view.lang), show_time=True):
        result = (cached_lazy_analysis if lazy else cached_analysis)(key_of(view, name), request)
    model_placement.layer_report(view, result)
    return handle, result


def measured(view: ViewState, handle, result):
    """The capture of the view's measure (`measure_view.CONTRIBUTIONS`) on the input `result` shows — its source
    and the target the model read or wrote — computed once per input and measure; `result` itself for weights."""
    if view.measure not in measure_view.CONTRIBUTIONS:
        return result
    return measure_of(view, handle, result, view.measure)


def measure_of(view: ViewState, handle, result, measure: str):
    """The capture of `measure` on the input `result` shows, once per input and measure."""
    with st.spinner(i18n.t("measure_computing", view.lang), show_time=True):
        return cached_measure(key_of(view, reloading(handle)), shown_request(view, handle, result), measure)


def saliency_of(view: ViewState, handle, result):
    """The saliency of every output token of the input `result` shows — its source and the target the model read or
    wrote — once per input; an InputError, with its sentence, for a model that writes no token."""
    with st.spinner(i18n.t("saliency_computing", view.lang), show_time=True):
        return cached_measure(key_of(view, reloading(handle)), shown_request(view, handle, result), "saliency")


def faithfulness_of(view: ViewState, handle, result, row: int | None):
    """The faithfulness scoreboard of the input `result` shows — its source and the target the model read or
    wrote — for target row `row`, once per input and row."""
    with st.spinner(i18n.t("faithfulness_computing", view.lang), show_time=True):
        request = shown_request(view, handle, result)
        return cached_faithfulness(key_of(view, reloading(handle)), request, row if handle.is_seq2seq else None)


def detachment_of(view: ViewState, handle, result):
    """The detached-translation flag's numbers of the translation `result` shows, once per pair."""
    return cached_detachment(key_of(view, reloading(handle)), shown_request(view, handle, result))


def lazy_statistics(view: ViewState, kind: str, name: str | None = None) -> dict:
    """The head statistics of a long text's map, streamed tile by tile once per input."""
    with st.spinner(i18n.t("computing_statistics", view.lang), show_time=True):
        request = run_request(view, model(view, name).is_seq2seq, "lazy")
        return cached_lazy_statistics(key_of(view, name), request, kind)


def pooled(view: ViewState, kind: str, layer: int, head: int, name: str | None = None):
    """One head of a long text's map, pooled whole (every cell computed, tile by tile, none kept), once per input."""
    with st.spinner(i18n.t("pooling", view.lang), show_time=True):
        weighted = view.weighting == "value-norm"
        request = run_request(view, model(view, name).is_seq2seq, "lazy")
        return cached_pooled(key_of(view, name), request, kind, layer, head, weighted)


def head_effects(view: ViewState, name: str | None = None):
    """(exact head effects, the estimate's Spearman ρ against them, stack by stack) of the view's text with the view's model (or the
    model `name`), once per input: the target given in pair mode, else the one the model writes (an encoder's
    output has none). Loads the model even while a saved capture is open: the effects need it to run."""
    handle = model(view, name)
    target = (view.target if view.mode == "pair" else "") if handle.kind != "encoder" else ""  # a decoder continues
    with st.spinner(i18n.t("effects_computing", view.lang), show_time=True):
        return cached_head_effects(key_of(view, name), runs.RunRequest(view.text, target or None))


def source_tokens(view: ViewState, name: str | None = None) -> int:
    """How many tokens the model (the view's, or `name`) makes of the view's text, before any truncation."""
    return cached_source_tokens(key_of(view, name), view.text)


def window_vectors(view: ViewState, handle, text: str, target: str | None):
    """The queries, keys and values of `text` (and `target`) read on their own: the explainer's window of a long
    text."""
    with st.spinner(i18n.t("qk_computing_vectors", view.lang), show_time=True):
        return cached_vectors(key_of(view, reloading(handle)), runs.RunRequest(text, target))


def vectors(view: ViewState, handle, result):
    """The queries, keys and values of every head for the input `result` shows (`attention.vectors`), from one more
    on-demand pass over the same text (and the target the model wrote or read), once per input."""
    with st.spinner(i18n.t("qk_computing_vectors", view.lang), show_time=True):
        return cached_vectors(key_of(view, reloading(handle)), shown_request(view, handle, result))


@st.cache_data(show_spinner=False, max_entries=16)
def cached_logit_lens(key: ModelKey, request: runs.RunRequest):
    """The logit lens (`attnviz.measures.logit_lens`) of one input: every layer's next-token prediction."""
    from attnviz.measures.logit_lens import logit_lens  # torch: only when a page shows the lens

    return logit_lens(cached_model(key), request.text, target=request.target, truncate=request.truncate)


@st.cache_data(show_spinner=False, max_entries=8)
def cached_decoder_lens(key: ModelKey, request: runs.RunRequest):
    """DecoderLens (`attnviz.measures.decoder_lens`) of one source: what the decoder writes from each encoder layer,
    with the options the page's own generation has (`run.RunRequest`'s), so the last layer writes its translation."""
    from attnviz.measures.decoder_lens import decoder_lens  # torch: only when a page shows DecoderLens

    return decoder_lens(
        cached_model(key), request.text, max_new_tokens=request.max_new_tokens, truncate=request.truncate
    )


def logit_lens_of(view: ViewState, handle, result):
    """The logit lens of the input `result` shows: its text (a decoder-only model), or on a translator's decoder the
    target the model read or wrote; once per input."""
    with st.spinner(i18n.t("measure_computing", view.lang), show_time=True):
        return cached_logit_lens(key_of(view, reloading(handle)), shown_request(view, handle, result))


def decoder_lens_of(view: ViewState, handle, result):
    """DecoderLens of the source `result` shows, once per source."""
    with st.spinner(i18n.t("measure_computing", view.lang), show_time=True):
        request = runs.RunRequest(result.source_text, truncate=view.truncate)
        return cached_decoder_lens(key_of(view, reloading(handle)), request)
