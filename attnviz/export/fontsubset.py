"""Subsets of the CJK font holding only the characters a figure shows: TrueType outlines for PDF, WOFF for HTML.

Noto Sans SC is 8 MB with 31,000 glyphs; a figure shows a few dozen characters, so a file carries a subset of them.
- PDF (`truetype_subset`): matplotlib writes text as real text — a CID-keyed Type 0 font (CIDFontType2) with a
  ToUnicode map, so it copies, searches and passes submission checks — only from TrueType outlines (`pdf.fonttype`
  42). The packaged font has CFF (PostScript) outlines, which matplotlib could embed only as Type 3 glyph drawings.
  The subset's cubic curves become quadratic TrueType curves (cu2qu, within 1 unit of the 1000-unit em: invisible).
  Converting the whole font takes about a minute, a subset half a second, so each figure gets its own.
- HTML (`web_font`): a WOFF of the subset for a base64 `@font-face`, so the page shows Chinese on a machine with no
  CJK font and still loads nothing. WOFF compresses with zlib (the standard library); WOFF2 would need the brotli
  package for a file that is a few KB either way.
Both subsets also hold printable ASCII and the signs plotly and matplotlib write into tick labels themselves.
"""

from __future__ import annotations

import atexit
import functools
import hashlib
import html
import io
import shutil
import string
import tempfile
import threading
from collections import OrderedDict
from pathlib import Path

import numpy as np

from attnviz.figures import fonts

WEB_FAMILY = "attnviz CJK"  # the @font-face name the HTML page gives its embedded subset
NUMBER_SIGNS = "\u2212\u00d7\u00b7\u2026\u2013\u00a0"  # − × · … – and no-break space, written by number formatters
ALWAYS = "".join(sorted(set(string.printable.strip() + " " + NUMBER_SIGNS)))
_MAX_PDF_SUBSETS = 32  # registered with matplotlib at a time; older ones are dropped (each is one small file)


def figure_text(fig) -> str:
    """Every character a plotly figure may show (titles, tick and cell texts, annotations, hover templates), entities
    decoded, plus `ALWAYS`: sorted and unique, so equal figures give equal subsets."""
    chars = set(ALWAYS)

    def walk(value) -> None:
        if isinstance(value, str):
            chars.update(html.unescape(value))
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, (list, tuple)):
            for item in value:
                walk(item)
        elif isinstance(value, np.ndarray) and value.dtype.kind in "OUS":
            for item in value.ravel().tolist():
                walk(item)

    walk(fig.to_plotly_json())
    return "".join(sorted(c for c in chars if c.isprintable() and not 0xD800 <= ord(c) <= 0xDFFF))


def _subset(text: str):
    """The CJK font cut down to the glyphs of `text` (with their ligatures and positioning kept)."""
    from fontTools import subset  # fontTools loads only when a font is cut down
    from fontTools.ttLib import TTFont  # fontTools loads only when a font is cut down

    path = fonts.require_cjk_font()
    font = TTFont(str(path), fontNumber=0 if path.suffix.lower() in (".ttc", ".otc") else -1)
    options = subset.Options()
    options.notdef_outline = True  # a character the font lacks still shows as a box, not as nothing
    options.name_IDs = ["*"]
    options.name_languages = ["*"]
    subsetter = subset.Subsetter(options)
    subsetter.populate(text=text)
    subsetter.subset(font)
    return font


def _to_truetype(font) -> None:
    """Replace a font's CFF outlines with TrueType (glyf) outlines, in place; a TrueType font is left as it is."""
    if "CFF " not in font:
        return
    from fontTools.pens.cu2quPen import Cu2QuPen  # fontTools loads only when a font is cut down
    from fontTools.pens.ttGlyphPen import TTGlyphPen  # fontTools loads only when a font is cut down
    from fontTools.ttLib import newTable  # fontTools loads only when a font is cut down

    order = font.getGlyphOrder()
    glyph_set = font.getGlyphSet()
    glyphs = {}
    for name in order:
        pen = TTGlyphPen(glyph_set)
        glyph_set[name].draw(Cu2QuPen(pen, max_err=1.0, reverse_direction=True))  # CFF winds the other way
        glyphs[name] = pen.glyph()
    font["loca"] = newTable("loca")
    glyf = font["glyf"] = newTable("glyf")
    glyf.glyphOrder, glyf.glyphs = order, glyphs
    del font["CFF "]
    if "VORG" in font:  # vertical origins belong to CFF fonts
        del font["VORG"]
    glyf.compile(font)
    metrics = font["hmtx"].metrics
    for name, glyph in glyphs.items():  # TrueType wants each left side bearing equal to the outline's xMin
        metrics[name] = (metrics[name][0], glyph.xMin if glyph.numberOfContours else 0)
    maxp = font["maxp"] = newTable("maxp")
    maxp.tableVersion = 0x00010000
    maxp.maxZones = 1
    for field in (
        "maxTwilightPoints",
        "maxStorage",
        "maxFunctionDefs",
        "maxInstructionDefs",
        "maxStackElements",
        "maxSizeOfInstructions",
        "maxComponentElements",
    ):
        setattr(maxp, field, 0)  # no hinting programs, no composite glyphs
    post = font["post"]
    post.formatType, post.extraNames, post.mapping, post.glyphOrder = 2.0, [], {}, order
    font.sfntVersion = "\x00\x01\x00\x00"


def _rename(font, family: str) -> None:
    """Give the subset its own family name, so that each subset is a font of its own to matplotlib; the PostScript
    name (what a PDF lists) stays the original's."""
    for record in font["name"].names:
        if record.nameID in (1, 4, 16):
            record.string = family


class _PdfSubsets:
    """TrueType subsets as files matplotlib can load, keyed by their text; the oldest are dropped past a bound."""

    def __init__(self) -> None:
        self.folder: Path | None = None
        self.made: OrderedDict[str, Path] = OrderedDict()
        self.lock = threading.Lock()

    def path(self, text: str) -> Path:
        digest = hashlib.sha1(text.encode("utf-8")).hexdigest()[:16]
        with self.lock:
            if digest in self.made:
                self.made.move_to_end(digest)
                return self.made[digest]
            if self.folder is None:
                self.folder = Path(tempfile.mkdtemp(prefix="attnviz-font-subsets-"))
                atexit.register(shutil.rmtree, self.folder, True)
            font = _subset(text)
            _to_truetype(font)
            _rename(font, f"attnviz subset {digest}")
            target = self.folder / f"{digest}.ttf"
            font.save(str(target))
            self.made[digest] = target
            while len(self.made) > _MAX_PDF_SUBSETS:
                _, old = self.made.popitem(last=False)
                fonts.forget_matplotlib_font(old)
                old.unlink(missing_ok=True)
            return target


_PDF_SUBSETS = _PdfSubsets()


def truetype_subset(text: str) -> Path | None:
    """A TrueType font file holding the CJK font's glyphs for `text` (see the module docstring); None when no CJK
    font is installed (matplotlib then draws with DejaVu Sans, itself TrueType)."""
    if fonts.cjk_font_path() is None:
        return None
    return _PDF_SUBSETS.path(text)


@functools.lru_cache(maxsize=64)
def web_font(text: str) -> bytes | None:
    """A WOFF font holding the CJK font's glyphs for `text`, for an HTML @font-face; None when there is no CJK font."""
    if fonts.cjk_font_path() is None:
        return None
    font = _subset(text)
    _rename(font, WEB_FAMILY)
    font.flavor = "woff"
    buffer = io.BytesIO()
    font.save(buffer)
    return buffer.getvalue()
