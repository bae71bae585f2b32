"""The app and the command line run a model through one path (`attnviz.run`), so the same input gives them the same
capture: for an encoder, a causal decoder and a translation model, given or generated, short and long.

The app's path is what its caches do (`caches.compute_analysis` for a whole capture, a `capture="lazy"` run for a
long text, chosen by `run.capture_kind`); the CLI's is what `export` and `capture` do for one --text
(`cli.batch.capture` of the parsed request). A long text is captured on demand by both, by the same rule; computed
whole, their maps are the same (the capture command's file still keeps every weight).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import attnviz.settings
from app_pages.shared import caches
from attnviz.cli import batch
from attnviz.cli.inputs import examples
from attnviz.cli.parser import parse
from attnviz.model.load import load_model
from attnviz.run import MAX_NEW_TOKENS, RunRequest, capture_kind, run
from attnviz.types import AttentionCapture
from attnviz.view import selection

LAZY_FROM_TOKENS = attnviz.settings.variable("lazy_from_tokens")
TARGET = "Good morning!"  # the app's target box keeps its text whatever the model; only a translator reads it
TEXTS = {"short": "Good morning! 早上好", "long": "Good morning! 早上好！ I like studying. 我喜欢学习。"}
LONG_FROM = 30  # tokens: the long text is captured on demand by the app, the short one whole


def app_capture(handle, text: str, mode: str):
    """The capture the app's page computes for this input (a model without a target side is given none)."""
    target = TARGET if handle.is_seq2seq else ""
    request = RunRequest(text, target, mode, capture="auto")
    if capture_kind(handle, request) == "full":
        return caches.compute_analysis(handle, RunRequest(text, target, mode))
    return run(handle, replace(request, capture="lazy"))  # what `caches.cached_lazy_analysis` runs


def cli_capture(handle, folder: str, text: str, mode: str) -> AttentionCapture:
    """The capture `python -m attnviz capture` writes for the same input, as a user gives it."""
    argv = ["capture", "--model", folder, "--device", "cpu", "--text", text, "-o", "unused.json"]
    if mode == "generate":
        argv += ["--generate", str(MAX_NEW_TOKENS)]
    elif handle.is_seq2seq:  # a --target for a model without a target side is refused
        argv += ["--target", TARGET]
    request = parse(argv)
    return batch.capture(handle, examples(request)[0], request)


def assert_same_maps(app: AttentionCapture, cli: AttentionCapture, exact: bool) -> None:
    assert app.kinds == cli.kinds and app.source_text == cli.source_text and app.target_text == cli.target_text
    for kind in app.kinds:
        ours, theirs = app[kind], cli[kind]
        assert [t.text for t in ours.query_tokens] == [t.text for t in theirs.query_tokens]
        assert [t.text for t in ours.key_tokens] == [t.text for t in theirs.key_tokens]
        if exact:
            np.testing.assert_array_equal(ours.weights, theirs.weights)
        else:  # computed tile by tile on demand: the same softmax in another order
            np.testing.assert_allclose(ours.weights, theirs.weights, atol=1e-5)


@pytest.mark.parametrize("length", ["short", "long"])
@pytest.mark.parametrize("mode", ["pair", "generate"])
@pytest.mark.parametrize("family", ["bert", "gpt2", "marian"])
def test_the_app_and_the_cli_capture_an_input_alike(tiny_folder, monkeypatch, family, mode, length):
    monkeypatch.setenv(LAZY_FROM_TOKENS, str(LONG_FROM))
    folder = tiny_folder(family)
    handle = load_model(folder, "cpu")
    text = TEXTS[length]
    app = app_capture(handle, text, mode)
    cli = cli_capture(handle, folder, text, mode)
    writes = mode == "generate" and handle.kind != "encoder"  # an encoder-only model reads its text in both modes
    on_demand = length == "long" and not (writes and handle.is_seq2seq)  # a translation records each written step
    assert app.is_complete is not on_demand and cli.is_complete is not on_demand  # one rule for both faces
    if not on_demand:
        assert type(app) is type(cli) and (app.steps is None) is (cli.steps is None) is not writes
        assert_same_maps(app, cli, exact=True)
        return
    # A long prompt is read on demand by both, not continued: every head computed from the same queries and keys.
    assert_same_maps(selection.whole_capture(app, app.kinds), selection.whole_capture(cli, cli.kinds), exact=True)
