"""Truth on the screen through the app (AppTest): unknown tokens labelled as unknown, a text in a language the model
does not read named as such with a button that switches model, and how sure the model was at each step."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.support import needs

APP = str(Path(__file__).resolve().parents[2] / "app_pages" / "main.py")
ENGLISH = "The animal did not cross the street because it was tired."


def open_app(**params) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=180)
    for name, value in params.items():
        at.query_params[name] = str(value)
    at.run()
    return at


def charts(at: AppTest) -> dict[str, dict]:
    specs = [json.loads(element.proto.spec) for element in at.get("plotly_chart")]
    return {spec["layout"]["meta"]["view"]: spec for spec in specs}


def plain(label: str) -> str:
    return html.unescape(re.sub(r"<[^<>]+>", "", label))


def assert_page_ok(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def test_unknown_words_are_labelled_unknown_and_said():
    at = open_app(text="龘龘 早上好！", mode="generate", words=0, hide=0)
    assert_page_ok(at)
    heatmap = charts(at)["heatmap"]
    labels = heatmap["layout"]["xaxis"]["ticktext"]
    assert "龘龘?" in [plain(label) for label in labels]
    unknown = next(label for label in labels if plain(label) == "龘龘?")
    assert "<i>" in unknown and "color" in unknown  # its own style, not the known tokens'
    assert all("<i>" not in label for label in labels if label != unknown)
    assert "unknown to the model" in heatmap["layout"]["title"]["text"]  # the legend line
    assert "unknown to the model" in charts(at)["alignment"]["layout"]["title"]["text"]
    warnings = [w.value for w in at.info]  # the caveats are notes on the page
    assert any("does not know “龘龘”" in w and "Helsinki-NLP/opus-mt-zh-en" in w for w in warnings), warnings


def test_english_into_the_chinese_translator_is_named_and_a_model_offered():
    at = open_app(text=ENGLISH)
    assert_page_ok(at)
    warnings = [w.value for w in at.warning]
    assert any("Latin letters" in w and "demo-zh-en does not read" in w for w in warnings), warnings
    # the model read the sentence as one unknown token: drawn as such, never as "T"
    labels = [plain(label) for label in charts(at)["heatmap"]["layout"]["xaxis"]["ticktext"]]
    assert labels == ["The animal did …?", "."], labels  # shortened, marked "?", the full stop where it is
    switch = at.button(key="w_truth_switch_demo-en-zh")
    switch.click().run()
    assert_page_ok(at)
    assert at.query_params["model"] == "demo-en-zh"
    assert not any("does not read" in w.value for w in at.warning)
    labels = [plain(label) for label in charts(at)["heatmap"]["layout"]["xaxis"]["ticktext"]]
    assert "animal" in labels


def test_the_language_sentence_speaks_chinese_in_the_chinese_ui():
    at = open_app(text=ENGLISH, lang="zh")
    assert_page_ok(at)
    assert any("拉丁字母" in w.value and "demo-zh-en 读不了" in w.value for w in at.warning)
    assert at.button(key="w_truth_switch_demo-en-zh").label == "改用演示翻译模型 英文 → 中文"


def test_step_scores_show_how_sure_the_model_was():
    at = open_app(text="谢谢你的帮助", mode="generate", words=0, hide=0)
    assert_page_ok(at)
    markdown = " ".join(m.value for m in at.markdown)
    assert "with probability" in markdown and "its top choices were" in markdown
    table = at.dataframe[0].value
    assert list(table.columns) == ["Token #", "Token written", "Probability", "Most likely tokens"]
    assert (table["Probability"] > 0).all() and (table["Probability"] <= 1).all()
    at.slider(key="w_step").set_value(1).run()
    assert_page_ok(at)
    first = next(m.value for m in at.markdown if m.value.startswith(f"Token 1 of {len(table)} it wrote:"))
    assert f"probability {table['Probability'][0]:.2f}" in first
    captions = " ".join(c.value for c in at.caption)
    assert "beam search with 5 beams" in captions  # the embedded translators' own decoding, said where scores are


def test_a_token_beam_search_chose_over_the_most_likely_one_is_said_to_be_so():
    at = open_app(model="demo-en-zh", text=ENGLISH, mode="generate", words=0, hide=0)
    assert_page_ok(at)
    table = at.dataframe[0].value
    said = []
    for step in range(1, len(table) + 1):
        at.slider(key="w_step").set_value(step).run()
        line = next(m.value for m in at.markdown if m.value.startswith(f"Token {step} of {len(table)} it wrote:"))
        top = float(table["Most likely tokens"][step - 1].split(", ")[0].rsplit(" ", 1)[1])
        said.append("beam search chose it" in line)
        written = table["Probability"][step - 1]  # 3 decimals; the alternatives show 2
        assert written <= top + 0.005 if said[-1] else written >= top - 0.005  # said only where it was not the top
    assert any(said)  # on this sentence beam search writes a token that was not its step's most likely one


def test_step_scores_say_beam_search_in_the_chinese_ui():
    at = open_app(text="谢谢你的帮助", mode="generate", words=0, hide=0, lang="zh")
    assert_page_ok(at)
    assert "束搜索（5 束）" in " ".join(c.value for c in at.caption)


def test_seed_example_has_no_warning():
    at = open_app()  # 早上好！ → Good morning!
    assert_page_ok(at)
    assert not at.warning and not at.info
    labels = [plain(label) for label in charts(at)["heatmap"]["layout"]["xaxis"]["ticktext"]]
    assert "".join(labels) == "早上好！"


def test_chinese_into_minilm_is_named_on_the_self_attention_page():
    needs.minilm()
    at = open_app(model="minilm", text="我喜欢学习")
    at.switch_page("page_scripts/self_attention.py").run()
    assert_page_ok(at)
    assert any("Chinese characters, which minilm does not read" in w.value for w in at.warning)
    assert at.button(key="w_truth_switch_demo-zh-en").label == "Use Demo translator Chinese → English"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_replay_and_its_lines_each_say_what_they_count(lang):
    at = open_app(text="谢谢你的帮助", mode="generate", lang=lang)  # the word view: the replay counts words
    assert_page_ok(at)
    slider = at.slider(key="w_step")
    assert slider.label == ("回放：已写出的目标词" if lang == "zh" else "Replay: target words written so far")
    slider.set_value(1).run()
    said = " ".join(m.value for m in at.markdown)
    assert ("第 1 个词（共" in said) if lang == "zh" else ("Word 1 of" in said)  # not "Step 1 of" beside "Token #2"
    assert ("写出的第" in said and "个词元（共" in said) if lang == "zh" else (" it wrote: " in said)
