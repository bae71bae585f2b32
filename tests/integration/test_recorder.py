"""The recorders and the one state attnviz keeps per model: both recorders name modules the same way, the state
lives as long as the model and no longer, and the implementation switch always restores the model."""

from __future__ import annotations

import copy
import gc
import weakref

import pytest
import torch

from attnviz.attention.capture import capture
from attnviz.attention.recorder import QueryKeyRecorder, WeightRecorder, recording, state_of
from attnviz.model.load import load_model

RECORDERS = [WeightRecorder, QueryKeyRecorder]
TEXT = "早上好！Good morning!"


@pytest.mark.parametrize("recorder_class", RECORDERS)
def test_both_recorders_record_a_module_replaced_since_the_paths_were_walked(tiny_folder, recorder_class):
    handle = load_model(tiny_folder("bert"), "cpu")
    capture(handle, TEXT)  # the state has walked the module paths
    layer = handle.model.encoder.layer[1].attention
    layer.self = copy.copy(layer.self)  # a new module object the walked paths lack
    inputs = handle.tokenizer(TEXT, return_tensors="pt")
    with recording(handle.model, recorder_class) as recorder:
        handle.model(**inputs)
    assert recorder.refreshed  # walked again, once
    assert list(recorder.calls) == ["encoder.layer.0.attention.self", "encoder.layer.1.attention.self"]


def test_both_recorders_compute_but_do_not_keep_a_module_outside_the_model():
    holder = torch.nn.Module()
    holder.attn = torch.nn.Module().eval()
    stranger = torch.nn.Module().eval()  # not part of the model, even after walking it again
    q, k, v = (torch.randn(1, 2, 4, 8, generator=torch.Generator().manual_seed(seed)) for seed in range(3))
    outputs = []
    for recorder_class in RECORDERS:
        recorder = recorder_class(state_of(holder))
        output, _ = recorder.forward(stranger, q, k, v, None)
        assert recorder.calls == {} and recorder.order == [] and recorder.refreshed
        outputs.append(output)
    torch.testing.assert_close(outputs[0], outputs[1], atol=1e-6, rtol=0)


def test_one_state_per_model_learned_by_capture_and_gone_with_the_model(tiny_folder):
    handle = load_model(tiny_folder("gpt2"), "cpu")
    model = handle.model
    implementation = model.config._attn_implementation
    state = state_of(model)
    assert state_of(model) is state
    capture(handle, TEXT)
    assert state.layout and state.pass_ends[False][0] == 2  # two attention calls end a pass
    assert state.switches == 0 and model.config._attn_implementation == implementation
    alive = weakref.ref(model)
    del handle, model, state
    gc.collect()
    assert alive() is None, "the state must not keep its model alive"


def test_the_switch_is_restored_when_the_forward_pass_fails(tiny_folder):
    handle = load_model(tiny_folder("bert"), "cpu")
    implementation = handle.model.config._attn_implementation
    with pytest.raises(RuntimeError, match="failed"):
        with recording(handle.model):
            assert handle.model.config._attn_implementation == "attnviz"
            raise RuntimeError("the pass failed")
    assert handle.model.config._attn_implementation == implementation
    assert state_of(handle.model).switches == 0
