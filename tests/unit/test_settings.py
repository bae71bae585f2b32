"""attnviz.settings: every ATTNVIZ_* variable, from the environment and from .streamlit/secrets.toml, one parser per
type (the same on/off words everywhere), the environment first, and a sentence naming the variable for a bad value."""

from __future__ import annotations

import dataclasses
import os
import re
from pathlib import Path

import pytest

from attnviz import i18n, settings
from attnviz.errors import SettingError
from attnviz.model.policy import Policy

CJK = re.compile(r"[\u4e00-\u9fff]")

# setting: (environment value, the same setting in secrets.toml, expected from the environment, expected from secrets)
EXAMPLES = {
    "device": ("NPU:1", '"cuda"', "npu:1", "cuda"),
    "memory_budget_mb": ("512.5", "1024", 512.5, 1024.0),
    "max_chars": ("12", "300", 12, 300),
    "lazy_from_tokens": ("8", "256", 8, 256),
    "torch_threads": (" 4 ", "2", 4, 2),
    "allow_pickle": ("on", "true", True, True),
    "server_mode": ("YES", "true", True, True),
    "allowed_models": ("org/a, org/b,", '["org/c"]', ("org/a", "org/b"), ("org/c",)),
    "allowed_dirs": (f"/a{os.pathsep}/b", '["/m"]', ("/a", "/b"), ("/m",)),
    "max_model_mb": ("0", "50", 0.0, 50.0),
    "allow_custom_models": ("off", "false", False, False),
    "export_engine": ("Static", '"kaleido"', "static", "kaleido"),
    "cjk_font": ("~/fonts/x.otf", '"/f.ttf"', Path.home() / "fonts" / "x.otf", Path("/f.ttf")),
}

# setting: (bad environment values, bad secrets.toml values)
BAD = {
    "device": (["gpu", "npu:x", "cpu:0:1"], ["3", '"tpu"']),
    "memory_budget_mb": (["abc", "0", "-5", "nan", "inf"], ['"lots"', "true", "0"]),
    "max_chars": (["12.5", "0", "many"], ["1.5", '"x"']),
    "lazy_from_tokens": (["many", "0", "-3"], ["0"]),
    "torch_threads": (["four", "0", "-2"], ["0", "[1]"]),
    "allow_pickle": (["maybe", "2"], ["2", '"sure"']),
    "server_mode": (["enabled"], ['"y"']),
    "allowed_models": ([], ["5", "[1, 2]"]),
    "allowed_dirs": ([], ["5", "{a = 1}"]),
    "max_model_mb": (["lots", "-1"], ['"big"', "-1"]),
    "allow_custom_models": (["nope"], ["1.0"]),
    "export_engine": (["pdf"], ['"png"']),
    "cjk_font": ([], ["5"]),
}
FLAGS = [spec.name for spec in dataclasses.fields(settings.Settings) if spec.type == "bool"]


def secrets_file(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "secrets.toml"
    path.write_text("[attnviz]\n" + body + "\n", encoding="utf-8")
    return path


def test_the_examples_cover_every_setting_and_every_variable_is_documented():
    assert set(EXAMPLES) == set(BAD) == set(settings.NAMES)
    assert len(settings.NAMES) == 13
    for name in settings.NAMES:
        assert settings.variable(name) in settings.__doc__, name


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_each_setting_is_read_from_the_environment(name):
    raw, _, expected, _ = EXAMPLES[name]
    value = getattr(settings.read({settings.variable(name): raw}, secrets_file=None), name)
    assert value == expected and type(value) is type(expected)


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_each_setting_is_read_from_secrets(tmp_path, name):
    _, toml, _, expected = EXAMPLES[name]
    value = getattr(settings.read({}, secrets_file(tmp_path, f"{name} = {toml}")), name)
    assert value == expected and type(value) is type(expected)


def test_defaults_when_nothing_is_set(tmp_path):
    assert settings.read({}, secrets_file=None) == settings.Settings()
    assert settings.read({}, tmp_path / "no-such.toml") == settings.Settings()
    assert settings.read({}, secrets_file(tmp_path, "")) == settings.Settings()
    defaults = settings.Settings()
    assert (defaults.device, defaults.memory_budget_mb, defaults.max_chars, defaults.lazy_from_tokens) == (
        "auto",
        4096,
        20_000,
        1024,
    )
    assert (defaults.torch_threads, defaults.allow_pickle, defaults.server_mode, defaults.allow_custom_models) == (
        1,
        False,
        False,
        True,
    )
    assert (defaults.allowed_models, defaults.allowed_dirs, defaults.max_model_mb) == ((), (), 0)
    assert (defaults.export_engine, defaults.cjk_font) == ("auto", None)


def test_the_environment_wins_and_an_empty_variable_counts_as_unset(tmp_path):
    secrets = secrets_file(tmp_path, 'server_mode = true\nmax_chars = 300\ndevice = "cpu"')
    read = settings.read({"ATTNVIZ_SERVER_MODE": "0", "ATTNVIZ_MAX_CHARS": "  ", "ATTNVIZ_DEVICE": ""}, secrets)
    assert read.server_mode is False  # the environment's 0 beats the file's true
    assert read.max_chars == 300 and read.device == "cpu"  # blank variables leave the file's values
    assert read.torch_threads == 1  # set nowhere: the default


@pytest.mark.parametrize("name", FLAGS)
@pytest.mark.parametrize(
    "word, on",
    [(w, True) for w in ("1", "true", "True", "YES", "on", " On ")]
    + [(w, False) for w in ("0", "false", "FALSE", "no", "off", "Off")],
)
def test_every_flag_reads_the_same_words(tmp_path, name, word, on):
    assert getattr(settings.read({settings.variable(name): word}, secrets_file=None), name) is on
    assert getattr(settings.read({}, secrets_file(tmp_path, f'{name} = "{word}"')), name) is on
    assert getattr(settings.read({}, secrets_file(tmp_path, f"{name} = {str(on).lower()}")), name) is on


def test_on_means_on_for_pickle_and_server_mode_alike(monkeypatch):
    """The issue's example: ATTNVIZ_ALLOW_PICKLE=on used to be off while ATTNVIZ_SERVER_MODE=on was on."""
    monkeypatch.setenv("ATTNVIZ_ALLOW_PICKLE", "on")
    monkeypatch.setenv("ATTNVIZ_SERVER_MODE", "on")
    now = settings.current()
    assert now.allow_pickle is True and now.server_mode is True
    assert Policy.from_settings().server_mode is True


def _bad_cases():
    for name, (environment, secrets) in BAD.items():
        yield from ((name, "environment", raw) for raw in environment)
        yield from ((name, "secrets", raw) for raw in secrets)


@pytest.mark.parametrize("name, where, raw", list(_bad_cases()))
def test_a_bad_value_names_the_variable_and_what_it_accepts(tmp_path, name, where, raw):
    with pytest.raises(SettingError) as refused:
        if where == "environment":
            settings.read({settings.variable(name): raw}, secrets_file=None)
        else:
            settings.read({}, secrets_file(tmp_path, f"{name} = {raw}"))
    error = refused.value
    accepts = [spec.metadata["accepts"] for spec in dataclasses.fields(settings.Settings) if spec.name == name][0]
    english = str(error)
    assert (settings.variable(name) if where == "environment" else f"{name} = ") in english
    assert accepts.text("en") in english and english.endswith(".")
    chinese = error.message("zh")
    assert CJK.search(chinese) and accepts.text("zh") in chinese
    assert (settings.variable(name) if where == "environment" else name) in chinese


def test_every_setting_says_what_it_accepts_in_both_languages():
    for spec in dataclasses.fields(settings.Settings):
        accepts = spec.metadata["accepts"]
        assert i18n.has(accepts.key, "en") and i18n.has(accepts.key, "zh"), spec.name
        assert CJK.search(accepts.text("zh")), spec.name


@pytest.mark.parametrize(
    "body, key",
    [("sever_mode = true", "secrets_unknown_key"), ("server_mode = [", "secrets_unreadable")],
)
def test_a_secrets_file_that_cannot_be_used_is_a_sentence(tmp_path, body, key):
    with pytest.raises(SettingError) as refused:
        settings.read({}, secrets_file(tmp_path, body))
    assert refused.value.key == key and "secrets.toml" in str(refused.value)
    assert CJK.search(refused.value.message("zh"))
    not_a_table = tmp_path / "flat.toml"
    not_a_table.write_text('attnviz = "on"\n', encoding="utf-8")
    with pytest.raises(SettingError, match=r"\[attnviz\] must be a table"):
        settings.read({}, not_a_table)


def test_current_follows_the_environment_and_the_secrets_file(tmp_path, monkeypatch):
    monkeypatch.delenv("ATTNVIZ_MAX_CHARS", raising=False)
    secrets = secrets_file(tmp_path, "max_chars = 300")
    assert settings.current(secrets_file=secrets).max_chars == 300
    assert settings.current(secrets_file=secrets) is settings.current(secrets_file=secrets)  # cached while unchanged
    monkeypatch.setenv("ATTNVIZ_MAX_CHARS", "12")
    assert settings.current(secrets_file=secrets).max_chars == 12
    monkeypatch.delenv("ATTNVIZ_MAX_CHARS")
    secrets.write_text("[attnviz]\nmax_chars = 4000\n", encoding="utf-8")
    stat = secrets.stat()
    os.utime(secrets, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))  # a later edit, even within the clock's tick
    assert settings.current(secrets_file=secrets).max_chars == 4000
    assert settings.current(environ={"ATTNVIZ_MAX_CHARS": "7"}, secrets_file=secrets).max_chars == 7


def test_settings_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.Settings().server_mode = True


def test_the_default_secrets_file_is_streamlits(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ATTNVIZ_SERVER_MODE", raising=False)
    (tmp_path / ".streamlit").mkdir()
    (tmp_path / ".streamlit" / "secrets.toml").write_text("[attnviz]\nserver_mode = true\n", encoding="utf-8")
    assert settings.current().server_mode is True
