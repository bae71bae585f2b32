"""The command line draws the app's figures: for the same options, `python -m attnviz export` writes the figure the
app's page shows, as the page's download buttons write it (the model named in the title), compared as plotly JSON.

The app's figures come from the running page (AppTest, one link per combination); the CLI's from the function its
export calls for each example (`attnviz.cli.commands.export.figure`), and for a few combinations from `cli.main` writing HTML. Combinations:
figures × maps × aggregation × layer/head × words × hidden special tokens × language (and replay steps), on both demo
translators (pair and generate) and tiny self-attention models (an encoder and a causal decoder).
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass
from pathlib import Path

import plotly.graph_objects as go
import plotly.io as pio
import pytest
from streamlit.testing.v1 import AppTest

from app_pages.shared import figure_export
from app_pages.shared.navigation import PAGES
from attnviz import cli
from attnviz.cli import batch
from attnviz.cli.commands.export import figure as cli_figure
from attnviz.cli.inputs import examples
from attnviz.cli.options import check
from attnviz.cli.parser import parse
from attnviz.figures.text_fit import as_file
from attnviz.model.catalogue import model_name
from attnviz.model.load import load_model
from attnviz.run import MAX_NEW_TOKENS
from attnviz.view import viewing
from tests.support.app import one_torch_thread  # noqa: F401 - a fixture: torch on one thread, as in the app
from tests.support.figure_reading import html_figure

APP = str(Path(__file__).resolve().parents[2] / "app_pages" / "main.py")
PAGE_FIGURES = {"translate": ("alignment", "heatmap"), "self_attention": ("heatmap", "lines", "grid")}


@dataclass(frozen=True)
class Case:
    """One input: a model, its text (and target), and whether the model writes the target or reads it."""

    model: str
    text: str
    target: str = ""
    mode: str = "pair"

    def link(self) -> dict[str, str]:
        return {"model": self.model, "device": "cpu", "text": self.text, "target": self.target, "mode": self.mode}

    def cli_input(self) -> list[str]:
        """What the app reads in this mode, as CLI arguments: a given target, or --generate as much as the app (an
        encoder-only model reads its text then, in both)."""
        argv = ["--model", self.model, "--device", "cpu", "--text", self.text]
        if self.mode == "generate":
            return [*argv, "--generate", str(MAX_NEW_TOKENS)]
        return [*argv, "--target", self.target] if self.target else argv


@dataclass(frozen=True)
class Combination:
    """The app's view fields of one combination, on one page."""

    page: str  # "translate" (cross-attention) or "self_attention"
    kind: str
    aggregation: str
    layer: int = 0
    head: int = 0
    words: bool = True
    hide: bool = True
    lang: str = "en"
    threshold: float = 0.1
    step: int = 0

    def widgets(self) -> dict:
        """The values of the page's widgets (ViewState fields) that show this combination; the replay step aside."""
        field = "cross_aggregation" if self.page == "translate" else "self_aggregation"
        return {
            field: self.aggregation,
            "layer": self.layer,
            "head": self.head,
            "words": self.words,
            "hide_special": self.hide,
            "lang": self.lang,
            "threshold": self.threshold,
        }

    def link(self) -> dict[str, str]:
        link = {**self.widgets(), "step": self.step, "stack": self.kind if self.kind in viewing.STACKS else None}
        return {name: str(int(value) if isinstance(value, bool) else value) for name, value in link.items() if value}

    def cli_view(self, figure: str) -> list[str]:
        """The same view as CLI arguments, with the same names and meanings."""
        return [
            *("--view", figure, "--kind", self.kind, "--aggregation", self.aggregation),
            *("--layer", str(self.layer), "--head", str(self.head), "--lang", self.lang),
            "--words" if self.words else "--no-words",
            "--hide-special" if self.hide else "--no-hide-special",
            *("--threshold", str(self.threshold), "--step", str(self.step)),
        ]


def combinations(page: str, kind: str, layers: int, heads: int) -> list[Combination]:
    """Every aggregation with a few layers and heads × words × hidden special tokens × language; on the translate
    page also each aggregation replayed to its first and second target token, links from 0.3 up."""
    aggregations = viewing.AGGREGATIONS if page == "translate" else viewing.SELF_AGGREGATIONS
    last = (layers - 1, heads - 1)
    chosen = {"alignment": [(0, 0)], "head": [(0, 0), last], "layer": [last], "all": [(0, 0)], "rollout": [(0, 0)]}
    shown = [
        Combination(page, kind, aggregation, layer, head, words, hide, lang)
        for aggregation in aggregations
        for layer, head in chosen[aggregation]
        for words, hide, lang in itertools.product((True, False), (True, False), ("en", "zh"))
    ]
    if page != "translate":
        return shown
    replayed = [
        Combination(page, kind, aggregation, *chosen[aggregation][-1], words=words, threshold=0.3, step=step)
        for aggregation, words, step in itertools.product(aggregations, (True, False), (1, 2))
    ]
    return shown + replayed


# ----------------------------------------------------------------------------------------------------------------------
# The two sides


class Page:
    """One page of the running app for one input, opened by a link and then driven through its widgets."""

    def __init__(self, case: Case, page: str, link: dict[str, str]):
        self.at = AppTest.from_file(APP, default_timeout=180)
        for name, value in {**case.link(), **link}.items():
            self.at.query_params[name] = value
        self.at.run()
        if page != "translate":
            self.at.switch_page(PAGES[page]).run()

    def show(self, combination: Combination) -> dict[str, dict]:
        """The page's figures (plotly JSON) by name once its widgets hold this combination."""
        for name, value in combination.widgets().items():
            self.at.session_state[f"w_{name}"] = value
        self.at.run()
        return self.charts()

    def charts(self) -> dict[str, dict]:
        problems = [*self.at.exception, *self.at.error, *self.at.warning]  # a warning: a link the page could not read
        assert not problems, [e.value for e in problems]
        specs = [json.loads(element.proto.spec) for element in self.at.get("plotly_chart")]
        return {spec["layout"]["meta"]["view"]: spec for spec in specs}


def page_charts(case: Case, combination: Combination) -> dict[str, dict]:
    """The page's figures as a link to this combination opens it."""
    return Page(case, combination.page, combination.link()).charts()


def app_download(spec: dict, model: str) -> dict:
    """The figure the page's download buttons write for a chart: the page's own export path, on the page's figure."""
    return plotly_json(as_file(go.Figure(spec), model))


def plotly_json(fig: go.Figure) -> dict:
    return json.loads(pio.to_json(fig, validate=False))


class CliSide:
    """The CLI's figures of one case: its own argument parser, capture and figure function."""

    def __init__(self, case: Case):
        self.case = case
        self.handle = load_model(case.model, "cpu")
        self.input = case.cli_input()
        args = self.parse([])
        self.result = batch.capture(self.handle, examples(args)[0], args)

    def parse(self, view: list[str]):
        args = parse(["export", *self.input, *view, "-o", "unused.html"])
        check(args)
        return args

    def figure(self, view: list[str]) -> dict:
        return plotly_json(cli_figure(self.result, self.parse(view), self.handle))


def mismatches(case: Case, combos: list[Combination]) -> list[str]:
    """Each combination and figure where the CLI's file differs from the app's download. Replays open from a link
    (the slider keeps its step while the input stays); the rest are widget changes on one page per map."""
    cli_side = CliSide(case)
    pages: dict[tuple[str, str], Page] = {}
    wrong = []
    for combination in combos:
        if combination.step:
            charts = page_charts(case, combination)
        else:
            key = (combination.page, combination.kind)
            if key not in pages:
                stack = {"stack": combination.kind} if combination.kind in viewing.STACKS else {}
                pages[key] = Page(case, combination.page, stack)
            charts = pages[key].show(combination)
        for figure in PAGE_FIGURES[combination.page]:
            expected = app_download(charts[figure], model_name(case.model))  # a folder named by its own name
            if cli_side.figure(combination.cli_view(figure)) != expected:
                wrong.append(f"{figure} {combination}")
    return wrong


# ----------------------------------------------------------------------------------------------------------------------
# Inputs

TRANSLATORS = [
    Case("demo-zh-en", "早上好！", "Good morning!", "pair"),
    Case("demo-zh-en", "我喜欢学习。", mode="generate"),
    Case("demo-en-zh", "Good morning!", "早上好！", "pair"),
    Case("demo-en-zh", "I like studying.", mode="generate"),
]
SELF_ONLY = [("bert", "generate"), ("gpt2", "generate"), ("gpt2", "pair")]  # an encoder; a causal decoder


def self_case(tiny_folder, family: str, mode: str) -> Case:
    return Case(tiny_folder(family), "Good morning! 早上好", mode=mode)


@pytest.mark.slow
@pytest.mark.parametrize("case", TRANSLATORS, ids=lambda case: f"{case.model}-{case.mode}")
def test_every_translate_page_combination_is_the_clis_figure(case):
    assert not mismatches(case, combinations("translate", "cross", 3, 4))


# The encoder reads a generated pair as it reads a given one: its map is drawn once per direction.
STACK_CASES = [(case, "decoder") for case in TRANSLATORS] + [(case, "encoder") for case in TRANSLATORS[::2]]


@pytest.mark.slow
@pytest.mark.parametrize("case, kind", STACK_CASES, ids=[f"{c.model}-{c.mode}-{kind}" for c, kind in STACK_CASES])
def test_every_self_attention_page_combination_of_a_translator_is_the_clis_figure(case, kind):
    assert not mismatches(case, combinations("self_attention", kind, 3, 4))


@pytest.mark.slow
@pytest.mark.parametrize("family, mode", SELF_ONLY)
def test_every_self_attention_page_combination_of_a_one_stack_model_is_the_clis_figure(tiny_folder, family, mode):
    assert not mismatches(self_case(tiny_folder, family, mode), combinations("self_attention", "self", 2, 4))


# A few combinations of every kind, for the fast suite.
SAMPLES = [
    (TRANSLATORS[0], Combination("translate", "cross", "alignment")),
    (TRANSLATORS[0], Combination("translate", "cross", "head", 2, 3, words=False, hide=False, lang="zh")),
    (TRANSLATORS[1], Combination("translate", "cross", "layer", 1, 0, threshold=0.3, step=2)),
    (TRANSLATORS[3], Combination("translate", "cross", "all", lang="zh", step=1)),
    (TRANSLATORS[2], Combination("self_attention", "decoder", "head", 2, 1, hide=False)),
    (TRANSLATORS[1], Combination("self_attention", "encoder", "all", words=False, lang="zh")),
]


@pytest.mark.parametrize("case, combination", SAMPLES, ids=[f"{c.page}-{c.kind}-{c.aggregation}" for _, c in SAMPLES])
def test_sampled_combinations_are_the_clis_figure(case, combination):
    assert not mismatches(case, [combination])


@pytest.mark.parametrize("family, mode", SELF_ONLY)
def test_sampled_one_stack_combinations_are_the_clis_figure(tiny_folder, family, mode):
    combos = [
        Combination("self_attention", "self", "layer", 1, words=False, lang="zh"),
        Combination("self_attention", "self", "head"),
    ]
    assert not mismatches(self_case(tiny_folder, family, mode), combos)


@pytest.mark.parametrize("family, mode", SELF_ONLY[:2])
def test_a_rollout_is_the_clis_figure(tiny_folder, family, mode):
    combos = [
        Combination("self_attention", "self", "rollout"),
        Combination("self_attention", "self", "rollout", words=False, lang="zh"),
    ]
    assert not mismatches(self_case(tiny_folder, family, mode), combos)


def test_the_clis_defaults_are_the_apps():
    """No view options at all: the CLI opens each map as the app's pages open it."""
    case = TRANSLATORS[0]
    cli_side = CliSide(case)
    translate, self_page = Page(case, "translate", {}).charts(), Page(case, "self_attention", {}).charts()
    assert cli_side.figure(["--view", "alignment"]) == app_download(translate["alignment"], case.model)
    assert cli_side.figure([]) == app_download(translate["heatmap"], case.model)  # the heatmap of cross-attention
    for figure in PAGE_FIGURES["self_attention"]:
        assert cli_side.figure(["--view", figure, "--kind", "encoder"]) == app_download(self_page[figure], case.model)


# ----------------------------------------------------------------------------------------------------------------------
# Through cli.main: the HTML file holds the figure of the app's HTML download


@pytest.mark.parametrize(
    "case, combination, figure",
    [
        (TRANSLATORS[0], Combination("translate", "cross", "alignment"), "alignment"),
        (TRANSLATORS[3], Combination("translate", "cross", "head", 1, 2, lang="zh", step=2), "heatmap"),
        (TRANSLATORS[2], Combination("self_attention", "decoder", "layer", 2, words=False), "lines"),
    ],
    ids=["alignment", "heatmap", "lines"],
)
def test_the_clis_html_file_is_the_apps_html_download(capsys, tmp_path, case, combination, figure):
    cli_side = CliSide(case)
    target = tmp_path / f"{figure}.html"
    argv = ["export", *cli_side.input, *combination.cli_view(figure), "-o", str(target)]
    assert cli.main(argv) == 0, capsys.readouterr().err
    spec = page_charts(case, combination)[figure]
    drawn = as_file(go.Figure(spec), case.model)  # the page's download path, at the default size
    make = figure_export.figure_maker(drawn, "html", figure, figure_export.Source(), {})
    downloaded = make().decode("utf-8")
    assert html_figure(target.read_text(encoding="utf-8")) == html_figure(downloaded)
