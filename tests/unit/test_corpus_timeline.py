"""The corpus job's timeline: its breakdown reads what ran when, and the steady-state rate counts only the window
after the last worker was ready."""

from __future__ import annotations

from attnviz.corpus.timeline import Timeline


def shard(index, worker, start, end, pairs=10, cpu=None):
    return {
        "index": index,
        "worker": worker,
        "start": start,
        "end": end,
        "pairs": pairs,
        "cpu_s": end - start if cpu is None else cpu,
    }


def test_two_workers_side_by_side_read_as_concurrent_and_steady_rate_starts_when_both_are_ready():
    timeline = Timeline("ray", started=100.0, phases={"engine_start": 3.0})
    timeline.workers = [
        {"worker": 1, "requested": 103.0, "ready": 105.0, "load_s": 2.0, "threads": 1},
        {"worker": 2, "requested": 103.0, "ready": 107.0, "load_s": 4.0, "threads": 1},
    ]
    # worker 1 alone from 105 to 107 (two shards), then both from 107 to 109 (one shard each)
    timeline.shards = [shard(0, 1, 105, 106), shard(1, 1, 106, 107), shard(2, 1, 107, 109), shard(3, 2, 107, 109)]
    summary = timeline.summary()
    assert summary["first_ready_s"] == 5.0 and summary["all_ready_s"] == 7.0 and summary["engine_start_s"] == 3.0
    assert summary["compute_s"] == 4.0 and summary["last_shard_end_s"] == 9.0 and summary["pairs"] == 40
    assert summary["concurrency"] == 1.5  # 6 busy seconds in a 4-second run
    assert summary["steady_pairs_per_s"] == 10.0  # 20 pairs in the 2 s after both were ready
    assert summary["workers"]["1"] == {
        "shards": 3,
        "pairs": 30,
        "busy_s": 4.0,
        "cpu_s": 4.0,
        "write_s": 0.0,
        "load_s": 2.0,
        "threads": 1,
    }
    assert summary["workers"]["2"]["shards"] == 1


def test_a_shard_half_inside_the_steady_window_counts_half_its_pairs():
    timeline = Timeline("ray", started=0.0)
    timeline.workers = [{"worker": 1, "ready": 1.0}, {"worker": 2, "ready": 2.0}]
    timeline.shards = [shard(0, 1, 1, 3), shard(1, 2, 2, 3)]
    assert timeline.summary()["steady_pairs_per_s"] == 15.0  # (10 · ½ + 10) pairs in 1 s


def test_a_run_with_no_shards_has_only_its_phases():
    assert Timeline("inprocess", started=0.0, phases={"merge": 0.5}).summary() == {
        "engine": "inprocess",
        "merge_s": 0.5,
    }
