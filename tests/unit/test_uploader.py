"""Every file uploader is made by the one function that writes Streamlit's own uploader words in the UI language."""

from pathlib import Path

from app_pages.shared import uploader
from attnviz import i18n

ROOT = Path(__file__).resolve().parents[2]


def test_every_uploader_of_the_app_is_the_helpers():
    files = [ROOT / "app.py", *sorted((ROOT / "app_pages").rglob("*.py"))]
    direct = [p.relative_to(ROOT) for p in files if "st.file_uploader(" in p.read_text(encoding="utf-8")]
    assert direct == [Path("app_pages/shared/uploader.py")]


def test_the_style_is_scoped_to_the_uploaders_key_and_writes_each_word_in_chinese():
    style = uploader.uploader_style("zh", "w_capture_upload_0", ["json", "npz"], multiple=False, limit_mb=64)
    rules = [line for line in style.splitlines() if line.strip()]
    assert all(rule.startswith(".st-key-w_capture_upload_0 ") for rule in rules)
    assert f'content: "{i18n.t("uploader_button", "zh")}"' in style
    assert '"每个文件最大 64 MB · JSON、NPZ"' in style
    assert f'"{i18n.t("uploader_drag", "zh")}"' in style
    assert '"Upload"' not in style and "per file" not in style and "Drag" not in style


def test_the_file_types_are_listed_with_the_languages_separator():
    said = {"en": '"64MB per file • JSON, NPZ"', "zh": '"每个文件最大 64 MB · JSON、NPZ"'}
    for lang, limit in said.items():
        assert limit in uploader.uploader_style(lang, "w_upload", ["json", "npz"], multiple=False, limit_mb=64)
