"""Head effects (attnviz.measures.head_effects, head_estimate) against an independent path: a copy of the model whose
output projection has the head's input columns h·d … (h+1)·d zeroed in its weights, run once per head on an example
built here from the tokenizer (inputs, target ids and the rows that predict them), its metric written out directly; the batched ablation against one forward per head; the model left as it was; the estimate's
rank agreement with the exact effect, computed and reported; Find a head by effect."""

import copy
from dataclasses import dataclass

import numpy as np
import pytest
import torch
from scipy import stats

from attnviz.attention.capture import capture
from attnviz.errors import InputError
from attnviz.measures import head_effects as effects_module
from attnviz.measures.head_effects import ablating, ablating_sets, head_effects, head_sites, prepare_scoring
from attnviz.measures.head_estimate import head_estimate, rank_agreement, stack_agreement
from attnviz.model.load import load_model
from attnviz.view.find_head import piece_choices, rank_heads_by_effect, token_choices
from tests.support.tiny import FAMILIES, SEQ2SEQ

TEXT = "早上好！我喜欢学习。"
TARGET = "Good morning!"
# Random tiny models (weights ~ N(0, 0.02)) barely use their heads: effects of ~1e-4 would pass any 1e-5 check by
# themselves. Their attention outputs are scaled up so that every head matters at the size the tolerance tests.
SCALE = 40.0


def _target(family: str) -> str | None:
    return None if family == "bert" else TARGET


@pytest.fixture(scope="module")
def handles(tiny_folder):
    made = {}

    def handle(family: str):
        if family not in made:
            loaded = load_model(tiny_folder(family))
            scoring = prepare_scoring(loaded, TEXT, _target(family))
            with torch.no_grad():
                for sites in head_sites(loaded, scoring).values():
                    for site in sites:
                        site.projection.weight.mul_(SCALE)
            made[family] = loaded
        return made[family]

    return handle


def _zeroed_copy(model, path: str, head: int, head_dim: int):
    """A copy of `model` whose projection after module `path` has head `head`'s input columns set to 0."""
    twin = copy.deepcopy(model)
    modules = dict(twin.named_modules())
    module = modules[path]
    projection = next(
        (getattr(module, name) for name in ("o_proj", "out_proj", "o", "c_proj") if hasattr(module, name)),
        None,
    )
    if projection is None:  # BERT: attention.self's projection is attention.output.dense
        projection = modules[path.rsplit(".", 1)[0] + ".output.dense"]
    columns = slice(head * head_dim, (head + 1) * head_dim)
    with torch.no_grad():
        if type(projection).__name__ == "Conv1D":  # GPT-2 stores (in, out)
            projection.weight[columns, :] = 0.0
        else:
            projection.weight[:, columns] = 0.0
    return twin


@dataclass(frozen=True)
class Example:
    """The scored example built here from the tokenizer alone, not by `prepare_scoring` (the code under test): the
    model's inputs, the target ids scored and the logit row that predicts each (None for an encoder: cosine)."""

    inputs: dict[str, torch.Tensor]  # (1, n) each
    targets: list[int] | None
    rows: list[int] | None


def _example(handle, family: str) -> Example:
    tokenizer, as_tensor = handle.tokenizer, lambda ids: torch.tensor([ids])
    source = tokenizer(TEXT)["input_ids"]
    inputs = {"input_ids": as_tensor(source), "attention_mask": as_tensor([1] * len(source))}
    if family == "bert":
        return Example(inputs, None, None)
    if family in SEQ2SEQ:
        target = tokenizer(text_target=TARGET)["input_ids"]  # ends with </s>, the last token the decoder writes
        decoder = [handle.model.config.decoder_start_token_id, *target[:-1]]  # the start token, then the target
        inputs |= {"decoder_input_ids": as_tensor(decoder), "decoder_attention_mask": as_tensor([1] * len(decoder))}
        return Example(inputs, target, list(range(len(target))))  # teacher forcing: decoder row i writes target i
    target = tokenizer(TARGET, add_special_tokens=False)["input_ids"]
    ids = source + target
    inputs = {"input_ids": as_tensor(ids), "attention_mask": as_tensor([1] * len(ids))}
    return Example(inputs, target, list(range(len(source) - 1, len(ids) - 1)))  # row p predicts token p + 1


def _direct_metric(model, example: Example) -> np.ndarray:
    """Per target token log p (float64), or the last hidden state (n, hidden), computed plainly from one pass."""
    with torch.no_grad():
        if example.targets is None:
            return model(**example.inputs).last_hidden_state[0].double().numpy()  # (n, hidden)
        logits = model(**example.inputs, use_cache=False).logits[0].double()  # (n, vocab)
        logp = logits - torch.logsumexp(logits, dim=-1, keepdim=True)
        return np.array([float(logp[row, token]) for row, token in zip(example.rows, example.targets)])  # (T,)


def _cosine_distance(a: np.ndarray, b: np.ndarray) -> float:
    return 1.0 - float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def _independent_effect(model, example, clean, path, head, head_dim) -> tuple[float, np.ndarray]:
    ablated = _direct_metric(_zeroed_copy(model, path, head, head_dim), example)
    if example.targets is None:
        per_token = np.array([_cosine_distance(x, y) for x, y in zip(ablated, clean)])
        return _cosine_distance(ablated.mean(axis=0), clean.mean(axis=0)), per_token
    return float((ablated - clean).sum()), ablated - clean


@pytest.mark.parametrize("family", FAMILIES)
def test_ablation_equals_zeroed_weights(handles, family):
    handle = handles(family)
    effects = head_effects(handle, TEXT, _target(family))
    example = _example(handle, family)
    clean = _direct_metric(handle.model, example)
    sites = head_sites(handle, prepare_scoring(handle, TEXT, _target(family)))  # where the heads are: module paths
    expected_stacks = {"encoder", "decoder", "cross"} if family in SEQ2SEQ else {"self"}
    assert set(effects.total) == expected_stacks
    scored = len(example.targets) if example.targets is not None else example.inputs["input_ids"].shape[1]
    assert len(effects.target_tokens) == scored
    for stack, layers in sites.items():
        assert effects.total[stack].shape == (len(layers), layers[0].heads)
        assert effects.per_token[stack].shape == (len(layers), layers[0].heads, scored)
        for site in layers:
            for head in range(site.heads):
                total, per_token = _independent_effect(handle.model, example, clean, site.path, head, site.head_dim)
                assert effects.total[stack][site.layer, head] == pytest.approx(total, abs=1e-5)
                np.testing.assert_allclose(effects.per_token[stack][site.layer, head], per_token, atol=1e-5)
    largest = max(float(np.abs(total).max()) for total in effects.total.values())
    assert largest > 1e-3  # the heads matter at the size the tolerance tests
    assert effects.method == "ablation" and effects.provenance["options"]["measure"] == "head-effects"


@pytest.mark.parametrize("family", FAMILIES)
def test_batched_equals_one_forward_per_head(handles, family):
    handle = handles(family)
    batched = head_effects(handle, TEXT, _target(family))
    single = head_effects(handle, TEXT, _target(family), rows=1)
    uneven = head_effects(handle, TEXT, _target(family), rows=5)  # the last pass holds fewer rows
    heads = sum(total.size for total in batched.total.values())
    assert batched.provenance["options"]["passes"] == 1 and single.provenance["options"]["passes"] == heads
    for stack in batched.total:
        np.testing.assert_allclose(batched.total[stack], single.total[stack], atol=1e-6)
        np.testing.assert_allclose(uneven.per_token[stack], single.per_token[stack], atol=1e-6)


def _outputs(handle, scoring) -> torch.Tensor:
    with torch.no_grad():
        output = handle.model(**scoring.inputs, **scoring.options)
    return output.last_hidden_state if scoring.metric == "cosine" else output.logits


def _hooks(model) -> int:
    """Forward hooks on the model, less transformers' own output-capturing ones (installed once, on the first pass
    that asks for hidden states, and kept by design)."""
    hooks = [hook for m in model.modules() for hook in (*m._forward_pre_hooks.values(), *m._forward_hooks.values())]
    return sum(1 for hook in hooks if getattr(hook, "__module__", "") != "transformers.utils.output_capturing")


@pytest.mark.parametrize("family", ["bert", "bart"])
def test_model_left_as_it_was(handles, family):
    handle = handles(family)
    scoring = prepare_scoring(handle, TEXT, _target(family))
    before, hooks = _outputs(handle, scoring), _hooks(handle.model)
    weights = {name: value.clone() for name, value in handle.model.state_dict().items()}
    head_effects(handle, TEXT, _target(family))
    head_estimate(handle, TEXT, _target(family))
    site = next(iter(head_sites(handle, scoring).values()))[0]
    with pytest.raises(RuntimeError, match="inside"), ablating([(site, 0)]):
        raise RuntimeError("inside")  # an error in the block: the hooks still go
    assert _hooks(handle.model) == hooks
    assert all(torch.equal(weights[name], value) for name, value in handle.model.state_dict().items())
    assert all(parameter.grad is None for parameter in handle.model.parameters())
    assert torch.equal(_outputs(handle, scoring), before)


@pytest.mark.parametrize("family", FAMILIES)
def test_estimate_rank_agreement_is_computed(handles, family, record_property):
    handle = handles(family)
    exact = head_effects(handle, TEXT, _target(family))
    estimate = head_estimate(handle, TEXT, _target(family))
    assert estimate.method == "attribution-patching" and estimate.per_token is None
    assert {stack: total.shape for stack, total in estimate.total.items()} == {
        stack: total.shape for stack, total in exact.total.items()
    }
    rho = rank_agreement(exact, estimate)
    for stack, own in stack_agreement(exact, estimate).items():  # each stack's heads on their own
        expected = stats.spearmanr(exact.total[stack].ravel(), estimate.total[stack].ravel()).statistic
        assert own == pytest.approx(expected, abs=1e-12)
    record_property("spearman", rho)
    print(f"{family}: Spearman(estimate, exact) = {rho:.3f}")
    assert np.isfinite(rho) and rho > 0.3  # a first-order estimate that ranks at all


def test_estimate_first_order_equals_a_finite_difference(handles):
    """The log-prob estimate of a head is the directional derivative along its removal: equal to the exact effect
    of removing a small fraction ε of its output, divided by ε (an independent path through the weights)."""
    handle = handles("marian")
    scoring = prepare_scoring(handle, TEXT, TARGET)
    estimate = head_estimate(handle, TEXT, TARGET)
    site = head_sites(handle, scoring)["cross"][1]
    epsilon, head = 1e-3, 2
    reference, twin = copy.deepcopy(handle.model).double(), copy.deepcopy(handle.model).double()
    projection = dict(twin.named_modules())[site.path].out_proj
    example = _example(handle, "marian")
    with torch.no_grad():
        projection.weight[:, head * site.head_dim : (head + 1) * site.head_dim] *= 1 - epsilon
    shifted, clean = _direct_metric(twin, example).sum(), _direct_metric(reference, example).sum()
    derivative = float(shifted - clean) / epsilon
    assert estimate.total["cross"][1, head] == pytest.approx(derivative, rel=1e-2, abs=1e-4)


def test_find_a_head_by_effect(handles):
    """Which heads make "morning" come: the ranking reads the per-token effects, and removing the top head (through
    its weights) changes "morning"'s log-probability by the amount the ranking gives."""
    handle = handles("marian")
    effects = head_effects(handle, TEXT, TARGET)
    cross = capture(handle, TEXT, target=TARGET)
    choices = token_choices(cross, "cross", "query", words=True)
    morning = next(choice for choice in choices if choice.text.strip() == "morning")
    ranked = rank_heads_by_effect(effects.per_token, morning)
    assert len(ranked) == sum(total.size for total in effects.total.values())
    assert [match.effect for match in ranked] == sorted(match.effect for match in ranked)
    top = ranked[0]
    site = head_sites(handle, prepare_scoring(handle, TEXT, TARGET))[top.stack][top.layer]
    example = _example(handle, "marian")
    clean = _direct_metric(handle.model, example)
    ablated = _direct_metric(_zeroed_copy(handle.model, site.path, top.head, site.head_dim), example)
    change = float((ablated - clean)[morning.start : morning.stop].sum())
    assert top.effect == pytest.approx(change, abs=1e-5)
    assert [t.text for t in effects.target_tokens[morning.start : morning.stop]] == [
        t.text for t in cross["cross"].query_tokens[morning.start : morning.stop]
    ]
    pieces = piece_choices(effects.target_tokens)
    only_cross = rank_heads_by_effect(effects.per_token, pieces[0], stacks=["cross"])
    assert {match.stack for match in only_cross} == {"cross"}
    with pytest.raises(InputError) as error:
        rank_heads_by_effect(effects.per_token, piece_choices(effects.target_tokens * 2)[-1])
    assert error.value.message("zh") != str(error.value)


def test_generated_target_is_what_the_model_writes(handles):
    handle = handles("bart")
    written = head_effects(handle, TEXT, max_new_tokens=4)
    assert written.provenance["options"]["generated"] is True
    assert 1 <= len(written.target_tokens) <= 4
    assert written.per_token["cross"].shape[2] == len(written.target_tokens)


def test_unknown_output_projection_is_refused_in_both_languages(tiny_folder):
    handle = load_model(tiny_folder("llama"))
    attention = handle.model.model.layers[0].self_attn
    attention.o_proj = torch.nn.Sequential(attention.o_proj)  # same computation, a projection attnviz cannot read
    hooks = _hooks(handle.model)
    with pytest.raises(InputError) as error:
        head_effects(handle, TEXT, TARGET)
    assert error.value.key == "head_effects_no_projection"
    assert "model.layers.0.self_attn" in str(error.value) and "输出投影" in error.value.message("zh")
    assert _hooks(handle.model) == hooks


def test_encoder_only_model_takes_no_target(handles):
    with pytest.raises(InputError) as error:
        head_effects(handles("bert"), TEXT, TARGET)
    assert error.value.key == "target_side_missing"


def test_rows_per_pass_fits_the_budget(handles, monkeypatch):
    handle = handles("gpt2")
    monkeypatch.setattr(effects_module, "ROW_BUDGET_BYTES", 1)
    effects = head_effects(handle, TEXT, TARGET)
    assert effects.provenance["options"]["rows_per_pass"] == 1


@pytest.mark.parametrize("family", ["llama", "bart"])
def test_heads_removed_together_equal_their_weights_zeroed_together(handles, family):
    handle = handles(family)
    scoring = prepare_scoring(handle, TEXT, _target(family))
    sites = head_sites(handle, scoring)
    chosen = [(layers[-1], 1) for layers in sites.values()] + [(next(iter(sites.values()))[0], 0)]  # across layers
    twin = handle.model
    for site, head in chosen:
        twin = _zeroed_copy(twin, site.path, head, site.head_dim)
    with torch.no_grad():
        expected = twin(**scoring.inputs, **scoring.options)
    expected = expected.last_hidden_state if scoring.metric == "cosine" else expected.logits
    both = {name: torch.cat([value, value]) for name, value in scoring.inputs.items()}  # (2, n) each
    with torch.no_grad(), ablating_sets([chosen, []]):  # row 0: the heads removed together; row 1: the model whole
        output = handle.model(**both, **scoring.options)
    got = output.last_hidden_state if scoring.metric == "cosine" else output.logits
    torch.testing.assert_close(got[0], expected[0], atol=1e-5, rtol=0)
    torch.testing.assert_close(got[1], _outputs(handle, scoring)[0], atol=1e-5, rtol=0)
    assert not torch.allclose(got[0], got[1], atol=1e-3)  # the removed heads change the output
