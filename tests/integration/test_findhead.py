"""Finding a head: every layer × head ranked by the weight from one token to another, alike on full and on-demand
captures, and the head it ranks first, opened, equals eager attention."""

import numpy as np
import pytest
import torch
import transformers

from attnviz.attention.capture import capture
from attnviz.attention.ondemand import capture_lazy
from attnviz.model.load import load_model
from attnviz.view import find_head, selection, viewing

TEXT = "the cat saw the dog because it was tired"


def _results(tiny_folder, family: str):
    handle = load_model(tiny_folder(family), "cpu")
    return handle, capture(handle, TEXT), capture_lazy(handle, TEXT)


@pytest.mark.parametrize("family", ["bert", "gpt2"])
@pytest.mark.parametrize("words", [True, False])
def test_full_and_lazy_captures_rank_heads_alike(tiny_folder, family, words):
    _, full, lazy = _results(tiny_folder, family)
    query = find_head.token_choices(full, "self", "query", words=words)[-2]
    key = find_head.token_choices(full, "self", "key", words=words)[1]
    assert find_head.token_choices(lazy, "self", "query", words=words)[-2] == query
    ranked_full = find_head.rank_heads(full, "self", query, key)
    ranked_lazy = find_head.rank_heads(lazy, "self", query, key)
    layers, heads = full["self"].weights.shape[:2]
    assert len(ranked_full) == layers * heads
    assert {(m.layer, m.head) for m in ranked_full} == {(lay, h) for lay in range(layers) for h in range(heads)}
    weights = [m.weight for m in ranked_full]
    assert weights == sorted(weights, reverse=True)
    by_head = {(m.layer, m.head): m.weight for m in ranked_lazy}
    for match in ranked_full:
        assert by_head[(match.layer, match.head)] == pytest.approx(match.weight, abs=1e-5)


def test_the_ranked_weight_is_the_word_views_cell(tiny_folder):
    """The ranking's weight is what the word view draws in that cell for that head."""
    _, full, _ = _results(tiny_folder, "bert")
    query = find_head.find_choice(find_head.token_choices(full, "self", "query"), "it")
    key = find_head.find_choice(find_head.token_choices(full, "self", "key"), "cat")
    for match in find_head.rank_heads(full, "self", query, key)[:3]:
        options = viewing.ViewOptions(kind="self", aggregation="head", layer=match.layer, head=match.head)
        shown = selection.show(full, options)
        assert find_head.pair_weight(shown.selection, query, key) == pytest.approx(match.weight, abs=1e-6)


def test_the_top_head_opened_equals_eager_attention(tiny_folder):
    folder = tiny_folder("bert")
    handle, full, lazy = _results(tiny_folder, "bert")
    query = find_head.find_choice(find_head.token_choices(lazy, "self", "query", words=False), "i")
    key = find_head.token_choices(lazy, "self", "key", words=False)[2]
    top = find_head.rank_heads(lazy, "self", query, key)[0]
    eager = transformers.AutoModel.from_pretrained(folder, attn_implementation="eager").eval()
    with torch.no_grad():
        attentions = eager(**handle.tokenizer(TEXT, return_tensors="pt"), output_attentions=True).attentions
    reference = attentions[top.layer][0, top.head].numpy()  # (queries, keys)
    np.testing.assert_allclose(lazy.head("self", top.layer, top.head), reference, atol=1e-5)
    np.testing.assert_allclose(full["self"].weights[top.layer, top.head], reference, atol=1e-5)
    assert top.weight == pytest.approx(float(reference[query.start, key.start]), abs=1e-5)


def test_cross_attention_ranks_target_tokens_against_source_tokens(tiny_folder):
    handle = load_model(tiny_folder("marian"), "cpu")
    full = capture(handle, "早上好！", "Good morning!")
    query = find_head.token_choices(full, "cross", "query")[0]
    key = find_head.token_choices(full, "cross", "key")[0]
    ranked = find_head.rank_heads(full, "cross", query, key)
    cross = full["cross"].weights  # (layers, heads, target, source)
    expected = cross[:, :, query.start : query.stop, key.start : key.stop].sum(axis=-1).mean(axis=-1)
    for match in ranked:
        assert match.weight == pytest.approx(float(expected[match.layer, match.head]), abs=1e-6)


def test_the_command_line_lists_the_library_ranking(tiny_folder, capsys):
    from attnviz import cli

    handle, full, _ = _results(tiny_folder, "bert")
    args = ["find-head", "--model", tiny_folder("bert"), "--device", "cpu", "--text", TEXT]
    assert cli.main([*args, "--query", "it", "--key", "cat", "--top", "3"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    query = find_head.find_choice(find_head.token_choices(full, "self", "query"), "it")
    key = find_head.find_choice(find_head.token_choices(full, "self", "key"), "cat")
    expected = [
        f"{rank}\t{m.layer}\t{m.head}\t{m.weight:.4f}"
        for rank, m in enumerate(find_head.rank_heads(full, "self", query, key)[:3], start=1)
    ]
    assert lines[1:] == expected
    assert cli.main([*args, "--query", "zebra", "--key", "cat"]) == 2
    assert "zebra" in capsys.readouterr().err
