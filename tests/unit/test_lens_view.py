"""The lenses' view state and choice: the toggles round-trip through a page's link (Translate carries both, Self-
attention the logit lens only; off is the default and leaves the link), and which lens applies to which kind of model
(`attnviz.lens.lenses_for`)."""

from __future__ import annotations

import pytest

from app_pages.shared import state as app_state
from attnviz.lens import DECODER_LENS, LOGIT_LENS, lenses_for


@pytest.mark.parametrize(("page", "carried"), [("translate", {"logit_lens", "decoder_lens"}), ("self", {"logit_lens"})])
def test_a_link_with_the_lens_toggles_reopens_them(page, carried):
    shown = app_state.ViewState(logit_lens=True, decoder_lens=True)
    link = app_state.to_query_params(shown, page)
    assert {name for name in ("logit_lens", "decoder_lens") if name in link} == carried
    assert all(link[name] == "1" for name in carried)
    restored, unreadable = app_state.from_query_params(link)
    assert unreadable == []
    assert {name: getattr(restored, name) for name in carried} == dict.fromkeys(carried, True)


def test_the_lenses_are_off_by_default_and_stay_out_of_the_link():
    default = app_state.ViewState()
    assert (default.logit_lens, default.decoder_lens) == (False, False)
    link = app_state.to_query_params(default, "translate")
    assert "logit_lens" not in link and "decoder_lens" not in link
    restored, unreadable = app_state.from_query_params({"logit_lens": "maybe"})
    assert unreadable == ["logit_lens"] and restored.logit_lens is False


def test_each_kind_of_model_gets_the_lenses_it_can_show():
    assert lenses_for("decoder") == (LOGIT_LENS,)
    assert lenses_for("encoder-decoder") == (LOGIT_LENS, DECODER_LENS)
    assert lenses_for("encoder") == ()  # no output embedding: no next-token prediction
