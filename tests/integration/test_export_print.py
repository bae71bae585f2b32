"""Figures for papers: PDF with real Chinese text and no Type 3 fonts, SVG as outlines, print sizes and resolution,
HTML that carries its Chinese font, and provenance in every figure file's metadata."""

import base64
import io
import re
import unicodedata
import xml.etree.ElementTree as ElementTree

import numpy as np
import pytest
from fontTools.ttLib import TTFont
from PIL import Image
from pypdf import PdfReader

from attnviz import export, figures, i18n
from attnviz.errors import InputError
from attnviz.export import fontsubset, sizing
from attnviz.figures import fonts, layout
from attnviz.figures.layout import fit_alignment
from attnviz.figures.text_fit import TITLE_LINE, fit_title
from attnviz.types import AttentionMap
from tests.support import needs
from tests.support.engines import require_kaleido
from tests.support.maps import random_map, tokens_from

KANGXI_AND_RADICALS = re.compile("[\u2e80-\u2fdf]")  # what Skia's ToUnicode turns 目, 力, 齐 into
LABEL_WORDS = ["对齐", "目标", "注意力", "早上", "好", "Good", "morning"]


def _labelled_map() -> AttentionMap:
    queries = tokens_from(["对齐", "目标", "Good"], "对齐目标 Good")
    keys = tokens_from(["注意力", "早上", "好", "morning"], "注意力早上好 morning")
    rng = np.random.default_rng(3)
    weights = rng.random((1, 2, 3, 4)).astype(np.float32)
    weights /= weights.sum(-1, keepdims=True)
    return AttentionMap("cross", weights, queries, keys, ["model.decoder.layers.0.encoder_attn"])


def _labelled_figures() -> dict:
    amap = _labelled_map()
    style = figures.FigureStyle(lang="zh", model="demo-zh-en")
    return {
        "heatmap": figures.heatmap(amap, layers=0, heads=1, style=style),
        "alignment": figures.alignment(amap, layers=0, heads=0, style=style),
    }


def _pdf_text(data: bytes) -> str:
    return "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(data)).pages)


def _pdf_fonts(data: bytes) -> list[dict]:
    """Every font dictionary of every page, with its descendant (for Type 0 fonts) resolved."""
    found = []
    for page in PdfReader(io.BytesIO(data)).pages:
        for font in page["/Resources"]["/Font"].values():
            font = font.get_object()
            entry = {"subtype": font["/Subtype"], "name": font["/BaseFont"], "unicode": "/ToUnicode" in font}
            if font["/Subtype"] == "/Type0":
                descendant = font["/DescendantFonts"][0].get_object()
                entry["descendant"] = descendant["/Subtype"]
                entry["embedded"] = "/FontFile2" in descendant["/FontDescriptor"].get_object()
            found.append(entry)
    return found


# ---------------------------------------------------------------------------------------------------------------------
# PDF and SVG for print


@pytest.mark.parametrize("kind", ["heatmap", "alignment"])
@pytest.mark.parametrize("requested", ["auto", "static"])
def test_pdf_text_is_the_labels_and_every_font_is_an_embedded_truetype_cid_font(kind, requested):
    fig = _labelled_figures()[kind]
    data = export.figure_bytes(fig, "pdf", engine=requested)
    text = _pdf_text(data)
    labels = [*LABEL_WORDS, "目标", "交叉注意力", "demo-zh-en"]
    labels += [t for t in (fig.layout.xaxis.title.text, fig.layout.yaxis.title.text) if t and kind == "heatmap"]
    for label in labels:
        assert label in text, (label, text)
    assert not KANGXI_AND_RADICALS.search(text)
    for line in export.static.plain_text(fig.layout.title.text).split("\n"):  # the whole title, as written
        assert line in text, (line, text)
    fonts = _pdf_fonts(data)
    assert fonts and all(font["subtype"] == "/Type0" for font in fonts), fonts  # no /Type3, no /Type1
    assert all(font["descendant"] == "/CIDFontType2" and font["embedded"] and font["unicode"] for font in fonts)
    assert all(re.fullmatch(r"/[A-Z]{6}\+.+", font["name"]) for font in fonts)  # subsets, tagged as such
    assert any("NotoSansSC" in font["name"] for font in fonts)
    assert b"/Type3" not in data and b"/Type /Type3" not in data


def test_pdf_without_a_cjk_font_still_has_truetype_text_only(monkeypatch):
    monkeypatch.setattr(fonts, "cjk_font_path", lambda: None)
    fig = figures.heatmap(random_map(tokens_from(["Good", "morning"])))
    data = export.figure_bytes(fig, "pdf")
    assert "morning" in _pdf_text(data)
    assert all(font["subtype"] == "/Type0" and "DejaVu" in font["name"] for font in _pdf_fonts(data))


def test_pdf_subset_font_holds_only_what_the_figure_shows():
    fig = _labelled_figures()["alignment"]
    text = fontsubset.figure_text(fig)
    assert set("对齐目标注意力早上好") <= set(text)
    path = fontsubset.truetype_subset(text)
    font = TTFont(str(path))
    assert "glyf" in font and "CFF " not in font  # TrueType outlines, what pdf.fonttype 42 embeds
    covered = {chr(code) for code in font.getBestCmap()}
    assert set(text) - set(fontsubset.ALWAYS) <= covered | {"→", "≥"}  # what Noto Sans SC lacks falls back
    assert len(font.getGlyphOrder()) < 300
    assert fontsubset.truetype_subset(text) == path  # made once per text


def test_svg_keeps_text_as_outlines_with_each_label_beside_them():
    fig = _labelled_figures()["heatmap"]
    svg = export.figure_bytes(fig, "svg").decode("utf-8")  # auto: the static engine
    assert "<text" not in svg and "@font-face" not in svg  # nothing for a viewer's font to replace
    assert svg.count("<path") > 20  # the glyphs
    for word in LABEL_WORDS:
        assert f"<!-- {word} -->" in svg, word
    for lang in ("en", "zh"):  # the Download size note says what the files keep, not more
        note = i18n.t("download_scale_note", lang, scale=2, dpi=192)
        assert ("outlines" in note) if lang == "en" else ("轮廓" in note)
        assert "SVG are vector, with real text" not in note and "SVG 是矢量图，文字是真实文本" not in note


def test_auto_draws_print_formats_with_the_static_engine(monkeypatch):
    monkeypatch.delenv(export.ENGINE_ENV, raising=False)
    assert export.resolve_engine("auto", "pdf") == "static"
    assert export.resolve_engine("auto", "svg") == "static"


def test_the_png_engine_under_auto_is_still_chromium(monkeypatch):
    require_kaleido()
    monkeypatch.delenv(export.ENGINE_ENV, raising=False)
    assert export.resolve_engine("auto", "png") == "kaleido"


# ---------------------------------------------------------------------------------------------------------------------
# resolution and size


def _png(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


@pytest.mark.parametrize("preset, width_px", [("single-column", 1050), ("double-column", 2100)])
def test_print_presets_give_the_printed_width_at_300_dpi(engine, preset, width_px):
    fig = _labelled_figures()["heatmap"]
    image = _png(export.figure_bytes(fig, "png", engine=engine, preset=preset))
    width = sizing.PRESETS[preset].width_px
    added = _title_lines_added(fig, width)  # a title too wide for the column is broken, and room made for it
    # narrower than the figure, a heatmap keeps the height its rows need; wider, its proportions
    own = fig.layout.height if width < fig.layout.width else round(width * fig.layout.height / fig.layout.width)
    expected_height = (own + added * TITLE_LINE) * 300 / 96
    assert image.size[0] == width_px and abs(image.size[1] - expected_height) <= 1
    assert added == (preset == "single-column")  # this title fits 7 in, not 3.5 in
    assert (width < fig.layout.width) == (preset == "single-column")  # both cases are tried
    assert image.info["dpi"] == pytest.approx((300, 300), abs=0.1)  # a word processor places it 3.5 in wide


def test_a_preset_pdf_page_is_the_printed_width():
    fig = _labelled_figures()["alignment"]
    page = PdfReader(io.BytesIO(export.figure_bytes(fig, "pdf", preset="single-column"))).pages[0]
    assert float(page.mediabox.width) == pytest.approx(3.5 * 72, abs=0.5)
    # an alignment is laid out again for the column: the height its labels need there, and its title's lines
    height = fit_alignment(fig, 336).layout.height + _title_lines_added(fig, 336) * TITLE_LINE
    assert float(page.mediabox.height) == pytest.approx(height * 72 / 96, abs=0.5)


def _title_lines_added(fig, width: int) -> int:
    return fit_title(fig, width).layout.title.text.count("<br>") - fig.layout.title.text.count("<br>")


@pytest.mark.parametrize(
    "options, size",
    [
        (dict(scale=3), (1200, 900)),
        (dict(dpi=192), (800, 600)),
        (dict(scale=1.5), (600, 450)),
        (dict(width=200, height=100, scale=4), (800, 400)),
    ],
)
def test_png_scale_dpi_width_and_height_through_each_engine(engine, options, size):
    fig = _labelled_figures()["heatmap"]
    options = {"width": 400, "height": 300, **options}
    image = _png(export.figure_bytes(fig, "png", engine=engine, **options))
    assert image.size == size
    dpi = 96 * size[0] / options["width"]
    assert image.info["dpi"] == pytest.approx((dpi, dpi), abs=0.1)


def test_a_preset_keeps_a_given_height_and_dpi():
    fig = _labelled_figures()["heatmap"]
    size = export.resolve_size(fig, preset="single-column", height=250, dpi=150)
    assert (size.width, size.height, size.png_dpi) == (336, 250, 150)


BAD_SIZES = [
    (dict(scale=0.5), "export_scale", "from 1× to 4×"),
    (dict(scale=5), "export_scale", "from 1× to 4×"),
    (dict(scale=float("nan")), "export_scale", "from 1× to 4×"),
    (dict(scale="2"), "export_scale", "from 1× to 4×"),
    (dict(scale=True), "export_scale", "from 1× to 4×"),
    (dict(dpi=72), "export_dpi", "from 96 to 384 dpi"),
    (dict(dpi=600), "export_dpi", "from 96 to 384 dpi"),
    (dict(scale=2, dpi=192), "export_scale_and_dpi", "not both"),
    (dict(width=50), "export_width", "from 100 to 5000"),
    (dict(height=6000), "export_height", "from 100 to 5000"),
    (dict(width=300.5), "export_width", "whole number"),
    (dict(width=5000, height=5000, scale=4), "export_pixels", "more than 60000000 pixels"),
    (dict(preset="a4"), "export_preset", "single-column, double-column, slide"),
    (dict(preset="single-column", width=500), "export_preset_width", "sets the width (336 px)"),
]


@pytest.mark.parametrize("options, key, sentence", BAD_SIZES)
def test_bad_sizes_are_input_errors_that_say_what_is_accepted(options, key, sentence):
    fig = _labelled_figures()["heatmap"]
    for fmt in ("png", "pdf", "html"):
        with pytest.raises(InputError) as caught:
            export.figure_bytes(fig, fmt, engine="static", **options)
        assert caught.value.key == key and sentence in str(caught.value)
        assert i18n.has(f"error.{key}", "zh") and caught.value.message("zh") != str(caught.value)


# ---------------------------------------------------------------------------------------------------------------------
# HTML that works anywhere


def _embedded_font(page: str) -> TTFont:
    match = re.search(
        r'@font-face \{ font-family: "attnviz CJK"; src: url\(data:font/woff;base64,([A-Za-z0-9+/=]+)\)', page
    )
    assert match, "no embedded @font-face"
    return TTFont(io.BytesIO(base64.b64decode(match.group(1))))


def test_html_embeds_a_font_subset_covering_every_cjk_character_and_uses_it():
    fig = _labelled_figures()["alignment"]
    page = export.figure_bytes(fig, "html").decode("utf-8")
    font = _embedded_font(page)
    assert font.flavor == "woff"
    covered = {chr(code) for code in font.getBestCmap()}
    shown = fontsubset.figure_text(fig)
    cjk = {c for c in shown if unicodedata.name(c, "").startswith(("CJK", "FULLWIDTH"))}
    assert set("对齐目标注意力早上好") <= cjk <= covered
    assert len(font.getGlyphOrder()) < 300  # a subset, not the 31,000 glyphs
    assert '"family":"\\"attnviz CJK\\", \\"Noto Sans SC\\"' in page  # the figure's text asks for it first


def test_html_fetches_nothing():
    """Outside plotly.js (whose source mentions URLs it never loads here) the page names no address; the browser
    test below checks that nothing is requested."""
    page = export.figure_bytes(_labelled_figures()["heatmap"], "html").decode("utf-8")
    scripts = re.findall(r"<script[^>]*>(.*?)</script>", page, flags=re.DOTALL)
    markup = re.sub(r"(<script[^>]*>).*?(</script>)", r"\1\2", page, flags=re.DOTALL)
    markup = re.sub(r"data:[^)\"']*", "data:", markup)  # the inlined font's base64
    assert "<script src=" not in markup and "<link" not in markup and "@import" not in markup
    assert not re.search(r"https?:|//[a-z]", markup.replace("<!doctype html>", ""))
    figure_call = next(script for script in scripts if "Plotly.newPlot" in script and len(script) < 500_000)
    assert "http" not in figure_call
    assert all(url.startswith("data:") for url in re.findall(r"url\(([^)]*)\)", markup))


def test_html_shows_chinese_in_the_embedded_font_offline(tmp_path):
    playwright = needs.module("playwright.sync_api", "requirements-dev.txt")
    chromium = needs.chromium()
    path = export.export_figure(_labelled_figures()["heatmap"], tmp_path / "heatmap.html")
    outside = []
    with playwright.sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        try:
            page = browser.new_page()
            page.route(
                "**/*",
                lambda route: (
                    route.continue_()
                    if route.request.url.startswith(("file:", "data:"))
                    else (outside.append(route.request.url), route.abort())
                ),
            )
            page.goto(path.as_uri())
            page.wait_for_selector("g.xtick text", timeout=20_000)
            ticks = page.locator("g.xtick text").all_text_contents()
            faces = page.evaluate("document.fonts.ready.then(() => [...document.fonts].map(f => [f.family, f.status]))")
        finally:
            browser.close()
    assert ['"attnviz CJK"', "loaded"] in faces or ["attnviz CJK", "loaded"] in faces, faces
    assert ticks == ["注意力", "早上", "好", "morning"] and outside == []


# ---------------------------------------------------------------------------------------------------------------------
# provenance in every figure file

PROVENANCE = {
    "model": {"name": "demo-zh-en", "revision": None, "weights_sha256": "ab" * 32},
    "device": "npu:0",
    "dtype": "bfloat16",
    "versions": {"attnviz": "0.1.0", "transformers": "5.0.0"},
    "source_text": "早上好！<b>&amp;</b> \ud800 \ufffe",
    "target_text": "Good morning!",
    "view": {"name": "alignment", "options": {"layer": 2, "head": 0, "threshold": 0.1}},
    "exported_at": "2025-05-01T09:30:00Z",
}


@pytest.mark.parametrize("fmt", ["png", "pdf", "svg", "html"])
def test_every_figure_format_carries_the_provenance(engine, fmt):
    fig = _labelled_figures()["alignment"]
    data = export.figure_bytes(fig, fmt, engine=engine, provenance=PROVENANCE)
    assert export.read_stamp(data, fmt) == PROVENANCE
    assert export.read_stamp(export.figure_bytes(fig, fmt, engine=engine), fmt) is None


def test_provenance_sits_where_other_readers_look_for_it():
    fig = _labelled_figures()["alignment"]
    png = _png(export.figure_bytes(fig, "png", engine="static", provenance=PROVENANCE))
    assert "早上好" in png.text["attnviz:provenance"] and png.text["Software"].startswith("attnviz")
    metadata = PdfReader(io.BytesIO(export.figure_bytes(fig, "pdf", provenance=PROVENANCE))).metadata
    assert metadata.title.startswith("demo-zh-en · 交叉注意力") and metadata.creator.startswith("attnviz")
    svg = export.figure_bytes(fig, "svg", provenance=PROVENANCE).decode("utf-8")
    assert '<metadata id="attnviz-provenance">' in svg and "早上好！&lt;b&gt;&amp;amp;" in svg
    page = export.figure_bytes(fig, "html", provenance=PROVENANCE).decode("utf-8")
    assert '<meta name="attnviz-provenance" content="' in page.split("</head>")[0]


def test_the_stamped_svg_still_parses():
    svg = export.figure_bytes(random_map_figure(), "svg", provenance=PROVENANCE)
    root = ElementTree.fromstring(svg)
    assert root.find("{http://www.w3.org/2000/svg}metadata[@id='attnviz-provenance']") is not None


def random_map_figure():
    return figures.heatmap(random_map(tokens_from(["a", "b"])))


def _pair_of(count: int):
    words = [f"w{i}" for i in range(count)]
    return random_map(tokens_from(words), tokens_from(words[::-1]), layers=1, heads=1)


def test_labels_too_small_to_read_in_print_are_said_in_both_languages():
    fig = figures.alignment(_pair_of(40))  # 40 tokens a line in a 3.5 in column
    with pytest.warns(export.SmallLabels) as caught:
        export.figure_bytes(fig, "svg", engine="static", preset="single-column")
    warning = caught[0].message
    assert warning.tokens == 40 and warning.width == 336 and warning.size < export.LEGIBLE_LABEL_PX
    assert f"{warning.size:.1f} px" in warning.sentence("en") and "336 px" in warning.sentence("en")
    assert "无法辨认" in warning.sentence("zh")
    said = export.small_labels(fig, preset="single-column")  # what a page says before the file is made
    assert (said.size, said.tokens, said.width) == (warning.size, warning.tokens, warning.width)


def test_labels_that_can_be_read_are_not_warned_of(recwarn):
    export.figure_bytes(figures.alignment(_pair_of(6)), "svg", engine="static", preset="single-column")
    export.figure_bytes(figures.alignment(_pair_of(24)), "svg", engine="static", preset="double-column")
    assert not [w for w in recwarn if issubclass(w.category, export.SmallLabels)]


LONG_PAIR = (  # a 14-word sentence and its 13-word translation: what a teacher types
    "My grandfather and my grandmother walk in the park every morning after breakfast together".split(),
    "我的 爷爷 和 奶奶 每天 早上 吃完 早饭 以后 一起 在 公园 散步".split(),
)


def _label_sizes_pt(pdf: bytes, labels: set[str]) -> dict[str, float]:
    """The printed size (pt) of every text run of the PDF's first page that is one of `labels`."""
    sizes: dict[str, float] = {}

    def visit(text, cm, tm, font, size):
        if text.strip() in labels:
            scale = np.hypot(tm[0], tm[1]) * np.hypot(cm[0], cm[1])
            sizes[text.strip()] = min(sizes.get(text.strip(), np.inf), size * scale)

    PdfReader(io.BytesIO(pdf)).pages[0].extract_text(visitor_text=visit)
    return sizes


def test_a_long_pairs_one_column_pdf_stands_every_label_at_the_stated_minimum_or_larger():
    """One column of print (3.5 in): a 14-word pair's token labels print at 6 pt (PRINT_TICK_FLOOR px) or more, and
    the figure's side margins hold what they show, not blank room (they were 130 px of 336 with 5.3 pt labels)."""

    source, target = LONG_PAIR
    fig = figures.alignment(random_map(tokens_from(target), tokens_from(source), layers=1, heads=1))
    pdf = export.figure_bytes(fig, "pdf", engine="static", preset="single-column")
    sizes = _label_sizes_pt(pdf, {*source, *target})
    assert set(sizes) == {*source, *target}  # every token labelled
    floor_pt = layout.PRINT_TICK_FLOOR * 72 / 96
    assert min(sizes.values()) >= floor_pt, sorted(sizes.items(), key=lambda item: item[1])[:3]
    fitted = fit_alignment(fig, sizing.PRESETS["single-column"].width_px)
    margin = fitted.layout.margin
    assert margin.l + margin.r <= 0.2 * fitted.layout.width  # the plot takes at least 80% of the column
    assert export.small_labels(fig, preset="single-column") is None  # nothing to warn of
