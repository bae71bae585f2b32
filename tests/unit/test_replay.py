"""The replay without a model (attnviz.maps.replay): a map cropped to the rows written so far, causal maps kept causal,
and steps a map does not have refused."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from attnviz.errors import InputError
from attnviz.maps import replay
from attnviz.view import selection, viewing
from tests.support.maps import numbered_map, seq2seq_capture


def test_replay_crops_to_the_rows_written_so_far():
    result = seq2seq_capture()
    full = result["cross"]
    assert replay.step_count(full) == 5
    shown = replay.replay(full, 2)
    np.testing.assert_array_equal(shown.weights, full.weights[:, :, :2])
    assert [t.text for t in shown.query_tokens] == ["Good", "morn"]
    assert replay.replay(full, 0) is full and replay.replay(full, 99) is full  # 0 = all
    words = selection.prepare_map(result, "cross", hide=True, words=True)  # Good, morning, !
    assert [t.text for t in replay.replay(words, 2).query_tokens] == ["Good", "morning"]


def test_replay_keeps_a_causal_map_causal():
    amap = numbered_map("decoder", queries=5, keys=5, causal=True)
    shown = replay.replay(amap, 3)
    assert shown.causal and shown.weights.shape[2:] == (3, 3)


def test_a_step_past_the_rows_written_or_on_an_encoder_map_is_refused():
    result = seq2seq_capture()
    options = viewing.ViewOptions(kind="cross", aggregation="head", words=False, hide_special=False)
    assert selection.show(result, replace(options, step=5)).amap.weights.shape[2] == 5  # the last step: all
    with pytest.raises(InputError) as past:
        selection.show(result, replace(options, step=6))
    assert past.value.key == "step_past_end" and "1–5" in str(past.value)
    with pytest.raises(InputError, match="Step -1 is not in this map"):
        selection.show(result, replace(options, step=-1))
    with pytest.raises(InputError) as encoder:
        selection.show(result, replace(options, kind="encoder", step=2))
    assert encoder.value.key == "step_not_replayed"
    causal = numbered_map("decoder", queries=5, keys=5, causal=True)
    replay.check_step(causal, 3)  # a decoder's own map replays too
