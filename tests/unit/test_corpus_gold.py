"""Gold links one pair at a time: Pharaoh parsing, AER / precision / recall, words and link extraction."""

from __future__ import annotations

import numpy as np
import pytest

from attnviz.corpus import links
from attnviz.corpus.gold import Counts, Gold, alignment_error_rate, format_links, parse_gold, score
from attnviz.corpus.pair import PairWords, head_scores, view_scores
from attnviz.corpus.words import merged, segmented, token_words
from attnviz.errors import InputError
from attnviz.types import AttentionMap, Token


def test_alignment_error_rate_bounds():
    gold = [{(0, 0), (1, 1)}]
    assert alignment_error_rate(gold, gold) == 0.0
    assert alignment_error_rate([{(0, 1), (1, 0)}], gold) == 1.0
    assert alignment_error_rate([{(0, 0)}], gold) == pytest.approx(1 - 2 / 3)


def test_alignment_error_rate_with_possible_links():
    sure, possible = parse_gold("0-0 1?1 2-2")
    assert sure == {(0, 0), (2, 2)} and possible == {(0, 0), (1, 1), (2, 2)}
    assert alignment_error_rate([{(0, 0), (1, 1), (2, 2)}], [sure], [possible]) == 0.0  # a possible link costs nothing
    assert alignment_error_rate([{(0, 0), (2, 2)}], [sure], [possible]) == 0.0  # nor does missing it
    # 1 - (|A∩S| + |A∩P|) / (|A| + |S|) = 1 - (1 + 2) / (2 + 2)
    assert alignment_error_rate([{(0, 0), (1, 1)}], [sure], [possible]) == pytest.approx(0.25)
    with pytest.raises(InputError, match="Pharaoh"):
        parse_gold("0:1")


@pytest.mark.parametrize("bad", ["0:1", "a-1", "1-", "-1", "0-1-2", "0?-1"])
def test_parse_gold_refuses_what_is_not_a_link_with_a_typed_error(bad):
    with pytest.raises(InputError) as refused:
        parse_gold(f"0-0 {bad}")
    assert refused.value.key == "corpus_not_pharaoh" and bad in str(refused.value)
    assert "Pharaoh" in refused.value.message("zh")


def test_gold_links_outside_the_words_are_refused():
    gold = Gold.parse("0-0 2?1")
    assert gold.check(3, 2) is gold
    with pytest.raises(InputError) as refused:
        gold.check(2, 2)
    assert refused.value.key == "corpus_link_outside" and "2-1" in str(refused.value)
    assert gold.reversed().possible == {(0, 0), (1, 2)}


def test_precision_recall_and_aer_of_one_pair():
    gold = Gold.parse("0-0 1-1 2?2")
    scores = score({(0, 0), (2, 2), (1, 0)}, gold)
    assert scores.precision == pytest.approx(2 / 3)  # |A∩P| / |A|
    assert scores.recall == pytest.approx(1 / 2)  # |A∩S| / |S|
    assert scores.aer == pytest.approx(1 - (1 + 2) / (3 + 2))
    assert np.isnan(score(set(), gold).precision) and score(set(), gold).recall == 0
    assert score(set(), Gold(frozenset(), frozenset())).aer == 0.0
    total = Counts.of({(0, 0)}, gold) + Counts.of({(1, 1)}, gold)
    assert total == Counts(2, 4, 2, 2) and format_links({(1, 0), (0, 0)}) == "0-0 1-0"


def test_segmented_input_joins_chinese_without_spaces_and_keeps_the_spans():
    zh = segmented("爷爷 和 奶奶 身体 都 很 好 。")
    assert zh.text == "爷爷和奶奶身体都很好。" and zh.words[3] == "身体" and zh.spans[3] == (5, 7)
    en = segmented("Grandpa and grandma are  both healthy .")
    assert en.text == "Grandpa and grandma are both healthy." and en.words[-1] == "." and len(en) == 7
    assert en.spans[-1] == (len(en.text) - 1, len(en.text))  # the full stop keeps its own span
    tokenized = segmented("He said ( quietly ) : it 's fine , do n't worry !")
    assert tokenized.text == "He said (quietly): it's fine, don't worry!" and len(tokenized) == 14
    mixed = segmented("我 用 iPhone 手机")
    assert mixed.text == "我用iPhone手机"
    with pytest.raises(InputError) as refused:
        segmented("   ")
    assert refused.value.key == "corpus_no_words"


def _tokens(text: str, pieces: list[str], end: bool = True) -> list[Token]:
    tokens, position = [], 0
    for piece in pieces:
        start = text.index(piece, position)
        tokens.append(Token(piece, start, start + len(piece), special=False))
        position = start + len(piece)
    return tokens + ([Token("</s>", -1, -1, special=True)] if end else [])


def test_tokens_meet_the_users_words_through_offsets():
    words = segmented("早上 好 ！")
    tokens = _tokens(
        words.text, ["早", "上好", "！"]
    )  # a piece that straddles two words goes to the one it covers most
    assert token_words(tokens, words) == [0, 0, 2, None]
    tokens = _tokens(words.text, ["早上好", "！"])
    assert token_words(tokens, words) == [0, 2, None]  # a tie goes to the first word; 好 then has no token


def test_merged_words_are_the_word_views_words():
    text = "Good morning!"
    tokens = _tokens(text, ["Good", "morn", "ing", "!"])
    assert merged(tokens, text).words == ("Good", "morning", "!")


def test_link_extraction_is_argmax_per_target_word_with_a_threshold():
    matrix = np.array([[0.7, 0.2, 0.1], [0.05, 0.06, 0.04], [0.3, 0.4, 0.3]])  # (target words, source words)
    mask = links.link_mask(matrix, threshold=0.1)
    assert links.links_of(mask) == {(0, 0), (1, 2)}  # target 1 is too weak: no link
    assert links.links_of(links.link_mask(matrix, threshold=0.05)) == {(0, 0), (1, 1), (1, 2)}
    stacked = links.link_mask(np.stack([matrix, matrix[::-1]]), 0.1)  # every head at once
    assert stacked.shape == (2, 3, 3) and links.links_of(stacked[1]) == {(1, 0), (0, 2)}


def test_word_weights_sum_source_pieces_and_average_target_pieces():
    weights = np.array([[0.2, 0.3, 0.5], [0.6, 0.2, 0.2]])  # 2 target tokens (one word), 3 source tokens
    merged_weights = links.word_weights(weights, [0, 0], [0, 0, None], 1, 1)
    assert merged_weights == pytest.approx(np.array([[0.65]]))  # (0.5 + 0.8) / 2; </s> counts toward no word


def test_intersection_keeps_the_links_both_directions_find():
    forward = {(0, 0), (1, 1), (2, 1)}
    backward = {(0, 0), (1, 2), (0, 1)}  # (target word, source word) from the reverse model
    assert links.intersect(forward, backward) == {(0, 0), (2, 1)}


def _cross(weights: np.ndarray, source: str, target: str, source_pieces, target_pieces) -> AttentionMap:
    return AttentionMap(
        "cross",
        weights.astype(np.float32),
        _tokens(target, target_pieces),
        _tokens(source, source_pieces),
        [f"model.decoder.layers.{i}.encoder_attn" for i in range(weights.shape[0])],
    )


def test_a_pairs_views_and_heads_are_scored_against_gold():
    source, target = segmented("早上 好 ！"), segmented("Good morning !")
    right = np.eye(4)  # each target token on its source token; </s> on </s>
    wrong = np.eye(4)[[1, 0, 2, 3]]
    weights = np.stack([np.stack([right, wrong])])  # (1 layer, 2 heads, 4, 4)
    cross = _cross(weights, source.text, target.text, ["早上", "好", "！"], ["Good", "morning", "!"])
    words = PairWords(source, target)
    gold = Gold.parse("0-0 0?1 1-1 2-2")
    heads = head_scores(cross, words, gold, 0.1)
    assert heads.aer[0, 0] == 0.0 and heads.aer[0, 1] > 0 and heads.best() == (0, 0)
    shown = view_scores(cross, {"layers": 0, "heads": 1}, words, gold, 0.1)
    assert shown.found == {(2, 2), (0, 1)} and shown.missed == {(0, 0), (1, 1)} and shown.extra == {(1, 0)}
    assert shown.scores.aer == pytest.approx(heads.aer[0, 1])
    first_word = view_scores(analysis_crop(cross), {"layers": 0, "heads": 0}, words, gold, 0.1)
    assert first_word.counts.sure == 1 and first_word.scores.aer == 0.0  # a replay counts the words written so far


def analysis_crop(cross: AttentionMap) -> AttentionMap:
    from attnviz.maps import analysis

    return analysis.crop(cross, queries=(0, 1))


def test_reverse_mask_reads_a_non_square_pair_the_other_way():
    from attnviz.corpus.pair import TokenView, reverse_mask

    source, target = segmented("我 喜欢 学习"), segmented("I like to study")  # 3 source words, 4 target words
    words = PairWords(source, target)
    # The reverse model reads the target as its source: its queries are the pair's source tokens (+ </s>), its keys
    # the pair's target tokens (+ </s>). Each source word looks at one target word.
    looks = {0: 0, 1: 1, 2: 3}  # 我→I, 喜欢→like, 学习→study ("to" gets nothing)
    weights = np.zeros((4, 5))
    for query, key in looks.items():
        weights[query, key] = 0.9
    weights[3, 4] = 1.0  # </s> on </s>
    backward = TokenView(
        weights, _tokens(source.text, ["我", "喜欢", "学习"]), _tokens(target.text, ["I", "like", "to", "study"])
    )
    mask = reverse_mask(words, backward, 0.1)
    assert mask.shape == (3, 4)  # (source words, target words): as links.intersect_masks takes it
    assert {(int(s), int(t)) for s, t in zip(*np.nonzero(mask))} == {(0, 0), (1, 1), (2, 3)}
    forward = np.zeros((4, 3), dtype=bool)  # (target words, source words): I→我, like→喜欢, to→学习, study→学习
    forward[[0, 1, 2, 3], [0, 1, 2, 2]] = True
    assert links.links_of(links.intersect_masks(forward, mask)) == {(0, 0), (1, 1), (2, 3)}  # "to"–学习 dropped
