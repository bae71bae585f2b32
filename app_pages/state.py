"""What the pages show, as one value: `ViewState` (model, text, target, layer, head, view, …), and the shareable link
it makes (`to_query_params`) and is restored from (`from_query_params`). No Streamlit here: app_pages/session.py binds
it to the widgets."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, fields

from app_pages.explainer_steps import EXPLAINER_SEEDS, explainer_field, matrix_from_text
from app_pages.model_runs import MODES
from attnviz import analysis, selection

DEFAULT_MODEL = "demo-zh-en"
DEFAULT_TEXT = "早上好！"
DEFAULT_TARGET = "Good morning!"
LANGUAGES = ("en", "zh")
DEVICES = ("auto", "npu", "cuda", "cpu")
MAX_URL_TEXT = 2000  # characters of text/target kept in a shared link


@dataclass
class ViewState:
    """What the pages show; every field round-trips through the URL query parameters of the same name."""

    model: str = DEFAULT_MODEL
    device: str = "auto"
    lang: str = "en"
    text: str = DEFAULT_TEXT
    target: str = DEFAULT_TARGET
    mode: str = "generate"
    view: str = "alignment"
    layer: int = 0
    head: int = 0
    words: bool = True  # merge subword pieces into words
    hide: bool = True  # hide special tokens (</s>, <pad>, [CLS] …)
    threshold: float = 0.1  # weakest link drawn in the alignment and head-line views
    step: int = 0  # generation step shown by the replay slider; 0 = all tokens
    stack: str = "encoder"  # Self-attention page: encoder or decoder self-attention of an encoder-decoder model
    self_view: str = "head"  # Self-attention page: one of SELF_AGGREGATIONS
    kind: str = "cross"  # Heads page: which map's heads
    stat: str = "entropy"  # Heads page: the statistic of the layer × head heatmap
    q: str = ""  # How attention works: the edited Q as "1,2;2,1;0,1" (rows split by ";"); empty = the seed's numbers
    k: str = ""
    v: str = ""
    gold: str = ""  # Translate & align: gold links of the pair, Pharaoh format ("0-0 1?2")
    corpus: str = ""  # Corpus: the report folder opened


_CHOICES = {
    "device": DEVICES,
    "lang": LANGUAGES,
    "mode": MODES,
    "view": selection.AGGREGATIONS,
    "stack": selection.STACKS,
    "self_view": selection.SELF_AGGREGATIONS,
    "kind": ("self", "encoder", "decoder", "cross"),
    "stat": tuple(analysis.STATISTICS),
}
ALWAYS_IN_URL = ("model", "text", "target", "layer", "head", "view")  # the shareable core, even at default values


def view_options(view: ViewState, kind: str, aggregation: str, step: int = 0) -> selection.ViewOptions:
    """The library's options for what a page draws of map `kind`: the view's words, hiding, threshold and language,
    with the page's own aggregation field (`view` or `self_view`) and replay step."""
    return selection.ViewOptions(
        kind=kind,
        aggregation=aggregation,
        layer=view.layer,
        head=view.head,
        words=view.words,
        hide_special=view.hide,
        threshold=view.threshold,
        step=step,
        lang=view.lang,
    )


def _parse(name: str, raw: str, default):
    """One query-parameter value as the field's type; ValueError when it cannot be read."""
    if isinstance(default, bool):
        lowered = raw.strip().lower()
        if lowered in ("1", "true", "yes", "on"):
            return True
        if lowered in ("0", "false", "no", "off"):
            return False
        raise ValueError(raw)
    if isinstance(default, int):
        value = int(raw)
        if value < 0:
            raise ValueError(raw)
        return value
    if isinstance(default, float):
        value = float(raw)
        if not 0.0 <= value <= 1.0:
            raise ValueError(raw)
        return value
    if name in EXPLAINER_SEEDS:
        return explainer_field(matrix_from_text(raw, name), name) if raw.strip() else ""
    value = raw[:MAX_URL_TEXT] if name in ("text", "target") else raw.strip()
    if name in _CHOICES and value not in _CHOICES[name]:
        raise ValueError(raw)
    if name == "model" and not value:
        raise ValueError(raw)
    return value


def from_query_params(params: Mapping[str, str | Sequence[str]]) -> tuple[ViewState, list[str]]:
    """The view a link describes, and the names of parameters that could not be read (those keep their defaults).

    Unknown parameters are ignored; a repeated parameter counts by its last value.
    """
    state = ViewState()
    unreadable = []
    for field in fields(ViewState):
        if field.name not in params:
            continue
        raw = params[field.name]
        if not isinstance(raw, str):
            raw = raw[-1] if raw else ""
        try:
            setattr(state, field.name, _parse(field.name, raw, getattr(state, field.name)))
        except ValueError:
            unreadable.append(field.name)
    return state, unreadable


def _format(value) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def to_query_params(state: ViewState) -> dict[str, str]:
    """The URL query parameters of a view: the shareable core always, other fields when not at their default."""
    defaults = asdict(ViewState())
    params = {}
    for name, value in asdict(state).items():
        if name in ALWAYS_IN_URL or value != defaults[name]:
            params[name] = _format(value)[:MAX_URL_TEXT] if name in ("text", "target") else _format(value)
    return params
