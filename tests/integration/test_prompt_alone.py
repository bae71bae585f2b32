"""A decoder-only model's continuation and the prompt alone (`attnviz.view.prompt`): cut from the continuation's
capture, the prompt's maps equal the capture of the prompt read by itself (the independent path: one more run);
Self-attention says how many drawn tokens are the user's and draws them alone on a toggle, in both languages."""

from __future__ import annotations

import numpy as np
import pytest

from attnviz import i18n
from attnviz import run as runs
from attnviz.attention.capture import capture
from attnviz.model.load import load_model
from attnviz.view.prompt import continuation, prompt_alone
from tests.support.app import assert_page_ok, charts, open_app
from tests.support.figure_reading import plotly_array

PROMPT = "早上好！"


@pytest.mark.parametrize("family", ["gpt2", "llama"])
def test_the_prompt_cut_from_its_continuation_is_the_prompt_read_alone(tiny_folder, family):
    handle = load_model(tiny_folder(family), "cpu")
    written = runs.run_recorded(handle, runs.RunRequest(PROMPT, None, "generate", max_new_tokens=6))
    told = continuation(written)
    alone = capture(handle, PROMPT)  # the independent path: the prompt read by itself
    assert told.written == len(written.steps) and told.prompt == len(alone["self"].query_tokens)
    cut = prompt_alone(written)
    assert cut.source_text == PROMPT and cut.steps is None and cut.target_text is None
    assert [t.text for t in cut["self"].query_tokens] == [t.text for t in alone["self"].query_tokens]
    np.testing.assert_allclose(cut["self"].weights, alone["self"].weights, atol=1e-6)
    assert cut["self"].causal
    assert continuation(alone) is None and prompt_alone(alone) is alone  # text read as given: nothing to cut


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_self_attention_says_what_the_model_wrote_and_draws_the_text_alone_on_choice(lang):
    link = {"model": "demo-decoder", "text": PROMPT, "words": 0, "hide": 0, "layer": 1, "head": 2, "lang": lang}
    at = open_app("self_attention", **link)
    assert_page_ok(at)
    handle = load_model("demo-decoder", "cpu")
    written = runs.run_recorded(handle, runs.RunRequest(PROMPT, None, "generate"))
    told = continuation(written)
    counts = {"prompt": told.prompt, "written": told.written, "shown": told.written - 1}
    assert i18n.t("continuation_line", lang, **counts) in [c.value for c in at.caption]
    assert len(plotly_array(charts(at)["heatmap"]["data"][0]["z"])) > told.prompt  # the continuation, drawn
    at.toggle(key="w_prompt_only").set_value(True).run()
    assert_page_ok(at)
    assert i18n.t("prompt_only_line", lang, **counts) in [c.value for c in at.caption]
    alone = capture(handle, PROMPT)["self"].weights[1, 2]  # (prompt, prompt)
    drawn = plotly_array(charts(at)["heatmap"]["data"][0]["z"])  # masked cells drawn empty (NaN)
    np.testing.assert_allclose(np.nan_to_num(drawn), alone, atol=1e-6)
    assert at.query_params["prompt_only"] == "1"  # part of the link
