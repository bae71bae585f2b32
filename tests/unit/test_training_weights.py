"""Demo weights on disk: one file, or shards with an index when they outgrow the repository's file limit."""

from __future__ import annotations

import json
import pickle

import numpy as np
import pytest
import torch

from attnviz.errors import InputError
from attnviz.types import AttentionMap, Deferred, Token
from training.common.stages import widened_into
from training.common.weights import (
    INDEX,
    WEIGHTS,
    has_weights,
    read_weights,
    stored_dtype,
    weight_files,
    weights_bytes,
    write_weights,
)


def tensors(dtype=torch.float32) -> dict[str, torch.Tensor]:
    generator = torch.Generator().manual_seed(0)
    return {f"layer.{i}.weight": torch.randn(64, 64, generator=generator).to(dtype) for i in range(5)}  # 16 kB each


def test_weights_that_fit_are_one_file(tmp_path):
    written = write_weights(tmp_path, tensors())
    assert written == [tmp_path / WEIGHTS] and not (tmp_path / INDEX).exists()
    assert weight_files(tmp_path) == written and has_weights(tmp_path)
    read = read_weights(tmp_path)
    assert read.keys() == tensors().keys() and all(torch.equal(read[n], t) for n, t in tensors().items())


def test_weights_over_the_limit_are_shards_each_under_it_with_an_index(tmp_path):
    limit = 40_000  # two 16 kB tensors per shard, with room for the header
    written = write_weights(tmp_path, tensors(), max_file_bytes=limit)
    assert [p.name for p in written] == [f"model-0000{i}-of-00003.safetensors" for i in (1, 2, 3)]
    assert not (tmp_path / WEIGHTS).exists()
    assert all(path.stat().st_size <= limit for path in written)
    index = json.loads((tmp_path / INDEX).read_text(encoding="utf-8"))
    assert set(index["weight_map"]) == set(tensors()) and index["metadata"]["total_size"] == 5 * 64 * 64 * 4
    assert weight_files(tmp_path) == written and weights_bytes(tmp_path) == sum(p.stat().st_size for p in written)
    read = read_weights(tmp_path)
    assert all(torch.equal(read[n], t) for n, t in tensors().items())
    assert stored_dtype(tmp_path) == "float32"


def test_rewriting_replaces_every_old_weight_file(tmp_path):
    write_weights(tmp_path, tensors(), max_file_bytes=40_000)
    write_weights(tmp_path, tensors(torch.float16))  # fits one file now: the shards and the index go
    assert sorted(p.name for p in tmp_path.iterdir()) == [WEIGHTS]
    assert stored_dtype(tmp_path) == "float16"
    write_weights(tmp_path, tensors(), max_file_bytes=40_000)
    assert not (tmp_path / WEIGHTS).exists() and len(weight_files(tmp_path)) == 3


def test_a_folder_without_weights_has_none(tmp_path):
    assert weight_files(tmp_path) == [] and not has_weights(tmp_path) and weights_bytes(tmp_path) == 0
    with pytest.raises(InputError):
        stored_dtype(tmp_path)


def test_a_widened_stage_computes_what_the_earlier_model_computed():
    torch.manual_seed(0)
    small = {"fc1.weight": torch.randn(8, 4), "fc1.bias": torch.randn(8), "fc2.weight": torch.randn(4, 8)}
    fresh = {"fc1.weight": torch.randn(16, 4), "fc1.bias": torch.randn(16), "fc2.weight": torch.randn(4, 16)}
    grown = widened_into(fresh, small, stored_ffn=8)
    assert {name: tensor.shape for name, tensor in grown.items()} == {n: t.shape for n, t in fresh.items()}
    assert torch.equal(grown["fc1.weight"][8:], fresh["fc1.weight"][8:])  # new units start from the fresh init

    def block(weights, x):
        return torch.nn.functional.silu(x @ weights["fc1.weight"].T + weights["fc1.bias"]) @ weights["fc2.weight"].T

    x = torch.randn(5, 4)
    assert torch.allclose(block(grown, x), block(small, x), atol=1e-6)
    assert not torch.allclose(block(fresh, x), block(small, x), atol=1e-3)  # the check can fail


def test_deferred_value_norms_pickle_as_the_array():
    norms = np.ones((1, 1, 2), dtype=np.float32)
    tokens = [Token("a", 0, 1), Token("b", 2, 3)]
    amap = AttentionMap(
        "self", np.full((1, 1, 2, 2), 0.5, np.float32), tokens, tokens, ["l0"], False, Deferred(lambda: norms)
    )
    copy = pickle.loads(pickle.dumps(amap))
    assert np.array_equal(copy.value_norms, norms) and np.array_equal(amap.value_norms, norms)
    bad = AttentionMap("self", amap.weights, tokens, tokens, ["l0"], False, Deferred(lambda: np.ones((1, 1, 3))))
    with pytest.raises(InputError):
        bad.value_norms  # noqa: B018 (the shape is checked when the norms are first read)
