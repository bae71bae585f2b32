"""Sentence templates of the demo grammar: each makes a Chinese–English pair whose alignment is known.

A template lists phrases in Chinese order and says in which order English uses them, so reorderings come from the
grammar itself: 我 明天 在北京 学习 -> I | will study | in Beijing | tomorrow.
Every English word links to at most one Chinese word, so the gold alignment is one row per target word.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from training.data import lexicon as lx
from training.data.pairs import Pair, Phrase, assemble

PERIOD = Phrase.word("。", ".")
QUESTION_MARK = Phrase.word("？", "?")


@dataclass(frozen=True)
class Action:
    """An activity (学习) or a verb with its object (看 电影)."""

    verb: lx.Verb
    noun: lx.Noun | None = None

    @property
    def key(self) -> str:
        return self.verb.zh + (self.noun.zh if self.noun else "") + "/" + self.verb.base


ACTIONS = [Action(verb) for verb in lx.ACTIVITIES] + [
    Action(verb, lx.NOUNS[zh]) for verb, objects in lx.TRANSITIVE for zh in objects
]


def verb_form(verb: lx.Verb, person: str, tense: str) -> str:
    if tense == "past":
        return verb.past
    if tense == "future":
        return "will " + verb.base
    return verb.third if person == "3s" else verb.base


def action_phrases(action: Action, english_verb: str, past: bool) -> list[Phrase]:
    """The verb (with 了 after it in the past when an object follows) and its object."""
    zh = (action.verb.zh, "了") if past and action.noun else (action.verb.zh,)
    en = tuple(english_verb.split())
    phrases = [Phrase(zh, en, tuple((0, j) for j in range(len(en))))]
    if action.noun:
        phrases.append(Phrase.word(action.noun.zh, action.noun.generic))
    return phrases


def place_phrase(place: lx.Place) -> Phrase:
    """在 北京 -> in Beijing: the preposition links to 在, the rest to the place."""
    en = tuple(place.en.split())
    return Phrase(("在", place.zh), en, ((0, 0),) + tuple((1, j) for j in range(1, len(en))))


def activity(subject, time, place, action, period) -> Pair:
    """我 明天 在 北京 学习 -> I will study in Beijing tomorrow."""
    tense = time.tense if time else "present"
    phrases = [subject.phrase]
    phrases += [Phrase.word(time.zh, time.en)] if time else []
    phrases += [place_phrase(place)] if place else []
    verb_at = len(phrases)
    phrases += action_phrases(action, verb_form(action.verb, subject.person, tense), tense == "past")
    english = [0] + list(range(verb_at, len(phrases))) + list(range(1, verb_at))[::-1]  # S V O | place | time
    if period:
        english.append(len(phrases))
        phrases.append(PERIOD)
    return assemble(phrases, english, "grammar:activity")


def activity_question(subject, time, place, action) -> Pair:
    """你 明天 在 北京 学习 吗 ？ -> Will you study in Beijing tomorrow?"""
    tense = time.tense if time else "present"
    auxiliary = {"past": "did", "future": "will"}.get(tense, lx.DO[subject.person])
    phrases = [subject.phrase]
    phrases += [Phrase.word(time.zh, time.en)] if time else []
    phrases += [place_phrase(place)] if place else []
    verb_at = len(phrases)
    phrases += action_phrases(action, action.verb.base, tense == "past")
    question_at = len(phrases)
    phrases += [Phrase.word("吗", auxiliary), QUESTION_MARK]
    english = [question_at, 0] + list(range(verb_at, question_at)) + list(range(1, verb_at))[::-1]
    return assemble(phrases, english + [question_at + 1], "grammar:activity-question")


def liked_phrases(liked: Action | lx.Noun) -> list[Phrase]:
    """喜欢 学习 -> like studying; 喜欢 看 电影 -> like watching movies; 喜欢 苹果 -> like apples."""
    if isinstance(liked, lx.Noun):
        return [Phrase.word(liked.zh, liked.generic)]
    return action_phrases(liked, liked.verb.gerund, past=False)


def like(subject, negated, liked, period) -> Pair:
    """我 喜欢 学习 -> I like studying; 她 不 喜欢 咖啡 -> She does not like coffee."""
    phrases = [subject.phrase]
    if negated:
        phrases.append(Phrase(("不",), (lx.DO[subject.person], "not"), ((0, 0), (0, 1))))
    form = "likes" if subject.person == "3s" and not negated else "like"
    phrases.append(Phrase.word("喜欢", form))
    phrases += liked_phrases(liked)
    if period:
        phrases.append(PERIOD)
    return assemble(phrases, list(range(len(phrases))), "grammar:like")


def like_question(subject, liked) -> Pair:
    """你 喜欢 苹果 吗 ？ -> Do you like apples?"""
    phrases = [subject.phrase, Phrase.word("喜欢", "like")] + liked_phrases(liked)
    question_at = len(phrases)
    phrases += [Phrase.word("吗", lx.DO[subject.person]), QUESTION_MARK]
    english = [question_at] + list(range(question_at)) + [question_at + 1]
    return assemble(phrases, english, "grammar:like-question")


def be_words(person: str, tense: str, negated: bool) -> str:
    if tense == "future":
        return "will not be" if negated else "will be"
    return lx.BE[tense][person] + (" not" if negated else "")


def be_adjective(subject, time, negated, adjective, period) -> Pair:
    """我 明天 很 忙 -> I will be busy tomorrow; 他 不 累 -> He is not tired."""
    tense = time.tense if time else "present"
    phrases = [subject.phrase]
    phrases += [Phrase.word(time.zh, time.en)] if time else []
    phrases.append(Phrase.word("不" if negated else "很", be_words(subject.person, tense, negated)))
    phrases.append(Phrase.word(adjective, lx.ADJECTIVES[adjective]))
    english = [0, len(phrases) - 2, len(phrases) - 1] + ([1] if time else [])
    if period:
        english.append(len(phrases))
        phrases.append(PERIOD)
    return assemble(phrases, english, "grammar:be")


def be_question(subject, time, adjective) -> Pair:
    """你 很 忙 吗 ？ -> Are you busy?  你 明天 很 忙 吗 ？ -> Will you be busy tomorrow?"""
    tense = time.tense if time else "present"
    future = tense == "future"
    phrases = [subject.phrase]
    phrases += [Phrase.word(time.zh, time.en)] if time else []
    phrases.append(Phrase.word("很", "be") if future else Phrase(("很",), (), ()))
    phrases.append(Phrase.word(adjective, lx.ADJECTIVES[adjective]))
    auxiliary = "will" if future else lx.BE[tense][subject.person]
    question_at = len(phrases)
    phrases += [Phrase.word("吗", auxiliary), QUESTION_MARK]
    english = [question_at, 0, question_at - 2, question_at - 1] + ([1] if time else []) + [question_at + 1]
    return assemble(phrases, english, "grammar:be-question")


def article(next_word: str) -> str:
    return "an" if next_word[:1].lower() in "aeiou" else "a"


def have(subject, time, number, counted, period) -> Pair:
    """我 有 三 本 书 -> I have three books; 她 昨天 有 两 杯 茶 -> She had two cups of tea yesterday."""
    noun = lx.NOUNS[counted]
    tense = time.tense if time else "present"
    verb = {"past": "had", "future": "will have"}.get(tense, lx.HAVE[subject.person])
    phrases = [subject.phrase]
    phrases += [Phrase.word(time.zh, time.en)] if time else []
    phrases.append(Phrase.word("有", verb))
    one = number == "一"
    noun_words = noun.one if one else noun.many
    if noun.classifier == "杯":  # the cup is translated: 两 杯 茶 -> two cups of tea
        measure = "a cup of" if one else f"{lx.NUMBERS[number]} cups of"
        phrases.append(Phrase((number, "杯"), tuple(measure.split()), ((0, 0), (1, 1), (1, 2))))
    else:
        count = article(noun_words) if one else lx.NUMBERS[number]
        phrases.append(Phrase((number, noun.classifier), (count,), ((0, 0),)))
    phrases.append(Phrase.word(noun.zh, noun_words))
    english = [0] + list(range(len(phrases) - 3, len(phrases))) + ([1] if time else [])
    if period:
        english.append(len(phrases))
        phrases.append(PERIOD)
    return assemble(phrases, english, "grammar:have")


def _location_phrases(thing, container) -> list[Phrase]:
    """书 在 桌子 上: the thing, 在 (is), the container, its postposition (the English preposition)."""
    name, postposition, preposition = lx.CONTAINERS[container]
    return [
        Phrase.word(thing, "the " + lx.NOUNS[thing].one),
        Phrase.word("在", "is"),
        Phrase.word(container, "the " + name),
        Phrase.word(postposition, preposition),
    ]


def location(thing, container, period) -> Pair:
    """书 在 桌子 上 -> The book is on the table."""
    phrases = _location_phrases(thing, container)
    english = [0, 1, 3, 2]
    if period:
        english.append(len(phrases))
        phrases.append(PERIOD)
    return assemble(phrases, english, "grammar:location")


def location_question(thing, container) -> Pair:
    """书 在 桌子 上 吗 ？ -> Is the book on the table?  (吗 stays unaligned: "is" comes from 在.)"""
    phrases = [*_location_phrases(thing, container), Phrase(("吗",), (), ()), QUESTION_MARK]
    return assemble(phrases, [1, 0, 3, 2, 5], "grammar:location-question")


@dataclass(frozen=True)
class Template:
    name: str
    make: Callable[..., Pair]  # make(*choice)
    choices: Callable[[], Iterable[tuple]]  # every argument tuple the template accepts
    key: Callable[..., tuple]  # key(*choice): the word pairing held out as a whole
    quota: int  # how many sentences of this kind training draws (location: all of them)


def _with_optional(items):
    return [None] + list(items)


def _activity_choices(question: bool) -> Iterator[tuple]:
    periods = [()] if question else [(False,), (True,)]
    for s, t, p, a in itertools.product(lx.SUBJECTS, _with_optional(lx.TIMES), _with_optional(lx.PLACES), ACTIONS):
        for period in periods:
            yield (s, t, p, a, *period)


LIKED_THINGS = (
    [Action(verb) for verb in lx.ACTIVITIES] + ACTIONS[len(lx.ACTIVITIES) :] + [lx.NOUNS[zh] for zh in lx.LIKED]
)


def _liked_key(liked) -> str:
    return liked.zh if isinstance(liked, lx.Noun) else liked.key


TEMPLATES = [
    Template(
        "activity",
        activity,
        lambda: _activity_choices(False),
        lambda s, t, p, a, *_: ("action-place", a.key, p.zh if p else ""),
        9000,
    ),
    Template(
        "activity-question",
        activity_question,
        lambda: _activity_choices(True),
        lambda s, t, p, a: ("action-place", a.key, p.zh if p else ""),
        4000,
    ),
    Template(
        "like",
        like,
        lambda: itertools.product(lx.SUBJECTS, (False, True), LIKED_THINGS, (False, True)),
        lambda s, n, x, _: ("subject-liked", s.phrase.zh, _liked_key(x)),
        3000,
    ),
    Template(
        "like-question",
        like_question,
        lambda: itertools.product(lx.SUBJECTS, LIKED_THINGS),
        lambda s, x: ("subject-liked", s.phrase.zh, _liked_key(x)),
        800,
    ),
    Template(
        "be",
        be_adjective,
        lambda: itertools.product(lx.SUBJECTS, _with_optional(lx.TIMES), (False, True), lx.ADJECTIVES, (False, True)),
        lambda s, t, n, a, _: ("subject-adjective", s.phrase.zh, a),
        2500,
    ),
    Template(
        "be-question",
        be_question,
        lambda: itertools.product(lx.SUBJECTS, _with_optional(lx.TIMES), lx.ADJECTIVES),
        lambda s, t, a: ("subject-adjective", s.phrase.zh, a),
        800,
    ),
    Template(
        "have",
        have,
        lambda: itertools.product(lx.SUBJECTS, _with_optional(lx.TIMES), lx.NUMBERS, lx.COUNTED, (False, True)),
        lambda s, t, n, noun, _: ("number-noun", n, noun),
        4000,
    ),
    Template(
        "location",
        location,
        lambda: itertools.product(lx.THINGS, lx.CONTAINERS, (False, True)),
        lambda thing, container, _: ("thing-container", thing, container),
        len(lx.THINGS) * len(lx.CONTAINERS) * 2,
    ),
    Template(
        "location-question",
        location_question,
        lambda: itertools.product(lx.THINGS, lx.CONTAINERS),
        lambda thing, container: ("thing-container", thing, container),
        len(lx.THINGS) * len(lx.CONTAINERS),
    ),
]
