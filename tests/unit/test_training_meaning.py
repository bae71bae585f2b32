"""Meaning checks of the demo translators: a negation turned around, a source word left out."""

import pytest

from training.data.pairs import Pair
from training.translator.meaning import check, meaning_scores, negated, write_checks


@pytest.mark.parametrize(
    ("text", "lang", "expected"),
    [
        ("I don't know.", "en", True),
        ("Nothing happened.", "en", True),
        ("It can lower blood pressure.", "en", False),
        ("I know nobody here.", "en", True),
        ("我不知道。", "zh", True),
        ("我没有钱。", "zh", True),
        ("别走！", "zh", True),
        ("他非常好。", "zh", False),  # 非常 "very" starts with 非 and negates nothing
        ("别人都来了。", "zh", False),  # 别人 "others"
        ("未来很好。", "zh", False),  # 未来 "future"
        ("这药可以降低血压。", "zh", False),
        ("这药不能降低血压。", "zh", True),
        ("我买不起自行车。", "zh", True),  # 买不起 "cannot afford": the negation is inside the word
        ("这不是手表。", "zh", True),
        ("对不起。", "zh", False),  # "sorry"
        ("我们时不时地去钓鱼。", "zh", False),  # "from time to time"
    ],
)
def test_negation_cues(text, lang, expected):
    assert negated(text, lang) is expected


def test_an_added_negation_is_flipped_and_a_kept_one_is_not():
    source, reference = "这药可以降低血压。", "This medicine can lower blood pressure."
    assert check(source, reference, "This medicine can't lower blood pressure.", "zh").negation_flipped
    assert not check(source, reference, "It can lower blood pressure.", "zh").negation_flipped
    assert check("I don't like tea.", "我不喜欢茶。", "我喜欢茶。", "en").negation_flipped
    assert not check("I don't like tea.", "我不喜欢茶。", "我不爱喝茶。", "en").negation_flipped


def test_a_word_the_reference_renders_and_the_translation_leaves_out_is_dropped():
    source, reference = "我们明天开会。", "We will have a meeting tomorrow."
    left_out = check(source, reference, "We will go tomorrow.", "zh")
    assert "开会" in left_out.dropped and "明天" not in left_out.dropped
    kept = check(source, reference, "We have a meeting tomorrow.", "zh")
    assert kept.dropped == () and kept.checkable == left_out.checkable >= 2
    # English source: "tea" rendered by 茶 in the reference, missing from the translation
    assert check("I like green tea.", "我喜欢绿茶。", "我喜欢绿色。", "en").dropped == ("tea",)


def test_function_words_are_not_checked():
    # "we" links to 我们 through a pronoun: a translation without it drops no checkable word
    found = check("我们明天开会。", "We will have a meeting tomorrow.", "Meeting tomorrow.", "zh")
    assert "我们" not in found.dropped and found.dropped == ()


def test_scores_are_shares_over_sentences_and_checkable_words(tmp_path):
    pairs = [
        Pair(("我们", "明天", "开会", "。"), ("We", "will", "have", "a", "meeting", "tomorrow", "."), (), "t:1"),
        Pair(("这", "药", "可以", "降低", "血压", "。"), ("It", "can", "lower", "blood", "pressure", "."), (), "t:2"),
    ]
    translations = ["We will go tomorrow.", "It can't lower blood pressure."]
    checks = [check(p.zh, p.en, t, "zh") for p, t in zip(pairs, translations, strict=True)]
    scores = meaning_scores(pairs, translations, "zh")
    assert scores["negation_flipped"] == 0.5 and scores["negation_flipped_reference"] == 0.0
    assert scores["words_dropped"] == sum(len(c.dropped) for c in checks) / sum(c.checkable for c in checks)
    assert scores["sentences_dropping"] == 0.5 and scores["meaning_errors"] == 1.0
    path = tmp_path / "checks.tsv"
    write_checks(path, pairs, translations, "zh")
    rows = path.read_text(encoding="utf-8").splitlines()
    assert rows[1].split("\t")[4:] == ["0", "开会"] and rows[2].split("\t")[4] == "1"
