"""The precisions a device offers are the ones the precision policy accepts there."""

from __future__ import annotations

from attnviz.errors import InputError
from attnviz.model.devices import resolve_device
from attnviz.model.precision import allowed_dtypes, dtype_policy


def accepted(device: str, compared: bool = False) -> list[str]:
    """The dtypes `dtype_policy` lets a model run in on `device`, asked one by one."""
    names = []
    for name in ("float32", "float16", "bfloat16"):
        try:
            dtype_policy(device, name, compared=compared)
        except InputError:
            continue
        names.append(name)
    return names


def test_each_device_offers_what_the_policy_accepts_and_the_cpu_float32_alone():
    for device in ("cpu", "mps", "cuda", "cuda:1", "npu"):
        assert list(allowed_dtypes(device)) == accepted(device)
    assert allowed_dtypes("cpu") == ("float32",)
    assert allowed_dtypes("auto") == allowed_dtypes(resolve_device("auto"))


def test_a_comparison_of_precisions_runs_half_precision_on_the_cpu_too():
    for device in ("cpu", "mps", "cuda", "npu"):
        assert list(allowed_dtypes(device, compared=True)) == accepted(device, compared=True)
    assert allowed_dtypes("cpu", compared=True) == ("float32", "float16", "bfloat16")
    assert allowed_dtypes("mps", compared=True) == allowed_dtypes("mps")  # only the CPU's refusal is lifted
