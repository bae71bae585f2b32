"""The CJK font static export draws Chinese with, found in a pip package so no system font (apt) is needed.

Noto Sans SC (SIL Open Font License) comes from the PyPI package `pylopdf-fonts-zh-cn`; the cjk_font setting
(ATTNVIZ_CJK_FONT, attnviz.settings) may point at any other .otf/.ttf/.ttc with Chinese glyphs. Two consumers:
- matplotlib (the browser-free export engine): `matplotlib_families()` registers the file and returns the family
  list to draw with (per-glyph fallback: Noto Sans SC, then DejaVu Sans for anything it lacks);
- Chromium (the kaleido engine): `chromium_environment()` returns FONTCONFIG_FILE pointing at a fonts.conf that adds
  the font's folder to the system configuration, so Chromium finds "Noto Sans SC" even on a machine without CJK fonts.
Figures measure their labels in the same font (`text_width`, through `attnviz.figures.layout`), so that they can
place them apart.
"""

from __future__ import annotations

import functools
import html
import os
import re
import tempfile
import unicodedata
from pathlib import Path
from xml.sax.saxutils import escape

from attnviz import settings
from attnviz.errors import AttnvizError, SettingError

FALLBACK_FAMILY = "DejaVu Sans"  # ships with matplotlib; covers Latin, arrows, ᵀ


def cjk_font_path() -> Path | None:
    """The CJK font file to use: the cjk_font setting if set, else the packaged Noto Sans SC; None when neither exists."""
    chosen = settings.current().cjk_font
    if chosen is not None:
        if not chosen.is_file():
            raise SettingError("cjk_font_not_a_file", path=str(chosen), variable=settings.variable("cjk_font"))
        return chosen
    try:
        import pylopdf_fonts_zh_cn  # optional package: a missing font is said, not an import failure
    except ImportError:
        return None
    path = Path(pylopdf_fonts_zh_cn.sans_path())
    return path if path.is_file() else None


def require_cjk_font() -> Path:
    """The CJK font file, or an error that says how to install one."""
    path = cjk_font_path()
    if path is None:
        raise AttnvizError("cjk_font_missing", variable=settings.variable("cjk_font"))
    return path


_REGISTERED: dict[str, str] = {}  # font file -> its family name, for the files matplotlib was given


def _register_with_matplotlib(path: str) -> str:
    from matplotlib import font_manager  # matplotlib loads only for the static export engine

    if path not in _REGISTERED:
        family = font_manager.FontProperties(fname=path).get_name()
        manager = font_manager.fontManager
        # matplotlib's font cache is per user, not per environment: it may list the same family from another
        # environment's copy of the package (or another file of that name); only this file may answer the family.
        manager.ttflist = [entry for entry in manager.ttflist if entry.name != family or entry.fname == path]
        manager.addfont(path)  # also clears findfont's cache
        _REGISTERED[path] = family
    return _REGISTERED[path]


def forget_matplotlib_font(path: str | os.PathLike) -> None:
    """Take a font file registered by `matplotlib_families` out of matplotlib's list (before the file is deleted)."""
    from matplotlib import font_manager  # matplotlib loads only for the static export engine

    path = os.fspath(path)
    if _REGISTERED.pop(path, None) is not None:
        manager = font_manager.fontManager
        manager.ttflist = [entry for entry in manager.ttflist if entry.fname != path]


def matplotlib_families(font: str | os.PathLike | None = None) -> list[str]:
    """Font families for matplotlib: the CJK font (or `font`, e.g. a subset of it; registered on first use) first,
    DejaVu Sans as fallback; DejaVu Sans alone when there is no CJK font."""
    path = font or cjk_font_path()
    if path is None:
        return [FALLBACK_FAMILY]
    return [_register_with_matplotlib(os.fspath(path)), FALLBACK_FAMILY]


@functools.cache
def _measuring_font(size: float):
    """The CJK font at `size` px for measuring text (Pillow's FreeType), or None without one."""
    path = cjk_font_path()
    if path is None:
        return None
    from PIL import ImageFont  # Pillow loads only once a label is measured

    return ImageFont.truetype(os.fspath(path), size)


_TAG = re.compile(r"<[^<>]+>")


def plain_text(text: str | None) -> str:
    """Plotly's label HTML as the plain text it draws: <br> → newline, other tags dropped, entities (&lt;) decoded."""
    if not text:
        return ""
    text = re.sub(r"<br\s*/?>", "\n", str(text), flags=re.IGNORECASE)
    return html.unescape(_TAG.sub("", text))


def text_width(text: str, size: float) -> float:
    """How many px `text` takes at font size `size` px in the font figures are drawn with (Noto Sans SC, which the
    browser and every export use); without the font, an estimate (CJK glyphs 1 em, others 0.6 em)."""
    font = _measuring_font(float(size))
    if font is not None:
        try:
            return float(font.getlength(text))
        except (RuntimeError, ValueError):  # text shaping (raqm) refuses some control characters: estimate instead
            pass
    return sum(size if unicodedata.east_asian_width(c) in "WF" else 0.6 * size for c in text)


@functools.cache
def _fonts_conf(font_dir: str, base: str | None) -> str:
    folder = Path(tempfile.mkdtemp(prefix="attnviz-fonts-"))
    includes = [base] if base else []
    includes.append("/etc/fonts/fonts.conf")
    lines = [
        '<?xml version="1.0"?>',
        '<!DOCTYPE fontconfig SYSTEM "fonts.dtd">',
        "<fontconfig>",
        *(f'  <include ignore_missing="yes">{escape(p)}</include>' for p in dict.fromkeys(includes)),
        f"  <dir>{escape(font_dir)}</dir>",
        f"  <cachedir>{escape(str(folder / 'cache'))}</cachedir>",
        "</fontconfig>",
    ]
    conf = folder / "fonts.conf"
    conf.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(conf)


def chromium_environment() -> dict[str, str]:
    """Environment entries that let a Chromium started from this process see the CJK font ({} when there is none).

    The system fonts.conf (and any FONTCONFIG_FILE already set) stay included, so nothing the system has is lost.
    """
    path = cjk_font_path()
    if path is None:
        return {}
    base = os.environ.get("FONTCONFIG_FILE")
    if base and "attnviz-fonts-" in base:  # already ours (set earlier in this process)
        return {"FONTCONFIG_FILE": base}
    return {"FONTCONFIG_FILE": _fonts_conf(str(path.parent), base)}
