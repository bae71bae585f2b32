"""Streamed statistics over a corpus: sums that add up shard by shard, so memory stays bounded whatever its size.

Each pair gives, per map kind and head statistic (`attnviz.maps.head_stats.STATISTICS`, whatever roles it lists), one
(layers, heads) array (`head_stats.head_statistics`). `Moments` keeps, per head, the count of pairs where the statistic
applies, the sum and the sum of squares (float64): the corpus mean and spread (population standard deviation) come
from those, and two `Moments` add up. Adding shards in the same order gives the same bits on any engine.
A kind's statistics are kept stacked in one `StatisticBlock` (statistics, layers, heads), so a map is counted in a
few numpy operations; `HeadAccumulator.moments` gives them one by one.
With gold links, `links.mask_counts` are kept the same way (integers: any order gives the same counts).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np

from attnviz.corpus.gold import Counts
from attnviz.maps import head_stats
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
class StatisticBlock:
    """One map kind's statistics stacked: `moments` of shape (statistics, layers, heads), row i for `names[i]`
    (one numpy operation per map instead of one per statistic: the job adds a map per pair)."""

    names: tuple[str, ...]
    moments: Moments

    @classmethod
    def of(cls, statistics: dict[str, Moments]) -> StatisticBlock:
        parts = [np.stack([getattr(m, part) for m in statistics.values()]) for part in ("count", "total", "squares")]
        return cls(tuple(statistics), Moments(*parts))

    def split(self) -> dict[str, Moments]:
        m = self.moments
        return {name: Moments(m.count[i], m.total[i], m.squares[i]) for i, name in enumerate(self.names)}

    def add(self, other: StatisticBlock) -> StatisticBlock:
        if other.names == self.names:
            return StatisticBlock(self.names, self.moments.add(other.moments))
        mine, theirs = self.split(), other.split()
        merged = {**mine, **theirs}  # statistics either one lacks are kept as they are
        merged.update({name: mine[name].add(theirs[name]) for name in mine.keys() & theirs.keys()})
        return StatisticBlock.of(merged)


@dataclass
class HeadAccumulator:
    """Head statistics per map kind, and gold counts of the cross-attention, summed over pairs."""

    blocks: dict[str, StatisticBlock] = field(default_factory=dict)  # kind → its statistics, stacked
    layer_names: dict[str, list[str]] = field(default_factory=dict)  # kind → module paths
    gold: dict[str, np.ndarray] = field(default_factory=dict)  # Counts field → (layers, heads) int64
    views: dict[str, np.ndarray] = field(default_factory=dict)  # "<view>.<Counts field>" → int64 (one number)
    pairs: int = 0

    @property
    def moments(self) -> dict[str, dict[str, Moments]]:
        """kind → statistic → Moments of shape (layers, heads)."""
        return {kind: block.split() for kind, block in self.blocks.items()}

    def add_map(self, amap: AttentionMap) -> dict[str, float]:
        """Count one map's head statistics; returns each one's mean over the heads where it applies (NaN where it
        applies to none)."""
        stats = head_stats.head_statistics(amap)
        block = StatisticBlock(tuple(stats), Moments.of(np.stack(list(stats.values()))))  # (statistics, layers, heads)
        self.layer_names.setdefault(amap.kind, list(amap.layer_names))
        mine = self.blocks.get(amap.kind)
        self.blocks[amap.kind] = block if mine is None else mine.add(block)
        counts, totals = block.moments.count.sum(axis=(1, 2)), block.moments.total.sum(axis=(1, 2))  # (statistics,)
        with np.errstate(invalid="ignore", divide="ignore"):
            means = np.where(counts > 0, totals / np.maximum(counts, 1), np.nan)
        return dict(zip(block.names, means.tolist(), strict=True))

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
        for kind, block in other.blocks.items():
            self.blocks[kind] = self.blocks[kind].add(block) if kind in self.blocks else block
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
        statistics: dict[str, dict[str, Moments]] = {}  # kind → statistic → Moments, in the file's order
        for key in arrays:
            parts = key.split("/")
            if parts[0] == "m" and parts[3] == "count":
                kind, name = parts[1], parts[2]
                moments = Moments(*(np.asarray(arrays[f"m/{kind}/{name}/{p}"]) for p in ("count", "total", "squares")))
                statistics.setdefault(kind, {})[name] = moments
            elif parts[0] == "g":
                acc.gold[parts[1]] = np.asarray(arrays[key])
            elif parts[0] == "v":
                acc.views[parts[1]] = np.int64(arrays[key])
        acc.blocks = {kind: StatisticBlock.of(stats) for kind, stats in statistics.items()}
        return acc
