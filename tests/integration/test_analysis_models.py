"""Analysis on maps that real models captured: hiding special tokens keeps the words a translator wrote."""

import numpy as np

from attnviz.attention.capture import capture
from attnviz.maps.analysis import hide_tokens
from attnviz.model.load import load_model


def test_hide_special_tokens_on_a_seq2seq_decoder_map_keeps_the_written_words():
    """Decoder rows are the tokens written (Good, morning, !, </s>), columns the tokens read (<pad>, Good, …)."""
    decoder = capture(load_model("demo-zh-en", "cpu"), "早上好！", "Good morning!")["decoder"]
    hidden = hide_tokens(decoder, special=True)
    assert [t.text for t in hidden.query_tokens] == ["Good", "morning", "!"]
    assert [t.text for t in hidden.key_tokens] == ["Good", "morning", "!"]
    np.testing.assert_array_equal(hidden.weights, decoder.weights[:, :, :3][:, :, :, 1:])
