"""What gradient × input saliency (`attnviz.measures.saliency`) hands to the right of the attention line: numpy
arrays with their tokens, no torch — a row per output token explained, a column per input token."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from attnviz.errors import InputError
from attnviz.types import Token


@dataclass(frozen=True)
class SaliencyScores:
    """‖∂ log p(explained token) / ∂e_j ⊙ e_j‖₂ for each explained output token (row) and input token j (column).

    `rows` are the query rows explained, in the layout of attention maps: for a translator, target row t writes
    target token t (reading the source and the decoder input up to t); for a decoder-only model, position p
    predicts the token after it. `explained` is the token each row's log-probability is of (the text's own next
    token, or for a decoder's last position the model's most probable one), `log_probabilities` those values.
    `source` (rows, source tokens) holds the scores of the text the model reads (a decoder-only model's whole
    input); `prefix` (rows, decoder input tokens), a translator's decoder input: the start token, then the target
    but its last token. Scores of tokens a row cannot see (later positions) are exactly 0.
    """

    model: str
    rows: tuple[int, ...]
    explained: list[Token]
    log_probabilities: np.ndarray  # float32 (rows,)
    source_tokens: list[Token]
    source: np.ndarray  # float32 (rows, source tokens)
    prefix_tokens: list[Token] | None = None
    prefix: np.ndarray | None = None  # float32 (rows, decoder input tokens)
    provenance: dict = field(default_factory=dict)

    def __post_init__(self):
        rows = len(self.rows)
        for name, scores, tokens in (
            ("source", self.source, self.source_tokens),
            ("prefix", self.prefix, self.prefix_tokens),
        ):
            if scores is None:
                continue
            scores = np.asarray(scores, dtype=np.float32)
            if scores.shape != (rows, len(tokens or ())):
                raise InputError("saliency_shape", part=name, shape=scores.shape, expected=(rows, len(tokens or ())))
            object.__setattr__(self, name, scores)
        object.__setattr__(self, "log_probabilities", np.asarray(self.log_probabilities, dtype=np.float32))
        if len(self.explained) != rows or self.log_probabilities.shape != (rows,):
            raise InputError("saliency_shape", part="explained", shape=self.log_probabilities.shape, expected=(rows,))

    def source_share(self) -> np.ndarray:
        """float32 (rows,): the source's part of each row's total saliency (1 for a decoder-only model)."""
        source = self.source.sum(-1)
        total = source + (0.0 if self.prefix is None else self.prefix.sum(-1))
        return np.divide(source, total, out=np.zeros_like(source), where=total > 0)
