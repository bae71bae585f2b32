"""The app's downloads (AppTest): the size chosen once in the sidebar applies to every figure on every page, files
are named after what they hold, and each figure file carries the provenance of the capture it shows."""

from __future__ import annotations

import io
import math

import plotly.graph_objects as go
import pytest
from PIL import Image

from app_pages.shared import figure_export
from attnviz import export, i18n
from attnviz.export.sizing import PRESETS, ExportSize
from attnviz.figures.text_fit import as_file
from tests.support.app import assert_page_ok, charts, downloads, open_app  # noqa: F401 - downloads: a fixture

MODEL = "demo-zh-en"


@pytest.fixture(autouse=True)
def static_engine(monkeypatch):
    """PNGs drawn without a browser, so that these tests run anywhere (the browser test draws them in Chromium)."""
    monkeypatch.setenv("ATTNVIZ_EXPORT_ENGINE", "static")


def sized(at, **size):
    """Choose the download size in the sidebar (the widgets' values) and run the page again."""
    for name, value in size.items():
        at.session_state[f"w_download_{name}"] = value
    at.run()
    assert_page_ok(at)
    return at


def own_size(spec: dict) -> tuple[int, int]:
    """The width and height (plotly px) a page's chart is exported at by default: its size as a file."""
    return ExportSize().of(as_file(go.Figure(spec), MODEL))


def png_size(data: bytes) -> tuple[int, int]:
    with Image.open(io.BytesIO(data)) as image:
        return image.size


def test_every_download_is_named_after_what_it_holds(downloads):
    at = open_app()
    assert_page_ok(at)
    names = set(downloads)
    for fmt in figure_export.FIGURE_FORMATS:
        assert (
            f"alignment_demo-zh-en_Halign_早上好.{fmt}" in names and f"heatmap_demo-zh-en_Halign_早上好.{fmt}" in names
        )
    assert {"capture_demo-zh-en_早上好.json", "capture_demo-zh-en_早上好.npz"} <= names
    at.session_state["w_cross_aggregation"] = "head"
    at.session_state["w_layer"], at.session_state["w_head"] = 1, 3
    at.run()
    assert "heatmap_demo-zh-en_L1H3_早上好.pdf" in downloads
    at.session_state["w_cross_aggregation"] = "layer"
    at.run()
    assert "alignment_demo-zh-en_L1Hmean_早上好.svg" in downloads
    at.switch_page("page_scripts/how_attention_works.py").run()
    assert "seed-alignment.png" in downloads and "seed-alignment-plotly-figure.json" in downloads  # no model, no text


def test_a_query_key_space_download_says_what_it_holds_and_where_it_came_from(downloads):
    at = open_app()
    at.switch_page("page_scripts/query_key_space.py").run()
    assert_page_ok(at)
    figure_json = [name for name in downloads if name.startswith("qk-space-plotly-figure_") and name.endswith(".json")]
    assert figure_json  # a plotly figure, named as one (it was "qk-space.json")
    saved = [name for name in downloads if name.startswith("capture_") and name.endswith(".json")]
    capture = export.read_capture_upload(downloads[saved[-1]]())  # the heatmap's block of the head shown
    assert capture.provenance["model"]["name"] == MODEL  # it was {}


def test_an_alignment_heads_file_records_no_layer_or_head_it_did_not_show(downloads):
    open_app()  # the default view: the alignment heads
    stamped = export.read_stamp(downloads["alignment_demo-zh-en_Halign_早上好.svg"](), "svg")
    options = stamped["view"]["options"]
    assert "layer" not in options and "head" not in options and "rollout_layers" not in options


def test_the_png_scale_chosen_once_applies_to_every_figure_on_every_page(downloads):
    at = sized(open_app(), scale=3)
    shown = charts(at)
    for name in ("alignment", "heatmap"):
        width, height = own_size(shown[name])
        data = downloads[f"{name}_demo-zh-en_Halign_早上好.png"]()
        assert png_size(data) == (math.ceil(3 * width), math.ceil(3 * height))
        with Image.open(io.BytesIO(data)) as image:
            assert round(image.info["dpi"][0]) == 288
        assert export.read_stamp(data, "png")["view"]["options"]["export"] == {
            "scale": 3,
            "width": None,
            "height": None,
        }
    at.switch_page("page_scripts/self_attention.py").run()
    assert_page_ok(at)
    grid = charts(at)["grid"]
    (name,) = [name for name in downloads if name.startswith("layer-head-grid_") and name.endswith(".png")]
    width, height = own_size(grid)
    assert png_size(downloads[name]()) == (3 * width, 3 * height)


def test_a_width_and_height_set_the_figure_size(downloads):
    at = sized(open_app(), scale=2, width=640, height=400)
    assert png_size(downloads["heatmap_demo-zh-en_Halign_早上好.png"]()) == (1280, 800)
    pdf = downloads["heatmap_demo-zh-en_Halign_早上好.pdf"]()
    from pypdf import PdfReader

    box = PdfReader(io.BytesIO(pdf)).pages[0].mediabox
    assert (round(float(box.width)), round(float(box.height))) == (480, 300)  # 1 px = 0.75 pt, vector at any scale
    assert at.sidebar.number_input(key="w_download_width").value == 640


def test_a_print_preset_sets_the_printed_width_and_dpi(downloads):
    at = sized(open_app(), preset="single-column")
    preset = PRESETS["single-column"]
    data = downloads["alignment_demo-zh-en_Halign_早上好.png"]()
    assert png_size(data)[0] == round(preset.width_in * preset.dpi) == 1050
    from pypdf import PdfReader

    box = PdfReader(io.BytesIO(downloads["alignment_demo-zh-en_Halign_早上好.pdf"]())).pages[0].mediabox
    assert float(box.width) == pytest.approx(preset.width_in * 72, abs=1)
    assert at.sidebar.number_input(key="w_download_width").disabled  # the preset sets it
    note = [caption.value for caption in at.sidebar.caption]
    assert i18n.t("download_preset_note", inches="3.5", dpi="300", pixels=1050) in note


def test_a_size_too_large_to_draw_is_said_and_leaves_the_data_downloads(downloads):
    at = sized(open_app(), scale=4, width=5000, height=5000)
    said = [caption.value for caption in at.caption]
    assert any("60000000 pixels" in text for text in said), said
    buttons = {button.proto.id.rsplit("-", 1)[-1]: button for button in at.get("download_button")}
    assert buttons["export_translate_heatmap_png"].proto.disabled
    assert not buttons["export_translate_heatmap_json"].proto.disabled
    sized(at, width=None, height=None, scale=1)
    assert not any("60000000 pixels" in caption.value for caption in at.caption)


@pytest.mark.parametrize("fmt", ["pdf", "svg", "html"])
def test_each_figure_file_carries_the_captures_provenance_and_the_view(downloads, fmt):
    at = sized(open_app(lang="zh"), scale=2)
    stamped = export.read_stamp(downloads[f"heatmap_demo-zh-en_Halign_早上好.{fmt}"](), fmt)
    assert stamped["model"]["name"] == MODEL and stamped["model"]["weights_sha256"]
    assert stamped["source_text"] == "早上好！" and stamped["options"]["mode"] == "generate"
    assert stamped["view"]["name"] == "heatmap"
    assert stamped["view"]["options"]["lang"] == "zh" and stamped["view"]["options"]["kind"] == "cross"
    assert stamped["exported_at"] >= stamped["captured_at"]
    assert at.sidebar.get("popover")  # the size control lives in the sidebar, on every page


def test_a_figure_file_records_the_gold_links_and_the_reverse_model_drawn_on_it(downloads):
    at = open_app(
        model=MODEL, text="早上好！", target="Good morning!", mode="pair", gold="0-0 1-1 2-2", gold_reverse="demo-en-zh"
    )
    assert_page_ok(at)
    name = next(n for n in downloads if n.startswith("alignment_") and n.endswith(".html"))
    options = export.read_stamp(downloads[name](), "html")["view"]["options"]
    assert options["gold"] == "0-0 1-1 2-2" and options["reverse_model"] == "demo-en-zh"


def test_labels_too_small_for_the_chosen_size_are_said_beside_the_downloads(downloads):
    # ~35 target tokens: more than a printed column stands readably even with its margins fitted (about 28)
    source, target = "我们明天早上去学校，下午回家吃饭，晚上一起看书。" * 2, "We go to school tomorrow morning. " * 5
    for lang, said in (("en", "too small to read"), ("zh", "无法辨认")):
        at = sized(open_app(text=source, target=target, mode="pair", lang=lang), preset="single-column")
        assert [caption.value for caption in at.caption if said in caption.value]
        at = sized(at, preset="double-column")  # twice the room: 7 in
        assert not [caption.value for caption in at.caption if said in caption.value]
    at = sized(open_app(), preset="single-column")  # 早上好！ → Good morning! fits a column
    assert not [caption.value for caption in at.caption if "too small to read" in caption.value]


@pytest.mark.parametrize("measure", ["value-zeroing", "alti"])
def test_a_contributions_maps_file_names_its_measure_and_a_layer_never_a_head(downloads, measure):
    at = open_app(measure=measure, cross_aggregation="head", layer=2, head=0)
    assert_page_ok(at)
    assert f"heatmap-{measure}_demo-zh-en_L2_早上好.png" in downloads  # what its numbers are, and its layer
    assert not any("L2H0" in name for name in downloads)  # no head: a contributions map has one map per layer


def test_a_value_norm_weighted_file_says_so_once(downloads):
    at = open_app(weighting="value-norm", cross_aggregation="head", layer=1, head=3)
    assert_page_ok(at)
    assert "heatmap-value-norm_demo-zh-en_L1H3_早上好.png" in downloads


def test_compares_file_names_both_sides_and_the_heads_without_a_literal_dot(downloads):
    at = open_app("translate", text="早上好！", text_b="晚上好！", compare_scope="head", layer=1, head=2)
    at.switch_page("page_scripts/compare.py").run()
    assert_page_ok(at)
    assert "compare_demo-zh-en_L1H2_早上好-vs-晚上好.png" in downloads
    assert not any("·" in name for name in downloads)
    assert "compare-alignment-b_demo-zh-en_L1H2_晚上好.png" in downloads  # B's alignment named by B's text
