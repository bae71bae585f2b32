"""The explorer file (attnviz.export.explorer_file) on a hand-built translation capture: what it plans to hold,
every figure it holds equal to the figure the pages' own code draws for the same choice, its repeated parts stored
once and read back exactly, a page that loads nothing, and a file too large refused with what to leave out."""

from __future__ import annotations

import json
import re

import plotly.io as pio
import pytest

from attnviz.errors import InputError, ResourceLimitError
from attnviz.export import explorer_file as ef
from attnviz.export.explorer_page import read_page
from attnviz.view import selection, viewing
from tests.support.maps import seq2seq_capture

SMALL = ef.ExplorerContent(thresholds=(0.3,))  # every map, both word views, both languages


@pytest.fixture(scope="module")
def capture():
    return seq2seq_capture()


@pytest.fixture(scope="module")
def made(capture):
    """(info, payload) of the capture's explorer file with one threshold."""
    return read_page(ef.explorer_file(capture, ((1, 0),), content=SMALL).data)


def per_language_and_word_view(thresholds: int) -> int:
    """Figures of the capture (2 layers × 2 heads; cross and encoder) for one word view and one language, counted
    by hand: each map's head choices (alignment or rollout, 4 heads, 2 layers, all) × its views, a weakest-link view
    once per threshold, a grid once (the encoder's rollout has its own)."""
    choices = 1 + 4 + 2 + 1
    cross = choices * thresholds + choices + 1  # alignment per threshold, heatmap, grid
    encoder = choices + choices * thresholds + 2  # heatmap, lines per threshold, grid and the rollout's grid
    return cross + encoder


def test_the_plan_holds_each_distinct_figure_once(capture):
    planned = ef.plan(capture, {}, ef.ExplorerContent().checked())
    assert len(planned) == 4 * per_language_and_word_view(5)
    assert len({choice.key() for choice in planned}) == len(planned)
    fewer = ef.ExplorerContent(words=(True,), langs=("zh",), thresholds=(0.3,), kinds=("cross",)).checked()
    assert len(ef.plan(capture, {}, fewer)) == 8 + 8 + 1


def options_of(choice: ef.Choice) -> viewing.ViewOptions:
    """The options a page would hold for `choice`, fields the figure ignores set to values of their own."""
    return viewing.ViewOptions(
        kind=choice.kind,
        aggregation=choice.aggregation or "layer",
        layer=1 if choice.layer is None else choice.layer,
        head=1 if choice.head is None else choice.head,
        words=choice.words,
        threshold=0.25 if choice.threshold is None else choice.threshold,
        lang=choice.lang,
    )


def test_every_figure_is_the_figure_the_pages_draw_for_its_choice(capture, made):
    _, payload = made
    planned = ef.plan(capture, {}, SMALL.checked())
    assert set(payload["figures"]) == {choice.key() for choice in planned}
    for choice in planned:
        expected = selection.show(capture, options_of(choice), ((1, 0),), (choice.view,)).figures[choice.view]
        assert ef.resolved(payload, choice.key()) == json.loads(pio.to_json(expected)), choice


def test_repeated_parts_are_stored_once_and_read_back_exactly():
    shared = {"x": list(range(30)), "name": "早上好" * 10}
    figures = {"a": {"data": [shared, {"y": 1}], "layout": shared}, "b": {"data": [shared], "layout": {"t": "x"}}}
    payload = ef.shared_nodes(figures)
    assert ef.resolved(payload, "a") == figures["a"] and ef.resolved(payload, "b") == figures["b"]
    texts = [json.dumps(node, ensure_ascii=False) for node in payload["nodes"]]
    assert sum("早上好早上好" in text for text in texts) == 1  # the shared dict, once
    with pytest.raises(InputError):
        ef.shared_nodes({"a": {ef.REF: 1}})


def test_the_page_loads_nothing_and_opens_on_the_apps_default_view(capture, made):
    chinese = ef.ExplorerContent(words=(True,), langs=("zh",), thresholds=(0.3,), kinds=("encoder",))
    page = ef.explorer_file(capture, ((1, 0),), content=chinese, lang="zh").data.decode("utf-8")
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page)
    assert "<link" not in page and "@import" not in page
    info, _ = made
    assert info["default"] == {
        "lang": "en",
        "measure": "weights",
        "kind": "cross",
        "view": "alignment",
        "aggregation": "alignment",
        "layer": 0,
        "head": 0,
        "words": True,
        "threshold": 0.3,
    }
    assert info["menu"]["weights"]["encoder"]["aggregations"] == list(viewing.SELF_AGGREGATIONS)
    assert '<html lang="zh-CN">' in page and "attnviz 注意力浏览文件" in page


def test_a_file_too_large_is_refused_naming_what_to_leave_out(capture, monkeypatch):
    content = ef.ExplorerContent().checked()
    monkeypatch.setattr(ef, "MAX_FIGURES", 60)
    with pytest.raises(ResourceLimitError) as refused:
        ef.explorer_file(capture, ((1, 0),), content=content)
    english = refused.value.message("en")
    assert f"would hold {4 * per_language_and_word_view(5)} figures, more than the 60 it may" in english
    # each step the drop that removes most, until the plan fits: counted by hand (cross alone: 8 + 8 + 1 a view)
    one_threshold = 4 * per_language_and_word_view(1)
    steps = [
        f"all weakest links but one ({one_threshold} figures)",
        f"every map but the first ({4 * 17} figures)",
        f"the subword view ({2 * 17} figures without it)",
    ]
    assert english.endswith("leave out " + ", then ".join(steps) + ".")
    chinese = refused.value.message("zh")
    assert (
        "只保留一个最弱连线阈值（140 张图），再去掉除第一张以外的注意力图（68 张图），再去掉子词视图（去掉后 34 张图）"
        in chinese
    )


def test_a_file_over_its_size_limit_is_refused_with_its_size(capture, monkeypatch):
    monkeypatch.setattr(ef, "MAX_FILE_MB", 0.5)  # less than plotly.js alone: no drop is enough
    content = ef.ExplorerContent(words=(True,), langs=("en",), thresholds=(0.3,), kinds=("encoder",))
    with pytest.raises(ResourceLimitError) as refused:
        ef.explorer_file(capture, ((1, 0),), content=content)
    said = refused.value.message("en")
    assert re.search(r"would take \d+\.\d MB, more than the 0.5 MB it may; leave out a shorter text\.$", said)
    monkeypatch.setattr(ef, "MAX_FILE_MB", 2.0)  # plotly.js and a few figures: the encoder's map alone fits
    with pytest.raises(ResourceLimitError) as refused:
        ef.explorer_file(capture, ((1, 0),), content=ef.ExplorerContent(thresholds=(0.3,)))
    assert "every map but the first" in refused.value.message("en")


@pytest.mark.parametrize(
    "content",
    [
        ef.ExplorerContent(thresholds=(0.0,)),
        ef.ExplorerContent(langs=("fr",)),
        ef.ExplorerContent(measures=("saliency",)),
        ef.ExplorerContent(words=()),
    ],
)
def test_a_choice_the_file_cannot_hold_is_said(content):
    with pytest.raises(InputError):
        content.checked()
