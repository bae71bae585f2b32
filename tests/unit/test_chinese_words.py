"""Chinese words in the word view: the segmenter's words made of whole tokens, whatever the tokens' granularity."""

import jieba
import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from attnviz.corpus.words import merged
from attnviz.maps import word_merge
from attnviz.text import chinese_words
from attnviz.types import Token
from tests.support.maps import random_map, tokens_from
from tests.support.strategies import property_settings

MISSED = "我错过了最后一辆公车。"


def jieba_words(text: str) -> list[str]:
    """The words jieba itself cuts `text` into (dictionary only): the path the module's answer is checked against."""
    return [word for word, _, _ in jieba.Tokenizer().tokenize(text, HMM=False)]


def group_texts(tokens, groups, text):
    return [text[tokens[first].start : tokens[stop - 1].end] for first, stop in groups]


def test_character_tokens_join_into_the_segmenters_words():
    tokens = tokens_from(list(MISSED), MISSED) + [Token("</s>", -1, -1, special=True)]
    groups = word_merge.word_groups(tokens, MISSED)
    assert group_texts(tokens, groups[:-1], MISSED) == jieba_words(MISSED)
    assert len(group_texts(tokens, groups[:-1], MISSED)) < len(MISSED)  # some words have several characters
    assert groups[-1] == (len(MISSED), len(MISSED) + 1)  # the special token stands alone
    assert word_merge.word_groups(tokens) == [(i, i + 1) for i in range(len(tokens))]  # no text: the pieces


def test_a_tokenizers_multi_character_pieces_are_kept_and_its_single_characters_joined():
    text = "早上好！妈妈在厨房做饭。"
    # demo-zh-en's pieces: 早上 and 妈妈 are pieces of its own; 厨房 is read a character at a time.
    pieces = ["早上", "好", "！", "妈妈", "在", "厨", "房", "做饭", "。"]
    tokens = tokens_from(pieces, text)
    groups = word_merge.word_groups(tokens, text)
    assert group_texts(tokens, groups, text) == ["早上", "好", "！", "妈妈", "在", "厨房", "做饭", "。"]
    assert "早上好" in jieba_words(text)  # the segmenter's longer word does not split or swallow the piece 早上


def test_a_coarser_piece_is_never_split_and_keeps_its_neighbours_apart():
    text = "最后一辆公车"
    tokens = tokens_from(["最后一", "辆", "公", "车"], text)  # 最后 · 一辆 cut inside the piece 最后一
    groups = word_merge.word_groups(tokens, text)
    assert groups == [(0, 1), (1, 2), (2, 4)]  # 最后一 · 辆 · 公车


def test_byte_pieces_of_one_character_join_the_word_as_that_character():
    text = "公车"
    tokens = [Token("公", 0, 1), Token("车", 1, 2), Token("车", 1, 2)]  # byte-level BPE: 车 in two byte pieces
    assert word_merge.word_groups(tokens, text) == [(0, 3)]


def test_english_and_pieces_touching_across_a_space_keep_their_rules():
    text = "I like 公 车 and studying"
    tokens = tokens_from(["I", "like", "公", "车", "and", "stud", "ying"], text)
    groups = word_merge.word_groups(tokens, text)
    assert group_texts(tokens, groups, text) == ["I", "like", "公", "车", "and", "studying"]


def test_merged_words_are_the_texts_slices_with_summed_keys_and_averaged_queries():
    tokens = tokens_from(list(MISSED), MISSED)
    amap = random_map(tokens, layers=2, heads=2)
    words = word_merge.merge_words(amap, MISSED)
    assert [t.text for t in words.key_tokens] == jieba_words(MISSED)
    assert all(MISSED[t.start : t.end] == t.text for t in words.key_tokens)
    first = [t.text for t in words.key_tokens].index("错过")  # pieces 1 and 2
    w = amap.weights
    np.testing.assert_allclose(words.weights[..., 0, first], w[..., 0, 1] + w[..., 0, 2], rtol=1e-6)
    np.testing.assert_allclose(words.weights[..., first, 0], (w[..., 1, 0] + w[..., 2, 0]) / 2, rtol=1e-6)
    np.testing.assert_allclose(words.weights.sum(-1), 1.0, rtol=1e-5)


def test_the_words_gold_links_index_are_the_words_the_view_draws():
    tokens = tokens_from(list(MISSED), MISSED) + [Token("</s>", -1, -1, special=True)]
    drawn = word_merge.merge_words(random_map(tokens), MISSED)
    gold_words = merged(tokens, MISSED).words
    assert list(gold_words) == [t.text for t in drawn.key_tokens if not t.special]


@property_settings(60)
@given(cuts=st.sets(st.integers(1, len(MISSED) - 1)))
def test_any_tokenization_gives_words_of_whole_tokens_cut_only_where_the_segmenter_or_a_piece_cuts(cuts):
    bounds = [0, *sorted(cuts), len(MISSED)]
    tokens = [Token(MISSED[a:b], a, b) for a, b in zip(bounds, bounds[1:])]
    groups = word_merge.word_groups(tokens, MISSED)
    assert [i for first, stop in groups for i in range(first, stop)] == list(range(len(tokens)))
    ids = chinese_words.word_ids(MISSED)
    for first, stop in groups:  # inside a word: each seam joins two single characters of one segmenter word
        for left, right in zip(tokens[first : stop - 1], tokens[first + 1 : stop]):
            assert len(left.text) == len(right.text) == 1 and ids[left.start] == ids[right.start] >= 0
    for (_, stop), (first, _) in zip(groups, groups[1:]):  # between words: a piece of several, or a word boundary
        left, right = tokens[stop - 1], tokens[first]
        assert len(left.text) > 1 or len(right.text) > 1 or ids[left.start] != ids[right.start]


def test_spans_are_han_words_only():
    text = "我在Google工作, 3点。"
    spans = chinese_words.chinese_word_spans(text)
    assert [text[a:b] for a, b in spans] == [w for w in jieba_words(text) if all(chinese_words.is_han(c) for c in w)]
    assert chinese_words.chinese_word_spans("no Chinese here") == ()
