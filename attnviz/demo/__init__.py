"""How the embedded demo translation models are made: corpus, tokenizers, training, evaluation.

The app opens on two small Marian models (zh→en and en→zh) that are trained on this machine from a corpus written
for this project, because no model can be downloaded here. Everything is deterministic from a seed:

    python -m attnviz.demo.corpus                 # writes assets/corpus/*.tsv (also done by train when missing)
    python -m attnviz.demo.train --direction zh-en
    python -m attnviz.demo.train --direction en-zh

The modules, each importing only those before it: pairs, lexicon, phrasebook, grammar → corpus; alignment; tokenizer;
config (a run's TrainConfig and its training record); card (the model card); evaluate (scores, and the card from
them); train (which ends by calling evaluate).
"""

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
ASSETS_DIR = REPO_ROOT / "assets"
CORPUS_DIR = ASSETS_DIR / "corpus"
MODELS_DIR = ASSETS_DIR / "models"
DIRECTIONS = ("zh-en", "en-zh")


def model_dir(direction: str) -> Path:
    """The committed folder of the demo model for `direction` ("zh-en" or "en-zh")."""
    return MODELS_DIR / direction
