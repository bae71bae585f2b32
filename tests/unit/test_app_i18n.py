"""attnviz.i18n: both languages say everything the app shows, with the same placeholders."""

from __future__ import annotations

import re
import string
from pathlib import Path

import pytest

from app_pages.how_attention_works import multi_head
from app_pages.how_attention_works import steps as explainer_steps
from app_pages.shared import navigation, state
from attnviz import i18n
from attnviz.errors import AttnvizError, DeviceUnavailableError, InputError, ModelLoadError, ResourceLimitError
from attnviz.export.sizing import PRESETS
from attnviz.maps import head_stats
from attnviz.run import MODES
from attnviz.view import viewing

REPO = Path(__file__).resolve().parents[2]
APP_SOURCES = [REPO / "app.py", *sorted((REPO / "app_pages").rglob("*.py"))]
CJK = re.compile(r"[\u4e00-\u9fff]")
SAME_IN_BOTH = {"language", "translation_line", "device_cpu", "model_custom_hint"}  # names, formulas, examples
# figure words that are symbols and placeholders only, the same in both languages
SAME_IN_BOTH |= {"hover", "token_range", "matrix_scaled", "mixture_title", "qk_fig_col_scaled", "qk_fig_col_weight"}


def placeholders(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def test_both_languages_have_the_same_keys_and_placeholders():
    english, chinese = i18n.STRINGS["en"], i18n.STRINGS["zh"]
    assert set(english) == set(chinese)
    for key in english:
        assert placeholders(english[key]) == placeholders(chinese[key]), key


def test_chinese_strings_are_chinese():
    for key, text in i18n.STRINGS["zh"].items():
        if key in SAME_IN_BOTH or key.startswith(("pair", "mh_shape_", "model_demo", "model_minilm", "formula_")):
            continue
        assert CJK.search(text) or text != i18n.STRINGS["en"][key], key


def used_keys() -> set[str]:
    """Every key the app asks for: literal t("…") calls, and the f-string families expanded over their values."""
    keys = set()
    for path in APP_SOURCES:
        keys |= set(re.findall(r'\bt\("([a-z_.\-]+)"', path.read_text(encoding="utf-8")))
    families = {
        "aggregation_{}": viewing.AGGREGATIONS,
        "device_{}": state.DEVICES,
        "mode_{}": MODES,
        "stack_{}": viewing.STACKS,
        "stat_{}": head_stats.STATISTICS,
        "stat_help_{}": head_stats.STATISTICS,
        "kind_{}": ("self", "encoder", "decoder", "cross", "encoder-decoder"),
        "step_{}_title": explainer_steps.EXPLAINER_STEPS,
        "step_{}_text": explainer_steps.EXPLAINER_STEPS,
        "formula_{}": explainer_steps.EXPLAINER_STEPS,
        "mh_shape_{}": multi_head.SHAPE_SYMBOLS,
        "open_on_{}": ("translate", "self_attention"),
        "page_{}": tuple(navigation.PAGE),
        "preset_{}": tuple(PRESETS),
        "matrix_{}_caption": ("q", "k", "v"),
        "error_{}": ("ModelLoadError", "DeviceUnavailableError", "InputError", "ResourceLimitError", "AttnvizError"),
    }
    for pattern, values in families.items():
        keys |= {pattern.format(value) for value in values}
    keys |= set(viewing.ALIGNMENT_WORD_KEYS)
    return keys


@pytest.mark.parametrize("lang", sorted(i18n.LANGUAGES))
def test_every_string_the_app_uses_exists(lang):
    missing = sorted(key for key in used_keys() if not i18n.has(key, lang))
    assert not missing


def test_the_app_pages_have_no_untranslated_sentences():
    """No English sentence is written straight into a page: every label goes through t()."""
    for path in APP_SOURCES:
        source = path.read_text(encoding="utf-8")
        for call in ("st.title(", "st.caption(", "st.header(", "st.subheader(", "st.info(", "st.warning("):
            for match in re.finditer(re.escape(call) + r'\s*"', source):
                pytest.fail(f"{path.name}: {call} with a literal string at offset {match.start()}")


def test_t_formats_falls_back_and_reads_figure_labels():
    said = i18n.t("step_focus", "en", step=2, steps=5, token="Good", keys="好 (0.8)", unit=i18n.t("unit_word", "en"))
    assert said.startswith("Word 2 of 5")  # it counts what the replay counts
    assert i18n.t("kind_cross", "zh") == "交叉注意力"  # a figure label, translated once, in attnviz.figures
    assert i18n.t("page_translate", "fr") == "Translate & align"  # unknown language reads English
    assert i18n.t("no.such.key", "zh") == "no.such.key"


@pytest.mark.parametrize(
    "error, english, chinese",
    [
        (ModelLoadError("No model folder at 'x'."), "The model could not be loaded", "模型无法加载"),
        (DeviceUnavailableError("Device 'cuda' is not available."), "That device is not available", "该设备不可用"),
        (InputError("The text is empty."), "This input cannot be used", "此输入无法使用"),
        (ResourceLimitError("Too big."), "This is over a limit", "超出限制"),
        (AttnvizError("Odd."), "This did not work", "操作未成功"),
    ],
)
def test_error_sentences_name_the_kind_of_problem_and_keep_the_detail(error, english, chinese):
    assert i18n.error_sentence(error, "en") == f"**{english}.** {error}"
    assert i18n.error_sentence(error, "zh") == f"**{chinese}**。{error}"


def test_formulas_are_latex_once_the_page_fills_them_in():
    values = {"d": 2, "scale": "1.414"}
    assert i18n.t("formula_scaled", "zh", **values) == (
        r"\tilde S = \frac{QK^\top}{\sqrt{d_k}} = \frac{S}{\sqrt{2}} = \frac{S}{1.414}"
    )
    assert i18n.t("formula_softmax", "en", **values) == (
        r"A_{ij} = \operatorname{softmax}(\tilde S_i)_j = \frac{e^{\tilde S_{ij}}}{\sum_{m} e^{\tilde S_{im}}}"
    )
