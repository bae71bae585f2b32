"""Value norms ‖f_h(x_j)‖ (Kobayashi et al., 2020) equal a reference computed from the model's own modules: each
attention module's input, through its own value projection, then the head's slice of its own output projection."""

import inspect

import numpy as np
import pytest
import torch

from attnviz.attention.capture import capture_batch
from attnviz.attention.ondemand import capture_lazy
from attnviz.model.load import load_model
from tests.support.tiny import FAMILIES, SEQ2SEQ

TEXTS = ["早上好！Good morning!", "I like studying, 我喜欢学习 very much."]
TARGETS = ["Good morning!", "我喜欢学习。 I like it"]


def _value_states(family: str, module, x: torch.Tensor) -> torch.Tensor:
    """(b, k, kv_heads·d) value states from the module's own value projection."""
    if family == "bert":
        return module.value(x)
    if family == "gpt2":  # one fused q|k|v projection
        return module.c_attn(x).split(x.shape[-1], dim=-1)[2]
    if family == "t5":
        return module.v(x)
    return module.v_proj(x)


def _output_weight(family: str, model, path: str) -> torch.Tensor:
    """(hidden, heads·d): the module's output projection as a Linear stores it."""
    modules = dict(model.named_modules())
    module = modules[path]
    if family == "bert":
        return modules[path.rsplit(".", 1)[0] + ".output.dense"].weight
    if family == "gpt2":  # a Conv1D stores (in, out)
        return module.c_proj.weight.t()
    if family == "t5":
        return module.o.weight
    return getattr(module, "o_proj", None).weight if family == "llama" else module.out_proj.weight


def _reference(family, model, path, inputs, heads) -> np.ndarray:
    """(b, heads, k) ‖(x_j W_V + b_V)^h W_O^h‖, head by head, written out the plain way."""
    module = dict(model.named_modules())[path]
    with torch.no_grad():
        values = _value_states(family, module, inputs)  # (b, k, kv_heads·d)
        weight = _output_weight(family, model, path)  # (hidden, heads·d)
        head_dim = weight.shape[1] // heads
        kv_heads = values.shape[-1] // head_dim
        values = values.view(*values.shape[:2], kv_heads, head_dim)  # (b, k, kv_heads, d)
        norms = torch.empty((values.shape[0], heads, values.shape[1]))
        for head in range(heads):
            kv = head // (heads // kv_heads)  # grouped-query: query heads share a key/value head
            pushed = values[:, :, kv] @ weight[:, head * head_dim : (head + 1) * head_dim].t()  # (b, k, hidden)
            norms[:, head] = pushed.norm(dim=-1)
    return norms.numpy()


class KeyInputs:
    """What each attention module read its keys and values from, per call, seen by forward pre-hooks."""

    def __init__(self, model):
        self.seen: dict[str, list[torch.Tensor]] = {}
        self.hooks = [
            module.register_forward_pre_hook(self._hook(path, module), with_kwargs=True)
            for path, module in model.named_modules()
            if path
        ]

    def _hook(self, path, module):
        signature = inspect.signature(module.forward)

        def hook(_module, args, kwargs):
            try:
                bound = signature.bind_partial(*args, **kwargs).arguments
            except TypeError:
                return
            source = bound.get("key_value_states")
            source = bound.get("encoder_hidden_states") if source is None else source
            source = bound.get("hidden_states") if source is None else source
            if isinstance(source, torch.Tensor):
                self.seen.setdefault(path, []).append(source.detach().clone())

        return hook

    def remove(self):
        for hook in self.hooks:
            hook.remove()


def _check(family, handle, result_maps, seen, rows_keys):
    for kind, amap in result_maps.items():
        assert amap.value_norms is not None, kind
        assert amap.value_norms.dtype == np.float32
        assert amap.value_norms.shape == (amap.num_layers, amap.num_heads, len(amap.key_tokens))
        for layer, path in enumerate(amap.layer_names):
            inputs = seen[path][0]
            expected = _reference(family, handle.model, path, inputs, amap.num_heads)  # (b, heads, K)
            row, keys = rows_keys(kind)
            np.testing.assert_allclose(amap.value_norms[layer], expected[row][:, keys], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("family", FAMILIES)
def test_full_capture_value_norms_equal_the_models_own_projections(tiny_folder, family):
    handle = load_model(tiny_folder(family), "cpu")
    targets = TARGETS if family in SEQ2SEQ else None
    hooks = KeyInputs(handle.model)
    try:
        captures = capture_batch(handle, TEXTS, targets)  # padded: each example's keys cropped out of the batch
    finally:
        hooks.remove()
    source_mask = handle.tokenizer(TEXTS, padding=True, return_tensors="pt")["attention_mask"]
    for row, result in enumerate(captures):
        source_keys = np.flatnonzero(source_mask[row].numpy())
        target_keys = np.arange(len(result["decoder"].key_tokens)) if targets else None

        def rows_keys(kind, row=row, source_keys=source_keys, target_keys=target_keys):
            return row, target_keys if kind == "decoder" else source_keys

        _check(family, handle, result.maps, hooks.seen, rows_keys)


@pytest.mark.parametrize("family", FAMILIES)
def test_on_demand_value_norms_equal_the_models_own_projections(tiny_folder, family):
    handle = load_model(tiny_folder(family), "cpu")
    target = TARGETS[1] if family in SEQ2SEQ else None
    hooks = KeyInputs(handle.model)
    try:
        lazy = capture_lazy(handle, TEXTS[1], target)
    finally:
        hooks.remove()
    maps = {kind: lazy.map(kind) for kind in lazy.kinds}
    _check(family, handle, maps, hooks.seen, lambda kind: (0, slice(None)))
    for kind in lazy.kinds:  # a cropped map carries the norms of its own layers, heads and keys
        part = lazy.map(kind, layers=[1], heads=[2, 0], keys=(1, 3))
        np.testing.assert_array_equal(part.value_norms, maps[kind].value_norms[[1]][:, [2, 0]][:, :, 1:3])


def test_full_and_on_demand_value_norms_agree(tiny_folder):
    handle = load_model(tiny_folder("marian"), "cpu")
    full = capture_batch(handle, TEXTS[:1], TARGETS[:1])[0]
    lazy = capture_lazy(handle, TEXTS[0], TARGETS[0])
    for kind in full.kinds:
        np.testing.assert_allclose(full.value_norms(kind), lazy.value_norms(kind), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("family", ["marian", "gpt2"])
def test_generated_maps_carry_the_value_norms_of_teacher_forcing(tiny_folder, family):
    """Generation (with a KV cache) keeps each layer's value norms over every key: those of a forced run."""
    from attnviz.attention.generation import generate
    from attnviz.attention.recorder import recording

    handle = load_model(tiny_folder(family), "cpu")
    result = generate(handle, TEXTS[0], max_new_tokens=6)
    ids = handle.tokenizer(TEXTS[0], return_tensors="pt")["input_ids"]
    generated = handle.model.generate(input_ids=ids, max_new_tokens=6, do_sample=False, num_beams=1)
    forced = {"input_ids": generated[:, :-1]}
    if family in SEQ2SEQ:
        forced = {"input_ids": ids, "decoder_input_ids": generated[:, :-1]}
    with recording(handle.model) as recorder:
        handle.model(**forced)
    for kind in result.kinds:
        layers = [(name, 0) for name in result.layer_names(kind)]
        expected = recorder.value_norms(layers)[:, 0]  # (layers, heads, keys)
        np.testing.assert_allclose(result.value_norms(kind), expected, rtol=1e-5, atol=1e-5)


def test_the_demo_evaluation_weighs_its_alignment_view_as_the_app_does():
    from attnviz.attention.capture import capture
    from attnviz.maps import analysis
    from training.translator import evaluate, model_dir

    model, tokenizer = evaluate.load(model_dir("zh-en"))
    layer, head = evaluate.alignment_head(model)
    sources, targets = ["我喜欢学习。", "早上好！"], ["I like studying.", "Good morning!"]
    plain = evaluate.alignment_attention(model, tokenizer, sources, targets, layer, head)
    weighted = evaluate.alignment_attention(model, tokenizer, sources, targets, layer, head, weighting="value-norm")
    handle = load_model("demo-zh-en", "cpu")
    for source, target, matrix, expected_plain in zip(sources, targets, weighted, plain, strict=True):
        cross = capture(handle, source, target)["cross"]
        np.testing.assert_allclose(expected_plain, cross.weights[layer, head], atol=1e-6)
        np.testing.assert_allclose(matrix, analysis.value_weighted(cross).weights[layer, head], atol=1e-6)
        assert np.abs(matrix - expected_plain).max() > 1e-5  # (the trained alignment head is sharp: it moves little)


def test_the_command_line_draws_the_value_weighted_heatmap(tiny_folder, tmp_path, capsys):
    from attnviz.cli import main

    target = tmp_path / "weighted.html"
    argv = [
        "export",
        "--model",
        tiny_folder("marian"),
        "--text",
        "早上好！",
        "--target",
        "Good morning!",
        "--view",
        "heatmap",
        "--weighting",
        "value-norm",
        "-o",
        str(target),
    ]
    assert main(argv) == 0, capsys.readouterr().err
    page = target.read_text(encoding="utf-8")
    assert "weighted by value norm" in page and '"value_bar":true' in page.replace(" ", "")  # the norm bar
    with pytest.raises(SystemExit) as refused:  # argparse refuses an unknown choice itself
        main([*argv[:-2], "--weighting", "norms", "-o", str(tmp_path / "bad.html")])
    assert refused.value.code == 2 and "--weighting" in capsys.readouterr().err
