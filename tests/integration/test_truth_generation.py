"""Step scores and warnings of real runs: generation records the probability of each written token and its top
alternatives (tiny translators and decoders, and the embedded ones), and the CLI says the page's warnings on stderr."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from attnviz.attention.generation import TOP_ALTERNATIVES, generate
from attnviz.cli import main
from attnviz.errors import AttnvizError, InputError
from attnviz.model.load import load_model
from attnviz.text import caveats


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
    code = main(
        ["capture", "--model", "demo-zh-en", "--text", "早上好！", "--generate", "8", "-o", str(tmp_path / "c.json")]
    )
    assert code == 0 and "warning" not in capsys.readouterr().err


def _written_ids(handle, text: str, beams: int, max_new_tokens: int) -> list[int]:
    """What transformers' own decoding writes for `text` (the ids after the start token or the prompt)."""
    ids = torch.tensor([handle.tokenizer(text)["input_ids"]])
    pad = handle.tokenizer.pad_token_id
    with torch.no_grad():
        out = handle.model.generate(
            input_ids=ids,
            attention_mask=torch.ones_like(ids),
            max_new_tokens=max_new_tokens,
            num_beams=beams,
            do_sample=False,
            pad_token_id=pad if pad is not None else handle.tokenizer.eos_token_id,
        )
    return out[0, 1 if handle.is_seq2seq else ids.shape[1] :].tolist()


BEAM_TEXT = "早上好！Good morning"  # the tiny random models write otherwise with 3 beams than greedily


@pytest.mark.parametrize("family", ["marian", "gpt2"])
def test_beam_search_writes_what_the_models_beam_search_writes(tiny_folder, family):
    handle = load_model(tiny_folder(family), "cpu")
    expected = _written_ids(handle, BEAM_TEXT, 3, 6)
    assert expected != _written_ids(handle, BEAM_TEXT, 1, 6)  # else this test could not tell beams from greedy
    result = generate(handle, BEAM_TEXT, max_new_tokens=6, num_beams=3)
    assert len(result.steps) == len(expected)
    assert result.provenance["options"]["num_beams"] == 3
    decoded = handle.tokenizer.decode(expected, skip_special_tokens=True, clean_up_tokenization_spaces=False).strip()
    assert result.target_text == decoded
    assert all(0 < step.probability <= 1 for step in result.steps)


def test_beam_search_steps_are_the_models_teacher_forced_computation(tiny_folder):
    """Each replayed step equals a forced eager pass over the beam's ids: attention rows and the token's probability."""
    handle = load_model(tiny_folder("marian"), "cpu")
    ids = _written_ids(handle, BEAM_TEXT, 3, 8)
    assert ids != _written_ids(handle, BEAM_TEXT, 1, 8)
    result = generate(handle, BEAM_TEXT, max_new_tokens=8, num_beams=3)
    assert len(result.steps) == len(ids)
    model = type(handle.model).from_pretrained(tiny_folder("marian"), attn_implementation="eager").eval()
    source = torch.tensor([handle.tokenizer(BEAM_TEXT)["input_ids"]])
    decoder_input = torch.tensor([[model.config.decoder_start_token_id] + ids[:-1]])
    with torch.no_grad():
        out = model(input_ids=source, decoder_input_ids=decoder_input, output_attentions=True)
    probabilities = torch.softmax(out.logits[0].float(), dim=-1)  # (steps, vocab)
    ranked_first = []
    for i, step in enumerate(result.steps):
        cross = np.stack([layer[0, :, i].numpy() for layer in out.cross_attentions])  # (layers, heads, source)
        np.testing.assert_allclose(step.cross_weights, cross, atol=1e-5)
        own = np.stack([layer[0, :, i, : i + 1].numpy() for layer in out.decoder_attentions])
        np.testing.assert_allclose(step.self_weights, own, atol=1e-5)
        assert step.probability == pytest.approx(float(probabilities[i, ids[i]]), rel=1e-4)
        ranked_first.append(int(probabilities[i].argmax()) == ids[i])
    from attnviz.maps import replay

    assert [score.ranked_first for score in replay.step_scores(result)] == ranked_first
    assert not all(ranked_first)  # beam search wrote a token that was not its step's most likely one


@pytest.mark.parametrize("family", ["marian", "gpt2"])
def test_the_replay_writes_a_forced_sequence_and_keeps_the_models_own_logits(tiny_folder, family):
    from attnviz.attention.forcing import ForcedTokens

    handle = load_model(tiny_folder(family), "cpu")
    model, ids = handle.model, torch.tensor([handle.tokenizer("Good morning")["input_ids"]])
    first = 1 if handle.is_seq2seq else ids.shape[1]
    greedy = _written_ids(handle, "Good morning", 1, 3)
    forced = [(token + 1) % model.config.vocab_size for token in greedy]  # greedy's choice at no step
    pad = handle.tokenizer.pad_token_id if handle.tokenizer.pad_token_id is not None else handle.tokenizer.eos_token_id
    with torch.no_grad():
        out = model.generate(
            input_ids=ids,
            attention_mask=torch.ones_like(ids),
            max_new_tokens=len(forced),
            do_sample=False,
            num_beams=1,
            pad_token_id=pad,
            return_dict_in_generate=True,
            output_logits=True,
            logits_processor=[ForcedTokens(forced, first)],
        )
        assert out.sequences[0, first:].tolist() == forced
        if handle.is_seq2seq:
            start = [model.config.decoder_start_token_id]
            teacher = model(input_ids=ids, decoder_input_ids=torch.tensor([start + forced[:-1]])).logits[0]
        else:
            teacher = model(input_ids=torch.cat([ids, torch.tensor([forced[:-1]])], dim=1)).logits[0, first - 1 :]
    torch.testing.assert_close(torch.cat(out.logits), teacher, atol=1e-5, rtol=1e-5)


def test_a_replay_that_writes_otherwise_than_beam_search_is_refused(tiny_folder, monkeypatch):
    from attnviz.attention import forcing

    handle = load_model(tiny_folder("marian"), "cpu")
    monkeypatch.setattr(forcing.ForcedTokens, "__call__", lambda self, input_ids, scores: scores)  # forces nothing
    with pytest.raises(AttnvizError, match="greedy decoding"):
        generate(handle, BEAM_TEXT, max_new_tokens=6, num_beams=3)


def test_the_beam_count_comes_from_the_model_or_is_refused(tiny_folder, monkeypatch):
    from attnviz.attention.forcing import MAX_BEAMS, decoding_beams

    handle = load_model(tiny_folder("marian"), "cpu")
    config = handle.model.generation_config
    monkeypatch.setattr(config, "num_beams", 3)
    assert decoding_beams(handle.model, None) == 3 and decoding_beams(handle.model, 1) == 1
    assert generate(handle, BEAM_TEXT, max_new_tokens=6).provenance["options"]["num_beams"] == 3
    monkeypatch.setattr(config, "num_beams", 64)  # a config asking for more than attnviz runs
    assert decoding_beams(handle.model, None) == MAX_BEAMS
    monkeypatch.setattr(config, "num_beams", None)
    assert decoding_beams(handle.model, None) == 1
    for bad in (0, -1, MAX_BEAMS + 1, 2.5, True, "3"):
        with pytest.raises(InputError, match="beams"):
            generate(handle, "Good morning", num_beams=bad)


def test_the_embedded_translators_decode_by_beam_search_and_say_so():
    from training.translator import DEMO_BEAMS

    handle = load_model("demo-en-zh", "cpu")
    assert handle.model.generation_config.num_beams == DEMO_BEAMS > 1
    text = "The animal did not cross the street because it was tired."
    expected = _written_ids(handle, text, DEMO_BEAMS, 32)
    assert expected != _written_ids(handle, text, 1, 32)  # a sentence on which beam search writes otherwise
    result = generate(handle, text)
    decoded = handle.tokenizer.decode(expected, skip_special_tokens=True, clean_up_tokenization_spaces=False).strip()
    assert result.target_text == decoded
    assert result.provenance["options"]["num_beams"] == DEMO_BEAMS
    assert generate(handle, text, num_beams=1).target_text != decoded


def test_the_cli_takes_beams_with_generate_only(capsys, tmp_path):
    out = tmp_path / "c.json"
    assert main(["capture", "-m", "demo-zh-en", "-t", "早上好！", "--beams", "2", "-o", str(out)]) == 2
    assert "--generate" in capsys.readouterr().err
    assert (
        main(["capture", "-m", "demo-zh-en", "-t", "早上好！", "--generate", "8", "--beams", "0", "-o", str(out)]) == 2
    )
    assert "beams" in capsys.readouterr().err
    assert (
        main(["capture", "-m", "demo-zh-en", "-t", "早上好！", "--generate", "8", "--beams", "1", "-o", str(out)]) == 0
    )
    assert json.loads(out.read_text(encoding="utf-8"))["provenance"]["options"]["num_beams"] == 1
