"""Gold links on the Translate & align page (AppTest): the field, the scores in one line, the verdicts drawn on the
alignment, the layer × head AER map, and a link that cannot be read said as a sentence."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from attnviz.attention.capture import capture
from attnviz.corpus.gold import Gold
from attnviz.corpus.pair import head_scores, view_scores
from attnviz.corpus.view import pair_words
from attnviz.figures.common import format_value
from attnviz.maps import analysis, word_merge
from attnviz.measuring import measured
from attnviz.model.load import load_model

APP = str(Path(__file__).resolve().parents[2] / "app_pages" / "main.py")
PAIR = {"model": "demo-zh-en", "text": "早上好！", "target": "Good morning!", "mode": "pair"}


def open_app(**params) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=180)
    for name, value in params.items():
        at.query_params[name] = str(value)
    return at.run()


def charts(at: AppTest) -> dict[str, dict]:
    specs = [json.loads(element.proto.spec) for element in at.get("plotly_chart")]
    return {spec["layout"]["meta"]["view"]: spec for spec in specs if "meta" in spec["layout"]}


def test_gold_links_score_the_view_and_draw_found_missed_and_extra():
    at = open_app(**PAIR, gold="0-0 1-1 2-2", view="head", layer=2, head=0)
    assert not at.exception and not at.error
    line = next(m.value for m in at.markdown if "precision" in m.value)
    assert "AER" in line and "found" in line
    drawn = charts(at)
    verdicts = [t for t in drawn["alignment"]["data"] if t.get("legendgroup") == "gold"]
    assert [t["meta"]["verdict"] for t in verdicts] == ["found", "missed", "extra"]
    found, missed, extra = (t["meta"]["links"] for t in verdicts)
    assert found + missed == 3  # every sure link is found or missed
    assert "title" not in drawn["alignment"]["layout"]["legend"]  # one model's links: no both-directions title
    assert "score_grid" in drawn
    assert at.query_params["gold"] == "0-0 1-1 2-2"  # the gold links live in the link


def test_the_head_map_is_the_per_head_aer_of_the_pair():
    at = open_app(**PAIR, gold="0-0 1-1 2-2")
    grid = charts(at)["score_grid"]
    handle = load_model("demo-zh-en", "cpu")
    result = capture(handle, "早上好！", "Good morning!")
    expected = head_scores(result["cross"], pair_words(result), Gold.parse("0-0 1-1 2-2"), 0.1).aer
    heatmap, cells = grid["data"]
    assert cells["mode"] == "markers" and len(cells["x"]) == expected.size  # a clickable marker on every cell
    assert heatmap["text"] == [[format_value(v) for v in row] for row in expected]  # the values written in


def click_point(at: AppTest, view: str, x: int, y: int) -> None:
    """Run the app as a click on the point (x, y) of the chart whose figure is `view` makes the browser run it."""
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    chart = next(
        c for c in at.get("plotly_chart") if json.loads(c.proto.spec)["layout"].get("meta", {}).get("view") == view
    )
    states = at._tree.get_widget_states()
    point = {"x": x, "y": y, "curve_number": 1, "point_number": 0, "point_index": 0}
    selection = {"selection": {"points": [point], "point_indices": [0], "box": [], "lasso": []}}
    states.widgets.append(WidgetState(id=chart.proto.id, string_value=json.dumps(selection)))
    at._run(widget_state=states)


def test_clicking_a_cell_opens_that_head():
    at = open_app(**PAIR, gold="0-0 1-1 2-2")
    click_point(at, "score_grid", x=3, y=1)
    assert not at.exception and not at.error
    assert at.selectbox(key="w_cross_aggregation").value == "head"
    assert (at.selectbox(key="w_layer").value, at.selectbox(key="w_head").value) == (1, 3)
    assert "layer 1 · head 3" in charts(at)["heatmap"]["layout"]["title"]["text"]


@pytest.mark.parametrize("gold, key", [("0-0 1:1", "Pharaoh"), ("0-0 9-1", "outside")])
def test_a_gold_link_that_cannot_be_used_is_a_sentence_and_the_figures_stay(gold, key):
    at = open_app(**PAIR, gold=gold)
    assert not at.exception and not at.error
    assert any(key in w.value for w in at.warning)
    assert "alignment" in charts(at) and "score_grid" not in charts(at)


def test_the_gold_line_speaks_chinese():
    at = open_app(**PAIR, gold="0-0 1-1 2-2", lang="zh")
    assert any("精确率" in m.value for m in at.markdown)


def _head_links(cross, words, layer: int, head: int):
    from attnviz.corpus import links

    return links.links_of(links.link_mask(words.word_weights(cross)[layer, head], 0.1))


def test_a_reverse_model_keeps_only_the_links_both_directions_find():
    from attnviz.corpus import links
    from attnviz.corpus.gold import Counts
    from attnviz.corpus.pair import PairWords
    from attnviz.view import head_choice

    gold_text = "0-0 1-1 2-2"
    at = open_app(**PAIR, gold=gold_text, view="head", layer=2, head=0, gold_reverse="demo-en-zh")
    assert not at.exception and not at.error and not at.warning
    assert at.selectbox(key="w_gold_reverse").value == "demo-en-zh"
    forward = capture(load_model("demo-zh-en", "cpu"), "早上好！", "Good morning!")
    words = pair_words(forward)
    there = _head_links(forward["cross"], words, 2, 0)
    reverse = load_model("demo-en-zh", "cpu")
    back_cross = capture(reverse, "Good morning!", "早上好！")["cross"]
    back_words = PairWords(words.target, words.source)
    heads = head_choice.alignment_pairs(reverse.alignment_heads, back_cross.num_layers, back_cross.num_heads)
    back_weights = back_words.word_weights(back_cross)[[h[0] for h in heads], [h[1] for h in heads]].mean(axis=0)
    both = links.intersect(there, links.links_of(links.link_mask(back_weights, 0.1)))
    expected = Counts.of(both, Gold.parse(gold_text)).scores()
    line = next(m.value for m in at.markdown if "precision" in m.value)
    assert f"AER {format_value(expected.aer)}" in line and f"recall {format_value(expected.recall)}" in line
    assert any("reading the pair the other way" in c.value for c in at.caption)
    verdicts = [t for t in charts(at)["alignment"]["data"] if t.get("legendgroup") == "gold"]
    drawn = {t["meta"]["verdict"]: t["meta"]["links"] for t in verdicts}
    assert drawn.get("found", 0) + drawn.get("extra", 0) == len(both)  # what is drawn is the intersection
    legend = charts(at)["alignment"]["layout"]["legend"]
    assert legend["title"]["text"] == "Links both directions find:"  # the legend says what its lines are
    assert at.query_params["gold_reverse"] == "demo-en-zh"


def test_no_reverse_model_is_the_default_and_the_choice_lists_the_other_translator():
    at = open_app(**PAIR, gold="0-0 1-1 2-2")
    from attnviz import i18n

    choice = at.selectbox(key="w_gold_reverse")  # AppTest lists the options as they are labelled
    assert choice.value == "" and i18n.t("model_demo-en-zh", "en") in choice.options
    assert i18n.t("model_demo-zh-en", "en") not in choice.options
    assert not any("reading the pair the other way" in c.value for c in at.caption)


def test_a_reverse_model_that_cannot_read_the_pair_is_a_sentence_and_the_links_are_scored_one_way(monkeypatch):
    import app_pages.translate.gold_panel
    from attnviz.errors import InputError

    def refuses(*args):
        raise InputError("corpus_reverse_failed", model="demo-en-zh")

    monkeypatch.setattr(app_pages.translate.gold_panel, "reverse_view", refuses)
    at = open_app(**PAIR, gold="0-0 1-1 2-2", gold_reverse="demo-en-zh")
    assert not at.exception and not at.error
    assert any("could not read this pair" in w.value for w in at.warning)
    assert any("precision" in m.value for m in at.markdown)  # still scored, one way
    assert not any("reading the pair the other way" in c.value for c in at.caption)


def test_a_reverse_model_the_page_does_not_offer_is_not_used():
    at = open_app(**PAIR, gold="0-0 1-1 2-2", gold_reverse="no-such-model")
    assert not at.exception and not at.error and not at.warning
    assert at.selectbox(key="w_gold_reverse").value == ""
    assert any("precision" in m.value for m in at.markdown)


def test_a_pair_typed_as_space_separated_words_is_read_joined_and_its_links_index_those_words():
    words = {"text": "爷爷 和 奶奶 身体 都 很 好 。", "target": "Grandpa and grandma are both healthy ."}
    gold = "0-0 1-1 2-2 3-5 4-4 5?3 6-5 7-6"
    at = open_app(**PAIR | words, gold=gold, segmented=1)
    assert not at.exception and not at.error and at.checkbox(key="w_segmented").value
    assert any("爷爷 · 和 · 奶奶 · 身体" in c.value for c in at.caption)  # the user's words, not the word merge's
    alignment = charts(at)["alignment"]  # … and the diagram's nodes are those words, the ones the links index
    drawn = [t for t in alignment["data"] if t.get("mode") == "markers+text"]
    sources = next(t["text"] for t in drawn if "爷爷" in "".join(t["text"]) or "爷" in "".join(t["text"]))
    assert "爷爷" in sources and "奶奶" in sources and "身体" in sources
    # that the model read them joined, scored as the corpus job scores them: test_app_corpus (a pair opens …)
    assert at.query_params["segmented"] == "1"
    at.checkbox(key="w_segmented").uncheck().run()  # the same links now index the word merge's words
    assert not at.exception and not any("爷爷 · 和 · 奶奶" in c.value for c in at.caption)


def test_the_charts_png_is_the_download_buttons_not_the_modebars_screen_pixels():
    at = open_app(**PAIR)
    configs = [json.loads(chart.proto.config) for chart in at.get("plotly_chart")]
    assert configs and all(config["modeBarButtonsToRemove"] == ["toImage"] for config in configs)
    assert any(button.label == "PNG" for button in at.get("download_button"))


def test_a_reverse_model_that_does_not_read_the_pairs_target_is_not_offered():
    from attnviz import i18n

    english = {"model": "demo-en-zh", "text": "Good morning!", "mode": "pair", "gold": "0-0"}
    offered = open_app(**english, target="早上好！").selectbox(key="w_gold_reverse").options
    assert i18n.t("model_demo-zh-en", "en") in offered  # it reads the Chinese target
    at_options = open_app(**english, target="Good morning!").selectbox(key="w_gold_reverse").options
    assert i18n.t("model_demo-zh-en", "en") not in at_options  # an English target: it reads none of it


def test_space_separated_words_are_counted_as_read_and_toggling_them_keeps_the_replay_whole():
    words = {"model": "demo-en-zh", "text": "I love you , my dear friend .", "target": "我 爱 你 ， 亲爱 的 朋友 。"}
    at = open_app(**PAIR | words, gold="0-0 1-1 2-2", segmented=1)
    assert not at.exception and not any("Kept" in w.value for w in at.warning)  # nothing was cut
    words = {
        "text": "他 普通话 说 得 很 流利 。",
        "target": "He speaks Mandarin fluently .",
    }  # 5 steps joined, 6 spaced
    at = open_app(**PAIR | words, gold="0-0 1-2 2-1 3?3 4?3 5-3 6-4", segmented=1)
    at.checkbox(key="w_segmented").uncheck().run()
    assert not at.exception and "step" not in at.query_params  # the whole translation, not a step of it
    slider = at.slider(key="w_step")
    assert slider.value == slider.max


def test_a_reverse_model_that_does_not_write_the_pairs_source_is_not_offered():
    offered = open_app(**PAIR, gold="0-0").selectbox(key="w_gold_reverse").options  # 早上好！ → Good morning!
    hub_ids = {label.split(" — ")[0] for label in offered if " — " in label}
    assert {"Helsinki-NLP/opus-mt-en-zh", "facebook/nllb-200-distilled-600M"} <= hub_ids  # read English, write Chinese
    assert "google-t5/t5-small" not in hub_ids  # reads English, writes German, French and Romanian


def test_once_the_model_has_written_its_translation_the_reverse_choice_reads_it():
    from attnviz import i18n

    at = open_app(model="demo-en-zh", text="Good morning!", mode="generate", gold="0-0")
    at.run()  # the translation written, the choice is drawn again with it
    assert not at.exception and i18n.t("model_demo-zh-en", "en") in at.selectbox(key="w_gold_reverse").options


def test_a_link_on_a_word_without_a_token_of_its_own_is_counted_in_the_legend_as_not_drawn():
    at = open_app(**PAIR | {"text": "早 上 好 ！", "target": "Good morning !"}, segmented=1, gold="0-1 1-1 2-0 3-2")
    assert not at.exception and not at.error
    line = next(m.value for m in at.markdown if "precision" in m.value)
    missed = int(re.search(r"(\d+) missed", line).group(1))
    legend = next(t for t in charts(at)["alignment"]["data"] if t.get("meta", {}).get("verdict") == "missed")
    drawn = legend["meta"]["links"]
    assert missed > drawn and f"{missed - drawn} not drawn" in legend["name"]  # the line's count, said in the legend


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_gold_links_typed_for_one_pair_are_not_scored_against_the_next(lang):
    at = open_app(**PAIR, gold="0-0 1-1 2-2", lang=lang)
    assert any(("precision" in m.value) or ("精确率" in m.value) for m in at.markdown)
    assert at.query_params["gold_pair"]  # the link says which pair its links index
    at.text_input(key="w_text").input("晚上好！").run()  # another sentence: the links are another pair's now
    assert not at.exception and not at.error
    assert not any("AER" in m.value for m in at.markdown)  # not scored against the new pair
    assert "score_grid" not in charts(at)
    assert at.warning and ("another pair" in at.warning[0].value or "另一对" in at.warning[0].value)
    at.button(key="gold_keep").click().run()  # the person says they belong to this pair: scored again
    assert any("AER" in m.value for m in at.markdown) and not [w for w in at.warning if "pair" in w.value]
    at.text_input(key="w_text").input("早上好！").run()
    at.button(key="gold_clear").click().run()
    assert at.text_input(key="w_gold").value == "" and "gold" not in at.query_params


def test_a_link_with_gold_links_and_no_pair_named_scores_them_against_its_own_pair():
    at = open_app(**PAIR, gold="0-0 1-1")  # links shared before links named their pair
    assert any("AER" in m.value for m in at.markdown) and not at.warning


def test_an_en_zh_target_read_a_character_at_a_time_shows_words_and_its_links_index_them():
    pair = {"model": "demo-en-zh", "text": "I missed the last bus.", "target": "我错过了最后一辆公车。", "mode": "pair"}
    at = open_app(**pair, words=1, hide=1, gold="1-1 3-3 4-5")
    assert not at.exception and not at.error and not at.warning
    result = capture(load_model("demo-en-zh", "cpu"), pair["text"], pair["target"])
    assert [t.text for t in result["cross"].query_tokens][:3] == ["我", "错", "过"]  # the model reads characters
    expected = word_merge.merge_words(analysis.hide_tokens(result["cross"]), pair["target"], pair["text"])
    heatmap = charts(at)["heatmap"]
    rows = [html.unescape(label) for label in heatmap["layout"]["yaxis"]["ticktext"]]
    assert rows == [t.text for t in expected.query_tokens]
    assert {"错过", "最后", "公车"} <= set(rows)  # several characters to a word
    assert list(pair_words(result).target.words) == rows  # the words the gold links index are the rows shown
    nodes = [t for t in charts(at)["alignment"]["data"] if t.get("mode") == "markers+text"]
    assert any("错过" in t["text"] for t in nodes)
    assert any("precision" in m.value for m in at.markdown)  # 4-5 (bus–公车) is inside the pair


def test_a_zh_en_source_read_partly_a_character_at_a_time_shows_the_segmenters_words():
    pair = {
        "model": "demo-zh-en",
        "text": "妈妈在厨房做饭。",
        "target": "Mom is cooking in the kitchen.",
        "mode": "pair",
    }
    at = open_app(**pair, words=1, hide=1)
    assert not at.exception and not at.error
    result = capture(load_model("demo-zh-en", "cpu"), pair["text"], pair["target"])
    assert {"厨", "房"} <= {t.text for t in result["cross"].key_tokens}  # 厨房 is not one of its pieces
    expected = word_merge.merge_words(analysis.hide_tokens(result["cross"]), pair["target"], pair["text"])
    columns = [html.unescape(label) for label in charts(at)["heatmap"]["layout"]["xaxis"]["ticktext"]]
    assert columns == [t.text for t in expected.key_tokens] and "厨房" in columns
    assert list(pair_words(result).source.words) == columns  # the words gold links index


@pytest.mark.parametrize("measure", ["alti", "value-zeroing"])
def test_a_contributions_map_is_scored_against_the_gold_links_layer_by_layer(measure):

    gold = Gold.parse("0-0 1-1 2-2")
    at = open_app(**PAIR, gold="0-0 1-1 2-2", measure=measure, view="layer", layer=2)
    assert not at.exception and not at.error
    contributions = measured(load_model("demo-zh-en", "cpu"), "早上好！", "Good morning!", measure=measure)
    cross, words = contributions["cross"], pair_words(contributions)
    chosen = {"layers": [2], "heads": [0], "head_reduce": "mean", "layer_reduce": "mean"}
    expected = view_scores(cross, chosen, words, gold, 0.1).scores
    line = next(m.value for m in at.markdown if "precision" in m.value)  # the view's own line, not vanished
    assert f"AER {format_value(expected.aer)}" in line and f"recall {format_value(expected.recall)}" in line
    verdicts = [t for t in charts(at)["alignment"]["data"] if t.get("legendgroup") == "gold"]
    assert [t["meta"]["verdict"] for t in verdicts] == ["found", "missed", "extra"]
    grid = charts(at)["score_grid"]
    per_layer = head_scores(cross, words, gold, 0.1).aer  # (layers, 1): one map per layer
    assert per_layer.shape == (3, 1) and grid["layout"]["meta"]["measure"] == measure
    assert grid["data"][0]["text"] == [[format_value(v) for v in row] for row in per_layer]
    assert "head" not in json.dumps(grid["layout"]["xaxis"])  # its one column is the measure, not "head 0"
    assert any("each layer" in s.value for s in at.subheader)
    click_point(at, "score_grid", x=0, y=1)  # a cell opens its layer
    assert not at.exception and not at.error
    assert at.selectbox(key="w_cross_aggregation").value == "layer" and at.selectbox(key="w_layer").value == 1


def test_a_contributions_map_scored_against_gold_speaks_chinese():
    at = open_app(**PAIR, gold="0-0 1-1 2-2", measure="alti", lang="zh")
    assert not at.exception and not at.error
    assert any("精确率" in m.value for m in at.markdown)
    assert any("每一层" in s.value and "ALTI" in s.value for s in at.subheader)
