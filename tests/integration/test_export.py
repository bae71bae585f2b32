import csv
import inspect
import io
import json
import os
import shutil
import xml.etree.ElementTree as ElementTree

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
import pytest
from PIL import Image
from plotly.colors import sample_colorscale, unlabel_rgb
from pypdf import PdfReader

from attnviz import export, figures, settings
from attnviz.attention.vectors import HeadVectors
from attnviz.attention.walkthrough import sentence_walkthrough, walkthrough
from attnviz.errors import AttnvizError, InputError, SettingError
from attnviz.figures import fonts
from attnviz.figures.style import DRAWN_TRACES, UNDRAWN_LAYOUT, white_template
from attnviz.maps import analysis
from attnviz.maps.projection import project_queries_keys
from attnviz.types import AttentionCapture, AttentionMap, GenerationStep, Token
from attnviz.view.looking import seed_looking_using
from tests.support import needs
from tests.support.maps import random_map, seed_pair_map, tokens_from


def _png(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


# ---------------------------------------------------------------------------------------------------------------------
# figure files


def test_png_has_the_figure_size_and_scale(engine):
    fig = figures.heatmap(seed_pair_map())
    image = _png(export.figure_bytes(fig, "png", engine=engine))
    assert image.format == "PNG" and image.size == (fig.layout.width, fig.layout.height)
    doubled = _png(export.figure_bytes(fig, "png", engine=engine, width=300, height=200, scale=2))
    assert doubled.size == (600, 400)


def test_svg_parses_and_pdf_opens(engine):
    fig = figures.alignment(figures.seed_alignment_map(), style=figures.FigureStyle(model="demo-zh-en"))
    svg = export.figure_bytes(fig, "svg", engine=engine)
    root = ElementTree.fromstring(svg)
    assert root.tag.endswith("svg")
    pdf = PdfReader(io.BytesIO(export.figure_bytes(fig, "pdf", engine=engine)))
    assert len(pdf.pages) == 1
    box = pdf.pages[0].mediabox
    assert float(box.width) / float(box.height) == pytest.approx(fig.layout.width / fig.layout.height, rel=0.02)


def test_static_svg_carries_title_tokens_and_colour_bar_of_the_screen():
    fig = figures.heatmap(
        _cross_map(), layers=0, heads=1, log_scale=True, log_floor=1e-3, style=figures.FigureStyle(model="demo-en-zh")
    )
    svg = export.figure_bytes(fig, "svg", engine="static").decode("utf-8")
    # Static SVG draws text as outlines and keeps each string in a comment next to it.
    for text in [
        "demo-en-zh · cross-attention · layer 0 · head 1",
        "早上",
        "好",
        "Good",
        "morning",
        "Weight",
        "1.0e-03",
        "0.10",
        "log scale",
        "Key",
        "Query",
    ]:
        assert f"<!-- {text} -->" in svg, text


def _cross_map() -> AttentionMap:
    queries = tokens_from(["早上", "好"], "早上好")
    keys = tokens_from(["Good", "morning"], "Good morning")
    weights = np.array([[0.38, 0.62], [0.9, 0.1]], dtype=np.float32)
    return AttentionMap("cross", np.broadcast_to(weights, (1, 2, 2, 2)).copy(), queries, keys, ["decoder.0.cross"])


def test_exported_heatmap_uses_the_screen_colour_scale(engine):
    values = np.array([[0.0, 1 / 3], [2 / 3, 1.0]], dtype=np.float32)
    tokens = tokens_from(["a", "b"])
    fig = figures.heatmap(AttentionMap("self", values[None, None], tokens, tokens, ["l0"]), zmax=1.0)
    pixels = np.asarray(_png(export.figure_bytes(fig, "png", engine=engine)).convert("RGB"), dtype=float)
    for value in values.ravel():
        rgb = np.array(unlabel_rgb(sample_colorscale("Viridis", [float(value)])[0]))
        close = np.linalg.norm(pixels - rgb, axis=-1) < 8
        assert close.sum() > 2000, (value, close.sum())  # a whole cell of that colour


def _glyph(char: str, engine: str) -> np.ndarray:
    fig = go.Figure()
    fig.update_layout(
        width=120,
        height=120,
        margin=dict(l=0, r=0, t=0, b=0),
        xaxis=dict(visible=False),
        yaxis=dict(visible=False),
        paper_bgcolor="white",
        plot_bgcolor="white",
        font=dict(family=figures.FONT_FAMILY),
        annotations=[dict(text=char, x=0.5, y=0.5, xref="paper", yref="paper", showarrow=False, font=dict(size=72))],
    )
    gray = np.asarray(_png(export.figure_bytes(fig, "png", engine=engine)).convert("L"), dtype=float)
    return gray < 128  # ink


@pytest.mark.filterwarnings("ignore:Glyph 57344")  # the missing glyph is missing on purpose
def test_chinese_glyphs_are_real_not_missing_glyph_boxes(engine):
    zao, hao, missing = _glyph("早", engine), _glyph("好", engine), _glyph("\ue000", engine)  # U+E000: no font has it
    assert zao.sum() > 200 and hao.sum() > 200  # ink was drawn
    for a, b in ((zao, hao), (zao, missing), (hao, missing)):
        assert (a != b).sum() > 200  # each differs from the other and from whatever a missing glyph looks like


def test_static_engine_draws_chinese_with_the_packaged_font_only():
    from matplotlib import font_manager

    path = fonts.cjk_font_path()
    assert path is not None and path.name == "NotoSansSC-Regular.otf"
    family = fonts.matplotlib_families()[0]
    assert os.path.samefile(font_manager.findfont(font_manager.FontProperties(family=family)), path)


def test_a_copy_of_the_font_that_matplotlibs_cache_lists_elsewhere_does_not_answer_its_family(tmp_path):
    from matplotlib import font_manager

    path = fonts.cjk_font_path()
    stale = tmp_path / "another-environment" / path.name
    stale.parent.mkdir()
    shutil.copy(path, stale)
    fonts.forget_matplotlib_font(path)
    manager = font_manager.fontManager
    manager.addfont(str(stale))  # as a per-user font cache written from another environment lists it, first
    try:
        family = fonts.matplotlib_families()[0]
        assert os.path.samefile(font_manager.findfont(font_manager.FontProperties(family=family)), path)
    finally:
        manager.ttflist = [entry for entry in manager.ttflist if entry.fname != str(stale)]


def test_static_engine_without_a_cjk_font_says_how_to_install_one(monkeypatch):
    monkeypatch.setattr(fonts, "cjk_font_path", lambda: None)
    with pytest.raises(AttnvizError, match="pylopdf-fonts-zh-cn"):
        export.figure_bytes(figures.heatmap(seed_pair_map()), "png", engine="static")
    english = random_map(tokens_from(["Good", "morning"]))
    assert export.figure_bytes(figures.heatmap(english), "png", engine="static").startswith(b"\x89PNG")


def test_engine_choice(monkeypatch):
    monkeypatch.setenv(export.ENGINE_ENV, "static")
    assert export.resolve_engine("auto") == "static"
    monkeypatch.delenv(export.ENGINE_ENV)
    assert export.resolve_engine("auto", "svg") == "static"  # outlines: no font needed to view it
    monkeypatch.setattr(export.kaleido, "browser_path", lambda: None)
    assert export.resolve_engine("auto", "png") == "static"
    with pytest.raises(AttnvizError, match="Chromium"):
        export.resolve_engine("kaleido")
    with pytest.raises(InputError, match="Unknown export engine"):
        export.resolve_engine("gpu")
    with pytest.raises(InputError, match="png, svg, pdf, html"):
        export.figure_bytes(go.Figure(), "gif")


def test_the_engines_are_the_ones_the_setting_accepts(monkeypatch):
    assert export.ENGINES is settings.EXPORT_ENGINES and export.ENGINES == ("auto", *export.RENDERERS)
    assert export.ENGINE_ENV == "ATTNVIZ_EXPORT_ENGINE"
    monkeypatch.setenv(export.ENGINE_ENV, "gpu")
    with pytest.raises(SettingError, match="ATTNVIZ_EXPORT_ENGINE='gpu'"):
        export.resolve_engine("auto")


def test_the_cjk_font_comes_from_the_setting(monkeypatch, tmp_path):
    monkeypatch.setenv("ATTNVIZ_CJK_FONT", str(tmp_path / "none.otf"))
    with pytest.raises(SettingError, match="is not a font file") as caught:
        fonts.cjk_font_path()
    assert "ATTNVIZ_CJK_FONT" in caught.value.message("zh") and "字体文件" in caught.value.message("zh")
    own = tmp_path / "own.otf"
    own.write_bytes(b"")
    monkeypatch.setenv("ATTNVIZ_CJK_FONT", str(own))
    assert fonts.cjk_font_path() == own


def test_static_engine_refuses_trace_types_it_cannot_draw():
    with pytest.raises(AttnvizError, match="kaleido"):
        export.figure_bytes(go.Figure(go.Pie(values=[1, 2])), "png", engine="static")


def _pooled_heatmap():
    amap = random_map(tokens_from([f"t{i}" for i in range(40)]), layers=1, heads=1, causal=True)
    masked = np.where(analysis.causal_mask(amap), np.nan, amap.weights[0, 0])
    pooled = analysis.Pooled(analysis.downsample(masked, 4, 4, "max"), 4, 4, "max")
    return figures.pooled_heatmap(pooled, amap.query_tokens, amap.key_tokens, layer=0, head=0)


FIGURE_KINDS = {
    "heatmap": lambda: figures.heatmap(
        random_map(tokens_from([f"w{i}" for i in range(300)]), causal=True), max_tokens=100
    ),
    "pooled_heatmap": _pooled_heatmap,
    "alignment": lambda: figures.alignment(
        figures.seed_alignment_map(), style=figures.FigureStyle(model="demo-zh-en", lang="zh")
    ),
    "head_lines": lambda: figures.head_lines(random_map(tokens_from("a b c".split()), heads=3)),
    "grid": lambda: figures.grid(random_map(tokens_from("a b c".split()), layers=2, heads=2)),
    "statistic_grid": lambda: figures.statistic_grid(random_map(tokens_from("a b c".split()))),
    "explainer": lambda: figures.explainer(
        walkthrough(figures.SEED_Q, figures.SEED_K, figures.SEED_V), style=figures.FigureStyle(lang="zh")
    ),
    "mixture": lambda: figures.mixture(figures.SEED_MIXTURE, seed_looking_using().contributions),
    "clickable_heads": lambda: figures.clickable_heads(figures.grid(random_map(tokens_from("a b".split()), layers=2))),
    "qk_space": lambda: figures.qk_space(*_query_key_space()),
    "sentence_steps": lambda: figures.sentence_steps(_sentence_walk(), style=figures.FigureStyle(lang="zh")),
    "gold_links": lambda: _gold_links(),
    "score_grid": lambda: figures.score_grid(np.random.default_rng(0).random((2, 3))),
    "diff_heatmap": lambda: figures.diff_heatmap(
        np.array([[0.2, -0.1, 0.0], [0.0, 0.3, -0.4]]),
        ["早上", "好"],
        ["Good", "morning", "!"],
        ["both", "added"],
        ["both", "removed", "both"],
        style=figures.FigureStyle(lang="zh"),
    ),
    "effect_grid": lambda: figures.effect_grid(np.random.default_rng(0).normal(size=(2, 3)), "log-prob"),
}


def _head_vectors():
    rng = np.random.default_rng(0)
    queries, keys = tokens_from(["早上", "好", "！"]), tokens_from(["Good", "morning", "!", "</s>"], specials=("</s>",))
    q, k, v = rng.normal(size=(3, 6)), rng.normal(size=(4, 6)), rng.normal(size=(4, 6))
    return HeadVectors("cross", 1, 2, "model.decoder.layers.1.encoder_attn", queries, keys, q, k, v, 6**-0.5, None, 2)


def _query_key_space():
    head = _head_vectors()
    return project_queries_keys(head.queries, head.keys), head.query_tokens, head.key_tokens


def _sentence_walk():
    return sentence_walkthrough(_head_vectors(), 1, mask=np.zeros(4), captured=np.zeros(4))


def _gold_links():
    amap = figures.seed_alignment_map()
    verdicts = {"found": frozenset({(0, 0)}), "missed": frozenset({(1, 1)}), "extra": frozenset({(2, 2)})}
    owners = [
        [None if t.special else i for i, t in enumerate(tokens)] for tokens in (amap.key_tokens, amap.query_tokens)
    ]
    return figures.gold_links(figures.alignment(amap), amap, verdicts, *owners)


def test_every_figure_kind_is_among_those_both_engines_draw():
    """A figure function (one that takes a FigureStyle) joins FIGURE_KINDS, so that every engine is shown to draw it."""
    functions = {name: getattr(figures, name) for name in figures.__all__ if inspect.isfunction(getattr(figures, name))}
    kinds = {name for name, function in functions.items() if "style" in inspect.signature(function).parameters}
    assert kinds == set(FIGURE_KINDS)


def _svg_aspect(svg: bytes) -> float:
    root = ElementTree.fromstring(svg)
    assert root.tag.endswith("svg")
    _, _, width, height = (float(v) for v in root.attrib["viewBox"].split())
    return width / height


def _ink(image: Image.Image) -> float:
    """The share of pixels that are not the white background."""
    gray = np.asarray(image.convert("L"), dtype=float)
    return float((gray < 250).mean())


@pytest.mark.parametrize("kind", FIGURE_KINDS)
def test_every_figure_kind_renders_through_each_engine(kind, engine):
    fig = FIGURE_KINDS[kind]()
    size = (fig.layout.width, fig.layout.height)
    image = _png(export.figure_bytes(fig, "png", engine=engine))
    assert image.format == "PNG" and image.size == size
    assert _ink(image) > 0.01  # something is drawn, not a blank page
    asked = _png(export.figure_bytes(fig, "png", engine=engine, width=400, height=300, scale=2))
    assert asked.format == "PNG" and asked.size == (800, 600)
    assert _svg_aspect(export.figure_bytes(fig, "svg", engine=engine)) == pytest.approx(size[0] / size[1], rel=0.02)
    pdf = PdfReader(io.BytesIO(export.figure_bytes(fig, "pdf", engine=engine)))
    assert len(pdf.pages) == 1
    box = pdf.pages[0].mediabox
    assert float(box.width) / float(box.height) == pytest.approx(size[0] / size[1], rel=0.02)


# ---------------------------------------------------------------------------------------------------------------------
# HTML


def test_html_inlines_plotly_and_loads_nothing(tmp_path):
    fig = figures.heatmap(seed_pair_map(), style=figures.FigureStyle(model="demo-zh-en"))
    path = export.export_figure(fig, tmp_path / "map.html")
    page = path.read_text(encoding="utf-8")
    assert "<script src=" not in page and len(page) > 1_000_000  # plotly.js (~4.6 MB) is in the page
    assert '<meta charset="utf-8"' in page.lower() and "<title>demo-zh-en · cross-attention" in page


def test_html_renders_offline_in_a_browser(tmp_path):
    playwright = needs.module("playwright.sync_api", "requirements-dev.txt")
    chromium = needs.chromium()
    path = export.export_figure(figures.heatmap(seed_pair_map()), tmp_path / "map.html")
    outside = []
    with playwright.sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        try:
            page = browser.new_page()

            def block(route):
                if route.request.url.startswith("file:"):
                    route.continue_()
                else:
                    outside.append(route.request.url)
                    route.abort()

            page.route("**/*", block)
            page.goto(path.as_uri())
            page.wait_for_selector("g.xtick text", timeout=20_000)
            ticks = page.locator("g.xtick text").all_text_contents()
        finally:
            browser.close()
    assert ticks == ["早上", "好", "！", "</s>"] and outside == []


# ---------------------------------------------------------------------------------------------------------------------
# attention data


def _capture_with_steps() -> AttentionCapture:
    cross = seed_pair_map(layers=2, heads=3)
    decoder = random_map(cross.query_tokens, layers=2, heads=3, kind="decoder", causal=True)
    steps = [
        GenerationStep(
            t,
            np.random.default_rng(i).random((2, 3, i + 1), dtype=np.float32),
            np.random.default_rng(i).random((2, 3, 4), dtype=np.float32),
        )
        for i, t in enumerate(cross.query_tokens)
    ]
    meta = {"dtype": np.dtype("float32"), "seconds": np.float64(0.5), "alignment_heads": [(1, 2)]}
    maps = {"cross": cross, "decoder": decoder}
    return AttentionCapture("demo-zh-en", "cpu", maps, "早上好！", "Good Morning!", steps, meta=meta)


def _assert_same(loaded: AttentionCapture, original: AttentionCapture):
    assert (loaded.model, loaded.device, loaded.source_text, loaded.target_text) == (
        original.model,
        original.device,
        original.source_text,
        original.target_text,
    )
    assert set(loaded.maps) == set(original.maps)
    for kind, amap in original.maps.items():
        other = loaded.maps[kind]
        assert other.weights.dtype == np.float32 and np.array_equal(other.weights, amap.weights)
        assert other.query_tokens == amap.query_tokens and other.key_tokens == amap.key_tokens
        assert other.layer_names == amap.layer_names and other.causal == amap.causal and other.kind == amap.kind
    for step, original_step in zip(loaded.steps, original.steps, strict=True):
        assert step.token == original_step.token
        assert np.array_equal(step.self_weights, original_step.self_weights)
        assert np.array_equal(step.cross_weights, original_step.cross_weights)


@pytest.mark.parametrize("suffix", ["json", "npz"])
def test_capture_round_trips_to_equal_arrays(tmp_path, suffix):
    capture = _capture_with_steps()
    path = export.save_capture(capture, tmp_path / f"capture.{suffix}")
    _assert_same(export.load_capture(path), capture)


def test_json_follows_the_documented_schema(tmp_path):
    path = export.save_capture(_capture_with_steps(), tmp_path / "c.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["schema"] == "attnviz.capture" and data["version"] == 1
    cross = data["maps"]["cross"]
    assert cross["shape"] == [2, 3, 3, 4] and np.array(cross["weights"]).shape == (2, 3, 3, 4)
    assert cross["key_tokens"][0] == {"text": "早上", "start": 0, "end": 2, "special": False}
    assert cross["key_tokens"][3] == {"text": "</s>", "start": -1, "end": -1, "special": True}
    assert data["meta"] == {"dtype": "float32", "seconds": 0.5, "alignment_heads": [[1, 2]]}
    assert "早上" in path.read_text(encoding="utf-8")  # readable, not \\u-escaped


def test_a_bare_map_saves_as_a_capture_and_bad_files_are_refused(tmp_path):
    amap = seed_pair_map()
    loaded = export.load_capture(export.save_capture(amap, tmp_path / "m.json"))
    assert np.array_equal(loaded["cross"].weights, amap.weights)
    (tmp_path / "other.json").write_text('{"hello": 1}', encoding="utf-8")
    with pytest.raises(InputError, match="not an attnviz capture"):
        export.load_capture(tmp_path / "other.json")
    data = export.capture_to_dict(amap)
    data["maps"]["cross"]["shape"] = [1, 1, 1, 1]
    with pytest.raises(InputError, match="header says"):
        export.capture_from_dict(data)
    with pytest.raises(InputError, match="json, npz, csv"):
        export.save_capture(amap, tmp_path / "m.txt")


def test_csv_has_one_row_per_weight(tmp_path):
    amap = seed_pair_map(layers=2, heads=3)
    text = export.save_capture(amap, tmp_path / "m.csv").read_text(encoding="utf-8")
    lines = text.strip().split("\n")
    assert lines[0] == ",".join(export.CSV_COLUMNS) and len(lines) == 1 + amap.weights.size
    kind, layer, name, head, q, qtok, k, ktok, weight = lines[1 + 12 + 4 + 1].split(",")  # layer 0, head 1, q 1, k 1
    assert (kind, layer, head, q, qtok, k, ktok) == ("cross", "0", "1", "1", "Morning", "1", "好")
    assert np.float32(float(weight)) == amap.weights[0, 1, 1, 1]


# ---------------------------------------------------------------------------------------------------------------------
# atomic writes


def test_write_atomic_refuses_to_overwrite_and_leaves_no_temp_files(tmp_path):
    target = tmp_path / "sub" / "out.txt"
    export.write_atomic(target, "first")
    with pytest.raises(InputError, match="already exists"):
        export.write_atomic(target, "second")
    assert target.read_text() == "first"
    export.write_atomic(target, "second", overwrite=True)
    assert target.read_text() == "second" and os.listdir(target.parent) == ["out.txt"]
    with pytest.raises(InputError, match="already exists"):
        export.export_figure(go.Figure(), target.with_name("out.txt"), "png")


def test_a_failed_write_keeps_the_old_file(tmp_path, monkeypatch):
    target = tmp_path / "out.json"
    target.write_text("old")

    def broken_replace(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(export.files.os, "replace", broken_replace)
    with pytest.raises(OSError, match="disk full"):
        export.write_atomic(target, "new", overwrite=True)
    assert target.read_text() == "old" and os.listdir(tmp_path) == ["out.json"]


def test_tokens_with_specials_survive_every_format(tmp_path):
    tokens = [Token("[CLS]", -1, -1, True), Token('a,"b"', 0, 5), Token("\n", 5, 6)]
    amap = random_map(tokens)
    for suffix in ("json", "npz"):
        loaded = export.load_capture(export.save_capture(amap, tmp_path / f"t.{suffix}"))
        assert loaded["self"].key_tokens == tokens

    rows = list(csv.reader(io.StringIO(export.capture_to_csv(amap))))
    assert rows[2][7] == 'a,"b"' and rows[3][7] == "\n"


def test_a_csv_is_written_with_its_header_beside_it(tmp_path):
    amap = random_map([Token("早上", 0, 2), Token("好", 2, 3)], layers=2, heads=3)
    capture = export.as_capture(amap, model="demo-zh-en", text="早上好", provenance={"model": {"name": "demo-zh-en"}})
    saved = export.save_capture(capture, tmp_path / "w.csv")
    header = json.loads((tmp_path / "w.header.json").read_text(encoding="utf-8"))
    assert export.csv_header_path(saved) == tmp_path / "w.header.json"
    assert header["weights_file"] == "w.csv" and header["provenance"] == {"model": {"name": "demo-zh-en"}}
    assert header["source_text"] == "早上好" and header["maps"]["self"]["shape"] == [2, 3, 2, 2]
    assert [t["text"] for t in header["maps"]["self"]["key_tokens"]] == ["早上", "好"]
    assert "weights" not in header["maps"]["self"]  # those are the CSV's rows
    with pytest.raises(InputError, match="header written beside the CSV w.csv"):
        export.load_capture(tmp_path / "w.header.json")
    (tmp_path / "w.csv").unlink()
    with pytest.raises(InputError, match="w.header.json"):  # neither file is replaced without overwrite
        export.save_capture(capture, tmp_path / "w.csv")
    assert not (tmp_path / "w.csv").exists()
    export.save_capture(capture, tmp_path / "w.csv", overwrite=True)
    assert (tmp_path / "w.csv").read_text(encoding="utf-8").startswith(",".join(export.CSV_COLUMNS))


# ---------------------------------------------------------------------------------------------------------------------
# file names that say what a file holds


@pytest.mark.parametrize(
    "options, expected",
    [
        (
            dict(view="alignment", model="demo-zh-en", layer=2, head=0, text="早上好！"),
            "alignment_demo-zh-en_L2H0_早上好.png",
        ),
        (
            dict(
                view="heatmap",
                model="Helsinki-NLP/opus-mt-zh-en",
                layer=[0, 1],
                head="mean",
                text="Good morning, everyone! How are you?",
            ),
            "heatmap_opus-mt-zh-en_L0+1Hmean_Good-morning-everyone.png",
        ),
        (
            dict(view="grid", model="C:\\models\\tiny", text="早上好，今天天气很好。"),
            "grid_tiny_早上好-今天天气很好.png",
        ),
        (dict(view="lines", model="../../etc", text="a/b\\c:d*e?f"), "lines_etc_a-b-c-d.png"),
        (dict(view="heatmap", model="CON", head=1), "heatmap_CON_H1.png"),
        (dict(view="CON"), "_CON.png"),
        (dict(view="heatmap", text="👩\u200d👩\u200d👧 family 🙂"), "heatmap_👩👩👧-family-🙂.png"),
        (dict(view="heatmap", text="\u202eexe.gnp \x00\n"), "heatmap_exe-gnp.png"),
        (dict(view="", model="", text=""), "attnviz.png"),
        (dict(view="heatmap", text="！？。"), "heatmap.png"),
        (
            dict(view="heatmap", model="demo-zh-en", layer=2, text="早上好！", measure="value-zeroing"),
            "heatmap-value-zeroing_demo-zh-en_L2_早上好.png",  # the measure said, no head where there is none
        ),
        (dict(view="alignment", model="m", head="align", measure="weights"), "alignment_m_Halign.png"),
        (
            dict(
                view="compare",
                model="demo-zh-en",
                model_b="demo-zh-en",
                layer=1,
                head=2,
                text="早上好！",
                text_b="晚上好！",
            ),
            "compare_demo-zh-en_L1H2_早上好-vs-晚上好.png",  # one model named once, both texts, the head
        ),
        (
            dict(view="compare", model="demo-zh-en", model_b="demo-en-zh-cpu-bfloat16", text="早上好", text_b="晚上好"),
            "compare_demo-zh-en-vs-demo-en-zh-cpu-bfloat16_早上好-vs-晚上好.png",
        ),
    ],
)
def test_figure_filename_names_what_the_file_holds(options, expected):
    assert export.figure_filename(suffix="png", **options) == expected


def test_a_long_chinese_text_is_cut_to_its_first_characters_and_the_name_stays_short():
    text = "注意力机制" * 400
    name = export.figure_filename("alignment", "pdf", model="demo-zh-en", layer=5, head=7, text=text)
    assert name.startswith("alignment_demo-zh-en_L5H7_注意力机制注意力") and name.endswith(".pdf")
    assert len(name.removesuffix(".pdf")) <= len("alignment_demo-zh-en_L5H7_") + 24
    assert len(name.encode("utf-8")) <= export.MAX_NAME_BYTES + 4
    long_model = export.figure_filename("heatmap", "png", model="m" * 500, text="早上好")
    assert len(long_model.removesuffix(".png").encode("utf-8")) <= export.MAX_NAME_BYTES


def test_capture_filename_uses_the_model_and_the_source_text():
    capture = _capture_with_steps()
    assert export.capture_filename(capture) == "capture_demo-zh-en_早上好.json"
    assert export.capture_filename(capture, "npz") == "capture_demo-zh-en_早上好.npz"
    unnamed = AttentionCapture("", "", capture.maps, "Good morning", provenance={"model": {"name": "org/minilm"}})
    assert export.capture_filename(unnamed) == "capture_minilm_Good-morning.json"


def test_every_figure_is_drawn_in_the_white_template_cut_to_the_traces_it_has():
    white, cut = pio.templates["plotly_white"].to_plotly_json(), white_template().to_plotly_json()
    assert cut["layout"] == {key: value for key, value in white["layout"].items() if key not in UNDRAWN_LAYOUT}
    assert cut["data"] == {name: white["data"][name] for name in DRAWN_TRACES}  # the same look for these traces
    for kind, build in FIGURE_KINDS.items():
        fig = build()
        assert {trace.type for trace in fig.data} <= set(DRAWN_TRACES), kind  # a new trace type: add it to the cut
        assert fig.layout.template.to_plotly_json() == cut, kind
        assert not {key for key in UNDRAWN_LAYOUT if fig.layout[key].to_plotly_json()}, kind  # no subplot it drops
