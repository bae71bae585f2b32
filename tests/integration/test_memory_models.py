"""The memory guard on real captures: its estimates bound what full and on-demand captures of tiny models keep."""

import pytest

from attnviz.attention.capture import capture
from attnviz.attention.ondemand import capture_lazy
from attnviz.model import memory
from attnviz.model.load import load_model


@pytest.mark.parametrize("family", ["bert", "llama", "marian", "t5"])
def test_estimates_bound_what_is_really_kept(tiny_folder, family):
    handle = load_model(tiny_folder(family), "cpu")
    text, target = (
        "早上好！Good morning, I like studying. " * 2,
        ("Good morning! 我喜欢" if handle.is_seq2seq else None),
    )
    full = capture(handle, text, target)
    lazy = capture_lazy(handle, text, target)
    n_source = full.maps["encoder" if handle.is_seq2seq else "self"].weights.shape[-1]
    n_target = full.maps["decoder"].weights.shape[-1] if target else 0
    kept_full = sum(amap.weights.nbytes for amap in full.maps.values())
    assert kept_full <= memory.estimate_bytes(handle, n_source, n_target, "full")
    assert lazy.nbytes <= memory.estimate_bytes(handle, n_source, n_target, "lazy")
    stacks = memory.attention_stacks(handle, n_source, n_target)
    assert [s.kind for s in stacks] == list(full.maps)
    for stack in stacks:
        assert full[stack.kind].weights.shape == (stack.layers, stack.heads, stack.queries, stack.keys)
