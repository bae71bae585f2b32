"""Captured weights equal what the model computed: eager attention with output_attentions, on six model families."""

import threading

import numpy as np
import pytest
import torch
import transformers

from attnviz.attention.capture import capture, capture_batch
from attnviz.attention.generation import generate
from attnviz.attention.recorder import WeightRecorder, recording
from attnviz.errors import InputError
from attnviz.model.load import load_model
from tests.support.tiny import FAMILIES, SEQ2SEQ

TEXTS = ["早上好！Good morning!", "I like studying, 我喜欢学习 very much."]
TARGETS = ["Good morning!", "我喜欢学习。 I like it"]


def _eager_reference(folder, family, handle, texts, targets):
    """output_attentions=True under eager attention on the same padded batch that capture_batch builds."""
    model = (
        transformers.AutoModel.from_pretrained(folder, attn_implementation="eager")
        if family == "bert"
        else (type(handle.model).from_pretrained(folder, attn_implementation="eager"))
    )
    model.eval()
    tokenizer = handle.tokenizer
    batch = tokenizer(texts, padding=True, return_tensors="pt")
    kwargs = dict(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"], output_attentions=True)
    if targets is not None:
        labels = [tokenizer(text_target=t)["input_ids"] for t in targets]
        start = model.config.decoder_start_token_id
        width = max(len(x) for x in labels)
        kwargs["decoder_input_ids"] = torch.tensor([[start] + x[:-1] + [0] * (width - len(x)) for x in labels])
        kwargs["decoder_attention_mask"] = torch.tensor([[1] * len(x) + [0] * (width - len(x)) for x in labels])
    with torch.no_grad():
        out = model(**kwargs)
    return batch["attention_mask"], kwargs.get("decoder_attention_mask"), out


def _rows(mask_row: torch.Tensor) -> np.ndarray:
    return np.flatnonzero(mask_row.numpy())


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("padding_side", ["right", "left"])
def test_capture_equals_eager_with_padding(tiny_folder, family, padding_side):
    folder = tiny_folder(family)
    handle = load_model(folder, "cpu")
    handle.tokenizer.padding_side = padding_side
    targets = TARGETS if family in SEQ2SEQ else None
    captures = capture_batch(handle, TEXTS, targets)
    source_mask, target_mask, eager = _eager_reference(folder, family, handle, TEXTS, targets)
    for row, result in enumerate(captures):
        src = _rows(source_mask[row])
        if family in SEQ2SEQ:
            tgt = _rows(target_mask[row])
            pairs = [
                ("encoder", eager.encoder_attentions, src, src),
                ("decoder", eager.decoder_attentions, tgt, tgt),
                ("cross", eager.cross_attentions, tgt, src),
            ]
        else:
            pairs = [("self", eager.attentions, src, src)]
        for kind, reference, queries, keys in pairs:
            expected = torch.stack(reference)[:, row][:, :, queries][:, :, :, keys].numpy()
            got = result[kind].weights
            assert got.shape == expected.shape
            np.testing.assert_array_equal(got, expected)  # bit for bit: the same steps in the same order as eager
            np.testing.assert_allclose(got.sum(-1), 1.0, atol=1e-5)
            assert len(result[kind].query_tokens) == got.shape[2]
            assert len(result[kind].key_tokens) == got.shape[3]
            if result[kind].causal:
                upper = np.triu(np.ones(got.shape[-2:], dtype=bool), k=1)
                assert (got[..., upper] == 0).all()


@pytest.mark.parametrize("family", FAMILIES)
def test_capture_leaves_logits_and_implementation_unchanged(tiny_folder, family):
    handle = load_model(tiny_folder(family), "cpu")
    model = handle.model
    model.set_attn_implementation("eager")
    ids = torch.tensor([[5, 6, 7, 8, 9, 1]])
    kwargs = {"input_ids": ids}
    if family in SEQ2SEQ:
        kwargs["decoder_input_ids"] = torch.tensor([[0, 11, 12, 13]])
    with torch.no_grad():
        before = model(**kwargs)[0]
    with recording(model) as recorder:
        during = model(**kwargs)[0]
    assert model.config._attn_implementation == "eager"
    assert recorder.calls, "nothing was recorded"
    torch.testing.assert_close(during, before, atol=1e-6, rtol=0)


def test_a_forward_pass_that_computes_nan_is_refused_with_a_sentence(tiny_folder):
    handle = load_model(tiny_folder("bert"), "cpu")
    with torch.no_grad():
        handle.model.encoder.layer[1].attention.self.query.weight[0, 0] = float("nan")
    with pytest.raises(InputError, match="finite and non-negative"):
        capture(handle, "早上好！Good morning!")


def test_the_last_attention_call_computes_no_output_yet_a_nan_there_is_refused(tiny_folder, monkeypatch):
    """Once a pass has shown where it ends, its last attention call hands nothing on: no output is computed there,
    and its weights vouch for themselves."""
    from attnviz.attention import recorder

    handle = load_model(tiny_folder("bert"), "cpu")
    first = capture(handle, TEXTS[0])  # a complete pass: it learns where the pass ends
    outputs = []
    computed = recorder.attention_output
    monkeypatch.setattr(recorder, "attention_output", lambda *args: outputs.append(1) or computed(*args))
    again = capture(handle, TEXTS[0])
    assert len(outputs) == handle.num_layers - 1
    np.testing.assert_array_equal(again["self"].weights, first["self"].weights)
    np.testing.assert_array_equal(again["self"].value_norms, first["self"].value_norms)
    with torch.no_grad():
        handle.model.encoder.layer[-1].attention.self.query.weight[0, 0] = float("nan")
    with pytest.raises(InputError, match="finite and non-negative"):
        capture(handle, TEXTS[0])


def test_modules_replaced_after_a_capture_are_still_recorded(tiny_folder):
    import copy

    handle = load_model(tiny_folder("bert"), "cpu")
    first = capture(handle, "早上好！Good morning!")["self"]
    layer = handle.model.encoder.layer[1].attention
    layer.self = copy.copy(layer.self)  # a new module object (same config and weights): the cached names lack it
    handle.model.set_attn_implementation("eager")  # and the person switched the implementation meanwhile
    second = capture(handle, "早上好！Good morning!")["self"]
    assert second.layer_names == first.layer_names
    np.testing.assert_allclose(second.weights, first.weights, atol=1e-6)
    assert handle.model.config._attn_implementation == "eager"


def test_padding_cells_are_exactly_zero(tiny_folder):
    handle = load_model(tiny_folder("bart"), "cpu")
    short, long = "好", "早上好！Good morning! I like studying."
    with recording(handle.model) as recorder:
        batch = handle.tokenizer([short, long], padding=True, return_tensors="pt")
        handle.model.get_encoder()(**batch)
    weights = recorder.calls["model.encoder.layers.0.self_attn"][0].numpy()  # (batch, heads, q, k)
    n_short = int(batch["attention_mask"][0].sum())
    assert (weights[0, :, :n_short, n_short:] == 0).all()


def test_threads_get_their_own_maps(tiny_folder):
    handle = load_model(tiny_folder("marian"), "cpu")
    texts = [f"早上好 number {i} " + "x" * i for i in range(6)]
    expected = {text: capture(handle, text, "Good morning").maps["cross"].weights for text in texts}
    results, errors = {}, []

    def run(text):
        try:
            for _ in range(3):
                results[text] = capture(handle, text, "Good morning").maps["cross"].weights
        except Exception as error:  # pragma: no cover - reported below
            errors.append(error)

    threads = [threading.Thread(target=run, args=(t,)) for t in texts]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors
    for text in texts:
        np.testing.assert_allclose(results[text], expected[text], atol=1e-6)
    assert handle.model.config._attn_implementation != "attnviz"


@pytest.mark.parametrize("family", ["gpt2", "llama", "marian", "t5"])
def test_generate_records_every_step(tiny_folder, family):
    handle = load_model(tiny_folder(family), "cpu")
    result = generate(handle, "早上好！Good", max_new_tokens=5)
    assert 1 <= len(result.steps) <= 5
    if family in SEQ2SEQ:
        cross = result["cross"].weights
        assert cross.shape[2] == len(result.steps)
        forced = handle.model  # the step rows equal a teacher-forced run over the same generated ids
        for i, step in enumerate(result.steps):
            np.testing.assert_allclose(step.cross_weights, cross[:, :, i], atol=0)
            assert step.self_weights.shape[-1] == i + 1
        decoder = result["decoder"].weights
        upper = np.triu(np.ones(decoder.shape[-2:], dtype=bool), k=1)
        assert (decoder[..., upper] == 0).all()
        assert forced.config._attn_implementation != "attnviz"
    else:
        prompt = len(result["self"].weights[0, 0]) - len(result.steps) + 1
        for i, step in enumerate(result.steps):
            assert step.self_weights.shape[-1] == prompt + i
            assert step.cross_weights is None
    for step in result.steps:
        np.testing.assert_allclose(step.self_weights.sum(-1), 1.0, atol=1e-5)


def test_generated_steps_match_teacher_forcing(tiny_folder):
    """The decode-step view (with a KV cache) equals a forced run over the generated ids."""
    handle = load_model(tiny_folder("marian"), "cpu")
    result = generate(handle, "I like studying", max_new_tokens=6)
    ids = handle.tokenizer("I like studying", return_tensors="pt")["input_ids"]
    generated = handle.model.generate(input_ids=ids, max_new_tokens=6, do_sample=False, num_beams=1)
    with recording(handle.model) as recorder:
        handle.model(input_ids=ids, decoder_input_ids=generated[:, :-1] if generated.shape[1] > 1 else generated)
    forced = recorder.calls["model.decoder.layers.1.encoder_attn"][0][0].numpy()  # (heads, steps, source)
    np.testing.assert_allclose(result["cross"].weights[1, :, : forced.shape[1]], forced, atol=1e-5)


def test_bad_inputs_raise_input_error(tiny_folder):
    handle = load_model(tiny_folder("bert"), "cpu")
    for bad in ["", "   \n"]:
        with pytest.raises(InputError, match="empty"):
            capture(handle, bad)
    with pytest.raises(InputError, match="no target side"):
        capture(handle, "hello", target="world")
    with pytest.raises(InputError, match="encoder-only"):
        generate(handle, "hello")
    with pytest.raises(InputError, match="accepts at most"):
        capture(handle, "word " * 600)


def test_long_text_offers_truncation_and_truncates(tiny_folder):
    handle = load_model(tiny_folder("gpt2"), "cpu")
    long_text = "word " * 600
    with pytest.raises(InputError, match="truncate"):
        capture(handle, long_text)
    result = capture(handle, long_text, truncate=True)
    assert result["self"].weights.shape[-1] == handle.max_positions


@pytest.mark.parametrize(
    "text",
    ["a\x00b", "\x01\x02 text", "👨‍👩‍👧‍👦 family 🏳️‍🌈", "مرحبا שלום", "\u200b\u200dx", "café 早上好 Привет", "\t\n a"],
)
@pytest.mark.parametrize("family", ["bert", "t5"])
def test_unusual_text_captures_with_readable_tokens(tiny_folder, family, text):
    handle = load_model(tiny_folder(family), "cpu")
    result = capture(handle, text, "ok" if handle.is_seq2seq else None)
    amap = next(iter(result.maps.values()))
    np.testing.assert_allclose(amap.weights.sum(-1), 1.0, atol=1e-5)
    for token in amap.query_tokens:
        assert all(ord(c) >= 0x20 for c in token.text), token


def test_lone_surrogates_are_refused_with_a_sentence(tiny_folder):
    handle = load_model(tiny_folder("bert"), "cpu")
    with pytest.raises(InputError, match="surrogates"):
        capture(handle, "x\ud800y")


@pytest.mark.parametrize("family", ["bert", "marian"])
def test_later_captures_write_straight_into_the_stack(tiny_folder, family, monkeypatch):
    """After the first capture learns the layout, weights are written in place: same values, no assembling copy."""
    handle = load_model(tiny_folder(family), "cpu")
    target = "Good morning" if family == "marian" else None
    first = capture(handle, "早上好！Good morning!", target)
    seen = []
    real_stack = WeightRecorder.stack

    def spying_stack(recorder, layers):
        result = real_stack(recorder, layers)
        seen.append(any(result is stack for stack in recorder.stacks.values()))
        return result

    monkeypatch.setattr(WeightRecorder, "stack", spying_stack)
    second = capture(handle, "早上好！Good morning!", target)
    assert seen and all(seen), "the second capture should reuse the stacks it wrote into"
    for kind, amap in first.maps.items():
        np.testing.assert_array_equal(second[kind].weights, amap.weights)


@pytest.mark.parametrize("family", FAMILIES)
def test_later_passes_stop_after_the_last_attention_call(tiny_folder, family):
    """Once a complete pass has shown where the last attention call is, later captures stop there: the model's
    forward never returns (its head, pooler or last feed-forward block are skipped) and the maps are the same.
    An encoder-only pass and a pass with a target are learned separately."""
    handle = load_model(tiny_folder(family), "cpu")
    model = handle.model
    top = model.get_encoder() if family in SEQ2SEQ else model
    returned = []
    hooks = [module.register_forward_hook(lambda *_: returned.append(True)) for module in {top, model}]
    try:
        first = capture(handle, TEXTS[0])
        assert returned, "the first pass runs to the end"
        returned.clear()
        second = capture(handle, TEXTS[0])
        assert not returned, "a later pass should stop at its last attention call"
        for kind, amap in first.maps.items():
            np.testing.assert_array_equal(second[kind].weights, amap.weights)
        if family in SEQ2SEQ:  # a pass with a target goes on through the decoder: whole maps, as eager computes them
            for _ in range(2):
                result = capture(handle, TEXTS[0], TARGETS[0])
            _, _, eager = _eager_reference(tiny_folder(family), family, handle, TEXTS[:1], TARGETS[:1])
            for kind, reference in [
                ("encoder", eager.encoder_attentions),
                ("decoder", eager.decoder_attentions),
                ("cross", eager.cross_attentions),
            ]:
                np.testing.assert_array_equal(result[kind].weights, torch.stack(reference)[:, 0].numpy())
    finally:
        for hook in hooks:
            hook.remove()


def test_values_that_are_not_numbers_do_not_refuse_weights_that_are(tiny_folder):
    """The finite check reads each attention output; a NaN there that comes from the values, not the weights, leads
    to a look at the weights themselves, which are numbers: the capture is kept."""
    handle = load_model(tiny_folder("bert"), "cpu")
    last = handle.model.encoder.layer[-1].attention.self
    with torch.no_grad():
        last.value.weight[0, 0] = float("nan")  # the last layer's output turns NaN; no later weight depends on it
    result = capture(handle, TEXTS[0])
    assert np.isfinite(result["self"].weights).all()


def test_a_model_that_wraps_the_end_of_pass_in_its_own_error_still_captures(tiny_folder):
    handle = load_model(tiny_folder("bert"), "cpu")
    last = handle.model.encoder.layer[-1]
    original = last.forward

    def wrapping(*args, **kwargs):
        try:
            return original(*args, **kwargs)
        except Exception as error:
            raise RuntimeError("the last layer failed") from error

    last.forward = wrapping
    first = capture(handle, TEXTS[0])
    second = capture(handle, TEXTS[0])  # ends at its last attention call, inside `wrapping`
    np.testing.assert_array_equal(second["self"].weights, first["self"].weights)

    def failing(*args, **kwargs):
        raise ValueError("a real failure")

    handle.model.encoder.layer[0].forward = failing
    with pytest.raises(ValueError, match="a real failure"):  # errors before the end are not swallowed
        capture(handle, TEXTS[0])


def test_layers_that_share_one_module_are_each_a_layer(tmp_path):
    """ALBERT runs one attention module for every layer: each run is a layer of the map (named path#i), equal to
    eager attention, in capture, in later captures and in the on-demand mode."""
    from attnviz.attention.ondemand import capture_lazy
    from tests.support.tiny import byte_level_tokenizer

    config = transformers.AlbertConfig(
        vocab_size=300,
        embedding_size=16,
        hidden_size=32,
        num_attention_heads=4,
        intermediate_size=64,
        num_hidden_layers=3,
        max_position_embeddings=128,
    )
    torch.manual_seed(0)
    transformers.AlbertModel(config).save_pretrained(tmp_path)
    byte_level_tokenizer().save_pretrained(tmp_path)
    handle = load_model(str(tmp_path), "cpu")
    eager_model = transformers.AlbertModel.from_pretrained(tmp_path, attn_implementation="eager").eval()
    with torch.no_grad():
        expected = torch.stack(
            eager_model(**handle.tokenizer(TEXTS[0], return_tensors="pt"), output_attentions=True).attentions
        )[:, 0].numpy()
    assert expected.shape[0] == 3
    for _ in range(2):
        amap = capture(handle, TEXTS[0])["self"]
        np.testing.assert_array_equal(amap.weights, expected)
    assert amap.layer_names == [f"{amap.layer_names[0].split('#')[0]}#{i}" for i in range(3)]
    lazy = capture_lazy(handle, TEXTS[0])
    np.testing.assert_allclose(lazy.map("self").weights, expected, atol=1e-6, rtol=0)
