"""Opening a saved capture in the app (AppTest): a JSON or NPZ file saved by attnviz opens on the Open a capture page
with its provenance, and every page then draws it as the live page draws the same input; the app's own downloads
and the command line's captures open again; every kind of bad file is refused with a sentence in the page's language,
never a traceback."""

from __future__ import annotations

import copy
import io
import json
import re
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import pytest
import tomllib
from streamlit.testing.v1 import AppTest

from app_pages.shared import figure_export, opened
from attnviz import cli, export, i18n
from attnviz.attention.capture import capture
from attnviz.errors import AttnvizError
from attnviz.figures.text_fit import as_file
from attnviz.maps import head_stats
from attnviz.model.load import load_model
from attnviz.provenance import alignment_heads_of, with_provenance
from tests.support.app import assert_page_ok, charts, downloads, one_torch_thread  # noqa: F401 - two fixtures
from tests.support.app import open_by_link as app
from tests.support.figure_reading import html_figure

pytestmark = pytest.mark.usefixtures("one_torch_thread")

REPO = Path(__file__).resolve().parents[2]
TEXT, TARGET = "早上好！", "Good morning!"
LINK = {"model": "demo-zh-en", "device": "cpu", "text": TEXT, "target": TARGET, "mode": "pair"}
CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture(scope="module")
def demo():
    """(handle, capture) of the demo translator reading the pair, with its provenance, as the app computes it."""
    handle = load_model("demo-zh-en", "cpu")
    return handle, with_provenance(capture(handle, TEXT, TARGET), handle, {"mode": "pair", "max_new_tokens": None})


@pytest.fixture(scope="module")
def saved(demo, tmp_path_factory) -> dict[str, bytes]:
    """The demo capture's files, as `save_capture` writes them: {"json": bytes, "npz": bytes}."""
    folder = tmp_path_factory.mktemp("saved")
    return {fmt: export.save_capture(demo[1], folder / f"capture.{fmt}").read_bytes() for fmt in ("json", "npz")}


def upload(at: AppTest, name: str, data: bytes) -> AppTest:
    at.file_uploader[0].set_value((name, data, "application/octet-stream"))
    return at.run()


def opened_app(name: str, data: bytes) -> AppTest:
    at = upload(app("page_scripts/open_capture.py"), name, data)
    assert_page_ok(at)
    return at


def page_charts(at: AppTest, page: str, **widgets) -> dict[str, dict]:
    at.switch_page(page)
    for name, value in widgets.items():
        at.session_state[f"w_{name}"] = value
    at.run()
    assert_page_ok(at)
    return charts(at)


def provenance_table(at: AppTest) -> dict[str, str]:
    frame = at.dataframe[0].value
    return dict(zip(frame.iloc[:, 0], frame.iloc[:, 1]))


# ----------------------------------------------------------------------------------------------------------------------
# A good file opens, and every page explores it


@pytest.mark.parametrize("fmt", ["json", "npz"])
def test_a_saved_capture_opens_with_its_provenance(saved, demo, fmt):
    at = opened_app(f"capture.{fmt}", saved[fmt])
    assert f"capture.{fmt}" in at.success[0].value
    assert at.query_params["text"] == TEXT and at.query_params["mode"] == "pair"
    recorded, shown = demo[1].provenance, provenance_table(at)
    assert shown["Model"] == "demo-zh-en (catalogue)"
    assert shown["Weights"].startswith(f"sha256 {recorded['model']['weights_sha256']}")
    assert shown["Architecture"] == "MarianMTModel · encoder-decoder · 3 layers × 4 heads"
    assert (shown["Device"], shown["Precision (dtype)"]) == ("cpu", "float32")
    assert f"attnviz {recorded['versions']['attnviz']}" in shown["Versions"] and "transformers" in shown["Versions"]
    assert (shown["Source text"], shown["Target text"]) == (TEXT, TARGET)
    assert json.loads(shown["Capture options"]) == {"mode": "pair", "max_new_tokens": None}
    assert shown["Captured at (UTC)"] == recorded["captured_at"]
    assert shown["Revision"] == "not recorded"  # a catalogue model has no hub commit
    assert "cross-attention 3 × 4 × 4 × 4" in shown["Maps (layers × heads × queries × keys)"]
    assert f"capture.{fmt}" in at.sidebar.info[0].value  # every page says a saved capture is shown


def test_every_page_draws_the_opened_capture_as_the_live_page_draws_its_input(saved):
    live, shown = app(**LINK), opened_app("capture.npz", saved["npz"])
    assert page_charts(shown, "page_scripts/translate.py") == page_charts(live, "page_scripts/translate.py")
    for stack in ("encoder", "decoder"):
        assert page_charts(shown, "page_scripts/self_attention.py", stack=stack) == page_charts(
            live, "page_scripts/self_attention.py", stack=stack
        )
    for kind in ("cross", "encoder"):
        opened_table = page_charts(shown, "page_scripts/heads.py", kind=kind), shown.dataframe[0].value
        live_table = page_charts(live, "page_scripts/heads.py", kind=kind), live.dataframe[0].value
        assert opened_table[0] == live_table[0]
        assert opened_table[1].equals(live_table[1])
    replayed = page_charts(shown, "page_scripts/translate.py", view="head", layer=2, head=1)
    assert replayed == page_charts(live, "page_scripts/translate.py", view="head", layer=2, head=1)
    assert shown.sidebar.info, "the sidebar says a saved capture is shown on every page"


def test_an_opened_capture_is_drawn_without_loading_its_model(saved, monkeypatch):
    from app_pages.shared import caches

    def refuse(*_):
        raise AssertionError("the model was loaded for an opened capture")

    at = opened_app("capture.json", saved["json"])
    monkeypatch.setattr(caches, "model", refuse)
    shown = page_charts(at, "page_scripts/translate.py")
    assert {"alignment", "heatmap"} <= set(shown)
    assert (
        page_charts(at, "page_scripts/heads.py") and len(at.dataframe[0].value) == 3 * 4
    )  # the statistic grid and table


def test_the_opened_captures_downloads_save_it_again_with_its_provenance(saved, demo, downloads, monkeypatch):
    monkeypatch.setenv("ATTNVIZ_EXPORT_ENGINE", "static")
    at = opened_app("capture.json", saved["json"])
    page_charts(at, "page_scripts/translate.py")
    again = export.read_capture_upload(downloads["capture_demo-zh-en_早上好.json"]())
    assert again.provenance == demo[1].provenance and alignment_heads_of(again) == [(2, 0)]
    for kind, amap in demo[1].maps.items():
        assert np.array_equal(again[kind].weights, amap.weights) and again[kind].key_tokens == amap.key_tokens
    png = downloads["alignment_demo-zh-en_Halign_早上好.png"]()
    stamped = export.read_stamp(png, "png")
    assert stamped["model"] == demo[1].provenance["model"] and stamped["source_text"] == TEXT
    assert stamped["view"]["name"] == "alignment" and stamped["view"]["options"]["kind"] == "cross"


@pytest.mark.parametrize("fmt", ["json", "npz"])
def test_the_apps_own_download_opens_again_and_draws_the_same(downloads, fmt):
    live = app(**LINK)
    drawn = page_charts(live, "page_scripts/translate.py")
    (name,) = [name for name in downloads if name.startswith("capture_") and name.endswith(f".{fmt}")]
    at = opened_app(name, downloads[name]())
    assert page_charts(at, "page_scripts/translate.py") == drawn


def test_a_generated_capture_opens_in_generate_mode_and_replays(downloads):
    live = app(model="demo-zh-en", device="cpu", text="我喜欢学习。", mode="generate")
    drawn = page_charts(live, "page_scripts/translate.py")
    at = opened_app("generated.json", downloads["capture_demo-zh-en_我喜欢学习.json"]())
    assert "mode" not in at.query_params  # generate, the default: the link is the live page's
    assert page_charts(at, "page_scripts/translate.py") == drawn
    assert at.slider(key="w_step").max == live.slider(key="w_step").max
    at.slider(key="w_step").set_value(1).run()
    live.slider(key="w_step").set_value(1).run()
    assert charts(at) == charts(live)


def test_closing_or_changing_the_text_goes_back_to_the_model(saved):
    at = opened_app("capture.json", saved["json"])
    at.sidebar.button(key="opened_close").click().run()
    assert_page_ok(at)
    assert not at.sidebar.info and opened.OPENED not in at.session_state
    assert i18n.t("open_none") in [info.value for info in at.info]
    assert not at.file_uploader[0].value, "closing empties the uploader"

    upload(at, "capture.json", saved["json"])
    at.switch_page("page_scripts/translate.py").run()
    at.text_input(key="w_text").set_value("晚安").run()
    assert_page_ok(at)
    assert opened.OPENED not in at.session_state and not at.sidebar.info
    assert "晚" in "".join(charts(at)["heatmap"]["layout"]["xaxis"]["ticktext"])  # computed from the model


def test_removing_the_file_closes_the_capture(saved):
    at = opened_app("capture.json", saved["json"])
    at.file_uploader[0].set_value(None).run()
    assert opened.OPENED not in at.session_state and not at.success


# ----------------------------------------------------------------------------------------------------------------------
# Every kind of bad file: a sentence in the page's language


def _edited(saved: dict[str, bytes], edit) -> bytes:
    data = copy.deepcopy(json.loads(saved["json"]))
    edit(data)
    return json.dumps(data).encode("utf-8")


def _set(path: list, value):
    def edit(data):
        target = data
        for step in path[:-1]:
            target = target[step]
        target[path[-1]] = value

    return edit


def _npz(entries: dict, **options) -> bytes:
    buffer = io.BytesIO()
    np.savez(buffer, **entries, **options)
    return buffer.getvalue()


def _pickled(saved: dict[str, bytes]) -> bytes:
    archive = np.load(io.BytesIO(saved["npz"]))
    entries = {name: archive[name] for name in archive.files}
    entries["maps/cross/weights"] = np.array([{"run": "code"}], dtype=object)
    return _npz(entries, allow_pickle=True)


def _fewer_rows(data):
    """A self-consistent header (three query tokens, shape 3 rows) over weights that still have four rows."""
    cross = data["maps"]["cross"]
    cross["query_tokens"].pop()
    cross["shape"][2] -= 1


def bad_files(saved: dict[str, bytes]) -> dict[str, tuple[bytes, str]]:
    """Name -> (file, the error key it is refused with)."""
    cross = ["maps", "cross"]
    half = {fmt: data[: len(data) // 2] for fmt, data in saved.items()}
    return {
        "empty": (b"", "capture_empty"),
        "malformed JSON": (b'{"schema": "attnviz.capture", nope}', "capture_bad_json"),
        "truncated JSON": (half["json"], "capture_truncated"),
        "truncated NPZ": (half["npz"], "capture_bad_npz"),
        "not UTF-8": (b"\xff\xfe\x00 not a capture", "capture_not_utf8"),
        "another file": (b'{"hello": "world"}', "capture_not_attnviz"),
        "a newer schema": (_edited(saved, _set(["version"], 99)), "capture_schema_version"),
        "a single .npy": (b"\x93NUMPY\x01\x00v\x00", "capture_single_npy"),
        "shape against its tokens": (_edited(saved, _set([*cross, "shape"], [3, 4, 2, 2])), "capture_tokens_mismatch"),
        "weights against their shape": (_edited(saved, _fewer_rows), "capture_shape_mismatch"),
        "nonsense shape": (_edited(saved, _set([*cross, "shape"], [3, -4, "4", 4])), "capture_bad_shape"),
        "layer names": (_edited(saved, _set([*cross, "layer_names"], ["a"])), "capture_layer_names_mismatch"),
        "unknown map kind": (_edited(saved, _set([*cross, "kind"], "sideways")), "capture_unknown_kind"),
        "NaN weights": (
            _edited(saved, _set([*cross, "weights", 0, 0, 0, 0], float("nan"))),
            "capture_weights_not_finite",
        ),
        "rows not summing to 1": (
            _edited(saved, _set([*cross, "weights", 1, 0, 2], [0.1, 0.1, 0.1, 0.1])),
            "capture_rows_not_normalised",
        ),
        "huge token list": (
            _edited(saved, _set([*cross, "key_tokens"], [{"text": "x", "start": 0, "end": 1}] * 50_000)),
            "capture_too_many_tokens",
        ),
        "declared huge": (_edited(saved, _set([*cross, "shape"], [64, 64, 4000, 4000])), "capture_unpacked_too_large"),
        "pickled NPZ": (_pickled(saved), "capture_npz_pickle"),
        "a token of the wrong type": (
            _edited(saved, _set([*cross, "key_tokens", 0, "start"], "0")),
            "capture_bad_token",
        ),
    }


def refusal(data: bytes) -> AttnvizError:
    """How the library refuses `data` at the app's upload limit."""
    with pytest.raises(AttnvizError) as caught:
        export.read_capture_upload(data, export.UploadLimits(max_bytes=opened.upload_limit_bytes()))
    return caught.value


def assert_refused(at: AppTest, error: AttnvizError, lang: str) -> None:
    """The page says the library's refusal, in `lang`: the catalogue's sentence for its key under the error's
    heading, never a traceback."""
    assert not at.exception, [e.value for e in at.exception]
    said = [e.value for e in at.error]
    assert said == [i18n.error_sentence(error, lang)], said
    assert "Traceback" not in said[0] and error.message(lang) in said[0]
    if lang == "zh":
        assert CJK.search(said[0])
        if i18n.has(f"error.{error.key}", "zh"):
            assert CJK.search(error.message("zh")) and error.message("zh") != error.message("en")


def test_every_kind_of_bad_file_is_refused_with_a_sentence_in_the_page_language(saved):
    at = app("page_scripts/open_capture.py")
    files = bad_files(saved)
    for lang in ("en", "zh"):
        at.session_state["w_lang"] = lang
        for name, (data, key) in files.items():
            upload(at, f"{name}.json", data)
            error = refusal(data)
            if i18n.has(f"error.{key}"):  # a refusal the catalogue words is raised by its key
                assert error.key == key, (name, error.key, str(error))
            assert_refused(at, error, lang)
            assert opened.OPENED not in at.session_state, name
            assert i18n.t("open_none", lang) in [info.value for info in at.info], name


def test_a_refused_file_keeps_the_open_capture_open(saved):
    at = opened_app("capture.json", saved["json"])
    upload(at, "broken.npz", saved["npz"][:-40])
    assert_refused(at, refusal(saved["npz"][:-40]), "en")
    assert at.session_state[opened.OPENED].file_name == "capture.json"


def test_a_file_over_the_upload_limit_is_refused_before_it_is_read(saved, monkeypatch):
    monkeypatch.setattr(opened, "upload_limit_bytes", lambda: 10_000)
    at = app("page_scripts/open_capture.py")
    upload(at, "capture.json", saved["json"])
    error = refusal(saved["json"])
    assert error.key == "capture_too_large"
    assert_refused(at, error, "en")
    assert "MB" in at.error[0].value


def test_an_unexpected_failure_is_a_sentence_and_the_server_log(saved, monkeypatch, caplog):
    def broken(*_args, **_kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr(export, "read_capture_upload", broken)
    at = upload(app("page_scripts/open_capture.py"), "capture.json", saved["json"])
    assert not at.exception and [e.value for e in at.error] == [i18n.t("open_unexpected")]
    assert "a bug" in caplog.text


def test_damaged_files_are_opened_or_refused_never_a_traceback(saved):
    """A fuzz of cuts and flipped bytes: each upload opens a capture or shows one sentence, nothing else."""
    rng = np.random.default_rng(16)
    at = app("page_scripts/open_capture.py")
    for index in range(24):
        data = bytearray(saved["json" if index % 2 else "npz"])
        data = data[: int(rng.integers(1, len(data) + 1))] if index % 3 == 0 else data
        for position in rng.integers(0, len(data), size=int(rng.integers(1, 6))):
            data[int(position)] = int(rng.integers(0, 256))
        upload(at, f"fuzz{index}.{'json' if index % 2 else 'npz'}", bytes(data))
        assert not at.exception, (index, [e.value for e in at.exception])
        assert len(at.error) + len(at.success) == 1, index
        if opened.OPENED in at.session_state:  # a flip the file survives (inside a token's text, say): close it
            at.sidebar.button(key="opened_close").click().run()


def test_the_upload_limit_is_streamlits_and_the_librarys():
    config = tomllib.loads((REPO / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert config["server"]["maxUploadSize"] * opened.MIB == export.UploadLimits().max_bytes


# ----------------------------------------------------------------------------------------------------------------------
# What a capture tells of its model


def test_a_capture_tells_its_models_kind_and_alignment_heads(demo, tiny_folder):
    handle, result = demo
    model = opened.captured_model(result)
    assert (model.name, model.kind, model.is_seq2seq) == ("demo-zh-en", "encoder-decoder", True)
    assert model.alignment_heads == tuple(handle.alignment_heads)
    for family, kind in (("bert", "encoder"), ("gpt2", "decoder")):
        tiny = load_model(tiny_folder(family), "cpu")
        assert opened.captured_model(capture(tiny, "Good morning")).kind == kind


def test_a_capture_without_provenance_says_what_was_not_recorded(demo):
    plain = type(demo[1])(demo[1].model, demo[1].device, demo[1].maps, TEXT, TARGET)
    rows = dict(opened.provenance_rows(plain, "zh"))
    assert rows["模型"] == "demo-zh-en" and rows["设备"] == "cpu"
    assert rows["权重"] == rows["精度（dtype）"] == rows["捕获时间（UTC）"] == "未记录"
    assert opened.captured_model(plain).alignment_heads == ()  # the file did not say: every head of a late layer


# ----------------------------------------------------------------------------------------------------------------------
# The command line's capture opens in the app and draws what the CLI and the live page draw


@pytest.mark.parametrize(
    "argv, link",
    [
        (["--target", TARGET], LINK),
        (["--generate", "48"], {**LINK, "mode": "generate"}),
    ],
    ids=["pair", "generated"],
)
def test_the_clis_capture_opens_in_the_app_and_draws_the_clis_and_the_live_pages_figure(capsys, tmp_path, argv, link):
    written = tmp_path / "c.json"
    given = ["--model", "demo-zh-en", "--device", "cpu", "--text", TEXT, *argv]
    assert cli.main(["capture", *given, "-o", str(written)]) == 0, capsys.readouterr().err
    at = opened_app(written.name, written.read_bytes())
    assert provenance_table(at)["Model"] == "demo-zh-en (catalogue)"
    shown = page_charts(at, "page_scripts/translate.py")
    assert shown == page_charts(app(**link), "page_scripts/translate.py")  # the live page
    for figure in ("alignment", "heatmap"):  # the CLI's export of the same input is the opened page's download
        target = tmp_path / f"{figure}.html"
        assert cli.main(["export", *given, "--view", figure, "-o", str(target)]) == 0, capsys.readouterr().err
        drawn = as_file(go.Figure(shown[figure]), "demo-zh-en")
        make = figure_export.figure_maker(drawn, "html", figure, figure_export.Source(), {})
        assert html_figure(target.read_text(encoding="utf-8")) == html_figure(make().decode("utf-8"))
    stats = page_charts(at, "page_scripts/heads.py", kind="cross")
    values = head_stats.head_statistics(export.load_capture(written)["cross"])
    assert stats and at.dataframe[0].value["entropy"].tolist() == pytest.approx(values["entropy"].ravel().tolist())
