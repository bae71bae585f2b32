"""Meaning checks of translations: a negation the translation turns around, a source word it drops.

chrF rewards overlap with one reference and says little about the two failures a reader of the demo meets first:
"can significantly lower blood pressure" → "…不能减少…" (negation added) and 开会 left out of a sentence. Two checks,
each exact on its definition, run on the held-out pairs:

- **Negation flipped**: the source has a negation cue and the translation has none, or the other way round.
  English cues: not, no, never, nothing, nobody, none, neither, nor, nowhere, cannot, without, any word ending in
  n't. Chinese cues: a word (longest match over CC-CEDICT's headwords, as the Tatoeba corpus is segmented) that
  holds 不/没/沒/未 (买不起 "cannot afford" too), starts with 别/別, or is one of `CHINESE_NEGATIONS` (无, 无法, 非,
  莫…), unless it is one of `NOT_NEGATIONS` (别人 "others", 不过 "but", 未来 "future", 对不起 "sorry"…). A cue is
  a surface word, not a parse: a translation may say the same thing without one ("I'm at a loss for words" for
  我不知道应该说什么才好), so the same check on the *reference* translations is reported beside the model's as the
  floor of what the check counts when nothing is wrong.
- **Word dropped**: a source word the reference renders and the translation does not, where "renders" is the silver
  rule of the corpus (`training.data.silver`): an English word linked to the Chinese word by one of its CC-CEDICT
  senses. Only source words the rule links into the reference count (the others cannot be checked), and only
  through a content word: links through punctuation or the rule's function words (pronouns, prepositions, be, do,
  have, very…) are left out. A synonym no CC-CEDICT sense names counts as dropped, equally before and after a change.

`training.translator.evaluate` reports both on the held-out HSK and Tatoeba pairs (`--write-checks FILE` lists each
Tatoeba pair's translation and findings).
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from training.data.pairs import Pair, english_words
from training.data.silver import FUNCTION_WORDS, gloss_senses, lemmas, silver_links
from training.data.sources import cedict
from training.data.tatoeba import longest_match

ENGLISH_NEGATIONS = frozenset("not no never nothing nobody none neither nor nowhere cannot without".split())
CHINESE_NEGATING_CHARACTERS = "不没沒未"  # negate inside a word too: 买不起 "cannot afford", 看不见, 从未
CHINESE_NEGATIONS = frozenset("别 別 莫 勿 甭 无 无法 毫无 并非 非".split())  # characters mostly found in other words
CHINESE_NEGATING_STARTS = ("别", "別")  # 别走 "don't go"; 特别, 区别 do not start with it
# Words with a negating character or start that negate nothing ("others", "but", "future", "sorry", "almost"…).
NOT_NEGATIONS = frozenset(
    """别人 别的 别处 别墅 别致 不过 不但 不仅 不管 不论 不久 不断 不免 不禁 不得不 不少 不停 不客气 不同 不错
    不好意思 不如 对不起 差不多 了不起 时不时 要不 要不然 未来""".split()
)


MEANING_KEYS = (
    "negation_flipped",
    "negation_flipped_reference",
    "words_dropped",
    "sentences_dropping",
    "meaning_errors",
)


@dataclass(frozen=True)
class Checked:
    """One translation's checks."""

    negation_flipped: bool
    checkable: int  # source words the reference renders (by the silver rule, through a content word)
    dropped: tuple[str, ...]  # those of them the translation does not render


def other_language(lang: str) -> str:
    return "en" if lang == "zh" else "zh"


def chinese_words(text: str) -> list[str]:
    """Longest match over CC-CEDICT's headwords (the Tatoeba corpus's segmentation, without the tokenizer's symbols,
    so that the checks need no tokenizer)."""
    return longest_match(text.replace(" ", ""), cedict())


def negated(text: str, lang: str) -> bool:
    """Whether `text` has a negation cue (the module's lists)."""
    if lang == "en":
        return any(w.lower() in ENGLISH_NEGATIONS or w.lower().endswith("n't") for w in english_words(text))
    return any(_chinese_negation(w) for w in chinese_words(text))


def _chinese_negation(word: str) -> bool:
    if word in NOT_NEGATIONS:
        return False
    return (
        bool(set(word) & set(CHINESE_NEGATING_CHARACTERS))
        or word in CHINESE_NEGATIONS
        or word.startswith(CHINESE_NEGATING_STARTS)
    )


def rendered(source: str, target: str, source_lang: str) -> tuple[list[str], set[int]]:
    """The source's words and the indices of those the silver rule links to a content word of `target` (the
    English side of the link not one of the rule's function words, nor punctuation)."""
    zh, en = (source, target) if source_lang == "zh" else (target, source)
    zh_words, en_words = chinese_words(zh), english_words(en)
    senses = [gloss_senses(w, "", cedict()) for w in zh_words]
    links = silver_links(zh_words, [s for s, _ in senses], [n for _, n in senses], en_words)
    content = {(i, j) for i, j in links if en_words[j][0].isalnum() and not lemmas(en_words[j]) & FUNCTION_WORDS}
    return (zh_words, {i for i, _ in content}) if source_lang == "zh" else (en_words, {j for _, j in content})


def check(source: str, reference: str, translation: str, source_lang: str) -> Checked:
    target_lang = other_language(source_lang)
    words, in_reference = rendered(source, reference, source_lang)
    _, in_translation = rendered(source, translation, source_lang)
    return Checked(
        negated(source, source_lang) != negated(translation, target_lang),
        len(in_reference),
        tuple(words[i] for i in sorted(in_reference - in_translation)),
    )


def meaning_scores(pairs: list[Pair], translations: list[str], source_lang: str) -> dict[str, float]:
    """Shares over `pairs`: negation flipped (the model's, and the references' floor), source words dropped (of the
    checkable), sentences dropping a word, sentences with either failure: `MEANING_KEYS`, in that order."""
    target_lang = other_language(source_lang)
    checks = [
        check(p.text(source_lang), p.text(target_lang), t, source_lang)
        for p, t in zip(pairs, translations, strict=True)
    ]
    references = [negated(p.text(source_lang), source_lang) != negated(p.text(target_lang), target_lang) for p in pairs]
    checkable = sum(c.checkable for c in checks)
    shares = (
        _share([c.negation_flipped for c in checks]),
        _share(references),
        sum(len(c.dropped) for c in checks) / checkable if checkable else 0.0,
        _share([bool(c.dropped) for c in checks]),
        _share([c.negation_flipped or bool(c.dropped) for c in checks]),
    )
    return dict(zip(MEANING_KEYS, shares, strict=True))


def _share(flags: list[bool]) -> float:
    return float(np.mean(flags)) if flags else 0.0


def write_checks(path: Path, pairs: list[Pair], translations: list[str], source_lang: str) -> None:
    """Each pair's translation and its checks, tab-separated (to read the failures, or compare two models)."""
    target_lang = other_language(source_lang)
    with Path(path).open("w", encoding="utf-8", newline="") as handle:
        out = csv.writer(handle, delimiter="\t", lineterminator="\n")
        out.writerow(["origin", "source", "reference", "translation", "negation_flipped", "dropped"])
        for pair, translation in zip(pairs, translations, strict=True):
            source, reference = pair.text(source_lang), pair.text(target_lang)
            found = check(source, reference, translation, source_lang)
            out.writerow(
                [pair.origin, source, reference, translation, int(found.negation_flipped), " ".join(found.dropped)]
            )
