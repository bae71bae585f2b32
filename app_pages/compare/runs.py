"""The Compare page's two runs and their comparison, computed once per input: a view change (which heads, which
layer) only draws again."""

from __future__ import annotations

from dataclasses import dataclass, replace

import streamlit as st

from app_pages.shared import caches
from app_pages.shared.state import DEVICES_B, DTYPES_B, ViewState, view_options
from attnviz import compare
from attnviz.model.catalogue import declared_languages
from attnviz.model.devices import device_statuses
from attnviz.model.precision import allowed_dtypes
from attnviz.run import RunRequest
from attnviz.types import AttentionCapture


def model_b(view: ViewState) -> str:
    """B's model: its own, or A's when it names none."""
    return view.model_b or view.model


def device_b(view: ViewState) -> str:
    """B's device: its own, or A's when it names none."""
    return view.device_b or view.device


def key_b(view: ViewState) -> tuple[str, str, str | None]:
    """B's model key as `caches.model` takes it: its model, its device and its half precision (None: A's)."""
    return model_b(view), device_b(view), view.dtype_b or None


def named_b(view: ViewState) -> str:
    """B as the page names it: its model, and its device and precision where they are not A's."""
    return " · ".join(
        [model_b(view), *([view.device_b] if view.device_b else []), *([view.dtype_b] if view.dtype_b else [])]
    )


def file_model_b(view: ViewState) -> str:
    """B as a file name says it: its model, and its device and precision where they are not A's, joined by "-"."""
    return "-".join(
        [model_b(view), *([view.device_b] if view.device_b else []), *([view.dtype_b] if view.dtype_b else [])]
    )


def devices_b() -> list[str]:
    """The devices B may be read on: A's (empty), and each one torch can use here (the CPU at least)."""
    usable = {status.name for status in device_statuses() if status.available}
    return [device for device in DEVICES_B if device == "" or device in usable]


def dtypes_b(view: ViewState) -> list[str]:
    """The precisions B may be read in: A's float32 (empty) and each half precision B's device allows; the view's own
    stays offered, so a link's (or a device change's) precision that device cannot run is refused in a sentence."""
    allowed = allowed_dtypes(device_b(view), compared=True)
    return [dtype for dtype in DTYPES_B if dtype == "" or dtype in allowed or dtype == view.dtype_b]


def texts(view: ViewState, seq2seq: bool) -> tuple[str | None, str | None]:
    """(target A, target B) the models force-decode: the typed ones for a translation model (B's empty: A's)."""
    if not seq2seq:
        return None, None
    return view.target, view.target_b or view.target


@dataclass(frozen=True)
class Compared:
    """The two captures and what the page shows of them."""

    a: AttentionCapture
    b: AttentionCapture
    comparison: compare.Comparison
    parity: compare.Parity | None


@st.cache_data(show_spinner=False, max_entries=32)
def cached_comparison(
    a: caches.ModelKey, request_a: RunRequest, b: caches.ModelKey, request_b: RunRequest, weighting: str, hide: bool
) -> Compared:
    """A's and B's captures (each its model's key and its run), their comparison (heads paired when the models
    differ), and the parity numbers when both read the same tokens (one model on one input: all zero on one device
    in one precision, else how far they moved)."""
    result_a = caches.compute_analysis(caches.cached_model(a), request_a)
    result_b = caches.compute_analysis(caches.cached_model(b), request_b)
    compared = compare.compare_captures(
        result_a, result_b, weighting=weighting, hide_special=hide, pair_heads=b.name != a.name
    )
    map_a, map_b = result_a[compared.kind], result_b.maps.get(compared.kind)
    same = map_b is not None and (map_a.query_tokens, map_a.key_tokens) == (map_b.query_tokens, map_b.key_tokens)
    return Compared(result_a, result_b, compared, compare.parity(map_a, map_b) if same else None)


def comparison(view: ViewState) -> tuple[Compared, bool]:
    """(the two captures and their comparison, whether A's model translates) of the view's A and B; an AttnvizError
    with a sentence when B cannot be read (empty, or a language its model does not read) or a model not loaded."""
    b = key_b(view)
    compare.check_text_b(view.text_b, b[0], declared_languages(b[0]))
    handle_a, handle_b = caches.model(view), caches.model(view, *b)
    target_a, target_b = texts(view, handle_a.is_seq2seq)
    target_b = target_b if handle_b.is_seq2seq else None
    request_a, request_b = RunRequest(view.text, target_a), RunRequest(view.text_b, target_b)
    compared = cached_comparison(
        caches.key_of(view), request_a, caches.key_of(view, *b), request_b, view.weighting, view.hide_special
    )
    return compared, handle_a.is_seq2seq


def scoped(scope: str, layer: int, head: int) -> tuple[int | None, int | None]:
    """(layer, head) of `Comparison.diff_view` for the view control: every head (None, None), one layer's heads
    (layer, None) or one head."""
    return (None if scope == "all" else layer), (head if scope == "head" else None)


def alignments(view: ViewState, compared: Compared, picked: tuple[int | None, int | None]) -> compare.SideBySide:
    """A's and B's alignment diagrams of the heads the view picks (`scoped`), with the view's options, at one
    size (`attnviz.compare.side_by_side`)."""
    options = replace(view_options(view, compared.comparison.kind, "head"), measure=None)  # the maps hold weights
    options_a, options_b = compare.side_options(compared.comparison, compared.b, options, *picked)
    heads_a = caches.model(view).alignment_heads
    heads_b = caches.model(view, *key_b(view)).alignment_heads
    return compare.side_by_side(compared.a, compared.b, options_a, options_b, heads_a, heads_b)
