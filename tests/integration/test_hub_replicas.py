"""Each hub model's architecture, on a local tiny replica (tests/support/replicas.py) loaded from a folder through the
code that loads the hub id: its kind, weights equal to eager attention bit for bit on the inputs its model card says
to build (language codes, task prefix, target-language token, plain text), and what attnviz feeds it really used."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import numpy as np
import pytest
import torch
import transformers

from attnviz.attention.capture import capture
from attnviz.attention.generation import generate
from attnviz.errors import InputError
from attnviz.model import hub, usage
from attnviz.model.load import load_model, without_sacremoses_request
from tests.support import replicas

SEQ2SEQ_CASES = [  # (hub id, text, target, how its model card builds the model's input)
    ("Helsinki-NLP/opus-mt-zh-en", "早上好！", "Good morning!", {}),
    ("Helsinki-NLP/opus-mt-en-zh", "Good morning!", "早上好！", {"prefix": ">>cmn_Hans<< "}),
    ("facebook/nllb-200-distilled-600M", "早上好！", "Good morning!", {"src_lang": "zho_Hans", "tgt_lang": "eng_Latn"}),
    ("facebook/nllb-200-distilled-600M", "Good morning!", "早上好！", {"src_lang": "eng_Latn", "tgt_lang": "zho_Hans"}),
    ("google-t5/t5-small", "Good morning!", "Guten Morgen!", {"prefix": "translate English to German: "}),
]
ONE_STACK = ["bert-base-chinese", "bert-base-multilingual-cased", "gpt2", "Qwen/Qwen2.5-0.5B"]


@pytest.fixture(scope="module")
def replica(tmp_path_factory):
    """replica(hub id) -> the folder of its tiny replica (made once per module)."""
    made = {}

    def make(model_id: str) -> str:
        if model_id not in made:
            made[model_id] = replicas.BUILDERS[model_id](tmp_path_factory.mktemp(model_id.replace("/", "_")))
        return made[model_id]

    return make


def _eager(folder: str, model_class):
    return model_class.from_pretrained(folder, attn_implementation="eager").eval()


def _decoder_inputs(model, labels: torch.Tensor) -> torch.Tensor:
    """The decoder's input for `labels` as the model builds it in training (M2M100 does it inside its forward)."""
    if hasattr(model, "prepare_decoder_input_ids_from_labels"):
        return model.prepare_decoder_input_ids_from_labels(labels=labels)
    from transformers.models.m2m_100.modeling_m2m_100 import shift_tokens_right

    return shift_tokens_right(labels, model.config.pad_token_id, model.config.decoder_start_token_id)


def _stack(attentions) -> np.ndarray:
    return torch.stack(attentions)[:, 0].numpy()  # (layers, heads, queries, keys)


@pytest.mark.parametrize("model_id", [model.id for model in hub.HUB_MODELS])
def test_each_replica_loads_as_its_hub_model_would(replica, model_id):
    handle = load_model(replica(model_id), "cpu")
    assert handle.kind == hub.BY_ID[model_id].kind
    assert (handle.num_layers, handle.num_heads) == (2, 4)


@pytest.mark.parametrize("model_id, text, target, card", SEQ2SEQ_CASES, ids=[f"{c[0]}:{c[1]}" for c in SEQ2SEQ_CASES])
def test_translators_read_what_their_model_card_says_and_equal_eager(replica, model_id, text, target, card):
    folder = replica(model_id)
    handle = load_model(folder, "cpu")
    result = capture(handle, text, target)
    with without_sacremoses_request():
        tokenizer = transformers.AutoTokenizer.from_pretrained(
            folder, **{k: v for k, v in card.items() if k != "prefix"}
        )
    official = tokenizer(card.get("prefix", "") + text, text_target=target, return_tensors="pt")
    model = _eager(folder, transformers.AutoModelForSeq2SeqLM)
    decoder_input_ids = _decoder_inputs(model, official["labels"])
    with torch.no_grad():
        eager = model(
            input_ids=official["input_ids"],
            attention_mask=official["attention_mask"],
            decoder_input_ids=decoder_input_ids,
            output_attentions=True,
        )
    np.testing.assert_array_equal(result["encoder"].weights, _stack(eager.encoder_attentions))  # bit for bit
    np.testing.assert_array_equal(result["decoder"].weights, _stack(eager.decoder_attentions))
    np.testing.assert_array_equal(result["cross"].weights, _stack(eager.cross_attentions))
    assert result.source_text == card.get("prefix", "") + text  # what the model read, prefix included
    source = [token.text for token in result["encoder"].key_tokens]
    if "src_lang" in card:  # the codes were really used: the source starts with its own, the target with its own
        assert source[0] == card["src_lang"] and result["encoder"].key_tokens[0].special
        assert [token.text for token in result["decoder"].key_tokens][:2] == ["</s>", card["tgt_lang"]]
        assert handle.tokenizer.src_lang == "eng_Latn" and handle.tokenizer.tgt_lang is None  # put back


def test_nllb_writes_after_the_forced_target_language_code(replica):
    folder = replica("facebook/nllb-200-distilled-600M")
    handle = load_model(folder, "cpu")
    for text, source_code, target_code in (
        ("早上好！", "zho_Hans", "eng_Latn"),
        ("Good morning!", "eng_Latn", "zho_Hans"),
    ):
        written = generate(handle, text, max_new_tokens=4)
        assert written["encoder"].key_tokens[0].text == source_code
        assert written.steps[0].token.text == target_code and written.steps[0].token.special
        assert written.provenance["options"]["target_code"] == target_code
        tokenizer = transformers.AutoTokenizer.from_pretrained(folder, src_lang=source_code)
        inputs = tokenizer(text, return_tensors="pt")
        forced = tokenizer.convert_tokens_to_ids(target_code)
        expected = handle.model.generate(**inputs, forced_bos_token_id=forced, max_new_tokens=4, do_sample=False)
        assert [step.token.text for step in written.steps] == tokenizer.convert_ids_to_tokens(expected[0, 1:])


def test_nllb_can_be_told_the_target_language(replica):
    handle = load_model(replica("facebook/nllb-200-distilled-600M"), "cpu")
    read = usage.reading(handle, "Good morning!", target_language="fra_Latn")
    assert (read.source_code, read.target_code) == ("eng_Latn", "fra_Latn")
    assert read.forced_bos_token_id == handle.tokenizer.convert_tokens_to_ids("fra_Latn")
    with pytest.raises(InputError) as missing:
        usage.reading(handle, "Good morning!", target_language="deu_Latn")
    assert missing.value.key == "hub_language_code_missing" and "deu_Latn" in str(missing.value)


def test_t5_small_refuses_chinese_with_a_sentence_and_says_its_pairs(replica):
    handle = load_model(replica("google-t5/t5-small"), "cpu")
    with pytest.raises(InputError) as refused:
        capture(handle, "早上好！", "Good morning!")
    assert refused.value.key == "hub_t5_no_chinese"
    assert "en → de, en → fr, en → ro" in str(refused.value) and "不支持中文" in refused.value.message("zh")
    with pytest.raises(InputError):
        generate(handle, "我喜欢学习", max_new_tokens=2)
    assert usage.reading(handle, "Hello", target_language="fr").text == "translate English to French: Hello"
    written = generate(handle, "Good morning!", max_new_tokens=3)
    assert written.source_text == "translate English to German: Good morning!"
    assert written.provenance["options"]["prefix"] == "translate English to German: "


def test_opus_mt_zh_en_reads_the_text_alone(replica):
    handle = load_model(replica("Helsinki-NLP/opus-mt-zh-en"), "cpu")
    assert usage.reading(handle, "早上好！") == usage.Reading("早上好！")


@pytest.mark.parametrize("model_id", ONE_STACK)
def test_one_stack_models_read_plain_text_and_equal_eager(replica, model_id):
    folder = replica(model_id)
    handle = load_model(folder, "cpu")
    text = "Good morning! 早上好！"
    result = capture(handle, text)
    plain = handle.tokenizer(text, return_tensors="pt")
    if handle.kind == "encoder":
        model = _eager(folder, transformers.AutoModel)
        assert [token.text for token in result["self"].query_tokens][0] == "[CLS]"
    else:
        model = _eager(folder, transformers.AutoModelForCausalLM)
    with torch.no_grad():
        eager = model(**plain, output_attentions=True)
    np.testing.assert_array_equal(result["self"].weights, _stack(eager.attentions))  # bit for bit, GQA for Qwen2
    assert len(result["self"].query_tokens) == plain["input_ids"].shape[1]
    assert result.source_text == text


def test_qwen_reads_and_continues_plain_text_never_its_chat_template(replica):
    handle = load_model(replica("Qwen/Qwen2.5-0.5B"), "cpu")
    assert handle.tokenizer.chat_template  # it has one, as Qwen2.5's tokenizer does
    assert handle.model.config.num_key_value_heads == 2  # grouped-query attention
    text = "Good morning!"
    chat = handle.tokenizer.apply_chat_template([{"role": "user", "content": text}], tokenize=False)
    assert "<|im_start|>" in chat
    written = generate(handle, text, max_new_tokens=3)
    plain = handle.tokenizer(text)["input_ids"]
    tokens = written["self"].query_tokens
    assert len(tokens) == len(plain) + 3 - 1  # the prompt as it is, then what was written (but the last token)
    assert written.source_text.startswith(text)
    assert all(text[token.start : token.end].strip() == token.text for token in tokens[: len(plain)])
    assert not any("<|im_start|>" in token.text for token in written["self"].query_tokens)
    assert "prefix" not in written.provenance["options"]


def test_gpt2_reads_the_text_without_a_start_token(replica):
    handle = load_model(replica("gpt2"), "cpu")
    result = capture(handle, "Good morning!")
    assert not any(token.special for token in result["self"].query_tokens)
    tokens = result["self"].query_tokens
    assert len(tokens) == len(handle.tokenizer("Good morning!")["input_ids"])
    assert [token.text for token in tokens][0] == "Good" and tokens[0].start == 0


def test_a_hub_model_already_in_the_local_cache_loads_offline(replica, tmp_path):
    """The hub client's cache layout (models--org--name/snapshots/<commit>, refs/main) holding a replica: with
    HF_HUB_OFFLINE on, the hub id loads from it, through the same code as any hub id."""
    commit = "0123456789abcdef0123456789abcdef01234567"
    repo = tmp_path / "cache" / "models--attnviz-tests--tiny-gpt2"
    shutil.copytree(replica("gpt2"), repo / "snapshots" / commit)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(commit)
    script = (
        "from attnviz.model.load import load_model; from attnviz.attention.capture import capture\n"
        "handle = load_model('attnviz-tests/tiny-gpt2', 'cpu')\n"
        "print(handle.kind, handle.path, capture(handle, 'Good morning!')['self'].weights.shape[:2])"
    )
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_HUB_CACHE": str(tmp_path / "cache")}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[-2] == "decoder None (2, 4)"


def test_gold_words_and_a_reverse_view_leave_a_models_prefix_out(replica):
    """opus-mt-en-zh reads ">>cmn_Hans<< Good morning!": gold links count the user's words, not the code, and a
    reverse model's tokens meet the forward pair's words through offsets that count the prefix where it is."""
    from attnviz.corpus.view import pair_words, reading_prefix, reverse_texts, reverse_view
    from attnviz.corpus.words import token_words

    en_zh = load_model(replica("Helsinki-NLP/opus-mt-en-zh"), "cpu")
    zh_en = load_model(replica("Helsinki-NLP/opus-mt-zh-en"), "cpu")
    forward = capture(en_zh, "Good morning!", "早上好！")
    assert reading_prefix(forward) == ">>cmn_Hans<< " and forward.source_text == ">>cmn_Hans<< Good morning!"
    words = pair_words(forward)
    assert "".join(words.source.words) == "Goodmorning!" and ">>" not in "".join(words.source.words)
    assert reverse_texts(forward) == ("早上好！", "Good morning!")
    backward = capture(zh_en, *reverse_texts(forward))
    view = reverse_view(backward, zh_en.alignment_heads, reading_prefix(forward))
    owners = token_words(view.query_tokens, words.source)  # the reverse target: "Good morning!" behind the prefix
    assert [o for o in owners if o is not None] and set(o for o in owners if o is not None) == set(
        range(len(words.source))
    )
    read_back = backward["cross"].query_tokens  # offsets into the reverse model's target, "Good morning!"
    assert [words.source.text[t.start : t.end] for t in view.query_tokens if t.start >= 0] == [
        backward.target_text[t.start : t.end] for t in read_back if t.start >= 0
    ]  # the same characters, found at their place in the forward text

    # Reversed roles: the reverse model is the prefixed one; its source tokens lose its own prefix.
    forward = capture(zh_en, "早上好！", "Good morning!")
    words = pair_words(forward)
    backward = capture(en_zh, *reverse_texts(forward))
    view = reverse_view(backward, en_zh.alignment_heads, reading_prefix(forward))
    pairs = zip(view.key_tokens, backward["cross"].key_tokens, strict=True)
    kept = [(new, old) for new, old in pairs if new.start >= 0]
    assert kept and all(words.target.text[n.start : n.end] == backward.source_text[o.start : o.end] for n, o in kept)
    assert all(
        o.end <= len(">>cmn_Hans<< ")
        for n, o in zip(view.key_tokens, backward["cross"].key_tokens)
        if n.start < 0 and o.start >= 0
    )
    assert set(token_words(view.key_tokens, words.target)) - {None} == set(range(len(words.target)))
