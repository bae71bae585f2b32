"""Tokens read as text: no ▁/Ġ/## markers, Chinese intact, offsets into the original text."""

import numpy as np
import pytest

from attnviz.attention.encoding import _calls_backend_only
from attnviz.errors import InputError
from attnviz.text.tokens import tokens_for_ids, tokens_from_offsets
from attnviz.types import AttentionMap, Token
from tests.support.tiny import byte_level_tokenizer


@pytest.fixture(scope="module")
def tokenizer():
    return byte_level_tokenizer()


TEXTS = ["早上好！Good morning!", "I like studying 我喜欢学习", "🙂 café  naïve", "晚安"]


@pytest.mark.parametrize("text", TEXTS)
def test_decode_path_and_offset_path_agree(tokenizer, text):
    encoding = tokenizer(text, return_offsets_mapping=True)
    from_offsets = tokens_from_offsets(tokenizer, encoding["input_ids"], encoding["offset_mapping"], text)
    from_decoding = tokens_for_ids(tokenizer, encoding["input_ids"], text)
    assert len(from_decoding) == len(from_offsets) == len(encoding["input_ids"])
    for by_decoding, by_offsets in zip(from_decoding, from_offsets):
        assert by_decoding.special == by_offsets.special
        if by_decoding.special:
            assert by_decoding.start == -1 and by_decoding.text == "</s>"
            continue
        # A byte-level piece may straddle two characters; both paths must at least point at the same characters.
        assert by_decoding.start < by_offsets.end and by_offsets.start < by_decoding.end
        for token in (by_decoding, by_offsets):
            assert token.text == text[token.start : token.end]
            assert "Ġ" not in token.text and "\ufffd" not in token.text
    covered = set()
    for token in from_decoding:
        covered.update(range(token.start, token.end))
    assert covered == set(range(len(text))) - {i for i, c in enumerate(text) if c.isspace() and i not in covered}


def test_normalised_punctuation_maps_back_to_what_was_typed():
    class NormalisingTokenizer:
        """Decodes ！ as ! (NFKC), like sentencepiece models do."""

        all_special_ids = [1]
        unk_token_id = 2
        vocab = {5: "早上", 6: "好", 7: "!", 1: "</s>"}

        def decode(self, ids, **kwargs):
            return "".join(self.vocab[i] for i in ids if i != 1)

        def convert_ids_to_tokens(self, i):
            return self.vocab[i]

    tokens = tokens_for_ids(NormalisingTokenizer(), [5, 6, 7, 1], "早上好！")
    assert [t.text for t in tokens] == ["早上", "好", "！", "</s>"]
    assert [(t.start, t.end) for t in tokens[:3]] == [(0, 2), (2, 3), (3, 4)]
    assert tokens[-1].special


def test_space_only_pieces_read_as_spaces():
    tokenizer = byte_level_tokenizer(add_eos=False)  # GPT-2 style: offsets of "Ġ" pieces are trimmed to nothing
    text = "abc  de"
    encoding = tokenizer(text, return_offsets_mapping=True)
    tokens = tokens_from_offsets(tokenizer, encoding["input_ids"], encoding["offset_mapping"], text)
    assert all("Ġ" not in token.text for token in tokens)
    assert [token.text for token in tokens if not token.text.strip()] == [" ", " "]


def test_maps_refuse_nan_and_negative_weights():
    tokens = [Token("a", 0, 1)]
    for bad in (np.nan, np.inf, -0.5):
        with pytest.raises(InputError, match="finite and non-negative"):
            AttentionMap("self", np.full((1, 1, 1, 1), bad), tokens, tokens, ["layer"])


def test_tokenizers_with_their_own_call_are_called():
    class Custom(type(byte_level_tokenizer())):
        def _encode_plus(self, *args, **kwargs):
            return super()._encode_plus(*args, **kwargs)

    assert not _calls_backend_only(Custom)
    assert not _calls_backend_only(object)
