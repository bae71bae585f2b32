"""Translate & align's "Watch it write" through AppTest: the click writes live and ends on the page's normal
generate view, the same figures and lines as without the click; the words follow the page's language."""

from __future__ import annotations

import json

import pytest
import streamlit as st

from app_pages.translate import live_panel
from attnviz import i18n
from attnviz.figures.live import step_row
from tests.support.app import assert_page_ok, one_torch_thread, open_app  # noqa: F401  (the fixture)


@pytest.fixture(scope="module")
def tiny(tiny_folder) -> str:
    return tiny_folder("marian")


def page(at) -> dict:
    """What the page shows: its lines, captions and figures (plotly JSON)."""
    return {
        "markdown": [m.value for m in at.markdown],
        "caption": [c.value for c in at.caption],
        "charts": [json.loads(c.proto.spec) for c in at.get("plotly_chart")],
    }


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
            st.session_state[live_panel.STOP] = True  # what the Stop button's callback does
        return figure

    monkeypatch.setattr(live_panel, "step_row", recording)
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
    assert all(f.layout.yaxis.title.text == i18n.t("live_figure_axis", lang) for _, f in drawn)  # in the page language
    assert page(at) == normal  # the live placeholders are cleared: what stays is the replay view
    assert normal["charts"] and not any(c["layout"]["meta"]["view"] == "live_step" for c in normal["charts"])


def test_stop_ends_the_writing_between_steps(tiny, drawn):
    at = open_app(model=tiny, text="早上好！", words=0, hide=0)
    normal = page(at)
    assert at.slider(key="w_step").value > 1
    drawn.stop.stop_after = 1
    at.button(key="live_watch").click().run()
    assert_page_ok(at)
    assert len(drawn) == 1  # stopped after the first token
    assert page(at) == normal


def test_no_button_for_a_given_pair(tiny):
    at = open_app(model=tiny, text="早上好！", target="Good morning!", mode="pair", words=0, hide=0)
    assert_page_ok(at)
    assert not [b for b in at.button if b.key == "live_watch"]
