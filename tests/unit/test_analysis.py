import numpy as np
import pytest

from attnviz.errors import InputError
from attnviz.maps import analysis, head_stats, word_merge
from attnviz.types import AttentionMap, Token
from tests.support.maps import random_map, seed_pair_map, tokens_from

# ---------------------------------------------------------------------------------------------------------------------
# aggregation


def test_aggregate_one_head_is_that_head():
    amap = random_map(tokens_from(list("abcd")), layers=3, heads=4)
    np.testing.assert_array_equal(analysis.aggregate(amap, layers=2, heads=1), amap.weights[2, 1])
    np.testing.assert_array_equal(analysis.aggregate(amap, layers=-1, heads=-1), amap.weights[2, 3])


def test_aggregate_mean_and_max_over_heads_and_layers():
    amap = random_map(tokens_from(list("abcd")), layers=3, heads=4)
    mean = analysis.aggregate(amap, layers=[0, 2], heads=None, head_reduce="mean")
    np.testing.assert_allclose(mean, amap.weights[[0, 2]].mean(axis=(0, 1)), rtol=1e-6)
    np.testing.assert_allclose(mean.sum(-1), 1.0, rtol=1e-5)  # a mean of distributions is a distribution
    peak = analysis.aggregate(amap, layers=1, head_reduce="max")
    np.testing.assert_array_equal(peak, amap.weights[1].max(axis=0))
    both_max = analysis.aggregate(amap, head_reduce="max", layer_reduce="max")
    np.testing.assert_array_equal(both_max, amap.weights.max(axis=(0, 1)))


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(layers=5), "Layer 5 does not exist"),
        (dict(heads=[]), "at least one head"),
        (dict(heads="0"), "must be an integer"),
        (dict(head_reduce="median"), "'mean' or 'max'"),
    ],
)
def test_aggregate_rejects_bad_selections_with_a_hint(kwargs, message):
    amap = random_map(tokens_from(list("ab")))
    with pytest.raises(InputError, match=message):
        analysis.aggregate(amap, **kwargs)


def test_causal_mask_and_crop():
    amap = random_map(tokens_from(list("abcde")), causal=True)
    mask = analysis.causal_mask(amap)
    assert np.all(amap.weights[..., mask] == 0) and mask.sum() == 10
    part = analysis.crop(amap, queries=(1, 4), keys=(1, 4))
    assert [t.text for t in part.query_tokens] == ["b", "c", "d"] and part.causal
    np.testing.assert_array_equal(part.weights, amap.weights[:, :, 1:4, 1:4])
    assert not analysis.crop(amap, queries=(2, 5), keys=(0, 2)).causal
    with pytest.raises(InputError, match="not inside"):
        analysis.crop(amap, queries=(3, 9))


# ---------------------------------------------------------------------------------------------------------------------
# word-level view


def test_word_groups_sentencepiece_wordpiece_and_punctuation():
    text = "Good morning, studying 早上好！"
    # sentencepiece-style pieces (▁ already removed by the tokenizer layer): "▁Good", "▁morn", "ing", ",", ...
    words = ["Good", "morn", "ing", ",", "stud", "ying", "早上", "好", "！"]
    tokens = tokens_from(words, text) + [Token("</s>", -1, -1, special=True)]
    groups = word_merge.word_groups(tokens)
    assert [[t.text for t in tokens[a:b]] for a, b in groups] == [
        ["Good"],
        ["morn", "ing"],
        [","],
        ["stud", "ying"],
        ["早上"],
        ["好"],
        ["！"],
        ["</s>"],
    ]


def test_word_groups_join_a_contraction_but_not_quotes():
    text = "It didn't stop John’s 'hello' rock 'n' roll"
    words = ["It", "didn", "'", "t", "stop", "John", "’", "s", "'", "hello", "'", "rock", "'", "n", "'", "roll"]
    groups = word_merge.word_groups(tokens_from(words, text))
    assert ["".join(words[a:b]) for a, b in groups] == [
        "It",
        "didn't",
        "stop",
        "John’s",
        "'",
        "hello",
        "'",
        "rock",
        "'",
        "n",
        "'",
        "roll",
    ]
    # Offsets that keep the space (" '" covers the space before it): a quote opening, not an inner apostrophe.
    spaced = [Token("rock", 0, 4), Token(" '", 4, 6), Token("n", 6, 7), Token("'", 7, 8), Token(" roll", 8, 13)]
    assert word_merge.word_groups(spaced) == [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)]


def test_word_groups_byte_level_pieces_of_one_character_join():
    # Byte-level BPE splits 学 into two byte pieces; both point at the character's span (1, 2).
    tokens = [Token("喜", 0, 1), Token("学", 1, 2), Token("学", 1, 2), Token("习", 2, 3)]
    assert word_merge.word_groups(tokens) == [(0, 1), (1, 3), (3, 4)]


def test_merge_words_sums_keys_and_averages_queries():
    text = "playing chess"
    tokens = (
        [Token("[CLS]", -1, -1, True)] + tokens_from(["play", "ing", "chess"], text) + [Token("[SEP]", -1, -1, True)]
    )
    amap = random_map(tokens, layers=2, heads=2)
    words = word_merge.merge_words(amap, text)
    assert [t.text for t in words.query_tokens] == ["[CLS]", "playing", "chess", "[SEP]"]
    assert words.query_tokens[1] == Token("playing", 0, 7)
    assert words.key_tokens == words.query_tokens
    w = amap.weights
    np.testing.assert_allclose(words.weights[..., 0, 1], w[..., 0, 1] + w[..., 0, 2], rtol=1e-6)
    np.testing.assert_allclose(words.weights[..., 1, 2], (w[..., 1, 3] + w[..., 2, 3]) / 2, rtol=1e-6)
    np.testing.assert_allclose(words.weights.sum(-1), 1.0, rtol=1e-5)


def test_merge_words_cross_map_keeps_chinese_pieces_and_causality():
    amap = seed_pair_map()
    words = word_merge.merge_words(amap, query_text="Good Morning!", key_text="早上好！")
    assert [t.text for t in words.key_tokens] == ["早上", "好", "！", "</s>"]
    assert [t.text for t in words.query_tokens] == ["Good", "Morning", "!"]
    causal = random_map(tokens_from(["un", "believ", "able", "cat"], "unbelievable cat"), causal=True)
    merged = word_merge.merge_words(causal, "unbelievable cat")
    assert [t.text for t in merged.query_tokens] == ["unbelievable", "cat"]
    assert merged.causal and merged.weights[..., 0, 1].max() == 0


# ---------------------------------------------------------------------------------------------------------------------
# hiding special tokens


def test_hide_special_tokens_without_and_with_renormalising():
    tokens = [Token("[CLS]", -1, -1, True)] + tokens_from(["a", "b"]) + [Token("[SEP]", -1, -1, True)]
    amap = random_map(tokens)
    kept = analysis.hide_tokens(amap)
    assert [t.text for t in kept.key_tokens] == ["a", "b"] == [t.text for t in kept.query_tokens]
    np.testing.assert_array_equal(kept.weights, amap.weights[:, :, 1:3, 1:3])
    assert np.all(kept.weights.sum(-1) < 1)
    renormed = analysis.hide_tokens(amap, renormalize=True)
    np.testing.assert_allclose(renormed.weights.sum(-1), 1.0, rtol=1e-5)
    ratio = renormed.weights[..., 0] / renormed.weights[..., 1]  # renormalising keeps the proportions within a row
    np.testing.assert_allclose(ratio, kept.weights[..., 0] / kept.weights[..., 1], rtol=1e-5)


def test_hide_first_token_sink_and_cross_map_queries():
    amap = seed_pair_map()
    hidden = analysis.hide_tokens(amap, special=True, first=True)
    assert [t.text for t in hidden.key_tokens] == ["好", "！"]
    assert len(hidden.query_tokens) == 3  # targets carry no special token here; cross maps keep their queries
    with pytest.raises(InputError, match="no key"):
        analysis.hide_tokens(amap, keys=[0, 1, 2])


# ---------------------------------------------------------------------------------------------------------------------
# rollout


def test_rollout_identity_attention_stays_identity_and_rows_sum_to_one():
    tokens = tokens_from(list("abc"))
    eye = np.broadcast_to(np.eye(3, dtype=np.float32), (2, 2, 3, 3)).copy()
    amap = AttentionMap("self", eye, tokens, tokens, ["l0", "l1"])
    np.testing.assert_allclose(analysis.rollout(amap).weights[:, 0], np.broadcast_to(np.eye(3), (2, 3, 3)))
    rolled = analysis.rollout(random_map(tokens_from(list("abcde")), layers=3, causal=True))
    assert rolled.weights.shape == (3, 1, 5, 5)
    np.testing.assert_allclose(rolled.weights.sum(-1), 1.0, rtol=1e-5)
    assert np.all(np.triu(rolled.weights[-1, 0], 1) == 0)  # causal stays causal


def test_rollout_matches_the_paper_formula():
    amap = random_map(tokens_from(list("abcd")), layers=2, heads=3, seed=4)
    a = [0.5 * amap.weights[i].mean(0) + 0.5 * np.eye(4) for i in range(2)]
    a = [m / m.sum(-1, keepdims=True) for m in a]
    np.testing.assert_allclose(analysis.rollout(amap).weights[1, 0], a[1] @ a[0], rtol=1e-5)
    np.testing.assert_allclose(analysis.rollout(amap, residual=False).weights[0, 0], amap.weights[0].mean(0), rtol=1e-5)
    with pytest.raises(InputError, match="self-attention"):
        analysis.rollout(seed_pair_map())


# ---------------------------------------------------------------------------------------------------------------------
# head statistics


def _map_from(matrix: np.ndarray, special_first: bool = False) -> AttentionMap:
    n = matrix.shape[0]
    tokens = tokens_from([chr(ord("a") + i) for i in range(n)])
    if special_first:
        tokens[0] = Token("<s>", -1, -1, True)
    return AttentionMap("self", matrix[None, None].astype(np.float32), tokens, tokens, ["l0"])


def test_head_statistics_on_known_patterns():
    n = 5
    previous = np.eye(n, k=-1)
    previous[0, 0] = 1.0
    stats = head_stats.head_statistics(_map_from(previous))
    assert stats["previous_token"][0, 0] == pytest.approx(1.0)
    assert stats["entropy"][0, 0] == pytest.approx(0.0)
    assert stats["distance"][0, 0] == pytest.approx(4 / 5)
    assert stats["sink"][0, 0] == pytest.approx(2 / 5)  # queries 0 and 1 look at the first token
    diagonal = head_stats.head_statistics(_map_from(np.eye(n)))
    assert diagonal["diagonal"][0, 0] == pytest.approx(1.0) and diagonal["previous_token"][0, 0] == 0
    uniform = head_stats.head_statistics(_map_from(np.full((n, n), 1 / n), special_first=True))
    assert uniform["entropy"][0, 0] == pytest.approx(np.log(n), rel=1e-5)
    assert uniform["sink"][0, 0] == pytest.approx(1 / n, rel=1e-5)


def test_induction_keys_point_after_the_earlier_copy():
    tokens = tokens_from(list("abcab"))
    targets = head_stats.induction_keys(tokens)
    assert targets.shape == (5, 5)
    assert np.argwhere(targets).tolist() == [[3, 1], [4, 2]]  # a (3) looks at b (1); b (4) looks at c (2)
    specials = [Token("</s>", -1, -1, True), *tokens_from(list("xx")), Token("</s>", -1, -1, True)]
    assert not head_stats.induction_keys(specials)[3].any()  # a special token is never a copy


def test_induction_and_positional_scores_on_a_repeated_span():
    text = "abcdabcd"
    n = len(text)
    tokens = tokens_from(list(text))
    induction = np.zeros((n, n))
    induction[np.arange(n), np.maximum(np.arange(n) - 3, 0)] = 1.0  # second copy: attend to the token after the first
    amap = AttentionMap("self", induction[None, None].astype(np.float32), tokens, tokens, ["l0"])
    stats = head_stats.head_statistics(amap)
    assert stats["induction"][0, 0] == pytest.approx(1.0)
    assert stats["positional"][0, 0] == pytest.approx(1.0)  # offset 3 from query 3 on; queries 0-2 have no key 3 back
    previous = np.eye(n, k=-1)
    previous[0, 0] = 1.0
    shifted = head_stats.head_statistics(
        AttentionMap("self", previous[None, None].astype(np.float32), tokens, tokens, ["l0"])
    )
    assert shifted["induction"][0, 0] == 0.0 and shifted["positional"][0, 0] == pytest.approx(1.0)
    no_repeat = head_stats.head_statistics(_map_from(np.eye(5)))
    assert np.isnan(no_repeat["induction"][0, 0])  # nothing came twice: the score does not apply


def test_head_statistics_for_cross_maps_and_table_rows():
    amap = seed_pair_map(layers=2, heads=3)
    stats = head_stats.head_statistics(amap)
    assert set(stats) == set(head_stats.STATISTICS)
    assert all(v.shape == (2, 3) for v in stats.values())
    assert np.isnan(stats["distance"]).all() and np.isfinite(stats["diagonal"]).all()
    rows = head_stats.head_statistics_table(amap)
    assert len(rows) == 6 and rows[4]["layer"] == 1 and rows[4]["head"] == 1
    assert rows[4]["entropy"] == pytest.approx(float(stats["entropy"][1, 1]))
    assert sorted(rows, key=lambda r: r["sink"])[0]["sink"] == min(float(v) for v in stats["sink"].ravel())


def test_a_head_plays_the_role_of_its_highest_role_score_from_the_threshold():
    stats = {
        "entropy": np.zeros((2, 3)),
        "previous_token": np.array([[0.9, 0.2, 0.4], [0.1, 0.6, 0.49]]),
        "sink": np.array([[0.3, 0.7, 0.1], [0.1, 0.1, 0.2]]),
        "induction": np.full((2, 3), np.nan),  # not computed (no repeated token): never named
    }
    roles = head_stats.head_roles(stats)
    assert roles.tolist() == [["previous_token", "sink", ""], ["", "previous_token", ""]]
    assert head_stats.head_roles(stats, threshold=0.95).tolist() == [["", "", ""], ["", "", ""]]
    rows = head_stats.statistics_table(stats, ["l0", "l1"])
    assert [row["role"] for row in rows] == ["previous_token", "sink", "", "", "previous_token", ""]
