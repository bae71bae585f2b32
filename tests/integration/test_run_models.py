"""attnviz.run on tiny models: the app's and the command line's one run path — generating or force-decoding, an
encoder reading its text in either mode, and long texts captured on demand with the same weights."""

import numpy as np
import pytest

from attnviz.attention.capture import capture
from attnviz.errors import InputError, SettingError
from attnviz.model import memory
from attnviz.model.load import load_model
from attnviz.run import RunRequest, capture_kind, run
from attnviz.settings import variable
from attnviz.view import selection

LAZY_FROM_TOKENS = variable("lazy_from_tokens")


def analyse(handle, text: str, target: str, mode: str, **options):
    """The app's run of one input: `attnviz.run` with the page's text, target and mode."""
    return run(handle, RunRequest(text, target, mode, **options))


def analysis_mode(handle, text: str, target: str, mode: str, environ) -> str:
    """Whether the app captures this input whole ("full") or on demand ("lazy")."""
    return capture_kind(handle, RunRequest(text, target, mode, capture="auto"), environ)


def test_analyse_generates_or_force_decodes(tiny_folder):
    handle = load_model(tiny_folder("marian"), "cpu")
    pair = analyse(handle, "早上好！", "Good morning!", "pair")
    assert pair.target_text == "Good morning!" and {"encoder", "decoder", "cross"} <= set(pair.maps)
    written = analyse(handle, "早上好！", "ignored", "generate", max_new_tokens=3)
    assert written.steps is not None and len(written.steps) <= 3
    with pytest.raises(InputError, match="target is empty"):
        analyse(handle, "早上好！", "  ", "pair")
    with pytest.raises(InputError, match="Unknown mode"):
        analyse(handle, "早上好！", "", "sing")


def test_analyse_reads_text_with_an_encoder(tiny_folder):
    handle = load_model(tiny_folder("bert"), "cpu")
    result = analyse(handle, "Good morning!", "", "generate")
    assert set(result.maps) == {"self"}


def test_long_texts_are_analysed_lazily_and_give_the_same_weights(tiny_folder, monkeypatch):
    handle = load_model(tiny_folder("marian"), "cpu")
    text, target = "早上好！Good morning, my friend!", "Good morning!"
    n = len(handle.tokenizer(text)["input_ids"])
    assert analysis_mode(handle, text, target, "pair", environ={}) == "full"
    lazy_from = LAZY_FROM_TOKENS
    assert analysis_mode(handle, text, target, "pair", environ={lazy_from: str(n)}) == "lazy"
    assert analysis_mode(handle, text, target, "pair", environ={lazy_from: str(n + 1)}) == "full"
    assert analysis_mode(handle, text, "", "generate", environ={lazy_from: "1"}) == "full"

    m = len(handle.tokenizer(text_target=target)["input_ids"]) + 1
    full = memory.estimate_bytes(handle, n, m, "full")
    monkeypatch.setenv(memory.BUDGET_ENV, str((full - 1) / memory.MB))  # the whole map no longer fits
    assert analysis_mode(handle, text, target, "pair", environ={}) == "lazy"
    monkeypatch.delenv(memory.BUDGET_ENV)

    lazy = analyse(handle, text, target, "pair", capture="lazy")
    assert not lazy.is_complete and lazy.shape("encoder") == (2, 4, n, n)
    whole = capture(handle, text, target)
    crossed = selection.whole_capture(lazy, ["cross"])
    assert set(crossed.maps) == {"cross"} and crossed.target_text == target
    np.testing.assert_allclose(crossed["cross"].weights, whole["cross"].weights, atol=1e-5)
    assert selection.whole_capture(whole, ["cross"]) is whole
    assert analysis_mode(handle, text, target, "pair", environ={lazy_from: " "}) == "full"  # unset
    for bad in ("many", "0"):  # 0 tokens is refused, not read as "always"
        with pytest.raises(SettingError, match="whole number of tokens"):
            analysis_mode(handle, text, target, "pair", environ={lazy_from: bad})


def test_a_long_prompt_for_a_decoder_is_read_lazily_not_continued(tiny_folder):
    handle = load_model(tiny_folder("gpt2"), "cpu")
    environ = {LAZY_FROM_TOKENS: "4"}
    assert analysis_mode(handle, "早上好！Good morning!", "", "generate", environ=environ) == "lazy"
    result = analyse(handle, "早上好！Good morning!", "", "generate", capture="lazy")
    assert not result.is_complete and result.kinds == ["self"] and result.target_text is None
