"""What a contribution measure returns (numpy only): a capture whose maps hold contributions instead of weights, so
that every figure, file and view that reads a capture reads it, plus what a translation's contributions add."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attnviz.types import AttentionCapture


@dataclass(frozen=True)
class TranslationShares:
    """ALTI+ (`composition.translation_rollout`): how much the source and the target prefix make up each target
    position, after each decoder layer. Row i is the decoder step that writes target token i."""

    source: np.ndarray  # float32 (layers, targets, sources): each source token's share
    target: np.ndarray  # float32 (layers, targets, decoder inputs): each decoder input's (start token, prefix)

    @property
    def source_share(self) -> np.ndarray:
        """float32 (targets,): the source's share in each target token's prediction (after the last layer)."""
        return self.source[-1].sum(axis=-1, dtype=np.float32)

    @property
    def target_share(self) -> np.ndarray:
        """float32 (targets,): the target prefix's share; `source_share + target_share` is 1 for every token."""
        return self.target[-1].sum(axis=-1, dtype=np.float32)


@dataclass(frozen=True)
class Contributions(AttentionCapture):
    """A capture whose maps are contributions (float32 (layers, 1, queries, keys): one "head", the layer's
    contributions, rows summing to 1), with the tokens and layer names a capture of the same run has.

    For a translation, the "cross" map holds, per layer, how the cross-attention block's share of the encoder is
    spread over the source tokens (rows summing to 1); `cross_residual` says what that block kept of its residual
    instead (the target side), so that a cross row times (1 − cross_residual) is the source's part of the block's
    output. Under rollout, "cross" and "decoder" are the source and target-prefix parts of ALTI+, each row scaled to
    1; `shares` holds them unscaled."""

    method: str = "alti"  # "alti" | "alti-rollout"
    cross_residual: np.ndarray | None = None  # float32 (layers, targets), for a translation
    shares: TranslationShares | None = None  # for a translation
