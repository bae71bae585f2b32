"""Property-based: whatever text people type, capture gives valid maps or a typed error — never anything else."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from attnviz.attention.capture import capture
from attnviz.errors import AttnvizError
from attnviz.model.load import load_model

TEXT = st.text(
    alphabet=st.characters(codec=None, exclude_categories=()),  # every code point, surrogates and controls included
    min_size=0,
    max_size=40,
)
PROPERTY_SETTINGS = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def _check_map(amap):
    weights = amap.weights
    assert weights.dtype == np.float32 and weights.ndim == 4
    assert weights.shape[2:] == (len(amap.query_tokens), len(amap.key_tokens))
    assert np.isfinite(weights).all() and (weights >= 0).all()
    np.testing.assert_allclose(weights.sum(-1), 1.0, atol=1e-5)
    if amap.causal:
        upper = np.triu(np.ones(weights.shape[-2:], dtype=bool), k=1)
        assert (weights[..., upper] == 0).all()
    for token in amap.query_tokens + amap.key_tokens:
        assert isinstance(token.text, str) and token.text
        assert token.special or 0 <= token.start <= token.end


@pytest.mark.parametrize("family", ["gpt2", "marian"])
def test_any_text_gives_valid_maps_or_a_typed_error(tiny_folder, family):
    handle = load_model(tiny_folder(family), "cpu")

    @PROPERTY_SETTINGS
    @given(text=TEXT, target=TEXT)
    def run(text, target):
        try:
            result = capture(handle, text, target if handle.is_seq2seq else None)
        except AttnvizError as error:
            assert str(error).endswith((".", ")")) and len(str(error)) > 20
            return
        for amap in result.maps.values():
            _check_map(amap)

    run()
