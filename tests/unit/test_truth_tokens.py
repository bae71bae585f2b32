"""Unknown tokens and normalised text: every label is the text the token covers in the original input, and what the
model read as unknown (<unk>, byte fallback) is marked so, for SentencePiece, WordPiece and byte-level tokenizers."""

from __future__ import annotations

import numpy as np
import pytest

from attnviz.attention.encoding import encode
from attnviz.maps.word_merge import merge_words
from attnviz.text.tokens import shown, tokens_for_ids, unknown_flags
from attnviz.types import AttentionMap, Token
from tests.support.normalising import byte_fallback, located, normalising_marian, wordpiece
from tests.support.tiny import byte_level_tokenizer


@pytest.fixture(scope="module")
def marian(tmp_path_factory):
    return normalising_marian(tmp_path_factory.mktemp("marian"))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("早上 好!", [("早", 0, 1, False), ("上", 1, 2, False), ("好", 3, 4, False), ("!", 4, 5, False)]),
        ("学习.", [("学", 0, 1, False), ("习", 1, 2, False), (".", 2, 3, False)]),
        ("龘 早上好", [("龘", 0, 1, True), ("早", 2, 3, False), ("上", 3, 4, False), ("好", 4, 5, False)]),
    ],
)
def test_sentencepiece_normaliser_spaces_and_full_width_punctuation(marian, text, expected):
    encoded = encode(marian, text)
    assert "！" in marian.convert_ids_to_tokens(encoded.ids) or "!" not in text  # the model read it as ！
    assert located(encoded.tokens, text) == expected


def test_unknown_before_normalised_punctuation_is_not_hidden(marian):
    """The issue's repro: <unk> then 。 was drawn as one token "T" (<unk> hidden, 。 at a stale offset)."""
    text = "Dog cat."
    encoded = encode(marian, text)
    tokens = located(encoded.tokens, text)
    assert tokens[-1] == (".", 7, 8, False)
    assert all(unknown for *_, unknown in tokens[:-1]) and tokens[0][1] == 0
    assert not any(token.special and token.text == "<unk>" for token in encoded.tokens)


def test_the_decoding_walk_reads_full_width_punctuation_as_typed():
    class Tokenizer:  # a tokenizer without SentencePiece offsets: <unk> then "。" for "Hello world."
        all_special_ids, unk_token_id = [0, 1], 1
        vocab = {0: "</s>", 1: "<unk>", 2: "。"}

        def decode(self, ids, **kwargs):
            return "".join(self.vocab[i] for i in ids if i not in (0, 1))

        def convert_ids_to_tokens(self, i):
            return self.vocab[i]

    tokens = tokens_for_ids(Tokenizer(), [1, 2, 0], "Hello world.")
    assert [(t.text, t.start, t.end, t.unknown, t.special) for t in tokens] == [
        ("Hello world", 0, 11, True, False),
        (".", 11, 12, False, False),
        ("</s>", -1, -1, False, True),
    ]


def test_marian_target_side_uses_its_own_sentencepiece(marian):
    text = "Good  morning!"
    encoded = encode(marian, text, target=True)
    assert "".join(t.text for t in encoded.tokens if not t.special) == "Goodmorning!"
    located(encoded.tokens, text)


def test_wordpiece_lowercasing_and_accents_keep_the_original_text():
    text = "Café  naïve ＡＢＣ 早上好!"
    encoded = encode(wordpiece(), text)
    assert located(encoded.tokens, text) == [
        ("Café", 0, 4, False),
        ("naïve", 6, 11, False),
        ("ＡＢＣ", 12, 15, True),
        ("早", 16, 17, False),
        ("上", 17, 18, False),
        ("好", 18, 19, True),
        ("!", 19, 20, False),
    ]
    assert [t.special for t in encoded.tokens] == [True] + [False] * 7 + [True]  # [UNK] is never special


def test_byte_fallback_pieces_are_unknown_and_cover_their_character():
    tokenizer = byte_fallback()
    text = "ab龘c"
    encoded = encode(tokenizer, text)
    assert tokenizer.convert_ids_to_tokens(encoded.ids) == ["ab", "<0xE9>", "<0xBE>", "<0x98>", "c"]
    assert located(encoded.tokens, text) == [("ab", 0, 2, False)] + [("龘", 2, 3, True)] * 3 + [("c", 3, 4, False)]


def test_byte_level_bpe_has_no_unknown_tokens():
    tokenizer = byte_level_tokenizer()
    text = "早上好！Good morning! 龘"
    encoded = encode(tokenizer, text)
    assert not any(unknown_flags(tokenizer, encoded.ids))
    assert not any(t.unknown for t in encoded.tokens)


def test_merged_words_keep_unknown_and_shown_text_marks_it():
    tokens = [Token("caf", 0, 3), Token("é", 3, 4, unknown=True), Token("x", 5, 6)]
    amap = AttentionMap("self", np.full((1, 1, 3, 3), 1 / 3, dtype=np.float32), tokens, tokens, ["l0"])
    words = merge_words(amap, "café x").query_tokens
    assert [(w.text, w.unknown) for w in words] == [("café", True), ("x", False)]
    assert [shown(w) for w in words] == ["café?", "x"]
