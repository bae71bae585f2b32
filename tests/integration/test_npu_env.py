"""attnviz with the real torch-npu wheel installed but no CANN toolkit and no NPU — what most machines that
`pip install -r requirements-npu.txt` will look like until CANN is set up.

These run only where the torch-npu distribution is installed (the separate environment `.ci/npu_check.sh` builds);
elsewhere they are skipped and say so. They prove: `import attnviz` works (torch's backend autoload would otherwise
break `import torch`), the device report says the NPU is unavailable and why, capture still runs on CPU, and asking
for the NPU by name fails with a sentence instead of a traceback from deep inside torch_npu.
"""

from __future__ import annotations

import importlib.metadata
import os
import subprocess
import sys

import numpy as np
import pytest

try:
    TORCH_NPU_VERSION = importlib.metadata.version("torch-npu")
except importlib.metadata.PackageNotFoundError:
    TORCH_NPU_VERSION = None

pytestmark = pytest.mark.skipif(
    TORCH_NPU_VERSION is None,
    reason="torch-npu is not installed in this environment; .ci/npu_check.sh runs these with the real wheel",
)


def _python(code: str) -> subprocess.CompletedProcess:
    """Run `code` in a fresh interpreter whose environment does not disable torch's device-backend autoload."""
    env = {key: value for key, value in os.environ.items() if key != "TORCH_DEVICE_BACKEND_AUTOLOAD"}
    env.pop("ATTNVIZ_DEVICE", None)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)


def _has_npu_hardware() -> bool:
    from attnviz.model.devices import device_statuses

    return next(status for status in device_statuses() if status.name == "npu").available


needs_no_cann = pytest.mark.skipif(
    "ASCEND_TOOLKIT_HOME" in os.environ or os.path.isdir("/usr/local/Ascend/ascend-toolkit"),
    reason="CANN is installed here; these tests describe a machine with the wheel but without CANN",
)


def test_the_wheel_under_test_is_the_pinned_one():
    import torch

    assert TORCH_NPU_VERSION == "2.13.0"
    assert torch.__version__.startswith("2.13.")  # torch-npu 2.13.0 pins torch 2.13.*


@needs_no_cann
def test_plain_import_torch_fails_here_which_is_why_attnviz_guards_it():
    # The trap attnviz/__init__.py defuses: torch autoloads the torch_npu backend, which needs CANN's libraries.
    result = _python("import torch")
    assert result.returncode != 0
    assert "torch_npu" in result.stderr


def test_import_attnviz_works_in_a_fresh_interpreter():
    result = _python(
        "import attnviz, torch; import attnviz.model.devices, attnviz.attention.npu; print(torch.__version__)"
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().startswith("2.13.")


@needs_no_cann
def test_device_report_says_the_npu_is_unavailable_and_why(monkeypatch):
    monkeypatch.delenv("ATTNVIZ_DEVICE", raising=False)
    from attnviz.model.devices import device_report

    report = device_report()
    npu = next(entry for entry in report.entries if entry.name == "npu")
    assert npu.available is False
    assert "CANN" in npu.reason  # the reason names what is missing
    assert report.chosen == "cpu"
    assert "npu" in report.summary() and "CANN" in report.summary()


@needs_no_cann
@pytest.mark.parametrize("spec", ["npu", "npu:0"])
def test_asking_for_the_npu_by_name_fails_with_a_sentence(monkeypatch, spec):
    from attnviz.errors import DeviceUnavailableError
    from attnviz.model.devices import resolve_device

    monkeypatch.setenv("ATTNVIZ_DEVICE", spec)
    with pytest.raises(DeviceUnavailableError) as raised:
        resolve_device()
    message = str(raised.value)
    assert "not available" in message and "CANN" in message
    assert message.rstrip().endswith(".")


@needs_no_cann
def test_the_npu_attention_backend_fails_with_a_sentence():
    import torch

    from attnviz.attention.npu import kernel_for, npu_attention
    from attnviz.errors import DeviceUnavailableError

    q = torch.randn(1, 2, 3, 4)
    with pytest.raises(DeviceUnavailableError, match="needs torch_npu and an Ascend NPU"):
        npu_attention(q, q, q)
    assert kernel_for(q.device) is None  # on the CPU, on-demand capture's fused kernel is SDPA
    from attnviz.attention.recorder import QueryKeyRecorder, state_of

    holder = torch.nn.Module()
    holder.attn = module = torch.nn.Module().eval()
    output, _ = QueryKeyRecorder(state_of(holder)).forward(module, q, q, q, None)
    assert output.shape == (1, 3, 2, 4)  # (batch, queries, heads, head_dim), computed by SDPA


def test_capture_runs_on_cpu_with_a_tiny_random_bert(monkeypatch, tiny_folder):
    monkeypatch.delenv("ATTNVIZ_DEVICE", raising=False)
    if _has_npu_hardware():
        pytest.skip("an NPU is usable here, so auto would not choose the CPU")
    from attnviz.attention.capture import capture
    from attnviz.model.load import load_model

    handle = load_model(tiny_folder("bert"), device="auto")
    assert handle.device == "cpu"
    result = capture(handle, "Good morning! 早上好")
    weights = result["self"].weights
    assert weights.shape[:2] == (2, 4)
    np.testing.assert_allclose(weights.sum(-1), 1.0, atol=1e-5)
