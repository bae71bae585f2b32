"""Step scores and warnings of real runs: generation records the probability of each written token and its top
alternatives (tiny translators and decoders, and the embedded ones), and the CLI says the page's warnings on stderr."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from attnviz import caveats
from attnviz.attention.generation import TOP_ALTERNATIVES, generate
from attnviz.cli import main
from attnviz.models import load_model


@pytest.mark.parametrize("family", ["marian", "gpt2"])
def test_each_written_token_has_its_probability_and_alternatives(tiny_folder, family):
    handle = load_model(tiny_folder(family), "cpu")
    result = generate(handle, "早上好！", max_new_tokens=4)
    assert result.steps
    for step in result.steps:
        assert 0 < step.probability <= 1
        assert len(step.alternatives) == TOP_ALTERNATIVES
        values = [p for _, p in step.alternatives]
        assert values == sorted(values, reverse=True) and 0 < sum(values) <= 1 + 1e-6
        assert all(isinstance(text, str) and text and "▁" not in text for text, _ in step.alternatives)
        assert step.probability <= values[0] + 1e-6  # greedy writes the most probable token (or one ruled in)


def test_the_probability_is_the_models_own_softmax(tiny_folder):
    handle = load_model(tiny_folder("gpt2"), "cpu")
    result = generate(handle, "Good morning", max_new_tokens=1)
    ids = handle.tokenizer("Good morning")["input_ids"]
    with torch.no_grad():
        logits = handle.model(input_ids=torch.tensor([ids])).logits[0, -1]
    probabilities = torch.softmax(logits.float(), dim=-1).numpy()
    step = result.steps[0]
    assert step.probability == pytest.approx(float(probabilities.max()), rel=1e-5)
    assert step.alternatives[0][1] == pytest.approx(float(np.sort(probabilities)[-1]), rel=1e-5)


def test_seed_examples_are_sure_and_say_nothing():
    handle = load_model("demo-zh-en", "cpu")
    for text, expected in [("早上好！", "Good morning!"), ("我喜欢学习", "I like studying")]:
        result = generate(handle, text)
        assert result.target_text == expected
        assert all(step.probability > caveats.UNSURE_BELOW for step in result.steps)
        assert caveats.caveats(result) == []


def test_the_cli_warns_on_stderr_and_the_file_keeps_it(capsys, tmp_path):
    out = tmp_path / "capture.json"
    text = "The animal did not cross the street because it was tired."
    code = main(["capture", "--model", "demo-zh-en", "--text", text, "--generate", "8", "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 0, err
    lines = [line for line in err.splitlines() if line.startswith("attnviz: warning: ")]
    assert any("Latin letters, which demo-zh-en does not read" in line for line in lines), err
    assert any("does not know “The animal did not cross the street because it was tired”" in line for line in lines)
    data = json.loads(out.read_text(encoding="utf-8"))
    assert "truth_unknown_words" in [w["key"] for w in data["warnings"]]
    assert data["maps"]["encoder"]["query_tokens"][0]["unknown"] is True
    assert all(step["probability"] is not None and step["alternatives"] for step in data["steps"])


def test_the_cli_says_nothing_for_the_seed_example(capsys, tmp_path):
    code = main(["capture", "--model", "demo-zh-en", "--text", "早上好！", "--generate", "8", "-o",
                 str(tmp_path / "c.json")])  # fmt: skip
    assert code == 0 and "warning" not in capsys.readouterr().err
