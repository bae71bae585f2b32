"""Device choice: auto order, the environment override, and sentences instead of silent fallbacks."""

import re

import pytest
import torch

from attnviz import settings
from attnviz.errors import DeviceUnavailableError, SettingError
from attnviz.model import devices, placement

CJK = re.compile(r"[\u4e00-\u9fff]")

DEVICE_ENV = settings.variable("device")


def test_auto_is_cpu_here_and_report_explains_the_rest(monkeypatch):
    monkeypatch.delenv(DEVICE_ENV, raising=False)
    assert devices.resolve_device("auto") == torch.device("cpu")
    report = devices.device_report()
    names = [entry.name for entry in report.entries]
    assert names == ["npu", "cuda", "mps", "cpu"]
    assert report.chosen == "cpu"
    for entry in report.entries:
        assert entry.reason and entry.reason.endswith(".") or ":" in entry.reason
    assert "npu" in report.summary() and "cpu" in report.summary()


@pytest.mark.parametrize("spec", ["npu", "npu:1", "cuda", "cuda:0", "mps"])
def test_unavailable_device_is_a_sentence(spec, monkeypatch):
    monkeypatch.delenv(DEVICE_ENV, raising=False)
    if any(e.name == spec.split(":")[0] and e.available for e in devices.device_statuses()):
        pytest.skip(f"{spec} is available on this machine")
    with pytest.raises(DeviceUnavailableError, match="not available"):
        devices.resolve_device(spec)
    assert "none" in devices.device_report(spec).chosen


def test_environment_override(monkeypatch):
    monkeypatch.setenv(DEVICE_ENV, "cpu")
    assert devices.resolve_device() == torch.device("cpu")
    monkeypatch.setenv(DEVICE_ENV, "npu")
    if not devices.device_statuses()[0].available:
        with pytest.raises(DeviceUnavailableError):
            devices.resolve_device("auto")
    assert devices.resolve_device("cpu") == torch.device("cpu")  # an explicit argument beats the environment


@pytest.mark.parametrize("spec", ["gpu", "npu:x", "cpu:0:1", ""])
def test_unknown_spec(spec):
    with pytest.raises(DeviceUnavailableError, match="Unknown device"):
        devices.resolve_device(spec or "nonsense")


def test_npu_without_cann_is_a_reason_not_a_crash(monkeypatch):
    """An installed torch_npu that fails on import (no CANN) becomes a one-line reason."""
    import builtins
    import sys

    real_import = builtins.__import__

    def failing_import(name, *args, **kwargs):
        if name == "torch_npu":
            raise RuntimeError("libhccl.so: cannot open shared object file\nmore detail")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", failing_import)
    monkeypatch.setitem(sys.modules, "torch_npu", None)  # restored (removed) after the test
    del sys.modules["torch_npu"]
    devices._npu_status.cache_clear()
    try:
        status = devices._npu_status()
        assert not status.available
        assert "CANN" in status.reason and "\n" not in status.reason
        assert devices.resolve_device("auto") == torch.device("cpu")
        assert sys.modules["torch_npu"] is None  # hidden from transformers' unguarded import
    finally:
        devices._npu_status.cache_clear()


def test_the_report_and_its_refusals_are_said_in_chinese_too(monkeypatch):
    monkeypatch.delenv(DEVICE_ENV, raising=False)
    report = devices.device_report(lang="zh")
    assert report.chosen == "cpu" and report.summary().startswith("设备：cpu（请求：auto）")
    for entry in report.entries:
        assert CJK.search(entry.reason_in("zh")) and entry.reason_in("en") == entry.reason
    assert devices.device_report().summary().startswith("device: cpu (requested: auto)")  # English as before
    with pytest.raises(DeviceUnavailableError) as unknown:
        devices.resolve_device("gpu")
    assert str(unknown.value) == "Unknown device 'gpu'; use auto, npu, npu:N, cuda, cuda:N, mps or cpu."
    assert unknown.value.message("zh").startswith("未知设备 'gpu'")
    unavailable = next((e for e in devices.device_statuses() if not e.available), None)
    if unavailable is not None:
        with pytest.raises(DeviceUnavailableError) as refused:
            devices.resolve_device(unavailable.name)
        reason = unavailable.reason
        assert str(refused.value) == f"Device {unavailable.name!r} is not available: {reason} Choose auto or cpu."
        assert unavailable.reason_in("zh") in refused.value.message("zh")
        assert devices.device_report(unavailable.name, lang="zh").chosen.startswith("无 — 设备")


def test_a_bad_device_setting_is_refused_by_name_and_reported(monkeypatch):
    monkeypatch.setenv(DEVICE_ENV, "gpu")
    with pytest.raises(SettingError, match="ATTNVIZ_DEVICE='gpu'"):
        devices.resolve_device()
    assert devices.resolve_device("cpu") == torch.device("cpu")  # an explicit device needs no setting
    report = devices.device_report()
    assert report.chosen.startswith("none — The environment variable ATTNVIZ_DEVICE='gpu' is not valid")


def _statuses(npu: int = 0, cuda: int = 0) -> list[devices.DeviceStatus]:
    """A machine with `npu` NPUs and `cuda` CUDA GPUs (0: that backend unavailable, with a reason)."""
    return [
        devices._status("npu", npu > 0, "npu_ready" if npu else "npu_not_installed", npu, version="x"),
        devices._status("cuda", cuda > 0, "cuda_ready" if cuda else "cuda_not_built", cuda, gpu="g"),
        devices._status("mps", False, "mps_unavailable"),
        devices._status("cpu", True, "cpu_ready", 1, threads=1),
    ]


@pytest.mark.parametrize(
    "machine, written, key, named",
    [
        ({}, "npu:0", "placement_device_unavailable", "'npu:0'"),  # no NPU: the NPU named, with why
        ({"cuda": 2}, "npu:1", "placement_device_unavailable", "'npu:1'"),  # a CUDA machine has no npu:1 either
        ({}, "0", "placement_no_accelerator", "'0'"),  # a bare index and no accelerator at all
        ({"npu": 2}, "npu:2", "device_missing", "0 to 1"),  # two NPUs: 0 and 1
        ({"cuda": 1}, "1", "device_missing", "0 to 0"),  # a bare index reads as the accelerator there is
    ],
)
def test_a_placement_naming_an_accelerator_the_machine_lacks_names_it(monkeypatch, machine, written, key, named):
    monkeypatch.setattr(devices, "device_statuses", lambda: _statuses(**machine))
    kind, index = placement.accelerator_of(written)
    with pytest.raises(DeviceUnavailableError) as refused:
        devices.check_accelerators([(written, kind, index)])
    assert refused.value.key == key and named in str(refused.value) and written in refused.value.message("zh")
    assert "complete and uncorrupted" not in str(refused.value) and CJK.search(refused.value.message("zh"))


def test_a_placement_on_accelerators_the_machine_has_passes(monkeypatch):
    monkeypatch.setattr(devices, "device_statuses", lambda: _statuses(npu=2))
    devices.check_accelerators([("npu:0", "npu", 0), ("npu:1", "npu", 1), ("1", None, 1)])
    monkeypatch.setattr(devices, "device_statuses", lambda: _statuses())
    devices.check_accelerators([])  # cpu and disk only: nothing to check
