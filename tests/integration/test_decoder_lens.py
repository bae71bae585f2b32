"""DecoderLens: at the last encoder layer the decoder writes exactly the normal translation (text, steps,
probabilities, cross-attention); at an earlier layer its first step's probability equals a direct computation from
`output_hidden_states` (the encoder's final norm applied where it has one) handed to the model as `encoder_outputs`."""

import numpy as np
import pytest
import torch
from transformers.modeling_outputs import BaseModelOutput

from attnviz.attention.generation import generate
from attnviz.errors import InputError
from attnviz.measures.decoder_lens import decoder_lens
from attnviz.measures.lens_results import decoder_lens_rows
from attnviz.model.load import load_model
from attnviz.text.tokens import shown, vocabulary_token

TEXT = "早上好！我喜欢学习。"


def _same_writing(reading, normal) -> None:
    assert reading.target_text == normal.target_text
    assert [s.token for s in reading.steps] == [s.token for s in normal.steps]
    assert [s.probability for s in reading.steps] == [s.probability for s in normal.steps]
    assert [s.alternatives for s in reading.steps] == [s.alternatives for s in normal.steps]
    np.testing.assert_array_equal(reading["cross"].weights, normal["cross"].weights)


@pytest.mark.parametrize("name", ["demo-zh-en", "marian", "t5", "bart"])
def test_the_last_encoder_layer_writes_exactly_the_normal_translation(name, tiny_folder):
    handle = load_model(name if name.startswith("demo") else tiny_folder(name), "cpu")
    tokens = 32 if name.startswith("demo") else 6
    lens = decoder_lens(handle, TEXT, max_new_tokens=tokens)
    encoder_layers = len(lens.layer_names) - 1
    assert lens.layer_names[0] == "embeddings" and encoder_layers == handle.model.config.num_hidden_layers
    assert [r.provenance["options"]["encoder_layer"] for r in lens.readings] == list(range(encoder_layers + 1))
    _same_writing(lens.readings[-1], generate(handle, TEXT, max_new_tokens=tokens))
    hooked = [m for m in handle.model.modules() if m._forward_hooks or m._forward_pre_hooks]
    assert not hooked  # the lens leaves the model as it found it


def test_demo_translation_appears_by_the_last_layer():
    lens = decoder_lens(load_model("demo-zh-en", "cpu"), "早上好！", layers=[1, 3])
    assert lens.readings[-1].target_text == "Good morning!"
    assert lens.layer_names == ["model.encoder.layers.0", "model.encoder.layers.2"]
    rows = decoder_lens_rows(lens)
    assert [row["after_layer"] for row in rows] == [0, 2]  # as the layer names number them
    assert rows[-1]["text"] == "Good morning!" and rows[-1]["tokens"][-1]["special"]
    assert all(0 < token["probability"] <= 1 for row in rows for token in row["tokens"])


def _first_step_probability(handle, layer: int, norm) -> tuple[int, float]:
    """The decoder's first step from encoder state `layer` (output_hidden_states, normed by `norm` where given): the
    token greedy decoding writes and its probability."""
    model, tokenizer = handle.model, handle.tokenizer
    ids = torch.tensor([tokenizer(TEXT)["input_ids"]])
    with torch.no_grad():
        states = model.get_encoder()(input_ids=ids, output_hidden_states=True).hidden_states
        state = states[layer] if norm is None else norm(states[layer])
        start = torch.tensor([[model.config.decoder_start_token_id]])
        logits = model(encoder_outputs=BaseModelOutput(last_hidden_state=state), decoder_input_ids=start).logits
    probabilities = torch.softmax(logits[0, -1].float(), dim=-1)
    return int(probabilities.argmax()), float(probabilities.max())


@pytest.mark.parametrize("family", ["t5", "marian"])
def test_an_earlier_layer_equals_its_hidden_state_handed_to_the_decoder(family, tiny_folder):
    handle = load_model(tiny_folder(family), "cpu")
    norm = handle.model.encoder.final_layer_norm if family == "t5" else None  # Marian is post-norm: none
    lens = decoder_lens(handle, TEXT, max_new_tokens=3, num_beams=1, layers=[0, 1])
    for layer, reading in zip([0, 1], lens.readings):
        token_id, probability = _first_step_probability(handle, layer, norm)
        first = reading.steps[0]
        assert first.probability == pytest.approx(probability, abs=1e-6)
        assert first.alternatives[0][1] == pytest.approx(probability, abs=1e-6)
        assert first.alternatives[0][0] == shown(vocabulary_token(handle.tokenizer, token_id))  # greedy: the top


def test_decoder_lens_needs_a_translator_and_a_layer_it_has(tiny_folder):
    for family in ("gpt2", "bert"):
        with pytest.raises(InputError) as raised:
            decoder_lens(load_model(tiny_folder(family), "cpu"), TEXT)
        assert raised.value.key == "decoder_lens_needs_translator"
        assert "翻译模型" in raised.value.message("zh")
    with pytest.raises(InputError) as raised:
        decoder_lens(load_model(tiny_folder("marian"), "cpu"), TEXT, layers=[3])
    assert raised.value.key == "decoder_lens_layer_missing"
