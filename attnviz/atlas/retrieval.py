"""The retrieval score of every head on a planted needle (Wu et al. 2024, "Retrieval Head Mechanistically Explains
Long-Context Factuality", arXiv:2404.15574), from an atlas's exact rows.

The model read a haystack with a needle planted in it and wrote an answer; the atlas is of the text the model read
followed by the answer it wrote (teacher forcing: the row of position t − 1 is the step that wrote token t). A head
copies-and-pastes needle token j at step t when the token written equals the needle's token j and the head's strongest
attention from that step falls on j. A head's retrieval score is the share of the needle's tokens it copied-and-
pasted at some step: |g_h| / |needle|, with g_h those tokens. Tokens are compared by the text they cover (the atlas
keeps tokens as read, not their ids).
"""

from __future__ import annotations

import numpy as np

from attnviz.atlas.result import AtlasCapture
from attnviz.errors import InputError
from attnviz.maps import analysis


def retrieval_scores(
    atlas: AtlasCapture, needle: tuple[int, int], answer: tuple[int, int], kind: str = "self"
) -> np.ndarray:
    """float64 (layers, heads): each head's retrieval score (module docstring) for the needle at token positions
    `needle` = (first, last + 1) and the answer written at positions `answer`, both in the atlas's tokens."""
    amap = atlas[kind]
    tokens = amap.query_tokens
    n0, n1 = analysis.index_range(needle, len(tokens), "needle token")
    a0, a1 = analysis.index_range(answer, len(tokens), "answer token")
    if a0 < 1 or a0 < n1:
        raise InputError("atlas_answer_before_needle", needle=f"{n0}–{n1 - 1}", answer=f"{a0}–{a1 - 1}")
    copied = np.zeros((amap.num_layers, amap.num_heads, n1 - n0), dtype=bool)  # needle tokens each head pasted
    for step in range(a0, a1):
        sources = [j for j in range(n0, n1) if tokens[j].text == tokens[step].text]
        if not sources:
            continue
        for layer in range(amap.num_layers):
            row = atlas.windows(kind, layer, rows=(step - 1, step))[:, 0]  # (heads, keys): the step that wrote it
            strongest = row.argmax(axis=-1)  # (heads,)
            for source in sources:
                copied[layer, :, source - n0] |= strongest == source
    return copied.sum(-1) / (n1 - n0)
