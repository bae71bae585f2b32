"""Which dtype a model may run in on each device."""

import pytest
import torch

from attnviz.attention.precision import dtype_policy
from attnviz.errors import InputError


def test_dtype_policy_is_float32_by_default_everywhere():
    for device in ("cpu", "cuda", "cuda:1", "mps", "npu", "npu:3", torch.device("cpu")):
        assert dtype_policy(device) is torch.float32


@pytest.mark.parametrize("device", ["npu", "npu:0", "cuda"])
@pytest.mark.parametrize(
    "name, dtype", [("fp16", torch.float16), ("bfloat16", torch.bfloat16), (torch.float16, torch.float16)]
)
def test_dtype_policy_allows_half_precision_on_npu_and_cuda(device, name, dtype):
    assert dtype_policy(device, name) is dtype


@pytest.mark.parametrize("requested", ["float16", "bf16", torch.bfloat16])
def test_dtype_policy_refuses_half_precision_on_cpu_with_a_sentence(requested):
    with pytest.raises(InputError, match="not allowed on cpu"):
        dtype_policy("cpu", requested)


def test_dtype_policy_rejects_unknown_names():
    with pytest.raises(InputError, match="Unknown dtype"):
        dtype_policy("npu", "int8")
    with pytest.raises(InputError, match="No dtype policy"):
        dtype_policy("tpu")
