"""On-demand capture's NPU path on every tiny model family, on the CPU: the reference kernel stands in for
npu_fusion_attention, and the weights rebuilt from its LSE equal a full capture's."""

import numpy as np
import pytest

from attnviz.attention import npu
from attnviz.attention.capture import capture
from attnviz.attention.ondemand import capture_lazy
from attnviz.model.load import load_model
from tests.support.npu_reference import SpyKernel
from tests.support.tiny import FAMILIES, SEQ2SEQ


@pytest.fixture
def npu_path(monkeypatch):
    """On-demand capture as it runs on an NPU, on the CPU: the reference kernel stands in for the real one."""
    spy = SpyKernel()
    monkeypatch.setattr(npu, "kernel_for", lambda device: spy)
    return spy


@pytest.mark.parametrize("family", FAMILIES)
def test_capture_lazy_on_an_npu_takes_the_adapter_and_equals_the_full_capture(tiny_folder, family, npu_path):
    handle = load_model(tiny_folder(family), "cpu")
    text, target = "早上好！Good morning, I like studying 我喜欢学习.", "Good morning! 我喜欢"
    target = target if family in SEQ2SEQ else None
    full = capture(handle, text, target)
    lazy = capture_lazy(handle, text, target)
    assert npu_path.calls, "the fused kernel should compute every attention output"
    assert all(inputs.lse is not None for stack in lazy.stacks.values() for inputs in stack.layers)
    for kind, expected in full.maps.items():
        np.testing.assert_allclose(lazy.map(kind).weights, expected.weights, atol=1e-5, rtol=0)
        block = lazy.head(kind, 1, 2, rows=(1, 4), keys=(0, 3))  # from the LSE: only the asked columns
        np.testing.assert_allclose(block, expected.weights[1, 2, 1:4, 0:3], atol=1e-5, rtol=0)
