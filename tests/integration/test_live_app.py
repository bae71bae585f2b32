""" "Watch it write" through AppTest, on Translate & align (cross-attention rows, then each written token's ALTI+
shares) and on Self-attention for a decoder-only model (self-attention rows): the click writes live and ends on the
page's normal generate view, the same figures and lines as without the click; the words follow the page's language."""

from __future__ import annotations

import json

import numpy as np
import pytest
import streamlit as st

from app_pages.shared import live
from app_pages.translate import live_panel
from attnviz import i18n
from attnviz.errors import InputError
from attnviz.figures.live import step_row
from attnviz.measures import block_parts
from attnviz.measures.alti import alti
from attnviz.model.catalogue import model_name
from attnviz.model.load import load_model
from attnviz.run import RunRequest, run_recorded
from tests.support.app import assert_page_ok, one_torch_thread, open_app  # noqa: F401  (the fixture)
from tests.support.figure_reading import plotly_array


@pytest.fixture(scope="module")
def tiny(tiny_folder) -> str:
    return tiny_folder("marian")


def page(at, lang: str = "en") -> dict:
    """What the page shows: its lines, captions and figures (plotly JSON), without the ALTI+ shares the live
    writing leaves under it once it has ended (`shares_shown`)."""
    note = i18n.t("live_shares_note", lang)
    return {
        "markdown": [m.value for m in at.markdown],
        "caption": [c.value for c in at.caption if c.value != note],
        "charts": [json.loads(c.proto.spec) for c in at.get("plotly_chart") if live_panel.SHARES not in c.proto.id],
    }


def shares_shown(at) -> list[dict]:
    """The figures of the ALTI+ shares under the live writing (plotly JSON)."""
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart") if live_panel.SHARES in c.proto.id]


class Drawn(list):
    """The figures drawn, and the recording function (`stop`) whose `stop_after` the test sets."""


@pytest.fixture
def drawn(monkeypatch):
    """The live figures the page drew, as (step token, figure); `drawn.stop_after` sets the Stop flag after that many."""
    made = Drawn()

    def recording(*args, **kwargs):
        figure = step_row(*args, **kwargs)
        made.append((args[2], figure))
        if len(made) == getattr(recording, "stop_after", None):
            st.session_state[live.STOP] = True  # what the Stop button's callback does
        return figure

    monkeypatch.setattr(live, "step_row", recording)
    made.stop = recording
    return made


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_watching_it_write_ends_on_the_normal_generate_view(tiny, lang, drawn):
    at = open_app(model=tiny, text="早上好！", words=0, hide=0, lang=lang)  # generate is the default mode
    assert_page_ok(at)
    normal = page(at)
    steps = at.slider(key="w_step").value  # one replay step per written token
    button = at.button(key="live_watch")
    assert button.label == i18n.t("live_watch", lang)
    button.click().run()
    assert_page_ok(at)
    assert len(drawn) == steps  # every token was drawn as it was written
    axis = i18n.t("live_figure_axis_cross", lang)
    assert all(f.layout.yaxis.title.text == axis for _, f in drawn)  # in the page language
    assert page(at, lang) == normal  # the live placeholders are cleared: what stays is the replay view
    assert normal["charts"] and not any(c["layout"]["meta"]["view"] == "live_step" for c in normal["charts"])
    assert not shares_shown(open_app(model=tiny, text="早上好！", words=0, hide=0, lang=lang))  # only after writing


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_shares_after_the_writing_are_alti_plus_of_the_finished_translation(tiny, lang, drawn):
    """The ALTI+ shares drawn under the live writing, once it has ended, are the library's ALTI+ shares computed
    directly on the finished capture (its source and written text read back), one bar pair per target token."""
    at = open_app(model=tiny, text="早上好！", words=0, hide=0, lang=lang)
    at.button(key="live_watch").click().run()
    assert_page_ok(at)
    assert i18n.t("live_shares_note", lang) in [c.value for c in at.caption]
    (figure,) = shares_shown(at)
    handle = load_model(tiny, "cpu")
    finished = run_recorded(handle, RunRequest("早上好！", None, "generate"))
    expected = alti(handle, finished.source_text, finished.target_text).shares
    source, target = (plotly_array(bar["y"]) for bar in figure["data"])
    np.testing.assert_allclose(source, expected.source_share, rtol=0, atol=1e-7)
    np.testing.assert_allclose(target, expected.target_share, rtol=0, atol=1e-7)
    np.testing.assert_allclose(source + target, 1.0, atol=1e-5)
    assert len(source) >= len(drawn)  # a bar pair for every written token (and the end of the sentence)


def test_stop_ends_the_writing_between_steps(tiny, drawn):
    at = open_app(model=tiny, text="早上好！", words=0, hide=0)
    normal = page(at)
    assert at.slider(key="w_step").value > 1
    drawn.stop.stop_after = 1
    at.button(key="live_watch").click().run()
    assert_page_ok(at)
    assert len(drawn) == 1  # stopped after the first token
    assert page(at) == normal
    assert not shares_shown(at)  # a stopped writing has no finished translation to measure


def test_no_button_for_a_given_pair(tiny):
    at = open_app(model=tiny, text="早上好！", target="Good morning!", mode="pair", words=0, hide=0)
    assert_page_ok(at)
    assert not [b for b in at.button if b.key == "live_watch"]


@pytest.fixture(scope="module", params=["gpt2", "llama"])
def tiny_decoder(request, tiny_folder) -> str:
    return tiny_folder(request.param)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_decoder_writes_live_on_self_attention(tiny_decoder, lang, drawn):
    """Self-attention, decoder-only model: each written token is drawn as it comes with its self-attention row over
    the prompt and what was written before (the rows of the page's own generate capture), then the normal view."""
    at = open_app("self_attention", model=tiny_decoder, text="Hello world", lang=lang)
    assert_page_ok(at)
    normal = page(at, lang)
    button = at.button(key="live_watch")
    assert button.label == i18n.t("live_watch", lang) and button.help == i18n.t("live_watch_help_self", lang)
    button.click().run()
    assert_page_ok(at)
    expected = run_recorded(load_model(tiny_decoder, "cpu"), RunRequest("Hello world", None, "generate"))
    assert len(drawn) == len(expected.steps)
    prompt = len(expected.maps["self"].key_tokens) - len(expected.steps) + 1  # the map holds all but the last token
    for i, ((_, figure), step) in enumerate(zip(drawn, expected.steps)):
        assert figure.layout.yaxis.title.text == i18n.t("live_figure_axis_self", lang)
        assert len(figure.data[0].x) == prompt + i  # the prompt and the tokens written before
        np.testing.assert_allclose(figure.data[0].y, step.self_weights.mean(axis=(0, 1)), rtol=0, atol=0)
    assert page(at, lang) == normal
    assert not shares_shown(at)


def test_no_button_for_a_decoder_reading_a_given_text(tiny_folder):
    at = open_app("self_attention", model=tiny_folder("gpt2"), text="Hello world", mode="pair")
    assert_page_ok(at)
    assert not [b for b in at.button if b.key == "live_watch"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_translator_alti_cannot_decompose_is_told_in_a_sentence(tiny, lang, drawn, monkeypatch):
    """The writing ends as usual; where the shares would be, one sentence in the page's language says why there
    are none (the architecture list without Marian, as for a model attnviz does not know)."""
    monkeypatch.delitem(block_parts.ARCHITECTURES, "marian")
    text = "你好。" if lang == "en" else "谢谢！"  # inputs no other test measured: the measure cache does not hold them
    at = open_app(model=tiny, text=text, words=0, hide=0, lang=lang)
    at.button(key="live_watch").click().run()
    assert_page_ok(at)
    assert drawn and not shares_shown(at)
    said = InputError(
        "alti_architecture", model=model_name(tiny), model_type="marian", supported=", ".join(block_parts.ARCHITECTURES)
    )
    assert said.message(lang) in [c.value for c in at.caption]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_button_while_the_text_is_empty(tiny_folder, lang):
    """An empty text is answered by the page's own sentence in its language; nothing is written, so there is
    nothing to watch."""
    at = open_app("self_attention", model=tiny_folder("gpt2"), text="", lang=lang)
    assert not at.exception
    assert [e.value for e in at.error] and all(i18n.t("error_InputError", lang) in e.value for e in at.error)
    assert not [b for b in at.button if b.key == "live_watch"]


def test_stop_ends_a_decoders_writing_between_steps(tiny_folder, drawn):
    at = open_app("self_attention", model=tiny_folder("gpt2"), text="Hello world")
    normal = page(at)
    drawn.stop.stop_after = 2
    at.button(key="live_watch").click().run()
    assert_page_ok(at)
    assert len(drawn) == 2  # stopped after the second token
    assert page(at) == normal
