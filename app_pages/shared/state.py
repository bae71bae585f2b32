"""What the pages show, as one value: `ViewState` (model, text, target, layer, head, aggregation, …), and the
shareable link it makes (`to_query_params`) and is restored from (`from_query_params`). Its fields carry the names of
`viewing.ViewOptions` where they are its options. No Streamlit here: app_pages/shared/session.py binds it to the
widgets."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, fields

from app_pages.how_attention_works.steps import EXPLAINER_SEEDS, explainer_field, matrix_from_text
from app_pages.shared.link_text import cut_in_link, link_params, text_in_link
from app_pages.shared.view_groups import (
    PAGE_FIELDS,
    CompareView,
    CoreView,
    CorpusView,
    DrawingView,
    EffectsView,
    ExplainerView,
    HeadsView,
    HeadView,
    InputView,
    LensView,
    LongTextView,
    MapView,
    QkView,
    SelfAttentionView,
    TranslateView,
)
from attnviz.maps import head_stats
from attnviz.measures import names as measure_view
from attnviz.run import MODES
from attnviz.view import viewing

# The Measure choice; value norms are `weighting`'s. Saliency draws the weights and its own bars beside them.
MEASURE_CHOICES = ("weights", *measure_view.CONTRIBUTIONS, *measure_view.PER_OUTPUT_TOKEN)

LANGUAGES = ("en", "zh")
DEVICES = ("auto", "npu", "cuda", "cpu")
LINK_TEXTS = ("text", "target", "text_b", "target_b")  # fields a link carries whole, packed when long (`link_text`)
COMPARE_SCOPES = ("all", "layer", "head")  # Compare: the diff of every head on average, of a layer's, or of one head
DEVICES_B = ("", "npu", "cuda", "cpu")  # Compare's B: A's device (empty) or one named
DTYPES_B = ("", "float16", "bfloat16")  # Compare's B: float32 as A (empty) or a half precision


@dataclass
class ViewState(
    CompareView,
    CorpusView,
    ExplainerView,
    QkView,
    HeadsView,
    SelfAttentionView,
    TranslateView,
    LensView,
    EffectsView,
    DrawingView,
    MapView,
    HeadView,
    LongTextView,
    InputView,
    CoreView,
):
    """What the pages show: the union of the groups of `view_groups` (which page owns which field); every field
    round-trips through the URL query parameter of the same name."""


_CHOICES = {
    "device": DEVICES,
    "lang": LANGUAGES,
    "mode": MODES,
    "cross_aggregation": viewing.AGGREGATIONS,
    "stack": viewing.STACKS,
    "self_aggregation": viewing.SELF_AGGREGATIONS,
    "kind": ("self", "encoder", "decoder", "cross"),
    "stat": tuple(head_stats.STATISTICS),
    "weighting": viewing.WEIGHTINGS,
    "measure": MEASURE_CHOICES,
    "qk_color": ("position", "token"),
    "color_scale": viewing.COLOR_SCALES,
    "compare_scope": COMPARE_SCOPES,
    "device_b": DEVICES_B,
    "dtype_b": DTYPES_B,
}
# Names links used before the fields took the names of `viewing.ViewOptions`: still read (a link shared earlier
# opens the same view), never written. The field's own name wins when a link has both.
OLD_LINK_NAMES = {
    "view": "cross_aggregation",
    "self_view": "self_aggregation",
    "hide": "hide_special",
    "scale": "color_scale",
    "roll_first": "rollout_first",
    "roll_last": "rollout_last",
}
ALWAYS_IN_URL = (
    "model",
    "text",
    "target",
    "layer",
    "head",
    "cross_aggregation",
)  # the shareable core, even at default values


def view_options(
    view: ViewState, kind: str, aggregation: str, step: int = 0, lines_query: int | None = None
) -> viewing.ViewOptions:
    """The library's options for what a page draws of map `kind`: the view's words, hiding, threshold, colour scale
    and language, with the page's own aggregation field (`cross_aggregation` or `self_aggregation`), replay step
    and isolated head-line token (`lines_query`, a row of the map as drawn)."""
    return viewing.ViewOptions(
        kind=kind,
        aggregation=aggregation,
        layer=view.layer,
        head=view.head,
        words=view.words,
        hide_special=view.hide_special,
        threshold=view.threshold,
        step=step,
        lang=view.lang,
        weighting=view.weighting,
        measure=view.measure if view.measure in measure_view.CONTRIBUTIONS else None,  # weights: as `weighting` says
        rollout_layers=(view.rollout_first, view.rollout_last),
        residual=view.residual,
        color_scale=view.color_scale,
        lines_query=lines_query,
    )


# Whole-number fields whose -1 is a value of its own, "the last one", rather than a mistake.
LAST_AS_MINUS_ONE = frozenset({"decoder_lens_layer"})


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
        if value < 0 and not (value == -1 and name in LAST_AS_MINUS_ONE):
            raise ValueError(raw)
        return value
    if isinstance(default, float):
        value = float(raw)
        if not 0.0 <= value <= 1.0:
            raise ValueError(raw)
        return value
    if name in EXPLAINER_SEEDS:
        return explainer_field(matrix_from_text(raw, name), name) if raw.strip() else ""
    value = raw if name in LINK_TEXTS else raw.strip()
    if name in _CHOICES and value not in _CHOICES[name]:
        raise ValueError(raw)
    if name == "model" and not value:
        raise ValueError(raw)
    return value


def from_query_params(params: Mapping[str, str | Sequence[str]]) -> tuple[ViewState, list[str]]:
    """The view a link describes, and the names of parameters that could not be read (those keep their defaults).

    Unknown parameters are ignored; a repeated parameter counts by its last value; a field's old name still reads.
    """
    state = ViewState()
    unreadable = []
    params = _last_values(params)
    for field in fields(ViewState):
        given = _name_in_link(params, field.name)
        if given is None:
            continue
        try:
            raw = text_in_link(params, given) if field.name in LINK_TEXTS else params[given]
        except ValueError:  # a packed text that does not unpack
            unreadable.append(given + "_z")
            continue
        try:
            setattr(state, field.name, _parse(field.name, raw, getattr(state, field.name)))
        except ValueError:
            unreadable.append(given)  # as the link names it
    return state, unreadable


def _last_values(params: Mapping[str, str | Sequence[str]]) -> dict[str, str]:
    """Each parameter's last value (a repeated parameter counts by its last)."""
    return {name: raw if isinstance(raw, str) else (raw[-1] if raw else "") for name, raw in params.items()}


def cut_texts(params: Mapping[str, str | Sequence[str]], state: ViewState) -> dict[str, tuple[int, int]]:
    """The texts a link held only the start of: field → (characters kept, the whole text's length)."""
    params = _last_values(params)
    cut = {name: cut_in_link(params, name, getattr(state, name)) for name in LINK_TEXTS}
    return {name: (len(getattr(state, name)), whole) for name, whole in cut.items() if whole is not None}


def _name_in_link(params: Mapping[str, object], field: str) -> str | None:
    """The name under which the link gives `field`: its own (a long text's packed form too), else an old one
    (`OLD_LINK_NAMES`); None when absent."""
    if field in params or (field in LINK_TEXTS and field + "_z" in params):
        return field
    return next((old for old, new in OLD_LINK_NAMES.items() if new == field and old in params), None)


def _format(value) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def applies(state: ViewState, page: str | None) -> set[str]:
    """The fields of `state` that `page` uses (`PAGE_FIELDS`; None: every field). The target applies only to a given
    pair: a generated one is the model's; the reverse model only to gold links. A name that is no page's is a
    programming error (KeyError), never a link that silently carries everything."""
    if page is not None and page not in PAGE_FIELDS:
        raise KeyError(f"no page is named {page!r}; pages: {', '.join(PAGE_FIELDS)}")
    names = set(PAGE_FIELDS.get(page, [f.name for f in fields(ViewState)]))
    if page in PAGE_FIELDS and state.mode != "pair" and page != "compare":  # Compare reads given pairs only
        names.difference_update({"target", "segmented"})
    if page in PAGE_FIELDS and not state.gold.strip():  # a reverse model checks gold links: none, nothing to check
        names.difference_update({"gold_reverse", "gold_pair"})
    return names


def to_query_params(state: ViewState, page: str | None = None) -> dict[str, str]:
    """The URL query parameters of a view on `page` (None: of every page): the shareable core always, other fields
    when not at their default; on a page, only the fields it uses (`applies`)."""
    defaults = asdict(ViewState())
    wanted = applies(state, page)
    params = {}
    for name, value in asdict(state).items():
        if name not in wanted:
            continue
        if name in ALWAYS_IN_URL or value != defaults[name]:
            params.update(link_params(name, value) if name in LINK_TEXTS else {name: _format(value)})
    return params
