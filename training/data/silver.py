"""Silver word alignments for the HSK sentences: each segmented word's English gloss matched to the translation.

The rule, for each English word of the translation (articles and "to" aside):
1. its lemma candidates (lower case; plural, -ed, -ing, -er/-est, -ly taken off; irregular forms such as
   went → go, was → be, children → child) are looked up among the gloss words of every Chinese word of the
   sentence — the gloss the HSK source gives the word first, then every CC-CEDICT sense of that word (the
   source's gloss is sometimes a rare sense: 家 "used in 家伙", where CEDICT also has "home; family");
   A function word (in, at, it, this, …) counts only where a whole sense is that word (在 "at"), not inside a
   longer sense (中间 "in the middle"); "be" in a gloss counts for nothing ("to be sorry");
2. it links to the one Chinese word whose gloss has it, or, when several do, to the one whose own gloss (not
   CEDICT's extra senses) has it, then one not yet linked, then the one nearest in relative position; the English
   words with fewest candidates choose first, so "well" in "I slept well and feel comfortable" goes to 好, once
   "comfortable" has taken 舒服;
3. punctuation links to the Chinese punctuation mark of the same kind (。 .  ， ,  ？ ?  ！ !) in order.
English words no gloss explains stay unlinked; training does not pull their attention anywhere (train.py).
Precision measured by hand on a sample: assets/corpus/silver-check.tsv (see assets/corpus/README.md).
"""

from __future__ import annotations

import re

from training.data.pairs import english_words

# English words a gloss cannot explain well: an article matches any "a" sense, "to" is the gloss's verb mark.
UNGLOSSED = {"a", "an", "the", "to", "of", "sb", "sth", "one's", "oneself", "etc", "or", "and", "as", "s"}
IRREGULAR = dict(
    item.split("=")
    for item in """
    am=be is=be are=be was=be were=be been=be being=be i'm=be has=have had=have did=do does=do done=do went=go
    gone=go ate=eat eaten=eat saw=see seen=see bought=buy came=come got=get gave=give given=give took=take
    taken=take made=make said=say told=tell thought=think knew=know known=know found=find left=leave felt=feel
    kept=keep met=meet ran=run sat=sit stood=stand slept=sleep wrote=write written=write read=read heard=hear
    spoke=speak spoken=speak taught=teach brought=bring bought's=buy drank=drink drunk=drink sang=sing swam=swim
    began=begin begun=begin forgot=forget forgotten=forget lost=lose paid=pay sent=send spent=spend won=win
    wore=wear worn=wear broke=break broken=break chose=choose drove=drive driven=drive flew=fly grew=grow held=hold
    hung=hang led=lead lent=lend put=put rode=ride rose=rise sold=sell shot=shoot threw=throw understood=understand
    woke=wake fell=fall built=build caught=catch fought=fight hid=hide meant=mean became=become children=child
    men=man women=woman people=person feet=foot teeth=tooth mice=mouse better=good best=good worse=bad worst=bad
    more=many most=many me=i my=i mine=i us=we our=we him=he his=he her=she them=they their=they your=you n't=not
    can't=can won't=will don't=do doesn't=do didn't=do isn't=be aren't=be wasn't=be it's=it let's=let i'll=will
    we're=be you're=be they're=be he's=he she's=she
""".split()
)  # form=lemma
# Words that link only to a sense that is that word alone.
FUNCTION_WORDS = {
    "in",
    "at",
    "on",
    "for",
    "with",
    "by",
    "from",
    "into",
    "up",
    "out",
    "off",
    "over",
    "about",
    "it",
    "this",
    "that",
    "these",
    "those",
    "there",
    "here",
    "one",
    "some",
    "all",
    "be",
    "do",
    "have",
    "get",
    "make",
    "go",
    "come",
    "i",
    "you",
    "he",
    "she",
    "we",
    "they",
    "not",
    "no",
    "very",
    "so",
    "too",
}
PUNCTUATION = {"。": ".", "，": ",", "？": "?", "！": "!", "、": ",", "；": ";", "：": ":"}
_PARENTHESES = re.compile(r"\([^)]*\)|\[[^\]]*\]|\S*[\u3400-\u9fff]\S*")  # notes, pinyin, Chinese cross-references
_SKIPPED_SENSE = re.compile(
    r"^(see |used in |variant of |old variant |abbr\. |CL:|surname |classifier |"
    r"measure word|\(bound form\)$)"
)


def lemmas(word: str) -> set[str]:
    """The forms a gloss may use for an English word: "studying" → {"studying", "study", "studye", "studi", …}."""
    word = word.lower()
    if word in IRREGULAR:
        return {word, IRREGULAR[word]}
    found = {word}
    for suffix, replacements in (
        ("ies", ("y",)),
        ("ied", ("y",)),
        ("es", ("", "e")),
        ("s", ("",)),
        ("ing", ("", "e")),
        ("ed", ("", "e")),
        ("er", ("", "e")),
        ("est", ("", "e")),
        ("ly", ("",)),
        ("'s", ("",)),
    ):
        if word.endswith(suffix) and len(word) - len(suffix) >= 2:
            stem = word[: -len(suffix)]
            found |= {stem + r for r in replacements}
            if len(stem) >= 3 and stem[-1] == stem[-2]:  # running → run, stopped → stop
                found.add(stem[:-1])
    return found


def gloss_words(senses) -> set[str]:
    """The lemma candidates of the given senses ("to walk; to go" → walk, go, …): every content word of a sense,
    and a function word only when it is the whole sense."""
    out: set[str] = set()
    for sense in senses:
        sense = sense.strip()
        if not sense or _SKIPPED_SENSE.match(sense):
            continue
        words = [
            w.lower()
            for w in english_words(_PARENTHESES.sub(" ", sense))
            if w[0].isalnum() and w.lower() not in UNGLOSSED and w.lower() != "be"
        ]
        for word in words:
            forms = lemmas(word)
            if len(words) == 1 or not forms & FUNCTION_WORDS:
                out |= forms
    return out


def _senses(gloss: str) -> list[str]:
    """ "to walk; to go" → ["to walk", " to go"]; a comma inside parentheses ("(ribbon, river, road)") splits nothing."""
    return [s for s in re.split(r"[;/]|,(?![^()]*\))", gloss) if s.strip()]


def silver_links(zh_words: list[str], glosses: list[list[str]], own: list[int], en_words: list[str]) -> set:
    """(Chinese word, English word) links by the rule above.

    `glosses[i]`: the senses of Chinese word i, of which the first `own[i]` are the source's own gloss."""
    own_sets = [gloss_words(g[:n]) for g, n in zip(glosses, own, strict=True)]
    all_sets = [gloss_words(g) for g in glosses]
    candidates = {
        j: [i for i, found in enumerate(all_sets) if lemmas(word) & found]
        for j, word in enumerate(en_words)
        if word[0].isalnum() and word.lower() not in UNGLOSSED
    }
    links, used = set(), set()
    for j in sorted((j for j in candidates if candidates[j]), key=lambda j: (len(candidates[j]), j)):
        forms, position = lemmas(en_words[j]), j / max(1, len(en_words) - 1)
        best = min(
            candidates[j],
            key=lambda i: (not forms & own_sets[i], i in used, abs(i / max(1, len(zh_words) - 1) - position)),
        )
        links.add((best, j))
        used.add(best)
    return links | punctuation_links(zh_words, en_words)


def punctuation_links(zh_words: list[str], en_words: list[str]) -> set:
    """Each Chinese mark to the English mark of its kind with the same rank (the first 。 to the first .)."""
    links = set()
    for mark in set(PUNCTUATION.values()):
        zh = [i for i, w in enumerate(zh_words) if PUNCTUATION.get(w) == mark]
        en = [j for j, w in enumerate(en_words) if w == mark]
        links |= set(zip(zh, en))
    return links


def gloss_senses(word: str, source_gloss: str, dictionary: dict) -> tuple[list[str], int]:
    """The senses used for `word` — the source's gloss first, then CC-CEDICT's — and how many are the source's."""
    own = _senses(source_gloss)
    return own + [s for entry in dictionary.get(word, ()) for s in _senses(entry)], len(own)
