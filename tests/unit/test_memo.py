"""Facts read once per loaded model or tokenizer (attnviz.memo), and read again when what they depend on changes."""

import gc

from attnviz import memo
from attnviz.text.tokens import special_ids, unknown_flags
from tests.support.tiny import byte_level_tokenizer


class Owner:
    pass


def test_once_per_owner_and_key_then_forgotten_with_the_owner():
    owner, calls = Owner(), []
    for _ in range(3):
        assert memo.once_per(owner, "fact", lambda: calls.append(1) or len(calls)) == 1
    assert memo.once_per(owner, "other", lambda: 7) == 7 and len(calls) == 1
    before = len(memo._FACTS)
    del owner
    gc.collect()
    assert len(memo._FACTS) == before - 1


def test_an_owner_that_cannot_be_weakly_referenced_is_computed_each_time():
    calls = []
    for _ in range(2):
        memo.once_per({"unhashable": 1}, "fact", lambda: calls.append(1))
    assert len(calls) == 2


def test_a_special_token_added_is_seen_by_the_next_capture():
    tokenizer = byte_level_tokenizer()
    before = special_ids(tokenizer)
    assert special_ids(tokenizer) is before  # read once while nothing changed
    tokenizer.add_special_tokens({"additional_special_tokens": ["<extra>"]})
    added = tokenizer.convert_tokens_to_ids("<extra>")
    assert added not in before and added in special_ids(tokenizer)
    ids = tokenizer("早上好 <extra>")["input_ids"]
    assert unknown_flags(tokenizer, ids) == [False] * len(ids)
