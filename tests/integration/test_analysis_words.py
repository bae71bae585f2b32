"""Word merging on tokens from real tokenizers (the tiny byte-level BPE, which splits Chinese characters into bytes)."""

import re

import numpy as np
import pytest

from attnviz.attention.capture import capture
from attnviz.maps import word_merge
from attnviz.model.load import load_model

TEXT = "早上好！I like studying attention."


@pytest.fixture(scope="module")
def self_map(tiny_folder):
    result = capture(load_model(tiny_folder("bert"), device="cpu"), TEXT)
    return result["self"]


def test_words_are_slices_of_the_text_and_cover_it(self_map):
    words = word_merge.merge_words(self_map, TEXT)
    located = [w for w in words.query_tokens if not w.special]
    assert all(TEXT[w.start : w.end] == w.text for w in located)
    assert "".join(w.text for w in located) == re.sub(r"\s", "", TEXT)
    assert {"studying", "attention", "like"} <= {w.text for w in located}  # English subwords are joined
    np.testing.assert_allclose(words.weights.sum(-1), 1.0, rtol=1e-4)


def test_chinese_words_are_the_tokenizers_pieces(self_map):
    groups = word_merge.word_groups(self_map.query_tokens)
    for first, stop in groups:
        pieces = self_map.query_tokens[first:stop]
        if any("\u4e00" <= c <= "\u9fff" for p in pieces for c in p.text):
            # One piece, or the byte pieces of one piece: they all cover the same characters.
            assert len({(p.start, p.end) for p in pieces}) == 1, pieces
