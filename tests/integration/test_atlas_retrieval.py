"""The retrieval score (Wu et al. 2024) from the atlas's exact rows equals the same definition computed from the full
capture's weights, on the demo decoder reading a planted needle and the answer that copies it."""

import numpy as np
import pytest

from attnviz.atlas import capture_atlas
from attnviz.atlas.retrieval import retrieval_scores
from attnviz.attention.capture import capture
from attnviz.errors import InputError
from attnviz.model import catalogue
from attnviz.model.load import load_model

HAY = "The cat sat on the mat, and the dog looked at the cat. " * 6
NEEDLE = "The secret number is 7 4 1 9 2."
TEXT = f"{HAY}{NEEDLE} {HAY}Question: what is the secret number? {NEEDLE}"


def _span(tokens, text: str, first: bool) -> tuple[int, int]:
    """(first, last + 1) token positions of the needle's digits, at its first or last occurrence in the text."""
    at = TEXT.index(text) if first else TEXT.rindex(text)
    inside = [i for i, token in enumerate(tokens) if not token.special and at <= token.start < at + len(text)]
    return inside[0], inside[-1] + 1


def _by_hand(weights: np.ndarray, tokens, needle, answer) -> np.ndarray:
    """The definition written out on the full map: (layers, heads, q, k) weights."""
    layers, heads = weights.shape[:2]
    copied = np.zeros((layers, heads, needle[1] - needle[0]), dtype=bool)
    for step in range(*answer):
        strongest = weights[:, :, step - 1].argmax(-1)  # (layers, heads)
        for j in range(*needle):
            if tokens[j].text == tokens[step].text:
                copied[:, :, j - needle[0]] |= strongest == j
    return copied.mean(-1)


@pytest.fixture(scope="module")
def decoder():
    if "demo-decoder" not in {entry.name for entry in catalogue.catalogue()}:
        pytest.skip("the demo decoder is not in the catalogue")
    return load_model("demo-decoder", "cpu")


def test_the_retrieval_score_equals_the_definition_on_the_full_map(decoder):
    atlas = capture_atlas(decoder, TEXT, block=16)
    tokens = atlas["self"].query_tokens
    needle, answer = _span(tokens, "7 4 1 9 2", True), _span(tokens, "7 4 1 9 2", False)
    assert needle[1] - needle[0] == answer[1] - answer[0] >= 5
    scores = retrieval_scores(atlas, needle, answer)
    full = capture(decoder, TEXT)["self"].weights
    np.testing.assert_array_equal(scores, _by_hand(full, tokens, needle, answer))
    assert scores.max() > 0  # some head of the demo decoder copies the needle


def test_an_answer_before_its_needle_is_refused(decoder):
    atlas = capture_atlas(decoder, TEXT, block=16)
    with pytest.raises(InputError, match="must come after the needle"):
        retrieval_scores(atlas, (40, 45), (10, 15))
