"""Facts read once per loaded model (attnviz.memo), read again when the model is cast to another dtype."""

import torch

from attnviz import provenance
from attnviz.model import memory
from attnviz.model.load import load_model


def test_the_dtype_and_weight_size_follow_a_cast_model(tiny_folder):
    handle = load_model(tiny_folder("bert"), device="cpu")
    assert provenance.build_provenance(handle, "x", hash_weights=False)["dtype"] == "float32"
    full = memory.estimate_bytes(handle, 16)
    handle.model.to(torch.float16)
    assert provenance.build_provenance(handle, "x", hash_weights=False)["dtype"] == str(handle.model.dtype)[6:]
    assert memory.estimate_bytes(handle, 16) < full  # the scores of one layer are kept in half precision
