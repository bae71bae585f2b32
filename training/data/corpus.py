"""Build the demo corpus: real HSK sentences, dictionary pairs, the grammar and the phrasebook, as TSV files.

    python -m training.data.corpus [--seed 7] [--out assets/corpus]

Needs the two sources (requirements-train.txt): training.data.sources. The training pairs are
- the HSK sentences not held out, with silver word alignments (training.data.hsk, training.data.silver);
- Tatoeba's everyday sentences not held out, segmented by CC-CEDICT, with silver alignments (training.data.tatoeba);
- dictionary pairs, a CC-CEDICT headword and a short gloss (training.data.dictionary), for vocabulary;
- a sample of the grammar's sentences, whose alignments are exact by construction and keep the alignment head
  sharp, and the whole phrasebook (the seed examples).
Held out: a fixed part of the HSK sentences and of the Tatoeba sentences, each chosen by id (training.data.heldout),
never trained on, with no near duplicate in training; and a sample of unseen grammar sentences (unseen word
pairings, as before).
"""

from __future__ import annotations

import argparse
import random
from dataclasses import dataclass
from pathlib import Path

from attnviz.errors import InputError
from training.data.corpus_card import corpus_readme
from training.data.dictionary import dictionary_pairs
from training.data.grammar import TEMPLATES
from training.data.heldout import NearDuplicates, is_held_out
from training.data.hsk import hsk_pairs, sentence_id
from training.data.lexicon import chinese_words
from training.data.pairs import Pair, read_tsv, write_tsv
from training.data.phrasebook import phrasebook_pairs, phrasebook_words
from training.data.tatoeba import tatoeba_split
from training.paths import CORPUS_DIR

DEFAULT_SEED = 7
HELD_OUT_KEY_SHARE = 0.05  # share of grammar word pairings kept out of training
HELD_OUT_NEW_COMBINATIONS = 500
HELD_OUT_NEW_SENTENCES = 500
GRAMMAR_TRAIN = 6000  # grammar sentences trained on: enough to keep the head sharp, few beside the real ones
GRAMMAR_HELD_OUT = 300
TRAIN_FILE, HELD_OUT_FILE, GRAMMAR_HELD_OUT_FILE = "train.tsv", "heldout.tsv", "heldout-grammar.tsv"
TATOEBA_HELD_OUT_FILE = "heldout-tatoeba.tsv"
README_FILE = "README.md"


@dataclass(frozen=True)
class Corpus:
    train: list[Pair]
    heldout: list[Pair]  # HSK sentences held out by id
    seed: int
    heldout_grammar: list[Pair] = ()  # unseen grammar sentences
    heldout_tatoeba: list[Pair] = ()  # Tatoeba sentences held out by id


def chinese_symbols() -> set[str]:
    """The words the Chinese tokenizer keeps whole (training.translator.tokenizer): the grammar's and the phrasebook's."""
    return chinese_words() | phrasebook_words()


def _held_out_keys(rng: random.Random) -> set:
    keys = sorted({template.key(*choice) for template in TEMPLATES for choice in template.choices()}, key=repr)
    return set(rng.sample(keys, round(len(keys) * HELD_OUT_KEY_SHARE)))


def _check_one_translation(pairs: list[Pair]) -> None:
    """Each Chinese sentence has one English translation and back, so exact match is a fair score both ways."""
    for lang, other in (("zh", "en"), ("en", "zh")):
        seen: dict[str, str] = {}
        for pair in pairs:
            text, translation = pair.text(lang), pair.text(other)
            if seen.setdefault(text, translation) != translation:
                raise InputError("demo_two_translations", text=text, first=seen[text], second=translation)


def _mark(pair: Pair, novelty: str) -> Pair:
    return Pair(pair.zh_words, pair.en_words, pair.links, f"{pair.origin}/{novelty}")


def grammar_split(rng: random.Random) -> tuple[list[Pair], list[Pair]]:
    """Grammar sentences for training and unseen ones (new word pairings, new sentences) to hold out."""
    held_keys = _held_out_keys(rng)
    train: list[Pair] = []
    taken = {pair.zh for pair in phrasebook_pairs()}
    new_combinations, new_sentences = [], []
    total_quota = sum(t.quota for t in TEMPLATES)
    for template in TEMPLATES:
        choices = list(template.choices())
        rng.shuffle(choices)
        share = template.quota / total_quota
        wanted_new = round(HELD_OUT_NEW_SENTENCES * share)
        wanted_combinations = max(1, round(HELD_OUT_NEW_COMBINATIONS * share))
        fresh = []
        for choice in choices:
            if template.key(*choice) in held_keys:
                pair = template.make(*choice)
                if wanted_combinations > 0 and pair.zh not in taken:
                    new_combinations.append(_mark(pair, "new-combination"))
                    wanted_combinations -= 1
            elif len(fresh) < template.quota + wanted_new:
                pair = template.make(*choice)
                if pair.zh not in taken:
                    fresh.append(pair)
        train += fresh[: template.quota]
        new_sentences += [_mark(pair, "new-sentence") for pair in fresh[template.quota :]]
        taken.update(pair.zh for pair in fresh)
    train = rng.sample(train, GRAMMAR_TRAIN)
    train_words = {w for pair in train + phrasebook_pairs() for w in pair.zh_words + pair.en_words}
    # held-out tests combinations, not unknown words
    heldout = [p for p in new_combinations + new_sentences if set(p.zh_words + p.en_words) <= train_words]
    return train, rng.sample(heldout, min(GRAMMAR_HELD_OUT, len(heldout)))


def hsk_split(phrasebook: list[Pair]) -> tuple[list[Pair], list[Pair]]:
    """HSK pairs to train on and to hold out (by id); a held-out candidate that repeats a phrasebook entry, which
    training must keep, is trained on instead."""
    pairs = hsk_pairs(chinese_symbols())
    candidates = [p for p in pairs if is_held_out(sentence_id(p))]
    kept = NearDuplicates(phrasebook)
    heldout = [p for p in candidates if p not in kept]
    return [p for p in pairs if p not in heldout], heldout


def build_corpus(seed: int = DEFAULT_SEED) -> Corpus:
    rng = random.Random(seed)
    phrasebook = phrasebook_pairs()
    grammar, heldout_grammar = grammar_split(rng)
    _check_one_translation(phrasebook + grammar + heldout_grammar)
    hsk_train, heldout = hsk_split(phrasebook)
    tatoeba_train, heldout_tatoeba = tatoeba_split(chinese_symbols())
    # Training keeps the phrasebook and the HSK sentences: a Tatoeba sentence (all its translations) that repeats
    # one of them is trained on instead of held out, as an HSK candidate that repeats the phrasebook is.
    kept = NearDuplicates(phrasebook + hsk_train)
    moved = {p.origin for p in heldout_tatoeba if p in kept}
    tatoeba_train += [p for p in heldout_tatoeba if p.origin in moved]
    heldout_tatoeba = [p for p in heldout_tatoeba if p.origin not in moved]
    phrases = {p.zh for p in phrasebook}
    dictionary = [p for p in dictionary_pairs() if p.zh not in phrases]  # the phrasebook's translation wins
    near = NearDuplicates(heldout + heldout_tatoeba)
    # Grammar sentences are near duplicates of one another by design; held-out grammar only needs unseen text.
    grammar_texts = {p.zh for p in heldout_grammar} | {p.en for p in heldout_grammar}
    train = phrasebook + [
        p
        for p in grammar + hsk_train + tatoeba_train + dictionary
        if p not in near and p.zh not in grammar_texts and p.en not in grammar_texts
    ]
    rng.shuffle(train)
    if {p.zh for p in train} & {p.zh for p in heldout + heldout_grammar + heldout_tatoeba}:
        raise AssertionError("a held-out sentence is also in training; the split is broken")
    return Corpus(train, heldout, seed, heldout_grammar, heldout_tatoeba)


def write_corpus(corpus: Corpus, out_dir: Path = CORPUS_DIR) -> None:
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    write_tsv(out_dir / TRAIN_FILE, corpus.train)
    write_tsv(out_dir / HELD_OUT_FILE, corpus.heldout)
    write_tsv(out_dir / GRAMMAR_HELD_OUT_FILE, list(corpus.heldout_grammar))
    write_tsv(out_dir / TATOEBA_HELD_OUT_FILE, list(corpus.heldout_tatoeba))
    (out_dir / README_FILE).write_text(corpus_readme(corpus, out_dir), encoding="utf-8")


def load_corpus(corpus_dir: Path = CORPUS_DIR, seed: int = DEFAULT_SEED) -> Corpus:
    """Read the corpus files, writing them first from `seed` when they are missing."""
    corpus_dir = Path(corpus_dir)
    names = (TRAIN_FILE, HELD_OUT_FILE, GRAMMAR_HELD_OUT_FILE, TATOEBA_HELD_OUT_FILE)
    if not all((corpus_dir / name).exists() for name in names):
        write_corpus(build_corpus(seed), corpus_dir)
    return Corpus(
        read_tsv(corpus_dir / TRAIN_FILE),
        read_tsv(corpus_dir / HELD_OUT_FILE),
        seed,
        read_tsv(corpus_dir / GRAMMAR_HELD_OUT_FILE),
        read_tsv(corpus_dir / TATOEBA_HELD_OUT_FILE),
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description="Write the demo corpus (train.tsv, heldout.tsv, heldout-grammar.tsv, README.md)."
    )
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--out", type=Path, default=CORPUS_DIR)
    args = parser.parse_args(argv)
    corpus = build_corpus(args.seed)
    write_corpus(corpus, args.out)
    print(
        f"wrote {len(corpus.train)} training, {len(corpus.heldout)} held-out HSK, {len(corpus.heldout_tatoeba)} "
        f"held-out Tatoeba and {len(corpus.heldout_grammar)} held-out grammar pairs to {args.out}"
    )


if __name__ == "__main__":
    main()
