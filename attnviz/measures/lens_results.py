"""What the lenses read out of a model, as plain numpy and tokens (no torch): `LogitLens`, the next token each layer
would predict (nostalgebraist 2020, "interpreting GPT: the logit lens"), and `DecoderLens`, what a translator's
decoder writes from each encoder layer (Langedijk et al., NAACL 2024 Findings, "DecoderLens: Layerwise
Interpretation of Encoder-Decoder Transformers"); their layer labels and each one's rows for a table (CSV, JSON).

Layers are numbered as everywhere else (heads, titles, module paths): layer 0 is the first block. A lens reads the
residual stream at `streams`: stream 0 is the embeddings (what layer 0 reads), stream s ≥ 1 the stream after layer
s − 1; labels and files say "embeddings" and "after layer n" (`stream_layer`), never the stream's index.

`attnviz.measures.logit_lens` and `attnviz.measures.decoder_lens` compute them; figures, files and views read them
here (`attnviz.view.lenses` decides which lens a view shows and which reading it picks)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np

from attnviz.text.tokens import shown
from attnviz.types import AttentionCapture, Token


@dataclass(frozen=True)
class LogitLens:
    """Row s is stream s (row 0: the embeddings, row s ≥ 1: after layer s − 1), read through the model's own final
    norm and output embedding; column i is position i, whose prediction is the token after it."""

    model: str
    kind: str  # "self" (a decoder-only model) or "decoder" (a translator's decoder)
    layer_names: list[str]  # per row: "embeddings", then each layer's module path
    tokens: list[Token]  # per column: the token read there
    top_ids: np.ndarray  # int64 (rows, positions, k): each row's k most probable next tokens, best first
    top_probabilities: np.ndarray  # float32 (rows, positions, k)
    final_ids: np.ndarray  # int64 (positions,): the model's own prediction, the last row's first choice
    final_probabilities: np.ndarray  # float32 (rows, positions): each row's probability of the final prediction
    final_ranks: np.ndarray  # int64 (rows, positions): its rank in each row, 1 = that row's first choice
    vocabulary: dict[int, Token]  # every id above as a person reads it (start = end = -1: predicted, not read)
    source_tokens: list[Token] | None = None  # a translator's source, as its encoder read it
    provenance: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        rows, positions = len(self.layer_names), len(self.tokens)
        k = self.top_ids.shape[-1] if self.top_ids.ndim == 3 else 0
        expected = {
            "top_ids": (self.top_ids, (rows, positions, k)),
            "top_probabilities": (self.top_probabilities, (rows, positions, k)),
            "final_ids": (self.final_ids, (positions,)),
            "final_probabilities": (self.final_probabilities, (rows, positions)),
            "final_ranks": (self.final_ranks, (rows, positions)),
        }
        for name, (array, shape) in expected.items():
            if array.shape != shape or k < 1:
                raise ValueError(f"LogitLens.{name} has shape {array.shape}; {shape} (rows, positions, k ≥ 1) needed")

    def top_tokens(self, choice: int = 0) -> list[list[Token]]:
        """[row][position]: each row's `choice`-th most probable next token (0: its first choice)."""
        return [[self.vocabulary[int(i)] for i in row] for row in self.top_ids[:, :, choice]]


@dataclass(frozen=True)
class DecoderLens:
    """Reading s: what the decoder wrote when it read the encoder's stream s (0: the embeddings, s ≥ 1: after encoder
    layer s − 1) in place of the encoder's output, with that run's steps (each token's probability) and its
    cross-attention."""

    model: str
    layers: list[int]  # per reading: the encoder stream read, 0 = the embeddings, s = after layer s − 1
    layer_names: list[str]  # per reading: "embeddings", or that encoder layer's module path
    readings: list[AttentionCapture]
    provenance: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not len(self.readings) == len(self.layer_names) == len(self.layers):
            raise ValueError(
                f"DecoderLens has {len(self.readings)} readings for {len(self.layers)} layers "
                f"({len(self.layer_names)} names); one each is needed"
            )


def stream_layer(stream: int) -> int | None:
    """The layer whose output stream `stream` is, numbered as the heads are (0: the first); None for the embeddings."""
    return None if stream == 0 else stream - 1


def stream_file_part(stream: int) -> str:
    """A file name's part for stream `stream`: "embeddings", or "after-L0" (layers numbered as the heads' "L0H3")."""
    layer = stream_layer(stream)
    return "embeddings" if layer is None else f"after-L{layer}"


def layer_labels(streams: Iterable[int], words: Mapping[str, str]) -> list[str]:
    """One label per stream read, in the language of `words` (`i18n.lens`): "embeddings" for stream 0 (what layer 0
    reads), else "after layer n" (`stream_layer`). Both lenses name their rows with it."""
    labels = []
    for stream in streams:
        layer = stream_layer(stream)
        labels.append(
            words["lens_layer_embeddings"] if layer is None else words["lens_layer_number"].format(layer=layer)
        )
    return labels


def reading_labels(lens: DecoderLens, words: Mapping[str, str]) -> list[str]:
    """One label per reading: the encoder layer it read (`layer_labels`)."""
    return layer_labels(lens.layers, words)


def last_layer_choices(lens: LogitLens) -> list[tuple[Token, float]]:
    """The last layer's first choice at every position with its probability: the model's own prediction."""
    ids, probabilities = lens.top_ids[-1, :, 0], lens.top_probabilities[-1, :, 0]  # (positions,) each
    return [(lens.vocabulary[int(i)], float(p)) for i, p in zip(ids, probabilities)]


def logit_lens_rows(lens: LogitLens) -> list[dict]:
    """One row per (stream, position): the layer it is read after (`stream_layer`: numbered as the heads are, empty
    for the embeddings), the token read, the model's final prediction, its probability and rank there, and that
    stream's top tokens with their probabilities. Unknown tokens are marked "?" (`tokens.shown`)."""
    rows = []
    for layer, name in enumerate(lens.layer_names):
        for position, token in enumerate(lens.tokens):
            row = {
                "after_layer": stream_layer(layer),
                "layer_name": name,
                "position": position,
                "token": shown(token),
                "final_token": shown(lens.vocabulary[int(lens.final_ids[position])]),
                "final_probability": float(lens.final_probabilities[layer, position]),
                "final_rank": int(lens.final_ranks[layer, position]),
            }
            for choice, (token_id, probability) in enumerate(
                zip(lens.top_ids[layer, position], lens.top_probabilities[layer, position]), start=1
            ):
                row[f"top{choice}_token"] = shown(lens.vocabulary[int(token_id)])
                row[f"top{choice}_probability"] = float(probability)
            rows.append(row)
    return rows


def decoder_lens_rows(lens: DecoderLens) -> list[dict]:
    """One row per encoder stream read (`after_layer`: the encoder layer, numbered as the heads are, None for the
    embeddings): the text written and each written token with its probability."""
    return [
        {
            "after_layer": stream_layer(layer),
            "layer_name": name,
            "text": reading.target_text,
            "tokens": [
                {"token": shown(step.token), "special": step.token.special, "probability": step.probability}
                for step in reading.steps or []
            ],
        }
        for layer, name, reading in zip(lens.layers, lens.layer_names, lens.readings)
    ]
