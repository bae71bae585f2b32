"""Refusals and exit codes no other test reached: a model path that is a file, a model folder without weights, no
texts, more targets than texts, a text that is not a string (each a typed error with its sentence in both
languages), `doctor`'s exit 1 when the device's weights differ, and exit 130 when the command line is interrupted."""

from __future__ import annotations

import json
import re

import pytest

from attnviz import doctor
from attnviz.attention.capture import capture, capture_batch
from attnviz.cli import COMMANDS
from attnviz.errors import InputError, ModelLoadError
from attnviz.model.load import load_model
from tests.support.cli import run_cli

CJK = re.compile(r"[\u4e00-\u9fff]")


def assert_both_languages(error, key: str, *named: str) -> None:
    """The error carries `key`, and its English and Chinese sentences name each of `named`."""
    assert error.key == key
    english, chinese = str(error), error.message("zh")
    assert CJK.search(chinese) and not CJK.search(english)
    for name in named:
        assert name in english and name in chinese


def test_a_model_path_that_is_a_file_is_refused_naming_it(tmp_path):
    weights = tmp_path / "model.safetensors"
    weights.write_bytes(b"not a folder")
    with pytest.raises(ModelLoadError) as refused:
        load_model(str(weights), "cpu")
    assert_both_languages(refused.value, "model_is_file", str(weights))
    assert "config.json" in str(refused.value)


def test_a_model_folder_without_weights_is_refused_naming_it(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "bert"}), encoding="utf-8")
    with pytest.raises(ModelLoadError) as refused:
        load_model(str(tmp_path), "cpu")
    assert_both_languages(refused.value, "model_no_weights", str(tmp_path))
    assert "safetensors" in str(refused.value)


@pytest.fixture(scope="module")
def marian(tiny_folder):
    return load_model(tiny_folder("marian"), "cpu")


def test_no_texts_is_refused(marian):
    with pytest.raises(InputError) as refused:
        capture_batch(marian, [])
    assert_both_languages(refused.value, "texts_none")


def test_a_target_count_other_than_the_texts_is_refused_with_both_counts(marian):
    with pytest.raises(InputError) as refused:
        capture_batch(marian, ["早上好！", "晚上好！"], targets=["Good morning!"])
    assert_both_languages(refused.value, "targets_count", "2", "1")


@pytest.mark.parametrize("text, kind", [(5, "int"), (None, "NoneType"), (b"bytes", "bytes")])
def test_a_text_that_is_not_a_string_is_refused_naming_its_type(marian, text, kind):
    with pytest.raises(InputError) as refused:
        capture(marian, text)
    assert_both_languages(refused.value, "text_not_a_string", kind)
    if text is not None:  # no target (None) is a capture that lets the target be
        with pytest.raises(InputError) as refused:
            capture(marian, "早上好！", target=text)  # the target too, named as the target
        assert refused.value.key == "text_not_a_string" and "target" in str(refused.value)


def test_doctor_exits_1_and_says_fail_when_the_devices_weights_differ(capsys, monkeypatch):
    """A device whose weights are off by 0.3 (the capture on the device, the first of the two, perturbed here): the
    report says FAIL with the difference, and the command exits 1 (not 0, and not 2: nothing the user gave was
    wrong)."""
    real, calls = doctor.capture, []

    def off_on_the_device(handle, text, target=None):
        result = real(handle, text, target)
        calls.append(handle)
        if len(calls) == 1:
            for amap in result.maps.values():
                amap.weights[0, 0, 0, 0] += 0.3
        return result

    monkeypatch.setattr(doctor, "capture", off_on_the_device)
    code, out, _ = run_cli(capsys, "doctor", "--model", "demo-zh-en", "--device", "cpu")
    assert code == 1 and len(calls) == 2
    assert any(line.startswith("FAIL: worst 3.00e-01") for line in out.splitlines()), out


def test_an_interrupted_command_says_so_and_exits_130(capsys, monkeypatch):
    """Ctrl-C (KeyboardInterrupt) in the middle of a command: one line, exit 130 (128 + SIGINT), as shells expect."""

    def interrupted(request):
        raise KeyboardInterrupt

    monkeypatch.setitem(COMMANDS, "capture", interrupted)
    code, _, err = run_cli(capsys, "capture", "--model", "demo-zh-en", "--text", "早上好！", "-o", "never.json")
    assert code == 130 and err.strip() == "attnviz: interrupted"
