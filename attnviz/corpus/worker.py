"""How a worker of a corpus job (this process, or a Ray actor of `attnviz.corpus.ray_engine`) loads its models."""

from __future__ import annotations

from attnviz.corpus.shards import JobOptions
from attnviz.model.load import load_model


def load_worker_model(model: str, device: str, threads: int | None):
    """The model as a worker loads it: once, with `threads` torch threads."""
    import torch  # torch: only in a worker, which computes shards

    if threads:
        torch.set_num_threads(threads)
    return load_model(model, device)


def torch_threads() -> int:
    """The torch threads this worker computes with."""
    import torch  # torch: only in a worker, which computes shards

    return torch.get_num_threads()


def load_reverse_model(options: JobOptions, device: str, threads: int | None):
    """`options.reverse_model` as a worker loads it, or None when the job has none."""
    return load_worker_model(options.reverse_model, device, threads) if options.reverse_model else None
