"""Where the training project reads and writes: the corpus and the model folders, under attnviz's assets."""

from attnviz.model.load import ASSETS

CORPUS_DIR = ASSETS / "corpus"
MODELS_DIR = ASSETS / "models"
