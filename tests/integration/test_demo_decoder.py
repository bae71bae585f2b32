"""Acceptance of the committed demo decoder (assets/models/decoder): it loads from the catalogue, its capture is
exact, it opens 4,096 tokens on demand, its tokenizer reads Chinese and English, and the heads its card lists are
really there."""

import json

import numpy as np
import pytest
import torch

from attnviz.attention.capture import capture
from attnviz.attention.ondemand import capture_lazy
from attnviz.maps import head_stats
from attnviz.model.load import catalogue, load_model
from training.data.corpus import HELD_OUT_FILE
from training.data.pairs import read_tsv
from training.decoder.card import FOUND, HEADS_FILE
from training.decoder.heads import probe
from training.decoder.train import DECODER_DIR
from training.paths import CORPUS_DIR

MAX_WEIGHT_BYTES = 30_000_000
# A trained induction head puts most of its weight on the token after the earlier copy; an untrained one spreads it
# over thousands of keys (~1/position).
MIN_INDUCTION = 0.3
SAMPLES = [
    "早上好！我喜欢学习。",
    "他有两个孩子。",
    "请告诉我你的电话号码。",
    "人工智能正在改变世界",
    "Good morning! I like studying.",
    "The animal didn't cross the street because it was too tired.",
    "我明天在北京学习 I will study in Beijing tomorrow.",
]


@pytest.fixture(scope="module")
def handle():
    return load_model("demo-decoder", "cpu")


@pytest.fixture(scope="module")
def heads():
    return json.loads((DECODER_DIR / HEADS_FILE).read_text(encoding="utf-8"))


def test_it_is_in_the_catalogue_as_a_long_context_decoder(handle):
    entry = {e.name: e for e in catalogue()}["demo-decoder"]
    assert entry.kind == "decoder" and entry.path == str(DECODER_DIR)
    assert {e.name: e for e in catalogue("zh")}["demo-decoder"].description.startswith("演示解码器")
    assert handle.kind == "decoder" and handle.max_positions >= 4096
    config = handle.model.config
    assert config.model_type == "llama" and config.num_key_value_heads < config.num_attention_heads  # GQA
    assert (DECODER_DIR / "model.safetensors").stat().st_size <= MAX_WEIGHT_BYTES


def test_capture_equals_eager_attention(handle):
    from transformers import AutoModelForCausalLM

    text = "早上好！Good morning! 我喜欢学习。"
    result = capture(handle, text)
    eager = AutoModelForCausalLM.from_pretrained(str(DECODER_DIR), attn_implementation="eager").eval()
    with torch.no_grad():
        batch = handle.tokenizer(text, return_tensors="pt")
        reference = torch.stack(eager(**batch, output_attentions=True).attentions)[:, 0].numpy()
    np.testing.assert_array_equal(result["self"].weights, reference)  # bit for bit
    tokens = result["self"].query_tokens
    assert tokens[0].special and "<unk>" not in [t.text for t in tokens]
    assert "".join(t.text for t in tokens[1:]).replace(" ", "") == text.replace(" ", "")


def test_tokenizer_round_trips_chinese_and_english_without_unknown(handle):
    tokenizer = handle.tokenizer
    for text in SAMPLES:
        ids = tokenizer(text)["input_ids"]
        assert ids[0] == tokenizer.bos_token_id
        assert tokenizer.unk_token_id is None or tokenizer.unk_token_id not in ids
        assert tokenizer.decode(ids, skip_special_tokens=True) == text
    # Byte-level: nothing is unknown; the held-out Chinese characters are nearly all one piece each.
    characters = [c for pair in read_tsv(CORPUS_DIR / HELD_OUT_FILE) for c in pair.zh if "\u4e00" <= c <= "\u9fff"]
    split = [c for c in characters if len(tokenizer.encode(c, add_special_tokens=False)) > 1]
    assert len(split) <= 0.02 * len(characters), split


@pytest.fixture(scope="module")
def long_probe(handle):
    """A new random span (not the card's) written twice ~2,900 tokens apart, in a text cut at 4,096 tokens."""
    heldout = read_tsv(CORPUS_DIR / HELD_OUT_FILE)
    item = probe(handle.tokenizer, heldout, before=300, span=400, between=2900, seed=12345, after=600)
    assert item.tokens > 4096 and item.second_copy + item.span_tokens <= 4096
    return item, capture_lazy(handle, item.text, truncate=True)


def test_on_demand_capture_opens_4096_tokens(handle, long_probe):
    _, lazy = long_probe
    assert lazy.shape("self") == (handle.num_layers, handle.num_heads, 4096, 4096)
    rows = lazy.head("self", handle.num_layers - 1, 0, rows=(4000, 4096))  # (1, 96, 4096): exact rows of one head
    np.testing.assert_allclose(rows.sum(axis=-1), 1.0, atol=1e-5)


@pytest.mark.parametrize("role", ["previous_token", "induction", "sink"])
def test_the_heads_the_card_found_are_there_at_4096_tokens(heads, long_probe, role):
    """Each head the card lists as found keeps its score on a new text of 4,096 tokens (a blind head scores ~0)."""
    _, lazy = long_probe
    for layer, head, _, score_4000 in heads["found"][role]:
        score = lazy.head_statistics("self", layers=layer, heads=head)[role][0, 0]
        assert score >= 0.8 * score_4000 and score >= FOUND / 3, (role, layer, head, score)


@pytest.mark.xfail(
    strict=True,
    reason="the shipped decoder's induction heads copy a span a few hundred tokens back (card: 0.4-0.5 at ~500 "
    "tokens) but only weakly ~2,900 tokens back (about 0.1 of the 0.3 asked here)",
)
def test_the_cards_best_induction_head_copies_a_random_span(heads, long_probe):
    item, lazy = long_probe
    layer, head, _ = heads["probes"]["500"]["best"]["induction"][0]
    # Each token of the second copy should look at the token after its first copy.
    second = np.arange(item.second_copy + 1, item.second_copy + item.span_tokens)
    weights = lazy.head("self", layer, head, rows=(int(second[0]), int(second[-1]) + 1))[0]  # (rows, 4096)
    targets = second - (item.second_copy - item.first_copy) + 1
    assert weights[np.arange(len(second)), targets].mean() >= MIN_INDUCTION


def test_the_cards_heads_are_measured_at_500_and_4000_tokens(heads):
    assert heads["probes"]["500"]["tokens"] >= 450 and heads["probes"]["4000"]["tokens"] >= 3900
    card = (DECODER_DIR / "README.md").read_text(encoding="utf-8")
    layer, head, score = heads["probes"]["500"]["best"]["induction"][0]
    assert f"layer {layer}, head {head}** ({score:.2f}" in card and "CC-BY-SA-4.0" in card
    assert head_stats.STATISTICS  # the roles are the library's
