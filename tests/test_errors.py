"""Errors with message keys: every key the model/device layer, the settings and the demo package raise has an English
and a Chinese sentence with the same placeholders; Phrases inside a sentence follow its language."""

from __future__ import annotations

import pickle
import re
from pathlib import Path

import pytest

from attnviz import errors, i18n
from attnviz.errors import AttnvizError, InputError, Phrase, ResourceLimitError, SettingError

REPO = Path(__file__).resolve().parent.parent
KEYED_SOURCES = [
    REPO / "attnviz" / name for name in ("settings.py", "policy.py", "devices.py", "models.py", "memory.py")
] + sorted((REPO / "attnviz" / "demo").glob("*.py"))
ERROR_CLASSES = [name for name, cls in vars(errors).items() if isinstance(cls, type) and issubclass(cls, AttnvizError)]
RAISED_KEY = re.compile(rf'\b(?:{"|".join(ERROR_CLASSES)})\(\s*"([^"]+)"')
CJK = re.compile(r"[\u4e00-\u9fff]")
FLAG = Phrase("setting_accepts.flag")


def raised_keys() -> dict[str, str]:
    keys = {}
    for path in KEYED_SOURCES:
        for key in RAISED_KEY.findall(path.read_text(encoding="utf-8")):
            keys[key] = path.name
    return keys


def test_the_scan_finds_the_raises():
    keys = raised_keys()
    assert {"device_unknown", "model_not_given", "over_memory_budget", "setting_in_environment"} <= set(keys)
    assert {"demo_not_pharaoh", "demo_unknown_direction", "demo_no_alignment_heads"} <= set(keys)


@pytest.mark.parametrize("key", sorted(raised_keys()))
def test_every_raised_key_is_worded_in_both_languages(key):
    for lang in i18n.LANGUAGES:
        assert i18n.has(f"error.{key}", lang), (key, lang, raised_keys()[key])
    assert CJK.search(i18n.STRINGS["zh"][f"error.{key}"]), key


def test_no_raise_in_these_modules_passes_an_english_sentence():
    for path in KEYED_SOURCES:
        for key in RAISED_KEY.findall(path.read_text(encoding="utf-8")):
            assert re.fullmatch(r"[a-z_]+", key), f"{path.name}: {key!r} is a sentence, not a key"


def test_phrases_are_said_in_the_sentence_language():
    error = ResourceLimitError(
        "over_memory_budget", what=Phrase("memory.capturing", tokens=8192, model="m", mode="full"),
        needed="9 GiB", budget="4.0 GiB", advice=Phrase("memory.advice_lazy"), variable="ATTNVIZ_MEMORY_BUDGET_MB",
    )  # fmt: skip
    assert str(error) == error.message("en") == (
        "Capturing 8,192 tokens with m (full mode) needs about 9 GiB of memory, above the budget of 4.0 GiB; use "
        "fewer tokens, or raise the budget with the environment variable ATTNVIZ_MEMORY_BUDGET_MB (megabytes)."
    )
    chinese = error.message("zh")
    assert "8,192 个词元" in chinese and "请减少词元" in chinese and "Capturing" not in chinese
    assert Phrase("not.in.the.catalogue").text("zh") == "not.in.the.catalogue"  # transitional, like error keys


def test_a_plain_string_value_is_said_as_it_is():
    error = ResourceLimitError("over_memory_budget", what="Opening 2 heads", needed="1 GiB", budget="2 MiB",
                               advice="open fewer heads", variable="ATTNVIZ_MEMORY_BUDGET_MB")
    assert str(error).startswith("Opening 2 heads needs about 1 GiB") and "open fewer heads" in error.message("zh")


def test_keyed_errors_pickle_by_key_and_values():
    error = SettingError("setting_in_environment", variable="ATTNVIZ_X", value="y", accepts=FLAG)
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is SettingError and copy.key == error.key and copy.message("zh") == error.message("zh")
    assert str(copy) == str(error)


def test_a_setting_error_has_a_heading_of_its_own():
    error = SettingError("setting_in_environment", variable="ATTNVIZ_X", value="y", accepts=FLAG)
    assert i18n.error_sentence(error, "en").startswith("**A setting is not valid.**")
    assert i18n.error_sentence(error, "zh").startswith("**设置有误。** 环境变量 ATTNVIZ_X")
    assert i18n.error_sentence(InputError("demo_unknown_language", lang="fr"), "zh") == (
        "**此输入无法使用。** 未知语言 'fr'；演示模型只会 'zh' 和 'en'。"
    )
