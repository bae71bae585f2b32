"""The corpus job on Ray Data (`--engine ray`): the same shards, computed by a pool of actors that each load the
model once. An optional engine: Ray is imported only here (`pip install -r requirements-ray.txt`).

- The shards still to do become a Ray dataset of shard descriptions (byte offset and lines: each actor reads its own
  lines, so the input must be readable at the same path on every node, e.g. shared storage on a cluster).
- `map_batches(ShardWorker, compute=ActorPoolStrategy(size=workers), batch_size=1)`: each call computes one shard
  (its pairs captured in batches grouped by length, `shards.process_shard`) and writes its files (`write_shard`).
- Resources: each actor asks for `num_cpus=0.5` (so a pool beside a running read task cannot deadlock a 2-core
  machine), one GPU when the device is CUDA (or "auto" on a cluster with GPUs), and one NPU when it is an Ascend NPU:
  Ray knows Ascend NPUs as the resource "NPU" (it finds them on each node, or start a node with
  `ray start --resources='{"NPU": 8}'`) and gives each actor its own card through ASCEND_RT_VISIBLE_DEVICES.
- Faults: a killed actor restarts and its call is retried (Ray Data's actor pools default to `max_restarts=-1`,
  `max_task_retries=-1`); a shard computed again
  replaces its own files, and the report reads each shard once, so nothing is counted twice.
- `--ray-address` joins a running cluster ("auto", or host:port); without it a local Ray starts and stops with the job.
"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

from attnviz.corpus.shards import JobOptions, ShardSpec
from attnviz.errors import InputError

ACTOR_CPUS = 0.5


def _ray():
    try:
        import ray
        import ray.data  # noqa: F401
    except ImportError:
        raise InputError("corpus_ray_missing") from None
    return ray


class ShardWorker:
    """A Ray Data actor: loads the model once, then computes and writes one shard per call."""

    def __init__(self, model: str, device: str, threads: int | None, input: str, output: str, options: dict):
        from attnviz.corpus.job import load_worker_model

        self.handle = load_worker_model(model, device, threads)
        self.input, self.output, self.options = Path(input), Path(output), JobOptions(**options)

    def __call__(self, batch: dict) -> dict:
        import numpy as np

        from attnviz.corpus.shards import process_shard, write_shard

        done = []
        for index, offset, first, lines in zip(batch["index"], batch["offset"], batch["first_line"], batch["lines"],
                                               strict=True):  # fmt: skip
            spec = ShardSpec(int(index), int(offset), int(first), int(lines))
            write_shard(self.output, process_shard(self.handle, self.input, spec, self.options))
            done.append(spec.index)
        return {"index": np.array(done, dtype=np.int64)}


def actor_resources(device: str, cluster: dict) -> dict:
    """What each actor asks Ray for: half a CPU, and the accelerator its device names."""
    resources: dict = {"num_cpus": ACTOR_CPUS}
    if device.startswith("cuda") or (device == "auto" and cluster.get("GPU", 0) > 0):
        resources["num_gpus"] = 1
    elif device.startswith("npu") or (device == "auto" and cluster.get("NPU", 0) > 0):
        resources["resources"] = {"NPU": 1}
    return resources


def run_shards(config, todo: list[ShardSpec], progress, total: int) -> None:
    """Compute the shards `todo` on Ray; `progress(done, total)` as each one is written."""
    if not todo:
        return
    ray = _ray()
    started_here = not ray.is_initialized()
    if started_here:
        ray.init(address=config.ray_address, include_dashboard=False, log_to_driver=False,
                 configure_logging=False)  # fmt: skip
    try:
        ray.data.DataContext.get_current().enable_progress_bars = False
        items = [asdict(spec) for spec in todo]
        dataset = ray.data.from_items(items, override_num_blocks=len(items))
        worker_args = dict(model=config.model, device=config.device, threads=config.threads,
                           input=str(Path(config.input).resolve()), output=str(Path(config.output).resolve()),
                           options=asdict(config.options))  # fmt: skip
        resources = actor_resources(config.device, ray.cluster_resources())
        computed = dataset.map_batches(
            ShardWorker,
            fn_constructor_kwargs=worker_args,
            batch_size=1,
            compute=ray.data.ActorPoolStrategy(size=config.workers),
            **resources,  # actors restart and their calls are retried without end: Ray Data's own default
        )
        done = total - len(todo)
        for _ in computed.iter_rows():
            done += 1
            if progress:
                progress(done, total)
    finally:
        if started_here:
            ray.shutdown()
