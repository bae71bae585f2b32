"""The long-context atlas: every head of every layer, exact, for long inputs, at the cost of about one more fused
attention pass per layer (`capture_atlas`), with any window or row of any head exact on demand (`AtlasCapture`).

Rooms: `routes` (fused kernels that hand out the LSE, and the exact fallback), `checked` (each route checked against
float64 at first use), `visibility` (masks in compact form), `blocks` (block masses, sink shares, windows),
`recorder` (the attention calls), `capture` (the run), `result` (the atlas and its windows), `retrieval` (the
retrieval score of every head on a planted needle, Wu et al. 2024). What is numpy — the
block maps, their statistics and the file — lives in `maps.atlas`, `maps.atlas_stats` and `export.atlas_file`.
"""

from attnviz.atlas.capture import BLOCK, atlas_bytes, capture_atlas, capture_atlas_batch
from attnviz.atlas.recorder import AtlasStopped
from attnviz.atlas.result import AtlasCapture, AtlasLayer
from attnviz.atlas.retrieval import retrieval_scores

__all__ = [
    "BLOCK",
    "AtlasCapture",
    "AtlasLayer",
    "AtlasStopped",
    "atlas_bytes",
    "capture_atlas",
    "capture_atlas_batch",
    "retrieval_scores",
]
