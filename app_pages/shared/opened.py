"""A capture opened from a file (the Open a capture page): kept in the session, and shown by every page as if it
had just been computed — figures, head statistics, downloads — until the person closes it or changes the text or
the model. The model itself is not loaded: what the pages ask of it (its kind, its trained alignment heads) the
capture tells (`CapturedModel`)."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass

import streamlit as st

from app_pages.shared.session import MODEL_CUSTOM, MODEL_PICK, VIEW, reset_widgets
from app_pages.shared.state import ViewState
from attnviz import export, i18n
from attnviz.errors import AttnvizError
from attnviz.provenance import alignment_heads_of
from attnviz.types import AttentionCapture

log = logging.getLogger("attnviz.app")

OPENED = "attnviz_opened"  # session key of the Opened capture
UPLOADS = "attnviz_uploads"  # how many captures were closed: the uploader's key, so that closing also empties it
UPLOAD_REFUSAL = "attnviz_upload_refusal"  # why the last uploaded file was not opened
MIB = 2**20


@dataclass(frozen=True)
class CapturedModel:
    """What the pages ask of a model, told by a saved capture: its name, kind and trained alignment heads."""

    name: str
    kind: str  # "encoder" | "decoder" | "encoder-decoder", as ModelHandle.kind
    alignment_heads: tuple[tuple[int, int], ...] = ()

    @property
    def is_seq2seq(self) -> bool:
        return self.kind == "encoder-decoder"


@dataclass(frozen=True)
class Opened:
    """A capture opened from a file, and the input (model, text, target, mode) the view was given for it."""

    capture: AttentionCapture
    model: CapturedModel
    file_name: str
    view_input: tuple


def captured_model(capture: AttentionCapture, file_name: str = "") -> CapturedModel:
    """The model a capture was computed with, as far as its maps tell: a translator when it has cross-attention or
    separate stacks, else a decoder when its self-attention is causal, else an encoder. Named by the capture (or its
    provenance, or else the file)."""
    if capture.maps.keys() & {"encoder", "decoder", "cross"}:
        kind = "encoder-decoder"
    else:
        kind = "decoder" if capture["self"].causal else "encoder"
    recorded = (capture.provenance or {}).get("model")
    name = capture.model or (recorded.get("name") if isinstance(recorded, dict) else None) or file_name or "capture"
    return CapturedModel(str(name), kind, tuple(alignment_heads_of(capture)))


def view_input(view: ViewState) -> tuple:
    """What the view asks the model for: a capture stays open while this stays the same."""
    return view.model, view.text, view.mode, view.target if view.mode == "pair" else ""


def open_capture(view: ViewState, capture: AttentionCapture, file_name: str) -> Opened:
    """Show `capture` on every page: the view takes its model, text, target and mode, and the widgets follow."""
    model = captured_model(capture, file_name)
    view.model, view.text = model.name, capture.source_text
    view.mode = "generate" if capture.steps is not None else "pair"
    if view.mode == "pair":
        view.target = capture.target_text or ""
    view.step = 0
    reset_widgets("text", "target", "mode", "step")
    for key in (MODEL_PICK, MODEL_CUSTOM):  # the sidebar's picker starts again from the view's model
        st.session_state.pop(key, None)
    opened = Opened(capture, model, file_name, view_input(view))
    st.session_state[OPENED] = opened
    return opened


def current(view: ViewState) -> Opened | None:
    """The open capture, while the view still asks for its input; closed (None) once the text or model changed."""
    opened = st.session_state.get(OPENED)
    if opened is not None and opened.view_input != view_input(view):
        close()
        return None
    return opened


def close() -> None:
    """Forget the open capture (the pages compute from the model again) and empty the uploader."""
    if st.session_state.pop(OPENED, None) is not None:
        st.session_state[UPLOADS] = st.session_state.get(UPLOADS, 0) + 1


def upload_key() -> str:
    return f"w_capture_upload_{st.session_state.get(UPLOADS, 0)}"


def sidebar_notice(view: ViewState) -> None:
    """While a saved capture is open, every page says so (in the sidebar), and it closes from any page."""
    shown = current(view)
    if shown is not None:
        st.info(i18n.t("opened_notice", view.lang, file=shown.file_name), icon=":material/file_open:")
        st.button(i18n.t("open_close", view.lang), key="opened_close", on_click=close, icon=":material/close:")


def upload_limit_bytes() -> int:
    """The largest file the uploader takes: Streamlit's server.maxUploadSize (MB), set in .streamlit/config.toml."""
    return int(st.get_option("server.maxUploadSize")) * MIB


def receive_upload(key: str) -> None:
    """Uploader callback (the uploader's `key`): open the chosen file, or keep why it was refused; removing the file
    closes the capture."""
    uploaded = st.session_state.get(key)
    st.session_state.pop(UPLOAD_REFUSAL, None)
    if uploaded is None:
        close()
        return
    try:
        capture = export.read_capture_upload(
            uploaded.getvalue(), export.UploadLimits(max_bytes=upload_limit_bytes()), name=uploaded.name
        )
    except Exception as error:  # noqa: BLE001 - kept to be said on the page: a sentence, never a traceback
        if not isinstance(error, AttnvizError):
            log.exception("unexpected error while reading an uploaded capture")
        st.session_state[UPLOAD_REFUSAL] = error
        return
    open_capture(st.session_state[VIEW], capture, uploaded.name)


def refusal_sentence(error: BaseException, lang: str) -> str:
    """Why a file was not opened, in the page's language."""
    if isinstance(error, AttnvizError):
        return i18n.error_sentence(error, lang)
    return i18n.t("open_unexpected", lang)


# ----------------------------------------------------------------------------------------------------------------------
# What the page says about an opened capture


def _text(value) -> str | None:
    return None if value in (None, "", {}, []) else str(value)


def _model_rows(record: dict, t) -> list[tuple[str, str | None]]:
    size = record.get("weights_bytes")
    digest = record.get("weights_sha256")
    weights = f"sha256 {digest}" if digest else None
    if weights and isinstance(size, (int, float)):
        weights += f" ({size / MIB:.1f} MB)"
    shape = [str(record[name]) for name in ("class", "kind") if record.get(name)]
    if record.get("layers") and record.get("heads"):
        shape.append(t("open_layers_heads", layers=record["layers"], heads=record["heads"]))
    name, source = _text(record.get("name")), _text(record.get("source"))
    return [
        (t("open_field_model"), f"{name} ({source})" if name and source else name),
        (t("open_field_revision"), _text(record.get("revision"))),
        (t("open_field_weights"), weights),
        (t("open_field_architecture"), " · ".join(shape) or None),
    ]


def provenance_rows(capture: AttentionCapture, lang: str) -> list[tuple[str, str]]:
    """(what, value) rows of where a capture came from, in `lang`: model, revision and weights hash, device, dtype,
    versions, texts, capture options, time, and the maps it holds; what the file did not record says so."""
    t = lambda key, **values: i18n.t(key, lang, **values)  # noqa: E731
    provenance = capture.provenance or {}
    record = provenance.get("model") if isinstance(provenance.get("model"), dict) else {"name": capture.model}
    versions = provenance.get("versions") if isinstance(provenance.get("versions"), dict) else {}
    options = provenance.get("options")
    shapes = {kind: " × ".join(map(str, amap.weights.shape)) for kind, amap in capture.maps.items()}
    maps = "; ".join(f"{t(f'kind_{kind}')} {shape}" for kind, shape in shapes.items())
    rows = [
        *_model_rows(record, t),
        (t("open_field_device"), _text(provenance.get("device") or capture.device)),
        (t("open_field_dtype"), _text(provenance.get("dtype"))),
        (t("open_field_versions"), " · ".join(f"{name} {version}" for name, version in versions.items() if version)),
        (t("open_field_source"), _text(provenance.get("source_text", capture.source_text))),
        (t("open_field_target"), _text(provenance.get("target_text", capture.target_text))),
        (t("open_field_options"), _text(options) and json.dumps(options, ensure_ascii=False)),
        (t("open_field_time"), _text(provenance.get("captured_at"))),
        (t("open_field_maps"), maps),
    ]
    return [(name, value or t("open_not_recorded")) for name, value in rows]
