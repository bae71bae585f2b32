"""The explorer file: one self-contained HTML page holding a capture's every figure, for a reader with no server.

A reader picks the map (encoder, decoder, cross…), the measure (the weights, or ALTI and value zeroing when they were
asked for), the view (heatmap, alignment diagram, head lines, the layer × head grid), the heads (one head, a layer's
mean, all, the alignment heads or the rollout), words or subwords, the weakest link and the language, as on the
app's pages; the choice lives in the URL's fragment (`#kind=cross&view=alignment&…`), so a link to the file opens
that view.

Every picture is the app's: each choice's figure is drawn here, when the file is made, by the same code the app's
pages call (`attnviz.view.selection.prepare` and `show_map`, with the options the pages give), and kept as plotly
JSON; the page only looks the chosen one up (`figure_key`, mirrored by explorer.js) and hands it to plotly.js.
Nothing is computed in the browser. The figures repeat most of their parts (tick labels, colour bars, one matrix
drawn in two languages), so each JSON subtree is stored once (`shared_nodes`), and the whole is gzipped; plotly.js is
gzipped too and both are unpacked by the browser's own DecompressionStream. A 30-token pair on demo-zh-en, with every
map, head and layer, both word views, both languages and five thresholds, makes a file of 2.8 MB (1,244 figures,
45 s of CPU).

What the file holds is planned before anything is drawn (`plan`): a plan of more than `MAX_FIGURES` figures is
refused with a sentence naming what to drop (`too_large`), and so is a file above `MAX_FILE_MB`.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace

import plotly.io as pio

from attnviz import i18n
from attnviz.errors import InputError, Phrase, ResourceLimitError
from attnviz.export.explorer_page import explorer_page, plotly_gzipped
from attnviz.measures.names import CONTRIBUTIONS
from attnviz.provenance import view_provenance
from attnviz.types import AttentionCapture
from attnviz.version import __version__
from attnviz.view import head_choice, selection, viewing

WEIGHTS = "weights"
THRESHOLDS = (0.05, 0.1, 0.2, 0.3, 0.5)  # weakest links a file holds by default (the app's slider moves by 0.05)
LANGS = tuple(i18n.LANGUAGES)
VIEWS = {"cross": ("alignment", "heatmap", "grid"), "self": ("heatmap", "lines", "grid")}  # as the app's pages
THRESHOLD_VIEWS = ("alignment", "lines")  # the only figures the weakest link changes
MAX_FIGURES = 3000  # ~36 ms of CPU a figure (demo-zh-en, 30 tokens): about two minutes on a free core
MAX_FILE_MB = 20.0  # a file a browser opens at once and a message can carry
MIN_SHARED_CHARS = 40  # JSON subtrees this long or longer are stored once and referred to (`shared_nodes`)
REF = "$ref"  # the key of a reference to a shared node; plotly JSON never has it


@dataclass(frozen=True)
class ExplorerContent:
    """What a file holds besides the capture's weights: which maps (None: all), the measures (`CONTRIBUTIONS`
    computed beforehand and given to `explorer_file`), the word views (True: words, False: subword pieces), the
    languages and the weakest-link thresholds offered."""

    kinds: tuple[str, ...] | None = None
    measures: tuple[str, ...] = ()
    words: tuple[bool, ...] = (True, False)
    langs: tuple[str, ...] = LANGS
    thresholds: tuple[float, ...] = THRESHOLDS

    def checked(self) -> ExplorerContent:
        """The content with its choices checked and sorted; an InputError names a choice it cannot hold."""
        unknown = [m for m in self.measures if m not in CONTRIBUTIONS]
        if unknown:
            raise InputError("measure_unknown", measure=unknown[0], measures=", ".join(CONTRIBUTIONS))
        if not self.words or not self.langs or not self.thresholds:
            raise InputError("explorer_empty_choice")
        if any(lang not in LANGS for lang in self.langs):
            raise InputError("explorer_language_unknown", langs=", ".join(LANGS))
        if any(not 0 < t < 1 for t in self.thresholds):  # head lines need 0 < t < 1
            raise InputError("explorer_threshold", thresholds=", ".join(f"{t:g}" for t in self.thresholds))
        thresholds = tuple(sorted({round(float(t), 4) for t in self.thresholds}))
        return replace(self, thresholds=thresholds, words=tuple(dict.fromkeys(self.words)))


@dataclass(frozen=True)
class Choice:
    """One figure a reader can pick: what it shows, with the fields its view does not use left out (None)."""

    measure: str
    kind: str
    view: str
    aggregation: str | None
    layer: int | None
    head: int | None
    words: bool
    threshold: float | None
    lang: str

    def normalised(self) -> Choice:
        """The same figure with the fields it does not depend on cleared (one key per distinct figure): a heatmap
        or a grid has no weakest link, a grid draws every head (a rollout's grid its own), and only one head or one
        layer's mean names a layer."""
        threshold = self.threshold if self.view in THRESHOLD_VIEWS else None
        if self.view == "grid":
            rolled = viewing.ROLLOUT if self.aggregation == viewing.ROLLOUT else None
            return replace(self, aggregation=rolled, layer=None, head=None, threshold=threshold)
        layer = self.layer if self.aggregation in ("head", "layer") else None
        head = self.head if self.aggregation == "head" else None
        return replace(self, layer=layer, head=head, threshold=threshold)

    def key(self) -> str:
        """The figure's key in the file; explorer.js builds the same string from a reader's choice."""
        return figure_key(self)


def figure_key(choice: Choice) -> str:
    """measure|kind|view|aggregation|layer|head|words|threshold|lang of a normalised choice ("-" where unused)."""
    fields = (
        choice.measure,
        choice.kind,
        choice.view,
        choice.aggregation,
        choice.layer,
        choice.head,
        int(choice.words),
        None if choice.threshold is None else f"{choice.threshold:g}",
        choice.lang,
    )
    return "|".join("-" if value is None else str(value) for value in fields)


def views_of(kind: str) -> tuple[str, ...]:
    """The figures the app's pages draw of a map of `kind`: Translate & align for cross-attention, Self-attention
    for the others."""
    return VIEWS["cross" if kind == "cross" else "self"]


# ----------------------------------------------------------------------------------------------------------------------
# The plan: every figure a file holds, counted before one is drawn


def captures_of(
    capture: AttentionCapture, measures: Mapping[str, AttentionCapture], content: ExplorerContent
) -> dict[str, AttentionCapture]:
    """measure → the capture it draws: the weights first, then each measure the content asks for (computed
    beforehand: `measures` holds their captures)."""
    if not capture.is_complete:
        raise InputError("explorer_long_text")
    missing = [name for name in content.measures if name not in measures]
    if missing:
        raise InputError("explorer_measure_missing", measure=missing[0])
    return {WEIGHTS: capture, **{name: measures[name] for name in content.measures}}


def plan(capture: AttentionCapture, measures: Mapping[str, AttentionCapture], content: ExplorerContent) -> list[Choice]:
    """Every distinct figure the file will hold, in drawing order (one prepared map after another)."""
    choices: dict[str, Choice] = {}
    for measure, result in captures_of(capture, measures, content).items():
        for kind in _kinds(result, content):
            layers, heads = result.shape(kind)[:2]
            for words in content.words:
                for lang in content.langs:
                    for choice in _choices_of_map(measure, kind, layers, heads, words, lang, content.thresholds):
                        choices.setdefault(choice.key(), choice)
    return list(choices.values())


def _kinds(result: AttentionCapture, content: ExplorerContent) -> list[str]:
    wanted = content.kinds
    return [kind for kind in result.kinds if wanted is None or kind in wanted]


def _choices_of_map(measure, kind, layers, heads, words, lang, thresholds) -> Iterable[Choice]:
    for aggregation in head_choice.offered_aggregations(kind, measure):
        for layer, head in heads_of(aggregation, layers, heads):
            for view in views_of(kind):
                for threshold in thresholds if view in THRESHOLD_VIEWS else (None,):
                    yield Choice(measure, kind, view, aggregation, layer, head, words, threshold, lang).normalised()


def heads_of(aggregation: str, layers: int, heads: int) -> list[tuple[int | None, int | None]]:
    """The (layer, head) a reader may pick under `aggregation`: every head, every layer, or none."""
    if aggregation == "head":
        return [(layer, head) for layer in range(layers) for head in range(heads)]
    if aggregation == "layer":
        return [(layer, None) for layer in range(layers)]
    return [(None, None)]


def check_plan(
    capture: AttentionCapture, measures: Mapping[str, AttentionCapture], content: ExplorerContent
) -> list[Choice]:
    """`plan`, refused when it holds more than MAX_FIGURES figures (`too_large` names what to drop)."""
    planned = plan(capture, measures, content)
    if len(planned) > MAX_FIGURES:
        raise too_large(capture, measures, content, figures=len(planned))
    return planned


# What a reader can do without; each drop keeps what a first look needs.
DROPS: dict[str, Callable[[ExplorerContent, AttentionCapture], ExplorerContent]] = {
    "subwords": lambda content, _: replace(content, words=(True,)),
    "language": lambda content, _: replace(content, langs=content.langs[:1]),
    "thresholds": lambda content, _: replace(
        content, thresholds=(0.1,) if 0.1 in content.thresholds else content.thresholds[:1]
    ),
    "measures": lambda content, _: replace(content, measures=()),
    "maps": lambda content, capture: replace(content, kinds=(content.kinds or (selection.default_kind(capture),))[:1]),
}


def too_large(
    capture: AttentionCapture,
    measures: Mapping[str, AttentionCapture],
    content: ExplorerContent,
    *,
    figures: int | None = None,
    megabytes: float | None = None,
) -> ResourceLimitError:
    """The refusal of a file of too many `figures` (or too many `megabytes`), naming what to drop: the drops that,
    taken in turn (each the one that removes most figures), bring the plan within MAX_FIGURES (or the file within
    MAX_FILE_MB: plotly.js, then the same share of a megabyte per figure), with the figures left after each; a
    shorter text when they are not enough."""
    count = len(plan(capture, measures, content))
    goal = MAX_FIGURES
    if megabytes is not None:
        fixed = len(plotly_gzipped()) * 4 / 3 / 1e6  # plotly.js in the page, base64
        goal = (MAX_FILE_MB - fixed) / max(megabytes - fixed, 1e-9) * count
    steps = []
    while count > goal:
        tried = {name: drop(content, capture) for name, drop in DROPS.items()}
        counts = {name: len(plan(capture, measures, smaller)) for name, smaller in tried.items()}
        name = min(counts, key=counts.get)
        if counts[name] >= count:
            steps.append(Phrase("explorer_drop.text"))
            break
        steps.append(Phrase(f"explorer_drop.{name}", figures=counts[name]))
        content, count = tried[name], counts[name]
    if megabytes is None:
        return ResourceLimitError(
            "explorer_too_many_figures", figures=figures, limit=MAX_FIGURES, drops=PhraseList(steps)
        )
    limit = f"{MAX_FILE_MB:g}"
    return ResourceLimitError("explorer_too_big", size=f"{megabytes:.1f}", limit=limit, drops=PhraseList(steps))


class PhraseList(Phrase):
    """Phrases said one after another in the sentence's language ("a; b" in English, "a；b" in Chinese)."""

    def __init__(self, items: list[Phrase]) -> None:
        super().__init__("explorer_drop.list", items=tuple(items))  # said by `text`, not the catalogue

    def text(self, lang: str = "en") -> str:
        return i18n.t("explorer_drop.separator", lang).join(item.text(lang) for item in self.values["items"])


# ----------------------------------------------------------------------------------------------------------------------
# The figures, drawn by the pages' own code


def explorer_figures(
    capture: AttentionCapture,
    alignment_heads: selection.Pairs,
    measures: Mapping[str, AttentionCapture],
    planned: list[Choice],
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, dict]:
    """key → plotly JSON (as `Figure.to_json` writes it) of every planned choice, drawn as the app's pages draw them:
    the map prepared once per measure, kind, words, language and rollout, then `selection.show_map` per choice.
    `progress(done, total)` is called after each figure."""
    results = {WEIGHTS: capture, **measures}
    drawn: dict[str, dict] = {}
    groups: dict[tuple, list[Choice]] = {}
    for choice in planned:
        rolled = choice.aggregation == viewing.ROLLOUT
        groups.setdefault((choice.measure, choice.kind, choice.words, choice.lang, rolled), []).append(choice)
    for (measure, kind, words, lang, _), choices in groups.items():
        result = results[measure]
        base = viewing.ViewOptions(kind=kind, words=words, lang=lang, measure=None if measure == WEIGHTS else measure)
        base = selection.with_measure(result, base)
        written = selection.prepare(result, replace(base, aggregation=choices[0].aggregation or "all"))
        for choice in choices:
            drawn[choice.key()] = _figure_json(written, choice_options(base, choice), choice.view, alignment_heads)
            if progress is not None:
                progress(len(drawn), len(planned))
    return drawn


def choice_options(base: viewing.ViewOptions, choice: Choice) -> viewing.ViewOptions:
    """The options a page gives `show_map` for `choice` (a grid draws under any aggregation: the map's default)."""
    aggregation = choice.aggregation or head_choice.offered_aggregations(choice.kind, base.measure or WEIGHTS)[0]
    threshold = base.threshold if choice.threshold is None else choice.threshold
    return replace(base, aggregation=aggregation, layer=choice.layer or 0, head=choice.head or 0, threshold=threshold)


def _figure_json(written, options: viewing.ViewOptions, view: str, alignment_heads) -> dict:
    """The figure `view` as `show_map` draws it for the page: an alignment at the height of the heatmap beside it,
    or at its own when it stands alone (a long pair), as the page's own call decides."""
    shown = selection.show_map(written, options, alignment_heads, (view,))
    return json.loads(pio.to_json(shown.figures[view], validate=False))


# ----------------------------------------------------------------------------------------------------------------------
# The payload: every figure, each repeated part stored once, gzipped


def shared_nodes(figures_by_key: Mapping[str, dict]) -> dict:
    """{"nodes": [...], "figures": {key: root}}: every JSON subtree of MIN_SHARED_CHARS or more characters is
    stored once in `nodes` and replaced by {"$ref": index} wherever it stands (children before their parents, so
    a node refers only to earlier ones). explorer.js resolves the references back into the figure."""
    table: dict[str, int] = {}
    nodes: list = []
    roots = {key: _interned(value, table, nodes) for key, value in figures_by_key.items()}
    return {"nodes": nodes, "figures": roots}


def _interned(value, table: dict[str, int], nodes: list):
    """The value with its shared subtrees replaced by references (a container's canonical JSON text, children
    already replaced, is its identity: short, since every long child is a reference by then)."""
    if isinstance(value, dict):
        if REF in value:
            raise InputError("explorer_reserved_key", key=REF)
        rebuilt = {key: _interned(item, table, nodes) for key, item in value.items()}
    elif isinstance(value, list):
        rebuilt = [_interned(item, table, nodes) for item in value]
    else:
        return value
    text = json.dumps(rebuilt, ensure_ascii=False, separators=(",", ":"))
    if len(text) < MIN_SHARED_CHARS:
        return rebuilt
    index = table.get(text)
    if index is None:
        index = table[text] = len(nodes)
        nodes.append(rebuilt)
    return {REF: index}


def resolved(payload: dict, key: str):
    """The figure `key` of a payload with its references resolved: what explorer.js hands to plotly.js."""
    nodes = payload["nodes"]

    def resolve(value):
        if isinstance(value, dict):
            if set(value) == {REF}:
                return resolve(nodes[value[REF]])
            return {name: resolve(item) for name, item in value.items()}
        if isinstance(value, list):
            return [resolve(item) for item in value]
        return value

    return resolve(payload["figures"][key])


# ----------------------------------------------------------------------------------------------------------------------
# The file


@dataclass(frozen=True)
class ExplorerFile:
    """An explorer file's bytes and how many figures it holds (its size is said before it is saved)."""

    data: bytes
    figures: int

    @property
    def megabytes(self) -> float:
        return len(self.data) / 1e6


def explorer_file(
    capture: AttentionCapture,
    alignment_heads: selection.Pairs = (),
    measures: Mapping[str, AttentionCapture] | None = None,
    content: ExplorerContent = ExplorerContent(),
    lang: str = "en",
    provenance: dict | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> ExplorerFile:
    """The explorer file of `capture` (complete, with its model's `alignment_heads`), holding what `content` asks
    for (`measures`: the captures of its measures, computed beforehand), opening in `lang`, its `<meta>` carrying
    `provenance` (default: the capture's, with the content recorded). Refused (ResourceLimitError, naming what to
    drop) above MAX_FIGURES figures, before any is drawn, or above MAX_FILE_MB."""
    content = content.checked()
    measures = dict(measures or {})
    planned = check_plan(capture, measures, content)
    drawn = explorer_figures(capture, alignment_heads, measures, planned, progress)
    info = explorer_info(capture, measures, content, lang)
    texts = {"model": capture.model, "source": capture.source_text, "target": capture.target_text or ""}
    if provenance is None:
        provenance = view_provenance(capture.provenance or None, "explorer", dataclasses.asdict(content))
    data = explorer_page(shared_nodes(drawn), info, texts, provenance).encode("utf-8")
    made = ExplorerFile(data, len(planned))
    if made.megabytes > MAX_FILE_MB:
        raise too_large(capture, measures, content, megabytes=made.megabytes)
    return made


def explorer_info(
    capture: AttentionCapture, measures: Mapping[str, AttentionCapture], content: ExplorerContent, lang: str
) -> dict:
    """What explorer.js offers: per measure and map, its views, aggregations, layers and heads; the word views,
    languages and thresholds; the choice the file opens on (the app's defaults)."""
    menu = {}
    for measure, result in captures_of(capture, measures, content).items():
        menu[measure] = {
            kind: {
                "views": list(views_of(kind)),
                "aggregations": list(head_choice.offered_aggregations(kind, measure)),
                "layers": result.shape(kind)[0],
                "heads": result.shape(kind)[1],
            }
            for kind in _kinds(result, content)
        }
    if not menu[WEIGHTS]:
        raise InputError("explorer_no_map", kinds=", ".join(capture.kinds))
    kind = selection.default_kind(capture)
    kind = kind if kind in menu[WEIGHTS] else next(iter(menu[WEIGHTS]))
    default = {
        "lang": lang if lang in content.langs else content.langs[0],
        "measure": WEIGHTS,
        "kind": kind,
        "view": views_of(kind)[0],
        "aggregation": head_choice.default_aggregation(kind),
        "layer": 0,
        "head": 0,
        "words": content.words[0],
        "threshold": viewing.ViewOptions.threshold
        if viewing.ViewOptions.threshold in content.thresholds
        else content.thresholds[0],
    }
    return {
        "menu": menu,
        "default": default,
        "langs": list(content.langs),
        "words": list(content.words),
        "thresholds": list(content.thresholds),
        "version": __version__,
    }
