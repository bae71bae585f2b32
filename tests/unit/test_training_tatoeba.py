"""Tatoeba pairs for the demo corpus: simplified text, dictionary words, silver links fitted to the pieces."""

from training.data.pairs import Pair
from training.data.tatoeba import longest_match
from training.translator.alignment import piece_words, word_groups_under_pieces
from training.translator.train import fitted_to_pieces, is_silver, training_pairs


def test_longest_match_takes_the_longest_word_else_one_character():
    assert longest_match("我喜欢学习中文", {"喜欢", "学习", "中文", "学"}) == ["我", "喜欢", "学习", "中文"]
    assert longest_match("祝你好运。", {"你好", "好运"}) == ["祝", "你好", "运", "。"]
    assert longest_match("", {"你好"}) == []


def test_words_a_piece_straddles_are_merged():
    # SentencePiece chose 好运 where the dictionary's longest match chose 你好.
    assert word_groups_under_pieces(["祝", "你", "好运", "。"], ["祝", "你好", "运", "。"]) == [[0], [1, 2], [3]]
    assert word_groups_under_pieces(["▁Good", "▁morning", "!"], ["Good", "morning", "!"]) == [[0], [1], [2]]
    # a piece over three words merges them all, and later groups keep their order
    assert word_groups_under_pieces(["abc", "d"], ["a", "b", "c", "d"]) == [[0, 1, 2], [3]]


def test_fitted_pair_keeps_its_links_on_the_merged_word():
    pair = Pair(("祝", "你好", "运", "。"), ("Good", "luck", "."), ((0, 0), (2, 1), (3, 2)), "tatoeba:812490")
    fitted = fitted_to_pieces(pair, ["祝", "你", "好运", "。"])
    assert fitted.zh_words == ("祝", "你好运", "。") and fitted.zh == pair.zh
    assert fitted.links == ((0, 0), (1, 1), (2, 2))
    assert piece_words(["祝", "你", "好运", "。"], fitted.zh_words) == [0, 1, 1, 2]
    assert fitted_to_pieces(fitted, ["祝", "你", "好运", "。"]) is fitted


def test_tatoeba_links_are_silver_but_only_hsk_is_repeated():
    tatoeba = Pair(("你好",), ("Hello",), ((0, 0),), "tatoeba:1")
    hsk = Pair(("你好",), ("Hi",), ((0, 0),), "hsk:hsk1-0001")
    grammar = Pair(("你好",), ("Hey",), ((0, 0),), "grammar:greeting")
    assert is_silver(tatoeba) and is_silver(hsk) and not is_silver(grammar)
    assert training_pairs([tatoeba, hsk, grammar], "zh", repeat=5, hsk_repeat=3) == [tatoeba] + [hsk] * 3 + [grammar]
