"""A model object the caller holds (`attnviz.capture(model, tokenizer, text)`, `attnviz.model.objects.from_objects`).

Checked against independent paths: the same weights loaded by name (`load_model`) capture the same maps bit for
bit; the model's own outputs, config and training mode before a capture are those after it; a half-precision model's
weights match its own eager `output_attentions`; a LoRA model's capture matches the same adapters merged into the
weights; what cannot be captured is refused with the model untouched.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest
import torch
import transformers

import attnviz
from attnviz.errors import ModelLoadError
from attnviz.model.load import load_model
from attnviz.model.objects import from_objects
from attnviz.provenance import alignment_heads_of
from tests.support import needs, tiny

TEXT = "早上好！I like studying."
TARGET = "Good morning!"


def _objects(folder: str, family: str):
    """The model and tokenizer of `folder`, loaded by transformers as a caller would: left in training mode, with
    transformers' default attention implementation (sdpa)."""
    model = tiny.MODEL_CLASSES[family].from_pretrained(folder)
    model.train()
    return model, transformers.AutoTokenizer.from_pretrained(folder)


def _target(family: str) -> dict:
    return {"target": TARGET} if family in tiny.SEQ2SEQ else {}


def _assert_same(left, right) -> None:
    """Two captures with the same maps, tokens, layer names and value norms, bit for bit."""
    assert left.maps.keys() == right.maps.keys()
    for kind in left.maps:
        a, b = left[kind], right[kind]
        assert a.weights.dtype == np.float32 and np.array_equal(a.weights, b.weights), kind
        assert a.query_tokens == b.query_tokens and a.key_tokens == b.key_tokens
        assert a.layer_names == b.layer_names
        assert (a.value_norms is None) == (b.value_norms is None)
        if a.value_norms is not None:
            assert np.array_equal(a.value_norms, b.value_norms)


def _outputs(model, tokenizer, family: str) -> torch.Tensor:
    """The model's own output on a fixed input, in eval mode (its last hidden state or logits)."""
    ids = tokenizer(TEXT, return_tensors="pt")
    extra = {"decoder_input_ids": ids["input_ids"][:, :3]} if family in tiny.SEQ2SEQ else {}
    was_training = model.training
    model.eval()
    with torch.no_grad():
        out = model(**ids, **extra)
    model.train(was_training)
    return out[0]


@pytest.mark.parametrize("family", tiny.FAMILIES)
def test_a_model_object_captures_what_the_same_model_loaded_by_name_captures(tiny_folder, family):
    folder = tiny_folder(family)
    model, tokenizer = _objects(folder, family)
    by_name = attnviz.capture(load_model(folder, device="cpu"), TEXT, **_target(family))
    by_object = attnviz.capture(model, tokenizer, TEXT, **_target(family))
    _assert_same(by_object, by_name)
    assert by_object.provenance["model"]["source"] == "object"


@pytest.mark.parametrize("family", tiny.FAMILIES)
def test_a_capture_leaves_the_model_as_it_was(tiny_folder, family):
    model, tokenizer = _objects(tiny_folder(family), family)
    config_before = model.config.to_dict()
    implementation = model.config._attn_implementation
    before = _outputs(model, tokenizer, family)
    training = {name: module.training for name, module in model.named_modules()}
    attnviz.capture(model, tokenizer, TEXT, **_target(family))
    assert {name: module.training for name, module in model.named_modules()} == training
    assert all(training.values())  # still training, as the caller left it
    assert model.config._attn_implementation == implementation == "sdpa"
    assert model.config.to_dict() == config_before
    assert torch.equal(_outputs(model, tokenizer, family), before)


@pytest.mark.parametrize("family", ["llama", "bart"])
@pytest.mark.parametrize("context", [torch.no_grad, torch.inference_mode])
def test_a_capture_inside_no_grad_or_inference_mode_is_the_same(tiny_folder, family, context):
    model, tokenizer = _objects(tiny_folder(family), family)
    outside = attnviz.capture(model, tokenizer, TEXT, **_target(family))
    with context():
        inside = attnviz.capture(model, tokenizer, TEXT, **_target(family))
    _assert_same(inside, outside)


@pytest.mark.parametrize("family", ["llama", "marian"])
def test_on_demand_and_generation_take_a_model_object(tiny_folder, family):
    folder = tiny_folder(family)
    model, tokenizer = _objects(folder, family)
    handle = load_model(folder, device="cpu")
    kind = "self" if family == "llama" else "cross"
    lazy = attnviz.capture_lazy(model, tokenizer, TEXT, **_target(family))
    lazy_by_name = attnviz.capture_lazy(handle, TEXT, **_target(family))
    assert np.array_equal(lazy.head(kind, 1, 2), lazy_by_name.head(kind, 1, 2))
    written = attnviz.generate(model, tokenizer, TEXT, max_new_tokens=4)
    written_by_name = attnviz.generate(handle, TEXT, max_new_tokens=4)
    assert written.target_text == written_by_name.target_text
    _assert_same(written, written_by_name)
    assert model.training


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("family", ["llama", "bart"])
def test_a_half_precision_model_matches_its_own_eager_attention(tiny_folder, family, dtype):
    """The fp32 weights of a capture agree with the model's own eager output_attentions (which it rounds to its
    dtype), and the model keeps its dtype."""
    model, tokenizer = _objects(tiny_folder(family), family)
    model.to(dtype)
    captured = attnviz.capture(model, tokenizer, TEXT, **_target(family))
    ids = tokenizer(TEXT, return_tensors="pt")
    extra = {}
    if family in tiny.SEQ2SEQ:
        extra["labels"] = tokenizer(text_target=TARGET, return_tensors="pt")["input_ids"]
    eager = copy.deepcopy(model).eval()
    eager.set_attn_implementation("eager")
    with torch.no_grad():
        out = eager(**ids, **extra, output_attentions=True)
    own = out.attentions if family not in tiny.SEQ2SEQ else out.encoder_attentions
    kind = "self" if family not in tiny.SEQ2SEQ else "encoder"
    expected = torch.stack(own)[:, 0].float().numpy()  # (layers, heads, q, k)
    tolerance = 2 * torch.finfo(dtype).eps
    np.testing.assert_allclose(captured[kind].weights, expected, atol=tolerance, rtol=0)
    np.testing.assert_allclose(captured[kind].weights.sum(-1), 1.0, atol=1e-5)
    assert next(model.parameters()).dtype == dtype and captured.provenance["dtype"] == str(dtype).split(".")[1]


# ----------------------------------------------------------------------------------------------------------------------
# What is refused, with the model untouched


def test_an_object_that_is_not_a_transformers_model_is_refused(tiny_folder):
    _, tokenizer = _objects(tiny_folder("gpt2"), "gpt2")
    with pytest.raises(ModelLoadError) as refused:
        attnviz.capture(torch.nn.Linear(4, 4), tokenizer, TEXT)
    assert refused.value.key == "model_object_not_transformers" and "Linear" in refused.value.message("zh")


def test_an_architecture_outside_the_attention_interface_is_refused_untouched(tiny_folder):
    _, tokenizer = _objects(tiny_folder("gpt2"), "gpt2")
    bloom = transformers.BloomForCausalLM(transformers.BloomConfig(vocab_size=300, hidden_size=32, n_layer=1, n_head=4))
    implementation = bloom.config._attn_implementation
    with pytest.raises(ModelLoadError) as refused:
        attnviz.capture(bloom, tokenizer, TEXT)
    assert refused.value.key == "model_object_unsupported"
    assert "BloomForCausalLM" in str(refused.value) and "BloomForCausalLM" in refused.value.message("zh")
    assert bloom.config._attn_implementation == implementation and bloom.training


def test_a_tokenizer_with_more_tokens_than_the_model_reads_is_refused(tiny_folder):
    model, tokenizer = _objects(tiny_folder("llama"), "llama")
    tokenizer.add_tokens(["extra-one", "extra-two"])  # ids 300 and 301: past the 300 embedding rows
    implementation = model.config._attn_implementation
    with pytest.raises(ModelLoadError) as refused:
        from_objects(model, tokenizer)
    assert refused.value.key == "tokenizer_too_large"
    assert "302" in str(refused.value) and "302" in refused.value.message("zh")
    assert model.config._attn_implementation == implementation and model.training


def test_a_tokenizer_whose_end_token_differs_from_the_model_s_is_refused(tiny_folder):
    model, tokenizer = _objects(tiny_folder("gpt2"), "gpt2")
    tokenizer.eos_token = "<unk>"  # id 2; the model's config says 1
    with pytest.raises(ModelLoadError) as refused:
        attnviz.generate(model, tokenizer, TEXT)
    assert refused.value.key == "tokenizer_special_differs"
    assert refused.value.values["model_id"] == 1 and refused.value.values["tokenizer_id"] == 2


def test_a_missing_tokenizer_is_refused(tiny_folder):
    model, _ = _objects(tiny_folder("bert"), "bert")
    with pytest.raises(ModelLoadError) as refused:
        attnviz.capture(model, TEXT)  # the text where the tokenizer belongs
    assert refused.value.key == "tokenizer_object_invalid"


# ----------------------------------------------------------------------------------------------------------------------
# PEFT / LoRA


def _lora(model, modules: list[str]):
    peft = needs.module("peft", "requirements-dev.txt")
    torch.manual_seed(1)
    adapters = peft.LoraConfig(r=4, lora_alpha=8, target_modules=modules, init_lora_weights=False)
    return peft.get_peft_model(model, adapters)


def test_a_lora_model_captures_its_adapters_as_merged_weights_do(tiny_folder):
    """Independent path: the adapters merged into the weights (W + BA) give the same maps, up to the rounding of
    one matmul against two; the base model without them gives different maps."""
    folder = tiny_folder("llama")
    model, tokenizer = _objects(folder, "llama")
    wrapped = _lora(model, ["q_proj", "v_proj"])
    captured = attnviz.capture(wrapped, tokenizer, TEXT)
    merged = copy.deepcopy(wrapped).merge_and_unload()
    expected = attnviz.capture(merged, tokenizer, TEXT)
    np.testing.assert_allclose(captured["self"].weights, expected["self"].weights, atol=1e-6, rtol=0)
    np.testing.assert_allclose(captured["self"].value_norms, expected["self"].value_norms, rtol=1e-5)
    base = attnviz.capture(load_model(folder, device="cpu"), TEXT)
    assert not np.allclose(captured["self"].weights, base["self"].weights, atol=1e-4)
    assert captured["self"].layer_names == base["self"].layer_names  # the transformers model's own paths


def test_a_lora_output_projection_gives_no_value_norms_rather_than_wrong_ones(tiny_folder):
    model, tokenizer = _objects(tiny_folder("llama"), "llama")
    wrapped = _lora(model, ["o_proj"])
    captured = attnviz.capture(wrapped, tokenizer, TEXT)
    assert captured["self"].value_norms is None  # the projection's weight alone is not what the layer applies
    merged = attnviz.capture(copy.deepcopy(wrapped).merge_and_unload(), tokenizer, TEXT)
    np.testing.assert_allclose(captured["self"].weights, merged["self"].weights, atol=1e-6, rtol=0)


# ----------------------------------------------------------------------------------------------------------------------
# The model's alignment heads travel with every capture


@pytest.fixture(scope="module")
def demo_translator():
    """The shipped Chinese → English translator (its config names one trained alignment head), by name and as the
    objects a caller loads from its folder."""
    by_name = load_model("demo-zh-en", "cpu")
    folder = by_name.path
    model = transformers.AutoModelForSeq2SeqLM.from_pretrained(folder)
    return by_name, model, transformers.AutoTokenizer.from_pretrained(folder)


def test_every_capture_carries_the_alignment_heads_the_model_loaded_by_name_has(demo_translator):

    by_name, model, tokenizer = demo_translator
    assert by_name.alignment_heads  # the shipped translator has one: the test would otherwise prove nothing
    captures = {
        "by name": attnviz.capture(by_name, "早上好！", target=TARGET),  # the tutorial's own call
        "objects": attnviz.capture(model, tokenizer, "早上好！", target=TARGET),
        "on demand": attnviz.capture_lazy(model, tokenizer, "早上好！", target=TARGET).to_capture(),
        "written": attnviz.generate(model, tokenizer, "早上好！", max_new_tokens=4),
    }
    expected = sorted(by_name.alignment_heads)
    named = "L{}·H{}".format(*expected[0])
    for how, captured in captures.items():
        assert sorted(alignment_heads_of(captured)) == expected, how
        title = attnviz.show(captured, "alignment", display=False).figures["alignment"].layout.title.text
        assert f"alignment heads · {named}" in title, how


@pytest.mark.parametrize("lang, words", [("en", "alignment heads not recorded"), ("zh", "未记录对齐头")])
def test_a_capture_that_did_not_record_them_says_it_does_not_know_them(demo_translator, lang, words):
    from dataclasses import replace

    by_name, _, _ = demo_translator
    unknown = replace(attnviz.capture(by_name, "早上好！", target=TARGET), meta={})  # as a capture made by hand
    title = attnviz.show(unknown, "alignment", lang=lang, display=False).figures["alignment"].layout.title.text
    assert words in title
    known = attnviz.show(unknown, "alignment", alignment_heads=[(2, 0)], display=False)  # given: the heads named
    assert "alignment heads · L2·H0" in known.figures["alignment"].layout.title.text
