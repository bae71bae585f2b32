"""The settings of one translator training run.

training.translator.train trains from a TrainConfig and keeps it in the run's training record
(training.common.stages); training.translator.card and training.translator.evaluate read it back.
"""

from __future__ import annotations

from dataclasses import dataclass

from training.data.corpus import DEFAULT_SEED


@dataclass
class TrainConfig:
    direction: str = "zh-en"
    seed: int = DEFAULT_SEED
    d_model: int = 160
    layers: int = 3  # encoder layers = decoder layers
    heads: int = 4
    ffn_dim: int = 640
    dropout: float = 0.1
    steps: int = 1700
    batch_size: int = 96  # pairs per batch at most
    batch_tokens: int = 1600  # padded source + target tokens per batch at most (batches group similar lengths)
    learning_rate: float = 1e-3
    warmup_steps: int = 250
    label_smoothing: float = 0.1
    alignment_weight: float = 0.5
    alignment_layer: int = -1  # decoder layer of the supervised head; -1 = the last
    alignment_head: int = 0
    phrasebook_repeat: int = 20  # the phrasebook is small; repeating it makes its phrases exact
    hsk_repeat: int = 2  # the real sentences count most; the dictionary pairs are many and short
    max_pairs: int | None = None  # train on the first N corpus pairs only (the smoke test)
    max_heldout: int | None = None  # score the first N held-out pairs only (the smoke test)
    threads: int = 1  # on a shared 2-core machine a second thread waits on the first more than it helps
    log_every: int = 0  # print a plain progress line every N steps (for a log file); 0: none
    save_every: int = 0  # save the weights every N steps (a long run stopped early keeps its last); 0: at the end
    init_from: str | None = None  # continue from an earlier run's folder (a second stage, same corpus)

    @property
    def languages(self) -> tuple[str, str]:
        source, _, target = self.direction.partition("-")
        return source, target

    @property
    def supervised_layer(self) -> int:
        return self.alignment_layer % self.layers
