"""Word alignments on pieces: piece → word maps, gold attention rows, word-level merge, AER."""

import numpy as np
import pytest

from attnviz.errors import InputError
from training.translator.alignment import argmax_links, gold_attention, piece_words, strong_links, word_attention


def test_piece_words_groups_subword_pieces():
    assert piece_words(["▁Good", "▁morn", "ing", "!"], ["Good", "morning", "!"]) == [0, 1, 1, 2]
    assert piece_words(["早上", "好", "！"], ["早上", "好", "！"]) == [0, 1, 2]
    assert piece_words(["▁", "wi", "ll"], ["will"]) == [0, 0, 0]


def test_piece_words_refuses_pieces_that_straddle_or_miss_words():
    with pytest.raises(InputError, match="inside one of the words"):
        piece_words(["早上好", "！"], ["早上", "好", "！"])
    with pytest.raises(InputError, match="do not spell"):
        piece_words(["早上"], ["早上", "好"])


def test_gold_rows_are_distributions_and_unaligned_goes_to_end_of_sentence():
    # source 我 喜欢 学习 (pieces 0..2), target "I like stud ying" + a word with no link
    gold = gold_attention([0, 1, 2], [0, 1, 2, 2, 3], {(0, 0), (1, 1), (2, 2)})
    assert gold.shape == (6, 4)
    np.testing.assert_allclose(gold.sum(axis=1), 1.0)
    assert gold[2, 2] == gold[3, 2] == 1.0  # both pieces of "studying" look at 学习
    assert gold[4, 3] == 1.0 and gold[5, 3] == 1.0  # the unlinked word and </s> look at </s>


def test_silver_gold_leaves_unlinked_words_without_a_target():
    gold = gold_attention([0, 1, 2], [0, 1, 2], {(0, 0), (2, 2)}, unlinked_to_end=False)
    assert gold[1].sum() == 0.0  # training skips this row instead of pulling it to </s>
    assert gold[0, 0] == gold[2, 2] == gold[3, 3] == 1.0


def test_gold_spreads_over_every_piece_of_the_linked_words():
    gold = gold_attention([0, 0, 1], [0], {(0, 0), (1, 0)})
    np.testing.assert_allclose(gold[0], [1 / 3, 1 / 3, 1 / 3, 0])


def test_word_attention_sums_source_pieces_and_averages_target_pieces():
    attention = np.array([[0.6, 0.3, 0.1], [0.2, 0.2, 0.6], [0.0, 0.0, 1.0]])  # 2 target pieces + </s>
    merged = word_attention(attention, source_owner=[0, 0], target_owner=[0, 0])
    np.testing.assert_allclose(merged, [[0.65, 0.35]])  # (0.9 + 0.4) / 2 on the word, (0.1 + 0.6) / 2 on </s>


def test_argmax_links_skip_end_of_sentence():
    assert argmax_links(np.array([[0.7, 0.2, 0.1], [0.1, 0.1, 0.8]])) == {(0, 0)}


def test_strong_links_keep_every_source_word_near_the_strongest():
    # "the teacher" -> 老师: the row of 老师 spreads over "the" and "teacher"; a row led by </s> links nothing
    matrix = np.array([[0.48, 0.47, 0.05, 0.0], [0.1, 0.1, 0.8, 0.0], [0.2, 0.0, 0.0, 0.8]])
    assert strong_links(matrix) == {(0, 0), (1, 0), (2, 1)}
    assert argmax_links(matrix) == {(0, 0), (2, 1)}


def test_refusals_are_said_in_chinese_too():
    with pytest.raises(InputError) as straddle:
        piece_words(["早上好", "！"], ["早上", "好", "！"])
    assert (
        str(straddle.value)
        == "Piece '早上好' in ['早上好', '！'] does not fall inside one of the words ['早上', '好', '！']."
    )
    assert "没有完整落在" in straddle.value.message("zh")
    with pytest.raises(InputError) as short:
        piece_words(["早上"], ["早上", "好"])
    assert short.value.message("zh") == "片段 ['早上'] 拼不出词 ['早上', '好']。"
