"""The lenses on the pages (streamlit AppTest): the logit lens on Self-attention (a decoder-only model) and on
Translate & align (a translator's decoder), DecoderLens on Translate & align, each computed only once its toggle is
on and drawing exactly what the library computes directly (the last layer's top token is the model's own argmax;
the last encoder layer writes the page's translation), in English and 中文; a link with the toggles reopens them; an
encoder (MiniLM) is told in one sentence that it predicts no next token."""

from __future__ import annotations

import base64
import html
import json
import re

import numpy as np
import pytest
import torch
from streamlit.testing.v1 import AppTest

from attnviz import i18n
from attnviz import run as runs
from attnviz.attention.generation import generate
from attnviz.figures.lens import GRID_MARGINS_PX, fitted_label
from attnviz.measures.decoder_lens import decoder_lens
from attnviz.measures.lens_results import reading_labels
from attnviz.measures.logit_lens import logit_lens
from attnviz.model.load import load_model
from attnviz.text.tokens import drawable, shown
from attnviz.view.lenses import LENS_WINDOW, lens_window
from tests.support import needs
from tests.support.app import assert_page_ok, downloads, one_torch_thread, open_by_link  # noqa: F401 (fixtures)

SELF = "page_scripts/self_attention.py"
DECODER_TEXT = "早上好！我喜欢"
TRANSLATIONS = {"demo-zh-en": "早上好！我喜欢学习。", "demo-en-zh": "Good morning! I like studying."}
LENS_CHARTS = ("logit_lens_grid", "logit_lens_lines", "decoder_lens_grid", "decoder_lens_alignment")
TOLERANCE = 1e-6


def _charts(at: AppTest) -> dict[str, dict]:
    """The page's plotly charts by their key (figure_export.chart_key), as plotly JSON."""
    return {
        element.proto.id.rsplit("-chart_", 1)[-1]: json.loads(element.proto.spec) for element in at.get("plotly_chart")
    }


def _array(values) -> np.ndarray:
    """A plotly array as numpy (plotly packs numeric arrays as base64; None is a missing value)."""
    if isinstance(values, dict):
        flat = np.frombuffer(base64.b64decode(values["bdata"]), dtype=np.dtype(values["dtype"]))
        shape = values.get("shape")
        shape = [int(n) for n in shape.split(",")] if isinstance(shape, str) else shape
        return flat.reshape(shape or flat.shape).astype(float)
    return np.array([[np.nan if v is None else v for v in row] if isinstance(row, list) else row for row in values])


def _said(at: AppTest) -> str:
    return " ".join(m.value for m in at.markdown) + " " + " ".join(c.value for c in at.caption)


def _check_logit_lens(at: AppTest, lens, real_argmax: np.ndarray, lang: str) -> None:
    """The grid holds the lens's first choices and their probabilities; its last row is the model's own argmax; the
    lines hold each position's final-token probability across layers."""
    charts = _charts(at)
    grid, lines = charts["logit_lens_grid"], charts["logit_lens_lines"]
    assert grid["layout"]["title"]["text"].startswith(i18n.t("lens_grid_title", lang))
    heatmap = grid["data"][0]
    first, stop = lens_window(len(lens.tokens), 0) or (0, len(lens.tokens))  # the positions drawn at first
    np.testing.assert_allclose(_array(heatmap["z"]), lens.top_probabilities[:, first:stop, 0], atol=TOLERANCE)
    cell = (grid["layout"]["width"] - GRID_MARGINS_PX[0]) / (stop - first)
    expected = [[fitted_label(token, cell) for token in row[first:stop]] for row in lens.top_tokens(0)]
    assert heatmap["text"] == expected
    np.testing.assert_array_equal(lens.top_ids[-1, :, 0], real_argmax)  # the last layer: the model's own output
    assert len(lines["data"]) == stop - first
    for position, trace in enumerate(lines["data"], start=first):
        np.testing.assert_allclose(_array(trace["y"]), lens.final_probabilities[:, position], atol=TOLERANCE)
    said = [
        i18n.t("truth_token_probability", lang, token=drawable(shown(token)), probability=f"{probability:.3f}")
        for token, probability in zip(lens.top_tokens(0)[-1], lens.top_probabilities[-1, :, 0])
    ]
    line = i18n.t("lens_last_line", lang, tokens=i18n.t("truth_list_separator", lang).join(said))
    assert line in [m.value for m in at.markdown]  # the model's own prediction, in words
    assert i18n.t("lens_intro", lang) in _said(at)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_decoder_models_logit_lens_opens_on_its_toggle_and_is_the_librarys(lang):
    at = open_by_link(SELF, timeout=300, model="demo-decoder", text=DECODER_TEXT, lang=lang)
    assert_page_ok(at)
    assert not set(LENS_CHARTS) & set(_charts(at))  # nothing computed before the toggle
    at.toggle(key="w_logit_lens").set_value(True).run()
    assert_page_ok(at)
    assert at.query_params["logit_lens"] == "1"  # part of the link
    handle = load_model("demo-decoder", "cpu")
    read = runs.run_recorded(handle, runs.RunRequest(DECODER_TEXT, "", "generate")).source_text  # with what it wrote
    lens = logit_lens(handle, read)
    with torch.no_grad():
        ids = torch.tensor([handle.tokenizer(read)["input_ids"]])
        real = handle.model(input_ids=ids).logits[0].argmax(-1).numpy()  # (positions,)
    _check_logit_lens(at, lens, real, lang)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_long_logit_lens_is_drawn_a_window_of_positions_at_a_time(lang):
    at = open_by_link(SELF, timeout=300, model="demo-decoder", text=DECODER_TEXT, lang=lang, logit_lens=1)
    assert_page_ok(at)
    handle = load_model("demo-decoder", "cpu")
    read = runs.run_recorded(handle, runs.RunRequest(DECODER_TEXT, "", "generate")).source_text
    lens = logit_lens(handle, read)
    positions = len(lens.tokens)
    assert positions > LENS_WINDOW  # the continuation: more positions than one window
    said = i18n.t("lens_window_line", lang, first=0, last=LENS_WINDOW - 1, positions=positions)
    assert said in _said(at)
    at.slider(key="w_lens_from").set_value(20).run()
    assert_page_ok(at)
    grid = _charts(at)["logit_lens_grid"]
    assert grid["layout"]["xaxis"]["ticktext"][0].endswith("#20") and len(grid["layout"]["xaxis"]["ticktext"]) == 12
    np.testing.assert_allclose(_array(grid["data"][0]["z"]), lens.top_probabilities[:, 20:32, 0], atol=TOLERANCE)
    assert grid["data"][0]["textfont"]["size"] >= 11  # a readable size, never shrunk to the cell
    lines = _charts(at)["logit_lens_lines"]
    assert len(lines["data"]) == LENS_WINDOW and lines["layout"]["height"] >= 22 * LENS_WINDOW
    assert at.query_params["lens_from"] == "20"  # part of the link


@pytest.mark.parametrize(("model", "lang"), [("demo-zh-en", "en"), ("demo-en-zh", "zh")])
def test_a_translators_lenses_open_on_their_toggles_and_are_the_librarys(model, lang):
    text = TRANSLATIONS[model]
    at = open_by_link(None, timeout=300, model=model, text=text, lang=lang)
    assert_page_ok(at)
    assert not set(LENS_CHARTS) & set(_charts(at))
    at.toggle(key="w_logit_lens").set_value(True).run()
    at.toggle(key="w_decoder_lens").set_value(True).run()
    assert_page_ok(at)
    assert (at.query_params["logit_lens"], at.query_params["decoder_lens"]) == ("1", "1")
    handle = load_model(model, "cpu")
    translation = generate(handle, text, max_new_tokens=runs.MAX_NEW_TOKENS).target_text  # what the page shows
    lens = logit_lens(handle, text, target=translation)
    batch = handle.tokenizer(text, text_target=translation)
    with torch.no_grad():
        start = [handle.model.config.decoder_start_token_id]
        inputs = {"input_ids": torch.tensor([batch["input_ids"]])}
        real = handle.model(**inputs, decoder_input_ids=torch.tensor([start + batch["labels"][:-1]])).logits
    _check_logit_lens(at, lens, real[0].argmax(-1).numpy(), lang)
    assert i18n.t("lens_decoder_read", lang, target=translation) in _said(at)

    written = decoder_lens(handle, text, max_new_tokens=runs.MAX_NEW_TOKENS)
    grid = _charts(at)["decoder_lens_grid"]["data"][0]
    steps = max(len(reading.steps) for reading in written.readings)
    expected = np.full((len(written.readings), steps), np.nan)
    for row, reading in enumerate(written.readings):
        expected[row, : len(reading.steps)] = [step.probability for step in reading.steps]
    np.testing.assert_allclose(_array(grid["z"]), expected, atol=TOLERANCE)
    assert written.readings[-1].target_text == translation  # the last encoder layer: the normal translation
    labels = reading_labels(written, i18n.STRINGS[lang])
    assert i18n.t("decoder_lens_last", lang, layer=labels[-1], text=translation) in _said(at)
    for label, reading in zip(labels, written.readings):
        first = reading.steps[0]
        said = i18n.t(
            "truth_token_probability", lang, token=drawable(shown(first.token)), probability=f"{first.probability:.3f}"
        )
        assert any(m.value.startswith(f"**{label}**") and said in m.value for m in at.markdown)
    alignment = _charts(at)["decoder_lens_alignment"]
    assert i18n.t("decoder_lens_reading", lang, layer=labels[-1]) in alignment["layout"]["title"]["text"]


def test_a_link_with_the_lenses_reopens_them_and_a_reading_is_aligned_on_choice(downloads):
    at = open_by_link(None, timeout=300, model="demo-zh-en", text="早上好！", logit_lens=1, decoder_lens=1, lang="zh")
    assert_page_ok(at)
    assert {"logit_lens_grid", "logit_lens_lines", "decoder_lens_grid", "decoder_lens_alignment"} <= set(_charts(at))
    for name in ("logit-lens", "logit-lens-lines", "decoder-lens", "decoder-lens-after-L2-alignment"):
        made = {
            fmt: [file for file in downloads if file.startswith(f"{name}_") and file.endswith(f".{fmt}")]
            for fmt in ("png", "svg", "pdf", "html")
        }
        assert all(len(files) == 1 for files in made.values()), (name, made)  # exportable like every figure
    (page,) = [file for file in downloads if file.startswith("logit-lens_") and file.endswith(".html")]
    made = downloads[page]().decode("utf-8")  # made on click, with the lens's provenance
    assert 'name="attnviz-provenance"' in made and "&quot;mode&quot;:&quot;logit-lens&quot;" in made
    assert "decoder_lens_layer" not in at.query_params  # the last layer's writing: the default
    at.selectbox(key="w_decoder_lens_layer").set_value(0).run()  # the embeddings' writing
    assert_page_ok(at)
    assert at.query_params["decoder_lens_layer"] == "0"  # part of the link
    embeddings = i18n.t("decoder_lens_reading", "zh", layer=i18n.t("lens_layer_embeddings", "zh"))
    assert embeddings in _charts(at)["decoder_lens_alignment"]["layout"]["title"]["text"]
    at = open_by_link(
        None, timeout=300, model="demo-zh-en", text="早上好！", decoder_lens=1, decoder_lens_layer=0, lang="zh"
    )
    assert_page_ok(at)  # the link reopens the reading chosen
    assert at.selectbox(key="w_decoder_lens_layer").value == 0
    assert embeddings in _charts(at)["decoder_lens_alignment"]["layout"]["title"]["text"]
    at = open_by_link(None, timeout=300, model="demo-zh-en", text="早上好！", decoder_lens=1, decoder_lens_layer=9)
    assert_page_ok(at)  # a layer the translator lacks (a deeper model's link): the last
    last = i18n.t("decoder_lens_reading", "en", layer=i18n.t("lens_layer_number", "en", layer=2))
    assert last in _charts(at)["decoder_lens_alignment"]["layout"]["title"]["text"]
    assert "decoder_lens_layer" not in at.query_params
    at = open_by_link(SELF, timeout=300, model="demo-decoder", text=DECODER_TEXT, logit_lens=1)
    assert_page_ok(at)
    assert {"logit_lens_grid", "logit_lens_lines"} <= set(_charts(at))
    assert at.toggle(key="w_logit_lens").value is True


def test_the_decoder_lens_alignment_draws_attention_weights_when_the_page_shows_a_measure(downloads):
    # the page's measure (ALTI) is for its own maps: the lens's readings hold attention weights
    at = open_by_link(None, timeout=300, model="demo-zh-en", text="早上好！", measure="alti", decoder_lens=1)
    assert_page_ok(at)
    alignment = _charts(at)["decoder_lens_alignment"]
    written = decoder_lens(load_model("demo-zh-en", "cpu"), "早上好！", max_new_tokens=runs.MAX_NEW_TOKENS)
    label = reading_labels(written, i18n.STRINGS["en"])[-1]
    assert i18n.t("decoder_lens_reading", "en", layer=label) in alignment["layout"]["title"]["text"]
    (page,) = [file for file in downloads if file.startswith("decoder-lens-after-L") and file.endswith(".html")]
    made = downloads[page]().decode("utf-8")
    (meta,) = re.findall(r'name="attnviz-provenance" content="([^"]*)"', made)
    recorded = json.loads(html.unescape(meta))["view"]["options"]
    assert (recorded["aggregation"], recorded["weighting"]) == ("alignment", "weights")
    assert "measure" not in recorded  # the file says what it shows: weights, no measure


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_minilm_is_told_in_one_sentence_that_it_predicts_no_next_token(lang):
    needs.minilm()
    at = open_by_link(SELF, timeout=300, model="minilm", text="the cat sat on the mat", logit_lens=1, lang=lang)
    assert_page_ok(at)
    sentence = i18n.t("error.lens_no_next_token", lang, model="minilm")
    assert [caption.value for caption in at.caption if caption.value == sentence] == [sentence]
    assert not at.info and not at.error  # a property of the model, not a fault of the input
    assert not [toggle for toggle in at.toggle if toggle.key == "w_logit_lens"]
    assert not {"logit_lens_grid", "logit_lens_lines"} & set(_charts(at))
