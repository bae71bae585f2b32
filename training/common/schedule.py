"""The learning rate over a run: linear warm-up, then cosine decay — the same for the translators and the decoder."""

from __future__ import annotations

import math


def learning_rate(config, step: int) -> float:
    """Linear warm-up, then cosine decay to a tenth of the peak. `config`: a run's settings with `learning_rate`,
    `warmup_steps` and `steps` (a translator's TrainConfig or the decoder's DecoderConfig)."""
    warm = min(1.0, (step + 1) / config.warmup_steps)
    progress = min(1.0, step / max(1, config.steps))
    return config.learning_rate * warm * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * progress)))
