"""Tokens read as text by the embedded models' tokenizers: unknown characters read as themselves, and capture
tokenizes exactly as calling the tokenizer would."""

import pytest

from attnviz.attention.capture import capture
from attnviz.attention.encoding import _calls_backend_only, encode
from attnviz.model.load import load_model
from attnviz.text.tokens import tokens_from_offsets
from tests.support.tiny import byte_level_tokenizer


def test_unknown_characters_read_as_themselves():
    handle = load_model("demo-zh-en", "cpu")
    for text, expected in [("今天天气怎么样？", "怎"), ("龘龘 早上好 龘", "龘龘")]:
        tokens = capture(handle, text)["encoder"].query_tokens
        texts = [t.text for t in tokens]
        assert expected in texts, texts
        for token in tokens:
            if not token.special:
                assert token.text == text[token.start : token.end]
        assert "".join(dict.fromkeys(texts[:-1])).replace(" ", "") == text.replace(" ", "")


UNUSUAL = [
    "早上好！Good morning!",
    "tab\there\nnew line",
    "  leading and trailing  ",
    "[CLS] typed [SEP] <s>",
    "🙂👍🏽 naïve",
]


@pytest.mark.parametrize("name", ["byte-level", "minilm"])
def test_capture_tokenizes_exactly_as_calling_the_tokenizer(name):
    """capture reads ids and offsets from the Rust backend directly where that is all a call would do: same ids,
    same tokens as the tokenizer's own call, and the call is still used when the backend has settings it would reset."""
    tok = byte_level_tokenizer() if name == "byte-level" else load_model("minilm", "cpu").tokenizer
    assert _calls_backend_only(type(tok))
    for text in UNUSUAL:
        called = tok(text, return_offsets_mapping=True)
        encoded = encode(tok, text)
        assert encoded.ids == called["input_ids"]
        assert encoded.tokens == tokens_from_offsets(tok, called["input_ids"], called["offset_mapping"], text)
    tok.backend_tokenizer.enable_truncation(max_length=3)  # left by someone else; a plain call would reset it
    try:
        assert encode(tok, UNUSUAL[0]).ids == tok(UNUSUAL[0])["input_ids"]
        assert len(encode(tok, UNUSUAL[0]).ids) > 3
    finally:
        tok.backend_tokenizer.no_truncation()
