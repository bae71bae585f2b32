"""Errors with message keys: every raise of an attnviz error in the library and the app passes a key whose English and
Chinese sentences exist with the same placeholders (and gets the values they need); Phrases inside a sentence follow
its language."""

from __future__ import annotations

import ast
import functools
import pickle
import re
import string
from dataclasses import dataclass
from pathlib import Path

import pytest

from attnviz import errors, i18n
from attnviz.errors import AttnvizError, InputError, Phrase, ResourceLimitError, SettingError
from training.common import messages as training_messages

REPO = Path(__file__).resolve().parents[2]
SCANNED = [
    REPO / "app.py",
    *sorted((REPO / "attnviz").rglob("*.py")),
    *sorted((REPO / "app_pages").rglob("*.py")),
    *sorted((REPO / "training").rglob("*.py")),
]
# What still raises with English sentences instead of message keys: a folder ("…/"), a module, or one function of a
# module ("module.py::function"). Each entry leaves this list when its raises are converted; the list only shrinks.
NOT_YET_CONVERTED: tuple[str, ...] = ()
ERROR_CLASSES = {name for name, cls in vars(errors).items() if isinstance(cls, type) and issubclass(cls, AttnvizError)}
KEY = re.compile(r"[a-z][a-z0-9_]*")
CJK = re.compile(r"[\u4e00-\u9fff]")
FLAG = Phrase("setting_accepts.flag")


@dataclass(frozen=True)
class Keyed:
    """One construction of an error (or a Phrase) in the source: where it is and what it passes."""

    path: str  # relative to the repository, "attnviz/maps/analysis.py"
    function: str  # the innermost function around it ("" at module level)
    line: int
    phrase: bool  # a Phrase (a part of a sentence) rather than an error
    key: ast.expr  # the first argument: a key, if the code is right
    values: frozenset[str] | None  # the keyword names passed; None when some are passed as **mapping

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}"


def _constructed(call: ast.Call) -> str | None:
    """ "error" or "phrase" for a call that builds one (a class of attnviz.errors, or `type(caught)(…)`), else None."""
    func = call.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
    if name == "Phrase":
        return "phrase"
    if name in ERROR_CLASSES:
        return "error"
    if isinstance(func, ast.Call) and isinstance(func.func, ast.Name) and func.func.id == "type":
        return "error"  # an error raised again as the type of the one caught
    return None


def _calls(tree: ast.AST, function: str = ""):
    """(innermost function name, call) for every call in `tree`."""
    for node in ast.iter_child_nodes(tree):
        inner = node.name if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) else function
        if isinstance(node, ast.Call):
            yield inner, node
        yield from _calls(node, inner)


def keyed_calls(path: Path) -> list[Keyed]:
    found = []
    for function, call in _calls(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        kind = _constructed(call)
        if kind is None or not call.args:
            continue
        values = None if any(k.arg is None for k in call.keywords) else frozenset(k.arg for k in call.keywords)
        relative = path.relative_to(REPO).as_posix()
        found.append(Keyed(relative, function, call.lineno, kind == "phrase", call.args[0], values))
    return found


def not_yet_converted(found: Keyed) -> bool:
    return any(
        found.path.startswith(entry)
        if entry.endswith("/")
        else entry in (found.path, f"{found.path}::{found.function}")
        for entry in NOT_YET_CONVERTED
    )


def placeholders(template: str) -> set[str]:
    return {re.split(r"[.\[]", name)[0] for _, name, _, _ in string.Formatter().parse(template) if name}


def catalogue_keys(found: Keyed) -> list[str] | None:
    """The catalogue keys a construction can name: its literal key, every key an f-string key can become (a Phrase's
    `f"memory.input_{what}"`), or None when the first argument is no key at all (an English sentence, a variable)."""
    prefix = "" if found.phrase else "error."
    if isinstance(found.key, ast.Constant) and isinstance(found.key.value, str):
        return [prefix + found.key.value] if KEY.fullmatch(found.key.value.replace(".", "_")) else None
    if found.phrase and isinstance(found.key, ast.JoinedStr):
        parts = [re.escape(p.value) if isinstance(p, ast.Constant) else "[^ ]+" for p in found.key.values]
        pattern = re.compile("".join(parts))
        return sorted(key for key in i18n.STRINGS["en"] if pattern.fullmatch(key))
    return None


i18n.register(training_messages)  # training/ raises keys of its own catalogue part, which the product does not ship


@functools.cache  # two parametrizations and three tests read it: parse the sources once per process
def scan() -> tuple[Keyed, ...]:
    return tuple(found for path in SCANNED for found in keyed_calls(path))


def checked() -> list[Keyed]:
    return [found for found in scan() if not not_yet_converted(found)]


def raised_keys() -> dict[str, str]:
    """Each error key raised in the checked modules, with one place that raises it."""
    return {
        found.key.value: found.where
        for found in checked()
        if not found.phrase and isinstance(found.key, ast.Constant) and isinstance(found.key.value, str)
    }


def test_the_scan_finds_the_raises():
    keys = raised_keys()
    assert {"device_unknown", "model_not_given", "over_memory_budget", "setting_in_environment"} <= set(keys)
    assert {"demo_not_pharaoh", "demo_unknown_direction", "demo_no_alignment_heads"} <= set(keys)
    assert {"index_missing", "stack_unknown", "cli_output_exists", "target_empty", "custom_models_off"} <= set(keys)
    assert "cli_input_line" in keys  # raised again as the type of the error caught
    scanned = {found.path for found in scan()}
    assert {
        "attnviz/view/selection.py",
        "attnviz/cli/options.py",
        "attnviz/run.py",
        "app_pages/shared/model_runs.py",
        "training/data/corpus.py",
    } <= scanned


def test_every_raise_in_the_converted_modules_passes_a_key():
    sentences = [found.where for found in checked() if not found.phrase and catalogue_keys(found) is None]
    assert not sentences, f"these raise a sentence or a variable, not a message key: {sentences}"


@pytest.mark.parametrize("found", checked(), ids=lambda found: found.where)
def test_every_key_is_worded_in_both_languages_with_the_values_it_is_given(found):
    keys = catalogue_keys(found)
    if keys is None:  # a Phrase of a computed key: it must name a key at run time, which the modules' tests check
        assert found.phrase, found.where
        return
    assert keys, f"{found.where}: no catalogue key matches"
    for key in keys:
        english, chinese = (i18n.STRINGS[lang].get(key) for lang in ("en", "zh"))
        assert english is not None and chinese is not None, f"{found.where}: {key} is not in both languages"
        assert placeholders(english) == placeholders(chinese), f"{key}: the languages need different values"
        if found.values is None:
            continue
        if isinstance(found.key, ast.Constant):
            assert placeholders(english) == found.values, f"{found.where}: {key} is given other values than it says"
        else:  # one call for several keys passes what each of them needs
            assert placeholders(english) <= found.values, f"{found.where}: {key} is not given all it says"


@pytest.mark.parametrize("key", sorted(raised_keys()))
def test_every_raised_key_has_a_chinese_sentence(key):
    assert CJK.search(i18n.STRINGS["zh"][f"error.{key}"]), (key, raised_keys()[key])


def test_the_list_of_modules_not_yet_converted_only_names_what_is_still_to_convert():
    unconverted = [found for found in scan() if not found.phrase and catalogue_keys(found) is None]
    for entry in NOT_YET_CONVERTED:
        path, _, function = entry.partition("::")
        if not (REPO / path).exists() or (function and f"def {function}(" not in (REPO / path).read_text("utf-8")):
            continue  # not (or no longer) here: moved code is covered where it went
        matches = [
            found
            for found in unconverted
            if (found.path.startswith(path) if path.endswith("/") else found.path == path)
            and (not function or found.function == function)
        ]
        assert matches, f"{entry} raises only keyed errors now: take it off NOT_YET_CONVERTED"


def test_phrases_are_said_in_the_sentence_language():
    error = ResourceLimitError(
        "over_memory_budget",
        what=Phrase("memory.capturing", tokens=8192, model="m", mode="full"),
        needed="9 GiB",
        budget="4.0 GiB",
        advice=Phrase("memory.advice_lazy"),
        variable="ATTNVIZ_MEMORY_BUDGET_MB",
    )
    assert (
        str(error)
        == error.message("en")
        == (
            "Capturing 8,192 tokens with m (full mode) needs about 9 GiB of memory, above the budget of 4.0 GiB; use "
            "fewer tokens, or raise the budget with the environment variable ATTNVIZ_MEMORY_BUDGET_MB (megabytes)."
        )
    )
    chinese = error.message("zh")
    assert "8,192 个词元" in chinese and "请减少词元" in chinese and "Capturing" not in chinese
    assert Phrase("not.in.the.catalogue").text("zh") == "not.in.the.catalogue"  # transitional, like error keys


def test_a_plain_string_value_is_said_as_it_is():
    error = ResourceLimitError(
        "over_memory_budget",
        what="Opening 2 heads",
        needed="1 GiB",
        budget="2 MiB",
        advice="open fewer heads",
        variable="ATTNVIZ_MEMORY_BUDGET_MB",
    )
    assert str(error).startswith("Opening 2 heads needs about 1 GiB") and "open fewer heads" in error.message("zh")


def test_keyed_errors_pickle_by_key_and_values():
    error = SettingError("setting_in_environment", variable="ATTNVIZ_X", value="y", accepts=FLAG)
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is SettingError and copy.key == error.key and copy.message("zh") == error.message("zh")
    assert str(copy) == str(error)


def test_a_setting_error_has_a_heading_of_its_own():
    error = SettingError("setting_in_environment", variable="ATTNVIZ_X", value="y", accepts=FLAG)
    assert i18n.error_sentence(error, "en").startswith("**A setting is not valid.**")
    assert i18n.error_sentence(error, "zh").startswith("**设置有误**。环境变量 ATTNVIZ_X")
    assert i18n.error_sentence(InputError("demo_unknown_language", lang="fr"), "zh") == (
        "**此输入无法使用**。未知语言 'fr'；演示模型只会 'zh' 和 'en'。"
    )
