"""A model larger than one device, on this machine without accelerators: a random 12-layer Qwen2 whose `max_memory`
puts half its layers on disk (accelerate's offload) captures what the same model on one device captures, bit for
bit; the capture says where each layer's weights were kept and where it ran; a `max_memory` that cannot hold the
model without an offload folder is refused."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import transformers
from accelerate.utils import offload

import attnviz
from attnviz.errors import DeviceUnavailableError, ModelLoadError
from attnviz.export import load_capture
from attnviz.model import placement
from attnviz.model.devices import device_statuses
from attnviz.model.load import load_model
from tests.support import tiny
from tests.support.cli import one_line_error, run_cli

LAYERS = 12
TEXT = "早上好！Attention lets every token look at every other token."


@pytest.fixture(scope="module")
def qwen(tmp_path_factory) -> tuple[str, int]:
    """(folder of a random 12-layer Qwen2 with grouped-query heads, its weights' bytes)."""
    folder = tmp_path_factory.mktemp("qwen12")
    torch.manual_seed(0)
    config = transformers.Qwen2Config(
        vocab_size=300,
        hidden_size=64,
        num_hidden_layers=LAYERS,
        num_attention_heads=4,
        num_key_value_heads=2,
        intermediate_size=128,
        max_position_embeddings=256,
        **tiny.COMMON,
    )
    model = transformers.Qwen2ForCausalLM(config)
    model.save_pretrained(folder)
    tiny.byte_level_tokenizer(add_eos=False).save_pretrained(folder)
    return str(folder), sum(parameter.numel() * 4 for parameter in model.parameters())


def _half_on_disk(folder: str, size: int, offload_folder) -> attnviz.model.load.ModelHandle:
    return load_model(
        folder, device="cpu", device_map="auto", max_memory=f"cpu={size // 2}B", offload_folder=offload_folder
    )


def test_half_the_layers_on_disk_capture_what_one_device_captures(qwen, tmp_path):
    folder, size = qwen
    placed = _half_on_disk(folder, size, tmp_path)
    on_disk = [path for path, place in placed.model.hf_device_map.items() if place == "disk" and ".layers." in path]
    assert LAYERS // 3 <= len(on_disk) <= 2 * LAYERS // 3  # about half, as max_memory asks
    whole = load_model(folder, device="cpu")
    offloaded, reference = attnviz.capture(placed, TEXT), attnviz.capture(whole, TEXT)
    assert np.array_equal(offloaded["self"].weights, reference["self"].weights)
    assert np.array_equal(offloaded["self"].value_norms, reference["self"].value_norms)  # weights read from disk
    report = offloaded.provenance["placement"]
    assert report.keys() == set(offloaded["self"].layer_names)
    for path in report:
        layer = path.removesuffix(".self_attn")
        assert report[path] == {"placed": "disk" if layer in on_disk else "cpu", "ran": "cpu"}
    assert "placement" not in reference.provenance


def test_the_layers_on_disk_keep_no_weights_in_memory_after_captures(qwen, tmp_path):
    """What lowers the peak (benchmarks/bench_offload.py): a disk layer's weights are read for its call only. Loading
    leaves them on the meta device, and neither a capture, its value norms (which read the output projections) nor
    an on-demand capture leaves a copy on the module."""
    folder, size = qwen
    placed = _half_on_disk(folder, size, tmp_path)
    device_map = placed.model.hf_device_map
    on_disk = {
        name: parameter
        for name, parameter in placed.model.named_parameters()
        if placement.placed_on(device_map, name) == "disk"
    }
    assert any(".layers." in name for name in on_disk)
    assert all(parameter.is_meta for parameter in on_disk.values())  # loading read none of them into memory
    captured = attnviz.capture(placed, TEXT)
    assert captured["self"].value_norms is not None
    attnviz.capture_lazy(placed, TEXT).head("self", LAYERS - 1, 0)
    after = {name: parameter for name, parameter in placed.model.named_parameters() if name in on_disk}
    assert after.keys() == on_disk.keys()
    assert [name for name, parameter in after.items() if not parameter.is_meta] == []


def test_loading_reads_no_weight_from_disk(qwen, tmp_path, monkeypatch):
    """Loading checks that every disk tensor can be read back by asking for its key, not for the tensor: a tensor is
    read from disk only when a layer runs (every read goes through accelerate's `OffloadedWeightsLoader`)."""
    folder, size = qwen
    reads = []
    read = offload.OffloadedWeightsLoader.__getitem__
    monkeypatch.setattr(
        offload.OffloadedWeightsLoader, "__getitem__", lambda self, key: (reads.append(key), read(self, key))[1]
    )
    placed = _half_on_disk(folder, size, tmp_path)
    assert reads == []
    offloaded = attnviz.capture(placed, TEXT)
    assert reads  # the disk layers read their weights as they run, through the loader counted
    reference = attnviz.capture(load_model(folder, device="cpu"), TEXT)
    assert np.array_equal(offloaded["self"].weights, reference["self"].weights)


def test_on_demand_capture_and_generation_of_an_offloaded_model_match_one_device(qwen, tmp_path):
    folder, size = qwen
    placed, whole = _half_on_disk(folder, size, tmp_path), load_model(folder, device="cpu")
    lazy, lazy_whole = attnviz.capture_lazy(placed, TEXT), attnviz.capture_lazy(whole, TEXT)
    for layer in (0, LAYERS - 1):
        assert np.array_equal(lazy.head("self", layer, 3), lazy_whole.head("self", layer, 3))
    assert lazy.provenance["placement"]
    written, written_whole = (
        attnviz.generate(placed, TEXT, max_new_tokens=4),
        attnviz.generate(whole, TEXT, max_new_tokens=4),
    )
    assert written.target_text == written_whole.target_text
    assert np.array_equal(written["self"].weights, written_whole["self"].weights)


def test_a_max_memory_that_cannot_hold_the_model_without_an_offload_folder_is_refused(qwen):
    folder, size = qwen
    with pytest.raises(ModelLoadError) as refused:
        load_model(folder, device="cpu", max_memory={"cpu": size // 2})
    assert refused.value.key == "max_memory_too_small"
    assert "offload" in str(refused.value) and "卸载文件夹" in refused.value.message("zh")


def test_a_max_memory_that_holds_the_model_loads_it_on_the_cpu_alone(qwen):
    folder, size = qwen
    handle = load_model(folder, device="cpu", max_memory={"cpu": "1GiB"})
    assert set(getattr(handle.model, "hf_device_map", {"": "cpu"}).values()) == {"cpu"}  # none when on one device
    assert all(parameter.device.type == "cpu" for parameter in handle.model.parameters())
    assert np.array_equal(
        attnviz.capture(handle, TEXT)["self"].weights,
        attnviz.capture(load_model(folder, device="cpu"), TEXT)["self"].weights,
    )


# ----------------------------------------------------------------------------------------------------------------------
# The command line: --device-map, --max-memory, --offload-folder


def test_the_cli_captures_an_offloaded_model_as_it_captures_one_device(qwen, tmp_path, capsys):
    folder, size = qwen
    common = ("capture", "--model", folder, "--text", TEXT, "--device", "cpu")
    placed = ("--max-memory", f"cpu={size // 2}", "--offload-folder", str(tmp_path / "offload"))
    assert run_cli(capsys, *common, *placed, "-o", str(tmp_path / "placed.npz"))[0] == 0
    assert run_cli(capsys, *common, "-o", str(tmp_path / "whole.npz"))[0] == 0
    offloaded, whole = load_capture(tmp_path / "placed.npz"), load_capture(tmp_path / "whole.npz")
    assert np.array_equal(offloaded["self"].weights, whole["self"].weights)
    report = offloaded.provenance["placement"]
    assert {entry["placed"] for entry in report.values()} == {"cpu", "disk"}


@pytest.mark.parametrize(
    "option, value, said",
    [("--max-memory", "npu:0=lots", "'lots' (for npu:0) is not a size"), ("--device-map", "everywhere", "JSON")],
)
def test_a_bad_placement_option_is_one_line_and_exit_2(capsys, tmp_path, option, value, said):
    code, _, err = run_cli(capsys, "capture", "--model", "demo-decoder", "--text", "x", option, value, "-o", "x.json")
    assert code == 2 and said in one_line_error(err) and option in err


def test_a_placement_on_an_npu_this_machine_lacks_names_the_npu_not_the_model(capsys, tmp_path):
    """The CLI's `--max-memory npu:0=…` on a machine without an NPU: one line that names npu:0 and why, exit 2,
    before the model loads (it used to blame the model folder: "is it complete and uncorrupted?")."""
    if any(status.name == "npu" and status.available for status in device_statuses()):
        pytest.skip("this machine has an NPU")
    limits = "npu:0=1GiB,cpu=4GiB"
    args = ("--model", "demo-decoder", "--text", "x", "--max-memory", limits, "-o", str(tmp_path / "x.json"))
    code, _, err = run_cli(capsys, "capture", *args)
    said = one_line_error(err)
    assert code == 2 and "'npu:0'" in said and "torch_npu" in said and "uncorrupted" not in said
    with pytest.raises(DeviceUnavailableError) as refused:
        load_model("demo-decoder", device="cpu", device_map='{"": "npu:0"}')
    assert refused.value.key == "placement_device_unavailable" and "npu:0" in refused.value.message("zh")


@pytest.mark.parametrize(
    "name, share, key, said",
    [
        # Marian's sinusoidal positions are built with the model, not stored in its weights: not readable from disk
        ("demo-zh-en", 0.5, "offload_unreadable", "model.decoder.embed_positions.weight"),
        # the first layer on disk (here the whole model): the inputs would be sent to the meta device
        ("demo-decoder", 0.5, "offload_no_input_device", "its first layer, where the inputs go, went to disk"),
    ],
)
def test_a_placement_accelerate_cannot_run_is_refused_when_it_loads(name, share, key, said, tmp_path):
    model = load_model(name, device="cpu").model
    size = sum(parameter.numel() * parameter.element_size() for parameter in model.parameters())
    with pytest.raises(ModelLoadError) as refused:
        load_model(name, device="cpu", max_memory={"cpu": int(size * share)}, offload_folder=tmp_path)
    assert refused.value.key == key and said in str(refused.value)
    assert "max_memory" in refused.value.message("zh") and "\n" not in str(refused.value)
