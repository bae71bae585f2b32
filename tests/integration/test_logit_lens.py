"""The logit lens equals a direct computation: each layer's state from `output_hidden_states`, through the model's own
final norm and head written out per family (GPT-2 ln_f; Llama/Qwen2 norm; BART/Marian no norm, final_logits_bias;
T5 final_layer_norm and d_model**-0.5), and the last row is the model's real output distribution. Tokens follow the
project's conventions; a model without an output embedding is told so in both languages."""

import numpy as np
import pytest
import torch

from attnviz.attention.capture import capture
from attnviz.errors import AttnvizError, InputError
from attnviz.measures.lens_results import logit_lens_rows
from attnviz.measures.logit_lens import logit_lens
from attnviz.model.catalogue import catalogue
from attnviz.model.load import load_model
from attnviz.text.tokens import shown, vocabulary_token
from tests.support import tiny

TEXT = "早上好！Good morning, I like studying."
TARGET = "Good morning! 早上好。"
TOLERANCE = 1e-5


@pytest.fixture(scope="module")
def qwen2_folder(tmp_path_factory):
    """A tiny random Qwen2 (biased q/k/v, grouped-query heads) with the tests' byte-level tokenizer."""
    return tiny.save_qwen2(tmp_path_factory.mktemp("qwen2"), tie_word_embeddings=False)


def _head(family: str, model, state: torch.Tensor) -> torch.Tensor:
    """(1, n, hidden) intermediate state → (1, n, vocab) logits, each family's last steps written out."""
    if family == "gpt2":
        return model.lm_head(model.transformer.ln_f(state))
    if family in ("llama", "qwen2"):
        return model.lm_head(model.model.norm(state))
    if family in ("bart", "marian"):  # post-norm: the decoder ends without a norm
        return model.lm_head(state) + model.final_logits_bias
    if family == "t5":
        return model.lm_head(model.decoder.final_layer_norm(state) * model.config.d_model**-0.5)
    raise ValueError(family)


def _reference(family: str, handle, text: str, target: str | None) -> np.ndarray:
    """(layers + 1, positions, vocab) probabilities: every hidden state the model hands back, read by `_head`, but the
    last, which is the model's own output."""
    model, tokenizer = handle.model, handle.tokenizer
    inputs = {"input_ids": torch.tensor([tokenizer(text)["input_ids"]])}
    if handle.is_seq2seq:
        labels = tokenizer(text_target=target)["input_ids"]
        inputs["decoder_input_ids"] = torch.tensor([[model.config.decoder_start_token_id] + labels[:-1]])
    with torch.no_grad():
        output = model(**inputs, output_hidden_states=True, use_cache=False)
        states = output.decoder_hidden_states if handle.is_seq2seq else output.hidden_states
        logits = [_head(family, model, state) for state in states[:-1]] + [output.logits]
    return torch.softmax(torch.cat(logits).float(), dim=-1).numpy()


def _check(lens, probabilities: np.ndarray) -> None:
    """Every number of the lens against the reference probabilities, computed another way (sorting)."""
    rows, positions, _ = probabilities.shape
    assert lens.top_ids.shape[:2] == (rows, positions) == lens.final_ranks.shape
    order = np.argsort(-probabilities, axis=-1, kind="stable")  # (rows, positions, vocab), most probable first
    k = lens.top_ids.shape[-1]
    np.testing.assert_allclose(
        lens.top_probabilities, np.take_along_axis(probabilities, order[..., :k], -1), atol=TOLERANCE
    )
    picked = np.take_along_axis(probabilities, lens.top_ids, -1)  # the reference's probability of each id shown
    np.testing.assert_allclose(picked, lens.top_probabilities, atol=TOLERANCE)
    final = probabilities[-1].argmax(-1)  # (positions,)
    np.testing.assert_array_equal(lens.final_ids, final)
    np.testing.assert_allclose(lens.final_probabilities, probabilities[:, np.arange(positions), final], atol=TOLERANCE)
    where = np.argmax(order == final[None, :, None], axis=-1) + 1  # (rows, positions): 1-based place in the order
    np.testing.assert_array_equal(lens.final_ranks, where)
    assert (lens.final_ranks[-1] == 1).all()


@pytest.mark.parametrize("family", ["gpt2", "llama", "qwen2", "bart", "marian", "t5"])
def test_every_layer_equals_its_state_read_by_the_models_own_norm_and_head(family, tiny_folder, qwen2_folder):
    handle = load_model(qwen2_folder if family == "qwen2" else tiny_folder(family), "cpu")
    target = TARGET if handle.is_seq2seq else None
    lens = logit_lens(handle, TEXT, target=target, top_k=7)
    _check(lens, _reference(family, handle, TEXT, target))
    assert len(lens.layer_names) == handle.num_layers + 1 and lens.layer_names[0] == "embeddings"
    assert lens.kind == ("decoder" if handle.is_seq2seq else "self")


@pytest.mark.parametrize(("name", "family"), [("demo-decoder", "llama"), ("demo-zh-en", "marian")])
def test_the_demo_models_lens_equals_the_direct_computation(name, family):
    handle = load_model(name, "cpu")
    target = "Good morning! I like studying." if handle.is_seq2seq else None
    lens = logit_lens(handle, "早上好！我喜欢学习。", target=target)
    _check(lens, _reference(family, handle, "早上好！我喜欢学习。", target))


def test_a_translator_without_target_reads_what_it_wrote():
    handle = load_model("demo-zh-en", "cpu")
    lens = logit_lens(handle, "早上好！")
    assert lens.provenance["target_text"] == "Good morning!"
    written = [lens.vocabulary[int(i)].text for i in lens.final_ids]
    assert written == ["Good", "morning", "!", "</s>"]  # the last layer predicts what the model wrote
    assert lens.vocabulary[int(lens.final_ids[-1])].special


def test_tokens_follow_the_projects_conventions(tiny_folder):
    handle = load_model(tiny_folder("marian"), "cpu")
    lens = logit_lens(handle, TEXT, target=TARGET)
    pair = capture(handle, TEXT, target=TARGET)
    assert lens.tokens == pair["decoder"].key_tokens  # the start token, then the target but its last token
    assert lens.source_tokens == pair["cross"].key_tokens
    tokenizer = handle.tokenizer
    for token_id, token in lens.vocabulary.items():
        assert (token.start, token.end) == (-1, -1)
        assert token.special == (token_id in tokenizer.all_special_ids and token_id != tokenizer.unk_token_id)
        assert token.unknown == (token_id == tokenizer.unk_token_id)
        assert not any(marker in token.text for marker in ("Ġ", "▁", "##"))
    decoder = load_model(tiny_folder("gpt2"), "cpu")
    assert logit_lens(decoder, TEXT).tokens == capture(decoder, TEXT)["self"].query_tokens


def test_special_and_unknown_predictions_are_named_and_flagged(tiny_folder):
    tokenizer = load_model(tiny_folder("gpt2"), "cpu").tokenizer
    eos, unk = vocabulary_token(tokenizer, tokenizer.eos_token_id), vocabulary_token(tokenizer, tokenizer.unk_token_id)
    assert (eos.text, eos.special, eos.unknown) == ("</s>", True, False)
    assert (unk.text, unk.special, unk.unknown, shown(unk)) == ("<unk>", False, True, "<unk>?")
    space = vocabulary_token(tokenizer, tokenizer.convert_tokens_to_ids("Ġ"))
    assert (space.text, space.special, space.unknown) == (" ", False, False)  # drawn ␣, never as Ġ
    piece = next(p for p in tokenizer.get_vocab() if p.startswith("Ġ") and len(p) > 2 and p[1:].isalpha())
    word = vocabulary_token(tokenizer, tokenizer.convert_tokens_to_ids(piece))
    assert (word.text, word.special, word.unknown) == (piece[1:], False, False)


def test_rows_hold_every_layer_and_position(tiny_folder):
    lens = logit_lens(load_model(tiny_folder("llama"), "cpu"), TEXT, top_k=3)
    rows = logit_lens_rows(lens)
    assert len(rows) == len(lens.layer_names) * len(lens.tokens)
    last = rows[-1]
    assert last["final_rank"] == 1 and last["top1_token"] == last["final_token"]
    assert last["top1_probability"] == pytest.approx(last["final_probability"])
    assert {"top3_token", "top3_probability"} <= last.keys()


def test_an_encoder_is_told_it_has_no_next_token_prediction(tiny_folder):
    names = {entry.name for entry in catalogue()}
    handles = [load_model(tiny_folder("bert"), "cpu")] + ([load_model("minilm", "cpu")] if "minilm" in names else [])
    for handle in handles:
        with pytest.raises(InputError) as raised:
            logit_lens(handle, TEXT)
        assert raised.value.key == "lens_no_next_token"
        assert "no next token" in str(raised.value)
        assert "不预测下一个词元" in raised.value.message("zh")


def test_a_head_the_lens_cannot_reproduce_is_refused(tiny_folder):
    handle = load_model(tiny_folder("gpt2"), "cpu")
    handle.model.config.final_logit_softcapping = 0.5  # the lens would cap; GPT-2's own forward does not
    try:
        with pytest.raises(AttnvizError) as raised:
            logit_lens(handle, TEXT)
    finally:
        del handle.model.config.final_logit_softcapping
    assert raised.value.key == "lens_head_differs"


def test_top_k_is_checked(tiny_folder):
    handle = load_model(tiny_folder("gpt2"), "cpu")
    for bad in (0, 51, True, 2.5):
        with pytest.raises(InputError):
            logit_lens(handle, TEXT, top_k=bad)
