"""Attention compared: two sentences to one model, one sentence to two models, or one model on two devices.

- `matching`: which tokens of A stand for which of B (a word-level diff on character offsets, `difflib`), as
  segments both sides share, or only one has (added, removed);
- `divergence`: maps carried onto segments and compared row by row by the Jensen–Shannon divergence (Lin 1991);
- `heads`: layers of two models set side by side by relative depth, and their heads paired by a minimum-cost
  assignment on their JS matrix (Kuhn 1955);
- `comparison`: `compare_maps` / `compare_captures` → `Comparison` (heads ranked by JS, the diff A − B);
- `parity`: one input read twice (devices, precisions): max |ΔP|, row-sum error, the worst head;
- `side_by_side`: A's and B's alignment diagrams of the heads a view shows, drawn at one size to line up;
- `inputs`: what B's text must be (not empty, in a language model B reads), checked before anything runs.

Right of the attention line: numpy (and scipy's assignment), never torch.
"""

from attnviz.compare.comparison import Comparison, DiffView, HeadChange, compare_captures, compare_maps
from attnviz.compare.heads import UNPAIRED, depth_pairs, divergence_matrix, paired_heads
from attnviz.compare.inputs import check_text_b
from attnviz.compare.matching import ADDED, BOTH, REMOVED, Segment, TokenMatch, match_tokens, text_units
from attnviz.compare.parity import Parity, parity
from attnviz.compare.side_by_side import SideBySide, side_by_side, side_options

__all__ = [
    "ADDED",
    "BOTH",
    "REMOVED",
    "UNPAIRED",
    "Comparison",
    "DiffView",
    "HeadChange",
    "Parity",
    "Segment",
    "SideBySide",
    "TokenMatch",
    "compare_captures",
    "check_text_b",
    "compare_maps",
    "depth_pairs",
    "divergence_matrix",
    "match_tokens",
    "paired_heads",
    "parity",
    "side_by_side",
    "side_options",
    "text_units",
]
