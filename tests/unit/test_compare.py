"""Comparing two maps on hand-made tokens: which tokens match (insertions, deletions, moved words, Chinese cut two
ways, two tokenizers of one text), the JS of each head against scipy's Jensen–Shannon distance on rows picked by
hand, a map against itself, A and B swapped, heads of two models paired, the parity numbers and the diff figure."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.distance import jensenshannon

from attnviz.compare import (
    ADDED,
    BOTH,
    REMOVED,
    UNPAIRED,
    check_text_b,
    compare_captures,
    compare_maps,
    depth_pairs,
    match_tokens,
    parity,
    side_options,
    text_units,
)
from attnviz.errors import InputError
from attnviz.figures import FigureStyle, diff_heatmap
from attnviz.types import AttentionCapture, AttentionMap, Token
from attnviz.view.selection import ViewOptions

START, END = Token("<s>", -1, -1, special=True), Token("</s>", -1, -1, special=True)


def tokens_of(text: str, pieces: list[str], specials: bool = True) -> list[Token]:
    """Tokens for `pieces` found left to right in `text`, between <s> and </s>."""
    found, at = [], 0
    for piece in pieces:
        start = text.index(piece, at)
        found.append(Token(piece, start, start + len(piece)))
        at = start + len(piece)
    return [START, *found, END] if specials else found


def words_of(text: str) -> list[Token]:
    return tokens_of(text, text.replace(".", " .").split())


def pairs(match) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    return [(s.a, s.b) for s in match.segments]


def random_map(tokens, layers=2, heads=3, seed=0, kind="self", causal=False) -> AttentionMap:
    rng = np.random.default_rng(seed)
    n = len(tokens)
    weights = rng.random((layers, heads, n, n)) ** 3  # uneven rows, as real heads have
    if causal:
        weights *= np.tril(np.ones((n, n)))
    weights /= weights.sum(axis=-1, keepdims=True)
    return AttentionMap(kind, weights.astype(np.float32), tokens, tokens, [f"layers.{i}" for i in range(layers)])


# ----------------------------------------------------------------------------------------------------------------------
# Matching


def test_units_cut_chinese_by_characters_and_words_by_letters():
    text = "早上好, iPhone拍照 ok!"
    assert [text[s:e] for s, e in text_units(text)] == ["早", "上", "好", ",", "iPhone", "拍", "照", "ok", "!"]


def test_an_inserted_word_is_added_and_the_rest_match_in_order():
    a, b = "The cat sat.", "The big cat sat."
    match = match_tokens(words_of(a), a, words_of(b), b)
    assert pairs(match) == [
        ((0,), (0,)),
        ((1,), (1,)),
        ((), (2,)),
        ((2,), (3,)),
        ((3,), (4,)),
        ((4,), (5,)),
        ((5,), (6,)),
    ]
    assert match.statuses.count(ADDED) == 1 and REMOVED not in match.statuses
    assert [s.text for s in match.segments][1:4] == ["The", "big", "cat"]


def test_a_deleted_word_is_removed():
    a, b = "the cat sat on the mat", "the cat sat on mat"
    match = match_tokens(words_of(a), a, words_of(b), b)
    removed = [s for s in match.segments if s.status == REMOVED]
    assert [(s.a, s.text) for s in removed] == [((5,), "the")]
    assert ((6,), (5,)) in pairs(match)  # "mat" still matches "mat"


def test_moved_words_still_match():
    a, b = "the dog bit the man", "the man bit the dog"
    match = match_tokens(words_of(a), a, words_of(b), b)
    assert set(match.statuses) == {BOTH}
    by_text = {s.text: (s.a, s.b) for s in match.segments}
    assert by_text["dog"] == ((2,), (5,)) and by_text["man"] == ((5,), (2,))


def test_chinese_cut_two_ways_matches_the_coarsest_common_pieces():
    text = "早上好，我喜欢学习。"
    a = tokens_of(text, ["早上", "好", "，", "我", "喜欢", "学习", "。"])
    b = tokens_of(text, ["早", "上好", "，", "我喜", "欢", "学", "习", "。"])
    match = match_tokens(a, text, b, text)
    assert set(match.statuses) == {BOTH}
    assert [s.text for s in match.segments] == ["<s>", "早上好", "，", "我喜欢", "学习", "。", "</s>"]
    assert ((1, 2), (1, 2)) in pairs(match) and ((6,), (6, 7)) in pairs(match)


def test_chinese_sentences_that_differ_by_a_character():
    a, b = "早上好", "晚上好"
    match = match_tokens(tokens_of(a, ["早上", "好"]), a, tokens_of(b, ["晚", "上", "好"]), b)
    # 早上 shares 上 with B's 上, but its 早 is not in B: it is removed, B's 上 (and 晚) added; 好 matches 好
    assert pairs(match) == [((0,), (0,)), ((), (1,)), ((1,), ()), ((), (2,)), ((2,), (3,)), ((3,), (4,))]
    assert [(s.status, s.text) for s in match.segments[1:4]] == [(ADDED, "晚"), (REMOVED, "早上"), (ADDED, "上")]


def test_a_word_that_differs_by_one_character_is_changed_not_shared():
    a, b = "早上好！", "晚上好！"
    match = match_tokens(tokens_of(a, ["早上", "好", "！"]), a, tokens_of(b, ["晚上", "好", "！"]), b)
    assert [(s.status, s.text) for s in match.segments] == [
        (BOTH, "<s>"),
        (REMOVED, "早上"),  # − 早上 …
        (ADDED, "晚上"),  # … + 晚上, right after it
        (BOTH, "好"),
        (BOTH, "！"),
        (BOTH, "</s>"),
    ]
    a, b = "send an e-mail", "send an e-mails"  # one token each, tied through "e" and "-"
    english = match_tokens(words_of(a), a, words_of(b), b)
    assert [(s.status, s.text) for s in english.segments][3:5] == [(REMOVED, "e-mail"), (ADDED, "e-mails")]


def test_two_tokenizers_of_one_text():
    text = "Good morning, studying attention"
    wordpiece = tokens_of(text, ["Good", "morn", "ing", ",", "study", "ing", "attention"], specials=False)
    wordpiece = [Token("[CLS]", -1, -1, special=True), *wordpiece, Token("[SEP]", -1, -1, special=True)]
    bpe = tokens_of(text, ["Good", " morning", ",", " stud", "ying", " att", "ention"], specials=False)
    match = match_tokens(wordpiece, text, bpe, text)
    assert pairs(match) == [
        ((0,), ()),  # [CLS]: only A has it
        ((1,), (0,)),
        ((2, 3), (1,)),  # morn + ing = " morning"
        ((4,), (2,)),
        ((5, 6), (3, 4)),  # study + ing = " stud" + "ying"
        ((7,), (5, 6)),
        ((8,), ()),  # [SEP]
    ]
    assert [s.text for s in match.segments][2] == "morning"


def test_byte_pieces_that_share_a_character_join_one_segment():
    text = "学习"
    bytes_a = [Token("学", 0, 1), Token("习", 1, 2), Token("习", 1, 2)]  # 习 split into two byte pieces
    whole = [Token("学习", 0, 2)]
    match = match_tokens(bytes_a, text, whole, text)
    assert pairs(match) == [((0, 1, 2), (0,))]


def test_a_space_piece_pairs_with_the_space_before_the_matched_word_else_joins_its_word():
    a, b = "the cat on", "the big cat on"
    ta = [Token("the", 0, 3), Token(" cat", 3, 7), Token(" ", 7, 8), Token("on", 8, 10)]  # byte-level: "Ġ", "on"
    tb = [Token("the", 0, 3), Token(" ", 3, 4), Token("big", 4, 7), Token(" cat", 7, 11), Token(" ", 11, 12)]
    tb.append(Token("on", 12, 14))
    match = match_tokens(ta, a, tb, b)
    # the space before "on" pairs with B's; B's space before the added "big" goes with "big"
    assert pairs(match) == [((0,), (0,)), ((), (1, 2)), ((1,), (3,)), ((2,), (4,)), ((3,), (5,))]
    assert [s.text for s in match.segments] == ["the", "big", "cat", "", "on"]
    itself = match_tokens(ta, a, ta, a)
    assert pairs(itself) == [((i,), (i,)) for i in range(4)]  # one input against itself: token for token


# ----------------------------------------------------------------------------------------------------------------------
# Divergence


def js_by_hand(p_map, q_map, rows_a, rows_b, keys_a, keys_b) -> np.ndarray:
    """Mean over rows of scipy's JS distance squared (base 2) on the picked rows and keys, renormalised."""
    layers, heads = p_map.shape[:2]
    out = np.zeros((layers, heads))
    for layer in range(layers):
        for head in range(heads):
            values = []
            for ra, rb in zip(rows_a, rows_b):
                p = p_map[layer, head, ra, keys_a].astype(np.float64)
                q = q_map[layer, head, rb, keys_b].astype(np.float64)
                values.append(jensenshannon(p / p.sum(), q / q.sum(), base=2) ** 2)
            out[layer, head] = np.mean(values)
    return out


def test_js_equals_scipy_on_rows_and_keys_picked_by_hand():
    a, b = "the cat sat on the mat", "the big cat sat on mat"
    ta, tb = words_of(a), words_of(b)
    ma, mb = random_map(ta, seed=1), random_map(tb, seed=2)
    compared = compare_maps(ma, (a, a), mb, (b, b))
    # A: <s> the cat sat on the mat </s> — B: <s> the big cat sat on mat </s>; A's second "the" and B's "big" unmatched
    in_a, in_b = [0, 1, 2, 3, 4, 6, 7], [0, 1, 3, 4, 5, 6, 7]
    expected = js_by_hand(ma.weights, mb.weights, in_a, in_b, in_a, in_b)
    np.testing.assert_allclose(compared.divergence, expected, atol=1e-6)


def test_js_over_segments_sums_keys_and_averages_queries():
    text = "早上好"
    a, b = tokens_of(text, ["早上", "好"]), tokens_of(text, ["早", "上", "好"])
    ma, mb = random_map(a, seed=3), random_map(b, seed=4)
    compared = compare_maps(ma, (text, text), mb, (text, text))
    wb = mb.weights.astype(np.float64)
    keys_b = np.stack([wb[..., 0], wb[..., 1] + wb[..., 2], wb[..., 3], wb[..., 4]], axis=-1)  # (l, h, 5, 4)
    rows_b = np.stack([keys_b[..., 0, :], keys_b[..., 1:3, :].mean(axis=-2), keys_b[..., 3, :], keys_b[..., 4, :]], -2)
    expected = js_by_hand(ma.weights, rows_b, range(4), range(4), list(range(4)), list(range(4)))
    np.testing.assert_allclose(compared.divergence, expected, atol=1e-6)


def test_a_map_compared_with_itself_gives_zero_for_every_head():
    text = "the cat saw the dog because it was tired"
    amap = random_map(words_of(text), causal=True)
    compared = compare_maps(amap, (text, text), amap, (text, text))
    assert np.all(compared.divergence == 0)
    assert np.all(compared.diff == 0)
    assert all(change.divergence == 0 for change in compared.ranking())


def test_swapping_a_and_b_gives_the_same_ranking_and_a_negated_diff():
    a, b = "the dog bit the man yesterday", "yesterday the man bit the big dog"
    ta, tb = words_of(a), words_of(b)
    ma, mb = random_map(ta, seed=5), random_map(tb, seed=6)
    forward = compare_maps(ma, (a, a), mb, (b, b))
    backward = compare_maps(mb, (b, b), ma, (a, a))
    assert [(c.layer, c.head) for c in forward.ranking()] == [(c.layer, c.head) for c in backward.ranking()]
    np.testing.assert_allclose(forward.divergence, backward.divergence, atol=1e-12)
    rows_f = {(s.a, s.b): i for i, s in enumerate(forward.rows.segments)}
    rows_b = [rows_f[(s.b, s.a)] for s in backward.rows.segments]  # backward's rows in forward's positions
    cols_f = {(s.a, s.b): i for i, s in enumerate(forward.cols.segments)}
    cols_b = [cols_f[(s.b, s.a)] for s in backward.cols.segments]
    np.testing.assert_allclose(backward.diff, -forward.diff[:, :, rows_b][:, :, :, cols_b], atol=1e-7)


def test_the_ranking_puts_the_most_changed_head_first():
    text = "one two three four"
    amap = random_map(words_of(text), heads=3, seed=7)
    other = amap.weights.copy()
    other[1, 2] = np.roll(other[1, 2], 1, axis=-1)  # only layer 1, head 2 looks elsewhere
    bmap = AttentionMap("self", other, amap.query_tokens, amap.key_tokens, amap.layer_names)
    ranking = compare_maps(amap, (text, text), bmap, (text, text)).ranking()
    assert (ranking[0].layer, ranking[0].head) == (1, 2) and ranking[0].divergence > 0
    assert all(change.divergence == 0 for change in ranking[1:])


def test_a_removed_row_and_column_show_a_and_an_added_one_minus_b():
    a, b = "red cat", "big cat"
    ma, mb = random_map(words_of(a), seed=8), random_map(words_of(b), seed=9)
    compared = compare_maps(ma, (a, a), mb, (b, b))
    statuses = compared.rows.statuses
    removed, added = statuses.index(REMOVED), statuses.index(ADDED)
    np.testing.assert_allclose(compared.diff[0, 0, removed, removed], ma.weights[0, 0, 1, 1], atol=1e-7)
    np.testing.assert_allclose(compared.diff[0, 0, added, added], -mb.weights[0, 0, 1, 1], atol=1e-7)
    assert compared.diff[0, 0, removed, added] == 0  # neither side has that cell


def test_a_changed_word_is_never_subtracted_from_its_replacement():
    a, b = "早上好！", "晚上好！"
    tokens_a, tokens_b = tokens_of(a, ["早上", "好", "！"]), tokens_of(b, ["晚上", "好", "！"])
    ma, mb = random_map(tokens_a, seed=8), random_map(tokens_b, seed=9)
    compared = compare_maps(ma, (a, a), mb, (b, b))
    view = compared.diff_view(0, 0)
    marked = [(status, label) for status, label in zip(view.col_status, view.col_labels)]
    assert (REMOVED, "早上") in marked and (ADDED, "晚上") in marked
    removed, added = view.col_status.index(REMOVED), view.col_status.index(ADDED)
    # 早上's column is A's weight on 早上, 晚上's is minus B's on 晚上: never A's 早上 − B's 晚上
    rows = [s.a and s.b for s in compared.rows.segments]
    both_rows = [i for i, shared in enumerate(rows) if shared]
    a_rows = [compared.rows.segments[i].a[0] for i in both_rows]
    b_rows = [compared.rows.segments[i].b[0] for i in both_rows]
    np.testing.assert_allclose(view.values[both_rows, removed], ma.weights[0, 0, a_rows, 1], atol=1e-7)
    np.testing.assert_allclose(view.values[both_rows, added], -mb.weights[0, 0, b_rows, 1], atol=1e-7)
    # the JS compares rows over the keys both sides share: <s>, 好, ！, </s> (早上 and 晚上 left out)
    shared_a, shared_b = [0, 2, 3, 4], [0, 2, 3, 4]
    expected = js_by_hand(ma.weights, mb.weights, shared_a, shared_b, shared_a, shared_b)
    np.testing.assert_allclose(compared.divergence, expected, atol=1e-9)
    fig = diff_heatmap(*(view.values, view.row_labels, view.col_labels, view.row_status, view.col_status))
    assert {"− 早上", "+ 晚上"} <= set(fig.layout.xaxis.ticktext)


# ----------------------------------------------------------------------------------------------------------------------
# Two models: heads paired


def test_heads_of_a_model_with_its_heads_shuffled_are_paired_back():
    text = "the cat saw the dog because it was tired"
    amap = random_map(words_of(text), layers=2, heads=4, seed=10)
    order = np.array([[2, 0, 3, 1], [1, 3, 0, 2]])  # B's head j is A's head order[layer, j]
    shuffled = np.stack([amap.weights[layer, order[layer]] for layer in range(2)])
    bmap = AttentionMap("self", shuffled, amap.query_tokens, amap.key_tokens, amap.layer_names)
    compared = compare_maps(amap, (text, text), bmap, (text, text), pair_heads=True)
    for layer in range(2):
        for head in range(4):
            assert order[layer, compared.heads_b[layer, head]] == head
    assert np.all(compared.divergence < 1e-12)
    same_numbers = compare_maps(amap, (text, text), bmap, (text, text))  # head j with head j: they differ
    assert np.all(same_numbers.divergence[order != np.arange(4)] > 0)


def test_a_model_with_fewer_heads_leaves_heads_of_a_unpaired():
    text = "a b c d"
    amap, bmap = random_map(words_of(text), heads=3, seed=11), random_map(words_of(text), heads=2, seed=12)
    compared = compare_maps(amap, (text, text), bmap, (text, text), pair_heads=True)
    assert (compared.heads_b == UNPAIRED).sum(axis=1).tolist() == [1, 1]
    assert np.isnan(compared.divergence[compared.heads_b == UNPAIRED]).all()
    assert np.isnan(compared.ranking()[-1].divergence)
    with pytest.raises(InputError, match="pair the heads"):
        compare_maps(amap, (text, text), bmap, (text, text))


def test_maps_of_different_kinds_are_refused():
    text = "a b c"
    amap = random_map(words_of(text))
    cross = random_map(words_of(text), kind="cross")
    with pytest.raises(InputError) as refused:
        compare_maps(amap, (text, text), cross, (text, text))
    assert refused.value.key == "compare_kinds_differ" and "不同的词元" in refused.value.message("zh")
    encoder = random_map(words_of(text), kind="encoder")
    assert compare_maps(amap, (text, text), encoder, (text, text)).kind == "self"  # the same tokens on both axes
    other = random_map(tokens_of("x y", ["x", "y"], specials=False))
    alone = random_map(tokens_of(text, ["a", "b", "c"], specials=False))
    with pytest.raises(InputError, match="share no word"):
        compare_maps(alone, (text, text), other, ("x y", "x y"))


def test_layers_stand_beside_the_layer_of_b_at_the_same_relative_depth():
    """depth_pairs, written out: first beside first, last beside last, the others at the nearest fraction."""
    assert depth_pairs(3, 3).tolist() == [0, 1, 2]
    assert depth_pairs(3, 6).tolist() == [0, 3, 5]  # 0, 2.5 → 3 (a half rounds up), 5
    assert depth_pairs(6, 3).tolist() == [0, 0, 1, 1, 2, 2]  # 0, .4, .8, 1.2, 1.6, 2
    assert depth_pairs(12, 6).tolist() == [round(i * 5 / 11 + 1e-9) for i in range(12)]
    assert depth_pairs(1, 4).tolist() == [3]  # one layer: beside B's last


def test_models_with_different_numbers_of_layers_compare_layer_beside_layer_at_the_same_depth():
    """B has 3 layers and A 2: A's layer 0 is compared with B's layer 0, A's layer 1 with B's layer 2, heads paired
    within each; B made of A's layers (and a layer between them) with its heads shuffled pairs them back exactly."""
    text = "the cat saw the dog because it was tired"
    amap = random_map(words_of(text), layers=2, heads=4, seed=20)
    between = random_map(words_of(text), layers=1, heads=4, seed=21).weights[0]
    order = np.array([[2, 0, 3, 1], [0, 1, 2, 3], [1, 3, 0, 2]])  # B's head j of layer l is order[l, j] of its source
    layers_b = [amap.weights[0, order[0]], between[order[1]], amap.weights[1, order[2]]]
    bmap = AttentionMap("self", np.stack(layers_b), amap.query_tokens, amap.key_tokens, [f"b.{i}" for i in range(3)])
    compared = compare_maps(amap, (text, text), bmap, (text, text), pair_heads=True)
    assert compared.layers_b.tolist() == [0, 2]
    for layer, layer_b in ((0, 0), (1, 2)):
        for head in range(4):
            assert order[layer_b, compared.heads_b[layer, head]] == head
    assert np.all(compared.divergence < 1e-12)
    assert {(c.layer, c.layer_b) for c in compared.ranking()} == {(0, 0), (1, 2)}
    assert [row["layer_b"] for row in compared.table()] == [c.layer_b for c in compared.ranking()]
    assert "B: layer 2, head" in compared.heads_said(1, 0) and "第 2 层" in compared.heads_said(1, None, "zh")
    by_number = compare_maps(amap, (text, text), bmap, (text, text))  # heads by number, layers still by depth
    expected = [_js_of_rows(amap.weights[1, h], bmap.weights[2, h]) for h in range(4)]
    np.testing.assert_allclose(by_number.divergence[1], expected, atol=1e-9)
    swapped = compare_maps(bmap, (text, text), amap, (text, text), pair_heads=True)  # B deeper than A: 3 → 2
    assert swapped.layers_b.tolist() == [0, 1, 1] and swapped.diff.shape[:2] == (3, 4)


def test_side_by_side_draws_b_in_its_layer_at_the_same_depth():
    text = "the cat saw the dog"
    amap = random_map(words_of(text), layers=2, heads=3, seed=22)
    bmap = random_map(words_of(text), layers=4, heads=3, seed=23)
    a, b = (AttentionCapture("m", "cpu", {"self": m}, source_text=text) for m in (amap, bmap))
    compared = compare_captures(a, b, pair_heads=True)
    for head in range(3):
        options_a, options_b = side_options(compared, b, ViewOptions(), 1, head)
        assert (options_a.layer, options_a.head) == (1, head)
        assert (options_b.layer, options_b.head) == (3, int(compared.heads_b[1, head]))  # B's last layer, its head
    layer_mean_a, layer_mean_b = side_options(compared, b, ViewOptions(), 1, None)
    assert (layer_mean_b.aggregation, layer_mean_b.layer) == ("layer", 3)


def _js_of_rows(p: np.ndarray, q: np.ndarray) -> float:
    """Mean JS (bits) of matching rows of two (queries, keys) weight matrices, by scipy."""
    return float(np.mean([jensenshannon(a, b, base=2) ** 2 for a, b in zip(p, q)]))


# ----------------------------------------------------------------------------------------------------------------------
# One input read twice


def test_parity_numbers_equal_a_direct_computation():
    text = "the cat sat"
    amap = random_map(words_of(text), seed=13)
    noisy = amap.weights.copy()
    noisy[1, 0, 2, 3] += 0.01  # the worst cell, and a row that no longer sums to 1
    noisy[0, 2] += 1e-4
    bmap = AttentionMap("self", noisy, amap.query_tokens, amap.key_tokens, amap.layer_names)
    report = parity(amap, bmap)
    assert report.max_difference == pytest.approx(np.abs(noisy - amap.weights).max(), abs=1e-9)
    assert (report.worst_layer, report.worst_head) == (1, 0)
    assert report.row_sum_error == pytest.approx(np.abs(noisy.astype(np.float64).sum(-1) - 1).max(), abs=1e-9)
    assert len(report.per_layer) == 2
    with pytest.raises(InputError, match="word by word"):
        parity(amap, random_map(words_of("the cat sat down")))


# ----------------------------------------------------------------------------------------------------------------------
# The diff figure


def test_the_diff_heatmap_is_centred_on_zero_and_marks_added_and_removed_tokens():
    a, b = "red cat", "big cat"
    compared = compare_maps(random_map(words_of(a), seed=8), (a, a), random_map(words_of(b), seed=9), (b, b))
    view = compared.diff_view(layer=0, head=1)
    np.testing.assert_allclose(view.values, compared.diff[0, 1], atol=1e-7)
    fig = diff_heatmap(view.values, view.row_labels, view.col_labels, view.row_status, view.col_status, kind="self")
    trace = fig.data[0]
    largest = float(np.abs(view.values).max())
    assert trace.zmid == 0 and trace.zmin == pytest.approx(-largest) and trace.zmax == pytest.approx(largest)
    ticks = list(fig.layout.yaxis.ticktext)
    assert "− red" in ticks and "+ big" in ticks and "cat" in ticks
    assert len(fig.layout.shapes) == 4  # the removed and the added row, the removed and the added column
    drawn = (view.values, view.row_labels, view.col_labels, view.row_status, view.col_status)
    chinese = diff_heatmap(*drawn, style=FigureStyle(lang="zh"))
    assert "只在 A 中" in chinese.layout.title.text


def test_the_diff_heatmap_refuses_labels_that_do_not_fit():
    with pytest.raises(InputError):
        diff_heatmap(np.zeros((2, 2)), ["a", "b"], ["a"], ["both", "both"], ["both"])


# ----------------------------------------------------------------------------------------------------------------------
# What B must be


def test_text_b_must_not_be_empty_and_must_be_read_by_model_b():
    check_text_b(None, "m", ("zh",))  # none given: B reads A's text
    check_text_b("早上好", "m", ("zh",))
    check_text_b("the cat", "m", ())  # a model that declares nothing is taken to read it
    with pytest.raises(InputError) as empty:
        check_text_b("  ", "m", ())
    assert empty.value.key == "compare_text_empty"
    with pytest.raises(InputError) as unread:
        check_text_b("the cat sat", "demo-zh-en", ("zh",))
    assert "Latin letters" in str(unread.value) and "拉丁字母" in unread.value.message("zh")
