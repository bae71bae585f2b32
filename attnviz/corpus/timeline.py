"""When each part of a corpus job ran: the engine's start, each worker's start and model load, each shard on its
worker, the merge. Written as `timeline.json` beside the report, so a slow run can be read rather than guessed at
(benchmarks/bench_corpus.py prints its breakdown).

Times are wall-clock seconds (`time.time()`, as every process of one machine shares it; on a cluster, nodes' clocks
differ by their drift). `summary()` gives the breakdown and the steady-state throughput: the pairs computed between
the moment the last worker was ready and the last shard's end, per second of that window — the rate the pool keeps
once its start is paid, which end-to-end seconds hide on a short corpus.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field


@dataclass
class Timeline:
    engine: str
    started: float = field(default_factory=time.time)
    phases: dict[str, float] = field(default_factory=dict)  # name → seconds ("engine_start", "merge", "driver_cpu")
    workers: list[dict] = field(default_factory=list)  # {"worker", "requested", "ready", "load_s", "threads", …}
    shards: list[dict] = field(default_factory=list)  # {"index", "worker", "start", "end", "cpu_s", "pairs"}

    def to_dict(self) -> dict:
        return asdict(self) | {"summary": self.summary()}

    def summary(self) -> dict:
        """The breakdown: seconds to the first worker ready and to the last, each worker's shards, pairs, busy and
        CPU seconds (CPU ≈ busy: one core; more: several threads), and the steady-state pairs per second."""
        out: dict = {"engine": self.engine, **{f"{name}_s": round(value, 3) for name, value in self.phases.items()}}
        if not self.shards:
            return out
        ready = [w["ready"] for w in self.workers if "ready" in w]
        first_start = min(s["start"] for s in self.shards)
        last_end = max(s["end"] for s in self.shards)
        all_ready = max(ready) if ready else first_start
        out |= {
            "first_ready_s": round((min(ready) if ready else first_start) - self.started, 3),
            "all_ready_s": round(all_ready - self.started, 3),
            "compute_s": round(last_end - first_start, 3),
            "last_shard_end_s": round(last_end - self.started, 3),
            "pairs": sum(s["pairs"] for s in self.shards),
            "workers": self._per_worker(),
        }
        busy = sum(s["end"] - s["start"] for s in self.shards)
        out["concurrency"] = round(busy / (last_end - first_start), 2) if last_end > first_start else None
        window = last_end - max(all_ready, first_start)
        steady = sum(s["pairs"] * _overlap(s, all_ready, last_end) for s in self.shards)
        out["steady_pairs_per_s"] = round(steady / window, 2) if window > 0 else None
        return out

    def _per_worker(self) -> dict:
        rows: dict = {}
        for shard in self.shards:
            row = rows.setdefault(
                str(shard["worker"]), {"shards": 0, "pairs": 0, "busy_s": 0.0, "cpu_s": 0.0, "write_s": 0.0}
            )
            row["shards"] += 1
            row["pairs"] += shard["pairs"]
            row["busy_s"] = round(row["busy_s"] + shard["end"] - shard["start"], 3)
            row["cpu_s"] = round(row["cpu_s"] + shard["cpu_s"], 3)
            row["write_s"] = round(row["write_s"] + shard.get("write_s", 0.0), 3)
        for worker in self.workers:
            if str(worker["worker"]) in rows:
                rows[str(worker["worker"])] |= {k: v for k, v in worker.items() if k in ("load_s", "threads", "node")}
        return rows


def _overlap(shard: dict, start: float, end: float) -> float:
    """The share of `shard`'s run that fell in [start, end]."""
    length = shard["end"] - shard["start"]
    if length <= 0:
        return 1.0 if start <= shard["start"] <= end else 0.0
    return max(0.0, min(end, shard["end"]) - max(start, shard["start"])) / length
