"""The corpus job on Ray (`--engine ray`): the same shards, computed by a pool of Ray actors that each load the
model once. An optional engine: Ray is imported only here (`pip install -r requirements-ray.txt`).

- The pool: `workers` actors (`ShardWorker`), created at once and spread over the cluster's nodes. The driver hands
  each actor its first shards only when it reports ready (model loaded), then one more each time it finishes one,
  so at most `IN_FLIGHT` shards wait on an actor: a slow or late actor holds back no work a free one could do, and
  no actor waits on the driver between shards. Each shard is a description (byte offset and lines): the actor reads
  its own lines (the input must be readable at the same path on every node, e.g. shared storage on a cluster),
  captures its pairs in batches grouped by length (`shards.process_shard`) and writes its files (`write_shard`).
- Plain Ray actors rather than Ray Data's `map_batches`: on a small machine Ray Data costs
  more than the work. Counted in CPU seconds on 2 cores, 200 short pairs of demo-zh-en with 2 actors: its three
  helper actors (stats, autoscaling coordinator, locality tracker: a Python process each) took 6.0 CPU s, importing
  it ~2 CPU s more in each worker, its executor polled in the driver, against 1.4 CPU s for the pairs themselves;
  the second actor's start, beside all that, never finished before the corpus did. Ray's own processes (GCS,
  raylet, agents: ~5 CPU s) and each actor's start (Python, torch, transformers, the model: ~8 CPU s on a busy
  machine) remain: the price of a pool, paid once, next to which only the steady-state rate says whether the
  per-pair work parallelises (`timeline.json`, benchmarks/bench_corpus.py).
- Threads: each actor runs torch with `threads` threads (`--threads`; the pool's default when not given is 1, so
  `workers` actors use `workers` cores) and tokenizes without the tokenizers library's own thread pool.
- Resources: each actor asks for `num_cpus=0.5` (so a pool beside other work cannot deadlock a 2-core machine), one
  GPU when the device is CUDA (or "auto" on a cluster with GPUs), and one NPU when it is an Ascend NPU: Ray knows
  Ascend NPUs as the resource "NPU" (it finds them on each node, or start a node with
  `ray start --resources='{"NPU": 8}'`) and gives each actor its own card through ASCEND_RT_VISIBLE_DEVICES.
- Faults: an actor whose process dies is restarted and its calls retried (`max_restarts=-1`,
  `max_task_retries=-1`); a shard computed again replaces its own files, and the report reads each shard once, so
  nothing is counted twice.
- `--ray-address` joins a running cluster ("auto", or host:port); without it a local Ray starts and stops with the
  job. The job's timeline (`attnviz.corpus.timeline`) records Ray's start, each actor's start and each shard.
- `--keep-workers` (with `--ray-address`): the pool's actors are named and detached, so they outlive the job and the
  next job of the same model, reverse model, device and threads finds them loaded — on a cluster that runs job
  after job, only the first pays the actors' start. Each keeps its half CPU (and accelerator) until
  `stop_kept_workers()` (`python -m attnviz corpus-workers --stop --ray-address A`) or `ray stop`.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections import deque
from dataclasses import asdict
from pathlib import Path

from attnviz.corpus.shards import JobOptions, ShardSpec, run_shard
from attnviz.corpus.timeline import Timeline
from attnviz.corpus.worker import load_worker_model
from attnviz.errors import AttnvizError, InputError

ACTOR_CPUS = 0.5
IN_FLIGHT = 2  # shards queued on an actor: the next is there when one ends, and the tail stays balanced
KEPT_NAMESPACE = "attnviz-corpus"  # where kept pools' actors are named (`keep_workers`)


def _ray():
    try:
        import ray  # ray: an optional engine, only for --engine ray
    except ImportError:
        raise InputError("corpus_ray_missing") from None
    return ray


def _connect(ray, address: str | None, stopping: bool = False) -> None:
    """Join the cluster at `address`, or start a local Ray (None); a cluster that is not there is a sentence (for a
    job, or for `stop_kept_workers`)."""
    try:
        ray.init(address=address, include_dashboard=False, log_to_driver=False, configure_logging=False)
    except ConnectionError as error:
        where = address or "local"
        if stopping:
            raise InputError("corpus_workers_unreachable", address=where, detail=str(error)) from None
        raise InputError("corpus_ray_unreachable", address=where, detail=str(error)) from None


class ShardWorker:
    """A Ray actor: loads the model (and the reverse model, if any) once, then computes and writes one shard per
    `run` call — of this job, or of the next ones when the pool is kept on a cluster (`keep_workers`)."""

    def __init__(self, model: str, device: str, threads: int | None, reverse_model: str | None):
        started = time.time()
        os.environ["TOKENIZERS_PARALLELISM"] = "false"  # one thread per actor: no tokenizer thread pool beside it
        self.failure = None  # a model that cannot load: said by `ready` (the actor lives, so Ray does not restart it)
        try:
            self.handle = load_worker_model(model, device, threads)
            self.reverse = load_worker_model(reverse_model, device, threads) if reverse_model else None
        except AttnvizError as error:
            self.failure = error
        import ray  # ray: in the actor's own process
        import torch  # torch: the actor's threads, once its model is loaded

        self.info = {
            "worker": os.getpid(),
            "node": ray.get_runtime_context().get_node_id()[:8],
            "started": started,
            "ready": time.time(),
            "load_s": time.time() - started,
            "threads": torch.get_num_threads(),
        }
        self.jobs = 0  # jobs that asked whether this actor is ready

    def ready(self) -> dict:
        """This actor's start, for the job's timeline; a kept actor's next jobs find it ready at once (load_s 0)."""
        if self.failure is not None:
            raise self.failure
        self.jobs += 1
        if self.jobs == 1:
            return self.info
        now = time.time()
        return self.info | {"started": now, "ready": now, "load_s": 0.0, "kept": True}

    def run(self, spec: dict, input: str, output: str, options: dict) -> dict:
        job_options = JobOptions(**options)
        return run_shard(self.handle, Path(input), ShardSpec(**spec), job_options, Path(output), self.reverse)


def actor_resources(device: str, cluster: dict) -> dict:
    """What each actor asks Ray for: half a CPU, and the accelerator its device names."""
    resources: dict = {"num_cpus": ACTOR_CPUS}
    if device.startswith("cuda") or (device == "auto" and cluster.get("GPU", 0) > 0):
        resources["num_gpus"] = 1
    elif device.startswith("npu") or (device == "auto" and cluster.get("NPU", 0) > 0):
        resources["resources"] = {"NPU": 1}
    return resources


def run_shards(config, todo: list[ShardSpec], progress, total: int, timeline: Timeline | None = None) -> None:
    """Compute the shards `todo` on Ray; `progress(done, total)` as each one is written; `timeline` gets Ray's
    start, each actor and each shard."""
    if not todo:
        return
    timeline = timeline or Timeline("ray")
    ray = _ray()
    started_here = not ray.is_initialized()
    begun = time.time()
    if started_here:
        _connect(ray, config.ray_address)
    timeline.phases["engine_start"] = time.time() - begun
    actors = []
    try:
        actors = _start_pool(ray, config, min(config.workers, len(todo)), timeline)
        _dispatch(ray, config, actors, deque(todo), progress, total, timeline)
    finally:
        begun = time.time()
        if not started_here and not config.keep_workers:
            for actor in actors:
                ray.kill(actor)  # free the cluster's resources for its next job
        if started_here:
            ray.shutdown()  # a local Ray stops; a cluster joined keeps running (and its kept actors, detached)
        timeline.phases["engine_stop"] = time.time() - begun


def _start_pool(ray, config, size: int, timeline: Timeline) -> list:
    """`size` actors, asked for all at once (their model loads overlap), spread over the nodes; with `keep_workers`,
    named actors that outlive the job, found again by the next job of the same model, device and threads."""
    options = asdict(config.options)
    worker_args = dict(
        model=config.model, device=config.device, threads=config.threads or 1, reverse_model=options["reverse_model"]
    )
    actor_options = dict(
        max_restarts=-1,
        max_task_retries=-1,
        scheduling_strategy="SPREAD",
        **actor_resources(config.device, ray.cluster_resources()),
    )
    timeline.workers = [{"requested": time.time()} for _ in range(size)]
    if not config.keep_workers:
        remote = ray.remote(ShardWorker).options(**actor_options)
        return [remote.remote(**worker_args) for _ in range(size)]
    pool = kept_pool_name(worker_args)
    kept = dict(namespace=KEPT_NAMESPACE, lifetime="detached", get_if_exists=True)
    return [
        ray.remote(ShardWorker).options(name=f"{pool}-{number}", **kept, **actor_options).remote(**worker_args)
        for number in range(size)
    ]


def kept_pool_name(worker_args: dict) -> str:
    """The name a kept pool's actors share: what they loaded (model, reverse model, device, threads)."""
    digest = hashlib.sha256(json.dumps(worker_args, sort_keys=True).encode()).hexdigest()[:16]
    return f"attnviz-corpus-{digest}"


def stop_kept_workers(ray_address: str | None = "auto") -> int:
    """Stop every actor that corpus jobs kept on the cluster at `ray_address` (`keep_workers`); returns how many."""
    ray = _ray()
    connected_here = not ray.is_initialized()
    if connected_here:
        _connect(ray, ray_address, stopping=True)
    try:
        names = [
            entry["name"]
            for entry in ray.util.list_named_actors(all_namespaces=True)
            if entry["namespace"] == KEPT_NAMESPACE
        ]
        for name in names:
            ray.kill(ray.get_actor(name, namespace=KEPT_NAMESPACE))
        return len(names)
    finally:
        if connected_here:
            ray.shutdown()


def _dispatch(ray, config, actors: list, queue: deque, progress, total: int, timeline: Timeline) -> None:
    """Give each actor shards as it is ready and as it finishes them, until every shard is written."""
    job = (str(Path(config.input).resolve()), str(Path(config.output).resolve()), asdict(config.options))
    waiting = {actor.ready.remote(): (number, None) for number, actor in enumerate(actors)}  # ref → (actor, shard)
    done = total - len(queue)

    def give(number: int) -> None:
        if queue:
            waiting[actors[number].run.remote(asdict(queue.popleft()), *job)] = (number, True)

    while waiting:
        (ref,), _ = ray.wait(list(waiting), num_returns=1)
        number, is_shard = waiting.pop(ref)
        try:
            answer = ray.get(ref)
        except ray.exceptions.RayTaskError as error:
            if isinstance(error.cause, AttnvizError):  # a model that cannot load, said as the in-process job says it
                raise error.cause from None
            raise
        if is_shard:
            timeline.shards.append(answer)
            done += 1
            if progress:
                progress(done, total)
            give(number)
        else:
            timeline.workers[number] |= answer
            for _ in range(IN_FLIGHT):
                give(number)
