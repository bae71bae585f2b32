"""Which page owns which option: the view state as small groups, one per page plus the shared ones, and each
page's link fields (`PAGE_FIELDS`) derived from the groups it uses (`PAGE_PARTS`). `state.ViewState` is the union of
the groups, so `view.layer` reads the same on every page; a field lives in exactly one group (a test checks it).

A field's name is its URL parameter and the suffix of its widget key (`session.widget_key`): renaming one breaks
links, so the groups only sort the fields, they never rename them."""

from __future__ import annotations

from dataclasses import dataclass, fields

DEFAULT_MODEL = "demo-zh-en"
DEFAULT_TEXT = "早上好！"
DEFAULT_TARGET = "Good morning!"


# ---- shared by several pages ----
@dataclass
class CoreView:
    """Every page: the model, where it runs, the interface language."""

    model: str = DEFAULT_MODEL
    device: str = "auto"
    lang: str = "en"


@dataclass
class InputView:
    """The pages that run the model on a text (Compare: the text and target of its side A)."""

    text: str = DEFAULT_TEXT
    target: str = DEFAULT_TARGET
    mode: str = "generate"


@dataclass
class LongTextView:
    """A text longer than the model reads: cut it (Translate, Self-attention, Heads, Query–key space), or open it
    on the catalogue's longest reader (Self-attention, Heads)."""

    truncate: bool = True  # keep its first tokens (the page says what was cut)
    long_model: bool = True  # Self-attention, Heads: a text the model cannot read whole opens on the longest reader


@dataclass
class HeadView:
    """The head shown: every page that draws one head (with `MapView.kind` where the page lets the map be chosen)."""

    layer: int = 0
    head: int = 0


@dataclass
class MapView:
    """Heads, Query–key space, How attention works: which map's heads."""

    kind: str = "cross"


@dataclass
class DrawingView:
    """How a map is drawn on the attention pages (Translate, Self-attention; Compare uses hiding and weighting)."""

    words: bool = True  # merge subword pieces into words
    hide_special: bool = True  # hide special tokens (</s>, <pad>, [CLS] …)
    threshold: float = 0.1  # weakest link drawn in the alignment and head-line views
    color_scale: str = "unit"  # one of viewing.COLOR_SCALES (the same colours on every head by default)
    weighting: str = "weights"  # weights, or weighted by value norm (viewing.WEIGHTINGS)
    # the attention weights (as `weighting` says), or a measure of what each layer uses
    # (measure_view.CONTRIBUTIONS), computed on demand
    measure: str = "weights"


@dataclass
class EffectsView:
    """Head effects (they run the model): Translate, Self-attention, Heads (`effects` only)."""

    effects: bool = False  # computed and shown
    find_effect: str = ""  # Find a head by effect: the target token's label ("morning #1"); empty = none picked


@dataclass
class LensView:
    """The lenses (they run the model, so each starts from a toggle): the logit lens (Translate, Self-attention) and
    DecoderLens (Translate)."""

    logit_lens: bool = False  # shown: what each layer's residual stream predicts as the next token
    lens_from: int = 0  # the logit lens's first position drawn, when its positions take more than one window
    decoder_lens: bool = False  # shown: what the decoder writes from each encoder layer
    # the encoder layer whose writing's alignment is drawn; -1 = the last (`lens.LAST_READING`)
    decoder_lens_layer: int = -1


# ---- one page each ----
@dataclass
class TranslateView:
    """Translate & align."""

    cross_aggregation: str = "alignment"  # one of viewing.AGGREGATIONS for the cross map
    step: int = 0  # generation step shown by the replay slider; 0 = all tokens
    gold: str = ""  # gold links of the pair, Pharaoh format ("0-0 1?2")
    gold_pair: str = ""  # the pair those links were typed for (`gold_panel.pair_key`): other pairs leave them unscored
    gold_reverse: str = ""  # a model translating the other way: only links both find count; empty = none
    segmented: bool = False  # a given pair typed as space-separated words: the model reads them joined (Chinese
    # without spaces), the gold links index them (`attnviz.corpus.words.segmented`)


@dataclass
class SelfAttentionView:
    """Self-attention."""

    stack: str = "encoder"  # encoder or decoder self-attention of an encoder-decoder model
    self_aggregation: str = "head"  # one of viewing.SELF_AGGREGATIONS for the self map
    rollout_first: int = 0  # rollout: the first layer rolled through (`rollout_layers`)
    rollout_last: int = 99  # … and the last (clamped to the model's last layer)
    residual: bool = True  # rollout with the skip connection's 0.5·I term
    lines_from: int = 0  # long text: the first token of the head-lines window
    find_query: str = ""  # Find a head: the query token's label ("it #9"); empty = none picked
    find_key: str = ""  # … and the key token's
    lines_token: str = ""  # head lines: only this query token's lines (its label); empty = all
    prompt_only: bool = False  # a decoder-only model's continuation: draw the user's text alone (`view.prompt`)


@dataclass
class HeadsView:
    """Heads."""

    stat: str = "entropy"  # the statistic of the layer × head heatmap


@dataclass
class QkView:
    """Query–key space."""

    qk_color: str = "position"  # colour points by position or token
    qk_norm: bool = True  # keys centred on the queries, both of one mean length
    qk_point: str = ""  # the picked point, "q3" (query 3) or "k5" (key 5); empty = none


@dataclass
class ExplainerView:
    """How attention works."""

    q: str = ""  # the edited Q as "1,2;2,1;0,1" (rows split by ";"); empty = the seed's numbers
    k: str = ""
    v: str = ""
    ex_token: int = 0  # on your sentence: the query token walked through


@dataclass
class CorpusView:
    """Corpus."""

    corpus: str = ""  # the report folder opened


@dataclass
class CompareView:
    """Compare (side A is the sidebar's model and `InputView`'s text and target)."""

    model_b: str = ""  # B's model; empty = A's
    text_b: str = "晚上好！"  # B's text
    target_b: str = ""  # B's target (translation models); empty = A's
    compare_scope: str = "all"  # state.COMPARE_SCOPES: the heads the diff shows (with `layer`, `head`)
    device_b: str = ""  # B's device (state.DEVICES_B); empty = A's
    dtype_b: str = ""  # B's precision (state.DTYPES_B); empty = float32, as A: one model in two precisions


SHARED_GROUPS = (CoreView, InputView, LongTextView, HeadView, MapView, DrawingView, EffectsView, LensView)
PAGE_GROUPS = (TranslateView, SelfAttentionView, HeadsView, QkView, ExplainerView, CorpusView, CompareView)
GROUPS = (*SHARED_GROUPS, *PAGE_GROUPS)

# What each page uses (navigation.PAGES names): whole groups, or single fields of a shared group.
_TEXT_PAGE = (CoreView, InputView)
PAGE_PARTS = {
    "translate": (*_TEXT_PAGE, "truncate", HeadView, DrawingView, EffectsView, LensView, TranslateView),
    "self_attention": (
        *_TEXT_PAGE,
        LongTextView,
        HeadView,
        DrawingView,
        EffectsView,
        "logit_lens",
        "lens_from",
        SelfAttentionView,
    ),
    "heads": (*_TEXT_PAGE, LongTextView, MapView, HeadView, "effects", HeadsView),
    "query_key_space": (*_TEXT_PAGE, "truncate", MapView, HeadView, QkView),
    "how_attention_works": (*_TEXT_PAGE, MapView, HeadView, ExplainerView),
    "open_capture": _TEXT_PAGE,
    "corpus": (CoreView, CorpusView),
    "compare": (CoreView, "text", "target", HeadView, "weighting", "hide_special", CompareView),
    "atlas": (CoreView, "text"),  # its own controls (block, filter, window) stay on the page
}


def names(group: type) -> tuple[str, ...]:
    """The field names of one group."""
    return tuple(entry.name for entry in fields(group))


def _page_fields(parts: tuple) -> tuple[str, ...]:
    return tuple(name for part in parts for name in ((part,) if isinstance(part, str) else names(part)))


PAGE_FIELDS = {page: _page_fields(parts) for page, parts in PAGE_PARTS.items()}  # a page's link carries these only
