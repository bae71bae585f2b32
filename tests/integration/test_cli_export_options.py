"""The command line's export sizes, file names and provenance: --scale/--dpi, --width/--height and --preset; files
in an --output folder named after what they hold; every capture and figure it writes says where it came from."""

from __future__ import annotations

import io
import os

import pytest
from PIL import Image
from pypdf import PdfReader

from attnviz import export
from attnviz.cli import batch
from attnviz.cli.commands.export import figure
from attnviz.cli.inputs import examples
from attnviz.cli.parser import parse
from attnviz.export.sizing import PRESETS, ExportSize
from attnviz.provenance import alignment_heads_of
from tests.support.cli import one_line_error as one_line
from tests.support.cli import run_cli as run

PAIR = ["--model", "demo-zh-en", "--device", "cpu", "--text", "早上好！", "--target", "Good morning!"]


def figure_size(argv: list[str]) -> tuple[int, int]:
    """The width and height (plotly px) of the figure `export` draws for these arguments, at its own size."""
    from attnviz.model.load import load_model

    args = parse(["export", *argv, "-o", "unused.png"])
    handle = load_model(args.model, args.device)
    example = examples(args)[0]
    return ExportSize().of(figure(batch.capture(handle, example, args), args, handle))


@pytest.mark.parametrize(
    "size, message",
    [
        (["--scale", "0"], "The PNG scale must be a number from 1× to 4×; got 0.0."),
        (["--scale", "5"], "from 1× to 4×"),
        (["--scale", "nan"], "from 1× to 4×"),
        (["--dpi", "50"], "from 96 to 384 dpi; got 50.0"),
        (["--scale", "2", "--dpi", "300"], "argument --dpi: not allowed with argument --scale"),
        (["--width", "50"], "width must be a whole number of pixels from 100 to 5000; got 50"),
        (["--height", "99999"], "height must be a whole number of pixels from 100 to 5000"),
        (["--width", "wide"], "argument --width: invalid int value: 'wide'"),
        (["--preset", "a4"], "argument --preset: invalid choice: 'a4'"),
        (["--preset", "slide", "--width", "300"], "The preset 'slide' sets the width (1280 px)"),
        (["--width", "5000", "--height", "5000", "--scale", "4"], "more than 60000000 pixels"),
    ],
)
def test_bad_sizes_are_one_line_and_exit_2_before_any_model_loads(capsys, tmp_path, size, message):
    target = tmp_path / "a.png"
    code, _, err = run(
        capsys, "export", "--model", str(tmp_path / "no-such-model"), "--text", "hi", *size, "-o", str(target)
    )
    assert code == 2 and message in one_line(err)  # a size error, not the missing model's
    assert not target.exists()


def test_the_help_names_the_sizes_and_presets(capsys):
    code, out, _ = run(capsys, "export", "--help")
    assert code == 0
    for word in ("--scale", "--dpi", "--width", "--height", "--preset", *PRESETS, "3.5 in at 300 dpi"):
        assert word in out, word


@pytest.mark.parametrize(
    "size, expected",
    [
        (["--scale", "3"], lambda w, h: (3 * w, 3 * h)),
        (["--dpi", "192"], lambda w, h: (2 * w, 2 * h)),
        (["--scale", "1.5", "--width", "400", "--height", "300"], lambda w, h: (600, 450)),
    ],
    ids=["scale", "dpi", "width-height"],
)
def test_png_pixels_are_the_figure_size_times_the_scale(capsys, tmp_path, size, expected):
    target = tmp_path / "a.png"
    code, _, err = run(capsys, "export", *PAIR, "--view", "heatmap", "--engine", "static", *size, "-o", str(target))
    assert code == 0, err
    width, height = figure_size([*PAIR, "--view", "heatmap"])
    with Image.open(target) as image:
        assert image.size == expected(width, height)
        scale = image.size[0] / (width if "--width" not in size else 400)
        assert image.info["dpi"][0] == pytest.approx(96 * scale, rel=1e-3)


def test_a_preset_prints_at_its_width_as_png_and_pdf(capsys, tmp_path):
    preset = PRESETS["single-column"]
    for suffix in ("png", "pdf"):
        target = tmp_path / f"a.{suffix}"
        code, _, err = run(
            capsys,
            "export",
            *PAIR,
            "--view",
            "alignment",
            "--preset",
            "single-column",
            "--engine",
            "static",
            "-o",
            str(target),
        )
        assert code == 0, err
    with Image.open(tmp_path / "a.png") as image:
        assert image.size[0] == round(preset.width_in * preset.dpi) and round(image.info["dpi"][0]) == 300
    page = PdfReader(tmp_path / "a.pdf").pages[0]
    assert float(page.mediabox.width) == pytest.approx(preset.width_in * 72, abs=1)


def test_files_in_an_output_folder_are_named_after_what_they_hold(capsys, tmp_path):
    folder = tmp_path / "figures"
    folder.mkdir()
    views = [
        (["--view", "alignment"], "alignment_demo-zh-en_Halign_早上好.pdf"),
        (["--view", "heatmap", "--layer", "1", "--head", "2"], "heatmap_demo-zh-en_L1H2_早上好.pdf"),
        (["--view", "lines", "--layer", "-1"], "lines_demo-zh-en_L2Hmean_早上好.pdf"),
        (["--view", "heatmap", "--head", "max"], "heatmap_demo-zh-en_Hmax_早上好.pdf"),
        (["--view", "grid", "--layer", "0,1", "--head", "0,2"], "grid_demo-zh-en_L0+1H0+2_早上好.pdf"),
    ]
    for view, name in views:
        code, out, err = run(capsys, "export", *PAIR, *view, "--format", "pdf", "-o", str(folder))
        assert code == 0, err
        assert out.strip() == str(folder / name)
    code, out, err = run(capsys, "capture", *PAIR, "-o", str(folder))
    assert code == 0, err
    assert out.strip() == str(folder / "capture_demo-zh-en_早上好.json")
    assert sorted(os.listdir(folder)) == sorted([name for _, name in views] + ["capture_demo-zh-en_早上好.json"])
    code, _, err = run(capsys, "capture", *PAIR, "-o", str(folder))
    assert code == 2 and "already exists" in one_line(err)


@pytest.mark.parametrize("suffix", ["json", "npz"])
def test_captures_the_cli_writes_carry_their_provenance(capsys, tmp_path, suffix):
    target = tmp_path / f"c.{suffix}"
    code, _, err = run(
        capsys,
        "capture",
        "--model",
        "demo-zh-en",
        "--device",
        "cpu",
        "--text",
        "早上好！",
        "--generate",
        "8",
        "-o",
        str(target),
    )
    assert code == 0, err
    loaded = export.load_capture(target)
    recorded = loaded.provenance
    assert recorded["model"]["name"] == "demo-zh-en" and recorded["model"]["source"] == "catalogue"
    assert len(recorded["model"]["weights_sha256"]) == 64 and recorded["model"]["class"] == "MarianMTModel"
    assert (recorded["device"], recorded["dtype"]) == ("cpu", "float32")
    assert recorded["versions"]["attnviz"] and recorded["versions"]["transformers"]
    assert (recorded["source_text"], recorded["target_text"]) == ("早上好！", loaded.target_text)
    assert recorded["options"] == {"mode": "generate", "max_new_tokens": 8, "truncate": False, "num_beams": 5}
    assert recorded["captured_at"].endswith("Z")
    assert alignment_heads_of(loaded) == [(2, 0)]  # what the alignment view needs where the model is not


@pytest.mark.parametrize("fmt", ["png", "pdf", "svg", "html"])
def test_figures_the_cli_writes_carry_the_captures_provenance_and_the_view(capsys, tmp_path, fmt):
    target = tmp_path / f"a.{fmt}"
    code, _, err = run(
        capsys,
        "export",
        *PAIR,
        "--view",
        "alignment",
        "--lang",
        "zh",
        "--scale",
        "2",
        "--engine",
        "static",
        "-o",
        str(target),
    )
    assert code == 0, err
    stamped = export.read_stamp(target.read_bytes(), fmt)
    assert stamped["model"]["name"] == "demo-zh-en" and stamped["source_text"] == "早上好！"
    assert stamped["target_text"] == "Good morning!" and stamped["options"]["mode"] == "pair"
    assert stamped["view"]["name"] == "alignment"
    assert stamped["view"]["options"]["lang"] == "zh" and stamped["view"]["options"]["kind"] == "cross"
    assert stamped["view"]["options"]["export"] == {
        "width": None,
        "height": None,
        "scale": 2.0,
        "dpi": None,
        "preset": None,
    }


def test_png_dpi_is_recorded_for_word_processors(capsys, tmp_path):
    target = tmp_path / "a.png"
    code, _, err = run(capsys, "export", *PAIR, "--dpi", "300", "--engine", "static", "-o", str(target))
    assert code == 0, err
    with Image.open(io.BytesIO(target.read_bytes())) as image:
        assert round(image.info["dpi"][0]) == 300


def test_labels_too_small_to_read_at_the_size_asked_are_a_warning_line(capsys, tmp_path):
    # ~35 target tokens: more than a printed column stands readably even with its margins fitted (about 28)
    source, target = "我们明天早上去学校，下午回家吃饭，晚上一起看书。" * 2, "We go to school tomorrow morning. " * 5
    long_pair = ["--model", "demo-zh-en", "--device", "cpu", "--text", source, "--target", target]
    for lang, said in (("en", "too small to read"), ("zh", "无法辨认")):
        code, _, err = run(
            capsys,
            "export",
            *long_pair,
            "--view",
            "alignment",
            "--preset",
            "single-column",
            "--engine",
            "static",
            "--lang",
            lang,
            "-o",
            str(tmp_path / f"{lang}.svg"),
        )
        assert code == 0, err
        assert [line for line in err.splitlines() if said in line and line.startswith("attnviz: warning: ")], err
    code, _, err = run(
        capsys,
        "export",
        *PAIR,
        "--view",
        "alignment",
        "--preset",
        "single-column",
        "--engine",
        "static",
        "-o",
        str(tmp_path / "short.svg"),
    )
    assert code == 0 and "too small to read" not in err, err
