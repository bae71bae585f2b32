"""The placement options as a person writes them, parsed once (`attnviz.model.placement`), and where a layer was placed."""

import pytest

from attnviz.errors import ModelLoadError
from attnviz.model import placement


def test_max_memory_text_becomes_accelerates_dict():
    parsed = placement.max_memory_of("npu:0=30GiB, npu:1=30GiB,cpu=64GiB,disk=1TB")
    assert parsed == {0: 30 * 2**30, 1: 30 * 2**30, "cpu": 64 * 2**30, "disk": 10**12}
    assert placement.max_memory_of({"cuda:1": "8GB", 0: 1024, "CPU": "2.5 KiB"}) == {1: 8 * 10**9, 0: 1024, "cpu": 2560}
    assert placement.max_memory_of("cpu=967808B") == placement.max_memory_of("cpu=967808") == {"cpu": 967808}
    assert placement.max_memory_of(None) is None


@pytest.mark.parametrize("text", ["npu:0=thirty", "gpu=30GiB", "cpu", "npu:x=1GiB", "cpu=-1"])
def test_a_max_memory_that_cannot_be_read_is_one_sentence_in_both_languages(text):
    with pytest.raises(ModelLoadError) as refused:
        placement.max_memory_of(text)
    assert refused.value.key in {"max_memory_size", "max_memory_place"}  # the memory limits, not the device map
    assert "\n" not in str(refused.value) and "memory limits" in str(refused.value)
    assert "内存上限" in refused.value.message("zh") and "size" not in refused.value.message("zh")


def test_device_map_names_json_and_dicts():
    assert placement.device_map_of("auto") == "auto" and placement.device_map_of(None) is None
    assert placement.device_map_of('{"model.layers.0": "npu:1", "": "cpu"}') == {"model.layers.0": 1, "": "cpu"}
    assert placement.device_map_of({"lm_head": "disk"}) == {"lm_head": "disk"}
    with pytest.raises(ModelLoadError) as refused:
        placement.device_map_of("everywhere")
    assert "balanced" in refused.value.message("zh") and "JSON" in refused.value.message("zh")
    with pytest.raises(ModelLoadError):
        placement.device_map_of({"lm_head": "moon"})


def test_a_layer_is_placed_by_its_longest_prefix_and_reported_with_where_it_ran():
    device_map = {"": "cpu", "model.layers.1": "disk", "model.layers.10": 0}
    assert placement.placed_on(device_map, "model.layers.1.self_attn") == "disk"
    assert placement.placed_on(device_map, "model.layers.10.self_attn") == "0"
    assert placement.placed_on(device_map, "model.layers.2.self_attn") == "cpu"
    assert placement.placed_on({"model.layers.1": 0}, "lm_head") is None
    report = placement.layer_report(device_map, {"model.layers.1.self_attn": "cpu"})
    assert report == {"model.layers.1.self_attn": {"placed": "disk", "ran": "cpu"}}
    assert placement.layer_report(None, {"x": "cpu"}) == {}
    assert placement.offloaded_to_disk(device_map) and not placement.offloaded_to_disk({"": 0})


def test_a_placement_as_written_becomes_load_models_options_checked_by_the_same_parsers():
    written = placement.Placement("balanced", " npu:0=30GiB,cpu=64GiB ", " /tmp/offload ")
    assert written.load_options() == {  # as written, once the parsers have read them: load_model parses them again
        "device_map": "balanced",
        "max_memory": "npu:0=30GiB,cpu=64GiB",
        "offload_folder": "/tmp/offload",
    }
    assert not written.on_one_device
    assert hash(written) == hash(placement.Placement("balanced", " npu:0=30GiB,cpu=64GiB ", " /tmp/offload "))  # a key
    blank = placement.Placement("", " ", "")
    assert blank.on_one_device and placement.Placement(offload_folder="/tmp/x").on_one_device  # a folder alone: unused
    assert blank.load_options() == {"device_map": None, "max_memory": None, "offload_folder": None}
    for one_device in (blank, placement.Placement(" ", None, " /tmp/x "), placement.Placement()):
        assert one_device.normalised() == placement.Placement()  # one key for one way of loading
    assert written.normalised() == placement.Placement("balanced", "npu:0=30GiB,cpu=64GiB", "/tmp/offload")
    assert written.normalised().load_options() == written.load_options()
    with pytest.raises(ModelLoadError) as refused:
        placement.Placement(max_memory="npu:0=lots").load_options()
    assert "30GiB" in str(refused.value)


def test_the_accelerators_a_placement_names_are_kept_as_written():
    named = placement.accelerators_named(
        '{"model.layers.0": "npu:1", "lm_head": 0, "": "cpu"}', "NPU:0=30GiB, cpu=1GiB"
    )
    assert named == ["npu:1", "0", "npu:0"]
    assert placement.accelerators_named("auto", {"cuda:1": "8GB", 1: 5, "disk": "1TB"}) == ["cuda:1", "1"]
    assert placement.accelerators_named(None, None) == [] and placement.accelerators_named("not json", "cpu=1") == []
    assert [placement.accelerator_of(w) for w in ("npu:1", "0", "xpu:2")] == [("npu", 1), (None, 0), ("xpu", 2)]
