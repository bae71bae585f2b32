"""Streamed statistics over a corpus: sums that add up shard by shard, so memory stays bounded whatever its size.

Each pair gives, per map kind and head statistic (`attnviz.analysis.STATISTICS`, whatever roles it lists), one
(layers, heads) array (`analysis.head_statistics`). `Moments` keeps, per head, the count of pairs where the statistic
applies, the sum and the sum of squares (float64): the corpus mean and spread (population standard deviation) come
from those, and two `Moments` add up. Adding shards in the same order gives the same bits on any engine.
With gold links, `links.mask_counts` are kept the same way (integers: any order gives the same counts).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np

from attnviz import analysis
from attnviz.corpus.gold import Counts
from attnviz.types import AttentionMap


@dataclass
class Moments:
    count: np.ndarray  # (layers, heads) pairs where the statistic is defined
    total: np.ndarray  # sum
    squares: np.ndarray  # sum of squares

    @classmethod
    def of(cls, values: np.ndarray) -> Moments:
        values = np.asarray(values, dtype=np.float64)
        finite = np.isfinite(values)
        clean = np.where(finite, values, 0.0)
        return cls(finite.astype(np.int64), clean, clean * clean)

    def add(self, other: Moments) -> Moments:
        return Moments(self.count + other.count, self.total + other.total, self.squares + other.squares)

    def mean(self) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.count > 0, self.total / np.maximum(self.count, 1), np.nan)

    def spread(self) -> np.ndarray:
        """Population standard deviation over the pairs (0 for one pair)."""
        mean = self.mean()
        with np.errstate(invalid="ignore"):
            variance = np.maximum(self.squares / np.maximum(self.count, 1) - mean * mean, 0.0)
        return np.where(self.count > 0, np.sqrt(variance), np.nan)


@dataclass
class HeadAccumulator:
    """Head statistics per map kind, and gold counts of the cross-attention, summed over pairs."""

    moments: dict[str, dict[str, Moments]] = field(default_factory=dict)  # kind → statistic → Moments
    layer_names: dict[str, list[str]] = field(default_factory=dict)  # kind → module paths
    gold: dict[str, np.ndarray] = field(default_factory=dict)  # Counts field → (layers, heads) int64
    views: dict[str, np.ndarray] = field(default_factory=dict)  # "<view>.<Counts field>" → int64 (one number)
    pairs: int = 0

    def add_map(self, amap: AttentionMap) -> dict[str, np.ndarray]:
        """Count one map's head statistics; returns them (statistic → (layers, heads))."""
        stats = analysis.head_statistics(amap)
        kind = self.moments.setdefault(amap.kind, {})
        self.layer_names.setdefault(amap.kind, list(amap.layer_names))
        for name, values in stats.items():
            moments = Moments.of(values)
            kind[name] = kind[name].add(moments) if name in kind else moments
        return stats

    def add_gold(self, counts: dict[str, np.ndarray]) -> None:
        for name, values in counts.items():
            values = np.asarray(values, dtype=np.int64)
            self.gold[name] = self.gold[name] + values if name in self.gold else values

    def add_view(self, view: str, counts: Counts) -> None:
        """Count one pair's links of a whole view ("view": the model's alignment view, "both": its intersection with
        the reverse model's)."""
        for name, value in asdict(counts).items():
            key = f"{view}.{name}"
            self.views[key] = self.views.get(key, np.int64(0)) + np.int64(value)

    def view_counts(self) -> dict[str, Counts]:
        names = {key.split(".")[0] for key in self.views}
        return {
            view: Counts(**{f: int(self.views[f"{view}.{f}"]) for f in Counts.__dataclass_fields__})
            for view in sorted(names)
        }

    def merge(self, other: HeadAccumulator) -> HeadAccumulator:
        """This accumulator with `other` added (kinds and statistics either one lacks are kept as they are)."""
        for kind, stats in other.moments.items():
            mine = self.moments.setdefault(kind, {})
            for name, moments in stats.items():
                mine[name] = mine[name].add(moments) if name in mine else moments
        for kind, names in other.layer_names.items():
            self.layer_names.setdefault(kind, names)
        self.add_gold(other.gold)
        for key, value in other.views.items():
            self.views[key] = self.views.get(key, np.int64(0)) + value
        self.pairs += other.pairs
        return self

    # ------------------------------------------------------------------------------------------------------------------
    # As arrays, for a shard's file

    def to_arrays(self) -> dict[str, np.ndarray]:
        arrays = {"pairs": np.array(self.pairs)}
        for kind, stats in self.moments.items():
            for name, m in stats.items():
                for part in ("count", "total", "squares"):
                    arrays[f"m/{kind}/{name}/{part}"] = getattr(m, part)
        for name, values in self.gold.items():
            arrays[f"g/{name}"] = values
        for key, value in self.views.items():
            arrays[f"v/{key}"] = np.asarray(value, dtype=np.int64)
        return arrays

    @classmethod
    def from_arrays(cls, arrays, layer_names: dict[str, list[str]]) -> HeadAccumulator:
        acc = cls(layer_names={k: list(v) for k, v in layer_names.items()}, pairs=int(arrays["pairs"]))
        for key in arrays:
            parts = key.split("/")
            if parts[0] == "m" and parts[3] == "count":
                kind, name = parts[1], parts[2]
                moments = Moments(*(np.asarray(arrays[f"m/{kind}/{name}/{p}"]) for p in ("count", "total", "squares")))
                acc.moments.setdefault(kind, {})[name] = moments
            elif parts[0] == "g":
                acc.gold[parts[1]] = np.asarray(arrays[key])
            elif parts[0] == "v":
                acc.views[parts[1]] = np.int64(arrays[key])
        return acc
