import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from attnviz import export
from attnviz.cli.commands.export import figure as cli_figure
from attnviz.cli.options import view_options
from attnviz.cli.parser import argparse_sentence, parse
from tests.support.cli import numbered, one_line_error, run_cli

ROOT = Path(__file__).resolve().parents[2]


# ---------------------------------------------------------------------------------------------------------------------
# without a model


def test_help_needs_no_model(capsys):
    code, out, _ = run_cli(capsys, "--help")
    assert code == 0 and "export" in out and "capture" in out
    code, out, _ = run_cli(capsys, "export", "--help")
    assert code == 0 and "--view" in out and "--force" in out and "--input" in out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["export", "--model", "x", "--text", "hi"], "--output"),
        (["export", "--model", "x", "--text", "hi", "-o", "a.png", "--view", "pie"], "invalid choice: 'pie'"),
        (["export", "--model", "x", "--text", "a", "--input", "f", "-o", "a.png"], "not allowed with"),
        (["export", "--model", "x", "--text", "hi", "-o", "a.png", "--generate", "0"], "positive number"),
        (["export", "--model", "x", "--text", "hi", "-o", "a.gif"], "Cannot tell the format"),
        (["capture", "--model", "x", "--text", "hi", "--target", "t", "--generate", "3", "-o", "a.json"], "either"),
        (["export", "--model", "x", "--input", "missing.txt", "-o", "out"], "does not exist"),
        (["export", "--model", "x", "--text", "hi", "-o", "a.png", "--step", "-1"], "--step takes"),
        (["export", "--model", "x", "--text", "hi", "-o", "a.png", "--aggregation", "sideways"], "invalid choice"),
        (["bogus"], "invalid choice"),
    ],
)
def test_bad_arguments_give_one_line_and_exit_2(capsys, tmp_path, monkeypatch, argv, message):
    monkeypatch.chdir(tmp_path)
    code, _, err = run_cli(capsys, *argv)
    assert code == 2 and message in one_line_error(err)


def test_unknown_model_is_a_one_line_error(capsys, tmp_path):
    code, _, err = run_cli(
        capsys, "export", "--model", str(tmp_path / "nowhere"), "--text", "hi", "-o", str(tmp_path / "a.png")
    )
    assert code == 2 and one_line_error(err)
    assert not (tmp_path / "a.png").exists()


# ---------------------------------------------------------------------------------------------------------------------
# with tiny random models


def test_export_heatmap_png_and_refuse_to_overwrite(capsys, tmp_path, tiny_folder):
    model = tiny_folder("bert")
    target = tmp_path / "map.png"
    args = [
        "export",
        "--model",
        model,
        "--text",
        "早上好！Good morning",
        "--layer",
        "1",
        "--head",
        "2",
        "--engine",
        "static",
        "-o",
        str(target),
    ]
    code, out, err = run_cli(capsys, *args)
    assert code == 0, err
    assert out.strip() == str(target)
    image = Image.open(target)
    assert image.format == "PNG" and image.size[0] >= 520
    before = target.read_bytes()
    code, _, err = run_cli(capsys, *args, "--view", "grid")
    assert code == 2 and "--force" in one_line_error(err) and target.read_bytes() == before
    code, _, err = run_cli(capsys, *args, "--view", "grid", "--force")
    assert code == 0 and target.read_bytes() != before
    assert sorted(os.listdir(tmp_path)) == ["map.png"]  # atomic writes leave no temporary files


@pytest.mark.parametrize("view, suffix", [("alignment", "svg"), ("lines", "pdf"), ("heatmap", "html")])
def test_export_views_of_a_translation_pair(capsys, tmp_path, tiny_folder, view, suffix):
    model = tiny_folder("marian")
    target = tmp_path / f"pair.{suffix}"
    code, _, err = run_cli(
        capsys,
        "export",
        "--model",
        model,
        "--text",
        "早上好！",
        "--target",
        "Good morning!",
        "--view",
        view,
        "--head",
        "mean",
        "--words",
        "--hide-special",
        "--engine",
        "static",
        "-o",
        str(target),
    )
    assert code == 0, err
    head = target.read_bytes()[:5]
    assert head == {"svg": b"<?xml", "pdf": b"%PDF-", "html": b"<!doc"}[suffix]


def test_capture_json_and_npz_round_trip(capsys, tmp_path, tiny_folder):
    model = tiny_folder("marian")
    for suffix in ("json", "npz"):
        target = tmp_path / f"c.{suffix}"
        code, _, err = run_cli(
            capsys, "capture", "--model", model, "--text", "早上好！", "--target", "Good morning!", "-o", str(target)
        )
        assert code == 0, err
        loaded = export.load_capture(target)
        assert set(loaded.maps) == {"encoder", "decoder", "cross"}
        assert loaded.source_text == "早上好！" and loaded.target_text == "Good morning!"
        np.testing.assert_allclose(loaded["cross"].weights.sum(-1), 1.0, rtol=1e-4)
    code, _, err = run_cli(
        capsys,
        "capture",
        "--model",
        model,
        "--text",
        "早上好",
        "--generate",
        "3",
        "--format",
        "csv",
        "-o",
        str(tmp_path / "g.data"),
    )
    assert code == 0, err
    assert (tmp_path / "g.data").read_text(encoding="utf-8").startswith(",".join(export.CSV_COLUMNS))
    header = json.loads((tmp_path / "g.header.json").read_text(encoding="utf-8"))  # what made the CSV, beside it
    assert header["weights_file"] == "g.data" and header["provenance"]["source_text"] == "早上好"
    assert header["provenance"]["options"]["max_new_tokens"] == 3 and header["steps"]
    (tmp_path / "g.data").unlink()  # the header alone is not replaced without --force either
    code, _, err = run_cli(
        capsys, "capture", "--model", model, "--text", "早上好", "--format", "csv", "-o", str(tmp_path / "g.data")
    )
    assert code == 2 and "g.header.json" in err and not (tmp_path / "g.data").exists()


def test_input_file_runs_each_line_with_a_progress_bar(capsys, tmp_path, tiny_folder):
    lines = tmp_path / "lines.txt"
    lines.write_text("早上好！\tGood morning!\n\n我喜欢学习。\tI like studying.\n", encoding="utf-8")
    out_dir = tmp_path / "figs"
    argv = [
        "export",
        "--model",
        tiny_folder("marian"),
        "--input",
        str(lines),
        "--view",
        "alignment",
        "--engine",
        "static",
        "-o",
        str(out_dir),
    ]
    code, out, err = run_cli(capsys, *argv)
    assert code == 0, err
    assert numbered(out_dir) == ["0001.png", "0003.png"]  # numbered by line; the blank line is skipped
    assert sorted(os.listdir(out_dir))[0].startswith("0001_alignment_") and "早上好" in sorted(os.listdir(out_dir))[0]
    assert "2/2" in err and "example" in err  # tqdm's bar on stderr
    assert "2 files" in out
    code, _, err = run_cli(capsys, *argv)
    assert code == 2 and "already exists" in one_line_error(err)


def test_an_input_files_header_line_is_said_and_not_drawn(capsys, tmp_path, tiny_folder):
    lines = tmp_path / "lines.tsv"
    lines.write_text("zh\ten\n早上好！\tGood morning!\n", encoding="utf-8")
    out_dir = tmp_path / "figs"
    code, out, err = run_cli(
        capsys,
        "export",
        "--model",
        tiny_folder("marian"),
        "--input",
        str(lines),
        "--view",
        "alignment",
        "--engine",
        "static",
        "-o",
        str(out_dir),
    )
    assert code == 0, err
    assert numbered(out_dir) == ["0002.png"] and "1 files" in out
    assert "warning: line 1: This line names the columns (zh, en): a header, not a pair; skipped." in err


def test_input_options_that_would_be_overridden_or_dropped_are_refused(capsys, tmp_path, tiny_folder):
    lines = tmp_path / "lines.tsv"
    lines.write_text("早上好！\tGood morning!\n太多\t列\t0-0\t了\n我喜欢学习。\n", encoding="utf-8")
    model = tiny_folder("marian")
    code, _, err = run_cli(capsys, "capture", "--model", model, "--input", str(lines), "-o", str(tmp_path / "c.npz"))
    assert code == 2 and "is named like a file" in one_line_error(err) and not (tmp_path / "c.npz").exists()
    code, _, err = run_cli(
        capsys, "export", "--model", model, "--input", str(lines), "--gold", "0-0", "-o", str(tmp_path / "g")
    )
    assert code == 2 and "third column" in one_line_error(err)
    out_dir = tmp_path / "gen"
    code, out, err = run_cli(
        capsys,
        "export",
        "--model",
        model,
        "--input",
        str(lines),
        "--generate",
        "3",
        "--engine",
        "static",
        "-o",
        str(out_dir),
    )
    assert code == 2 and numbered(out_dir) == ["0003.png"]  # only the line without a target is written
    assert "line 1 of" in err and "--generate lets the model write one" in err
    assert "line 2 of" in err and "columns found: 4" in err and "2 lines skipped" in out


def test_a_truncated_text_is_said_with_how_much_was_kept(capsys, tmp_path, tiny_folder):
    import re

    text = " ".join(["hello", "world"] * 300)  # more tokens than the tiny model reads
    code, _, err = run_cli(
        capsys,
        "export",
        "--model",
        tiny_folder("bert"),
        "--text",
        text,
        "--truncate",
        "--engine",
        "static",
        "-o",
        str(tmp_path / "t.png"),
    )
    assert code == 0, err
    said = re.search(r"warning: Kept ([\d,]+) of ([\d,]+) tokens; cut from “(world|hello) ", err)
    assert said and int(said.group(1).replace(",", "")) < int(said.group(2).replace(",", "")), err
    code, _, err = run_cli(
        capsys,
        "export",
        "--model",
        tiny_folder("bert"),
        "--text",
        "hello world",
        "--truncate",
        "--engine",
        "static",
        "-o",
        str(tmp_path / "s.png"),
    )
    assert code == 0 and "Kept" not in err  # nothing cut, nothing said


def test_a_capture_too_large_for_the_apps_upload_is_said(capsys, tmp_path, tiny_folder, monkeypatch):
    from attnviz.export.upload import UploadLimits

    monkeypatch.setattr(export, "UploadLimits", lambda: UploadLimits(max_bytes=2**20))  # 1 MB, for a small file
    text = " ".join(["hello", "world"] * 20)
    argv = ["capture", "--model", tiny_folder("bert"), "--text", text, "--force"]
    code, _, err = run_cli(capsys, *argv, "-o", str(tmp_path / "c.json"))
    assert (tmp_path / "c.json").stat().st_size > 2**20
    assert code == 0 and "warning: This json file is" in err and "takes files of at most 1 MB" in err
    code, _, err = run_cli(capsys, *argv, "-o", str(tmp_path / "c.csv"))
    assert code == 0 and "at most" not in err  # a CSV is read, not opened in the app


def test_an_input_runs_summary_and_line_warnings_are_in_the_exports_language(capsys, tmp_path, tiny_folder):
    lines = tmp_path / "lines.tsv"
    lines.write_text("zh\ten\n早上好！\tGood morning!\n\tGood morning!\n", encoding="utf-8")
    code, out, err = run_cli(
        capsys,
        "export",
        "--model",
        tiny_folder("marian"),
        "--input",
        str(lines),
        "--lang",
        "zh",
        "--engine",
        "static",
        "-o",
        str(tmp_path / "figs"),
    )
    assert code == 2 and "warning: 第 1 行：这一行是各列的名称" in err
    assert out.strip() == f"1 个文件，位于 {tmp_path / 'figs'}；跳过了 1 行（原因见上）"


def test_a_line_that_is_not_utf8_is_skipped_and_the_others_drawn(capsys, tmp_path, tiny_folder):
    lines = tmp_path / "lines.tsv"
    lines.write_bytes("早上好！\tGood morning!\n".encode() + b"\xff\xfebroken\tline\n" + "我喜欢学习。\n".encode())
    out_dir = tmp_path / "figs"
    code, out, err = run_cli(
        capsys,
        "export",
        "--model",
        tiny_folder("marian"),
        "--input",
        str(lines),
        "--engine",
        "static",
        "-o",
        str(out_dir),
    )
    assert code == 2 and numbered(out_dir) == ["0001.png", "0003.png"]
    assert "line 2 of" in err and "The line is not UTF-8 text." in err and "1 lines skipped" in out
    lines.write_bytes("早上好！".encode("utf-16"))
    code, _, err = run_cli(
        capsys, "export", "--model", tiny_folder("marian"), "--input", str(lines), "-o", str(tmp_path / "other")
    )
    assert code == 2 and "is not a UTF-8 text file (UTF-16)" in one_line_error(err)


def test_an_error_on_one_input_line_names_the_line(capsys, tmp_path, tiny_folder):
    lines = tmp_path / "lines.txt"
    lines.write_text("fine\n" + "word " * 400 + "\n", encoding="utf-8")  # line 2 is longer than 128 positions
    code, _, err = run_cli(
        capsys, "capture", "--model", tiny_folder("bert"), "--input", str(lines), "-q", "-o", str(tmp_path / "out")
    )
    assert code == 2 and "line 2 of" in one_line_error(err)
    assert numbered(tmp_path / "out") == ["0001.json"]


def test_errors_are_english_unless_the_export_is_drawn_in_chinese(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    argv = ["export", "--model", "x", "--text", "hi", "-o", "a.png", "--generate", "0"]
    code, _, err = run_cli(capsys, *argv)
    assert code == 2 and one_line_error(err) == "attnviz: error: --generate takes a positive number of tokens."
    code, _, err = run_cli(capsys, *argv, "--lang", "zh")
    assert code == 2 and one_line_error(err) == "attnviz: error: --generate 需要一个正的词元数。"
    (tmp_path / "a.png").write_bytes(b"")
    code, _, err = run_cli(capsys, "export", "--model", "x", "--text", "hi", "-o", "a.png", "--lang", "zh")
    assert code == 2 and one_line_error(err) == "attnviz: error: a.png 已存在；如要替换，请加上 --force。"


@pytest.mark.parametrize(
    "argv, english, chinese",
    [
        (["--preset", "a4"], "argument --preset: invalid choice: 'a4'", "参数 --preset：无效的选项 'a4'（可选："),
        (
            ["--scale", "2", "--dpi", "300"],
            "argument --dpi: not allowed with argument --scale",
            "参数 --dpi：不能与参数 --scale 同时使用",
        ),
        (["--scale", "x"], "argument --scale: invalid float value: 'x'", "参数 --scale：无效的 float 值：'x'"),
        (["--model"], "argument --model/-m: expected one argument", "参数 --model/-m：需要一个值"),
        (
            [],
            "the following arguments are required: --model/-m, --output/-o",
            "缺少必需的参数：--model/-m, --output/-o",
        ),
    ],
)
def test_argument_errors_are_said_in_the_language_asked_for(capsys, argv, english, chinese):
    code, _, err = run_cli(capsys, "export", *argv)
    assert (
        code == 2 and english in one_line_error(err) and err.rstrip().endswith("(see python -m attnviz export --help)")
    )
    for lang in (["--lang", "zh"], ["--lang=zh"]):
        code, _, err = run_cli(capsys, "export", *lang, *argv)
        assert code == 2 and chinese in one_line_error(err) and "（见 python -m attnviz export --help）" in err, err


def test_an_argument_error_argparse_does_not_know_is_said_as_it_is():
    assert argparse_sentence("argument --top: must be at least 1", "zh") == "参数 --top：must be at least 1"
    assert argparse_sentence("something new", "zh") == "something new"


def test_a_failing_input_line_is_named_in_the_language_of_the_export(capsys, tmp_path, tiny_folder):
    lines = tmp_path / "lines.txt"
    lines.write_text("Good morning\n", encoding="utf-8")
    argv = [
        "export",
        "--model",
        tiny_folder("bert"),
        "--input",
        str(lines),
        "--layer",
        "9",
        "--engine",
        "static",
        "-q",
        "-o",
        str(tmp_path / "out"),
    ]
    code, _, err = run_cli(capsys, *argv)
    assert code == 2 and one_line_error(err).startswith(f"attnviz: error: line 1 of {lines}: Layer 9 does not exist")
    code, _, err = run_cli(capsys, *argv, "--lang", "zh")
    assert code == 2 and one_line_error(err).startswith(
        f"attnviz: error: {lines} 第 1 行：第 9 层不存在；这张图有 2 层"
    )


def test_a_reader_that_stops_early_is_no_error(tmp_path, tiny_folder):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"}
    argv = [
        sys.executable,
        "-m",
        "attnviz",
        "find-head",
        "--model",
        tiny_folder("bert"),
        "--text",
        "the cat saw the cat",
        "--query",
        "saw",
        "--key",
        "cat",
        "--top",
        "0",
    ]
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=tmp_path)
    process.stdout.close()  # as `| head` does once it has what it wants: the table meets a closed pipe
    err = process.stderr.read().decode()
    assert process.wait(timeout=300) == 0 and err == "", err


def test_cli_as_a_subprocess(tmp_path, tiny_folder):
    target = tmp_path / "sub.png"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"}
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "attnviz",
            "export",
            "--model",
            tiny_folder("bert"),
            "--text",
            "Good morning",
            "--engine",
            "static",
            "-o",
            str(target),
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    assert Image.open(target).format == "PNG"
    bad = subprocess.run(
        [sys.executable, "-m", "attnviz", "export", "--view", "pie"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=300,
    )
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1 and "Traceback" not in bad.stderr


def test_alignment_opens_on_the_trained_alignment_head():
    """With no --layer/--head, a demo translator's cross-attention shows its guided-alignment head (sharp links)."""
    import numpy as np

    from attnviz.attention.capture import capture
    from attnviz.model.load import load_model

    handle = load_model("demo-zh-en", "cpu")
    ((layer, head),) = handle.alignment_heads
    result = capture(handle, "早上好！", "Good morning!")
    cross = result["cross"]
    pieces = ["--no-words", "--no-hide-special"]  # every token, as the weights have them
    args = parse(["export", "--model", "demo-zh-en", "--text", "早上好！", "--view", "heatmap", *pieces, "-o", "x.png"])
    figure = cli_figure(result, args, handle)
    np.testing.assert_allclose(
        np.nan_to_num(np.asarray(figure.data[0].z, dtype=float)), cross.weights[layer, head], atol=1e-6
    )
    args = parse(
        [
            "export",
            "--model",
            "demo-zh-en",
            "--text",
            "早上好！",
            "--view",
            "heatmap",
            "--head",
            "mean",
            *pieces,
            "-o",
            "x.png",
        ]
    )
    figure = cli_figure(result, args, handle)
    np.testing.assert_allclose(
        np.nan_to_num(np.asarray(figure.data[0].z, dtype=float)), cross.weights.mean(axis=(0, 1)), atol=1e-6
    )


@pytest.mark.parametrize(
    "view, fields",
    [
        ([], {}),  # the app's default view of the map
        (["--layer", "1", "--head", "2"], {"aggregation": "head", "layer": 1, "head": 2}),
        (["--layer", "-1"], {"aggregation": "layer", "layer": 1}),
        (["--head", "mean"], {"aggregation": "all"}),
        (["--aggregation", "head", "--layer", "-1", "--head", "3"], {"aggregation": "head", "layer": 1, "head": 3}),
        (["--head", "max"], {"aggregation": "custom", "head_reduce": "max", "layers": None, "heads": None}),
        (["--layer", "0,1", "--head", "0,2"], {"aggregation": "custom", "layers": (0, 1), "heads": (0, 2)}),
    ],
)
def test_head_arguments_mean_the_apps_aggregations_where_they_can(tiny_folder, view, fields):
    from attnviz.attention.capture import capture
    from attnviz.model.load import load_model
    from attnviz.view import viewing

    handle = load_model(tiny_folder("bert"), "cpu")
    result = capture(handle, "Good morning")
    args = parse(["export", "--model", "m", "--text", "t", *view, "-o", "x.png"])
    options = view_options(args, result)
    default = viewing.ViewOptions(kind="self")
    assert {name: getattr(options, name) for name in fields} == fields
    unset = set(vars(default)) - set(fields) - {"layers", "heads"}
    assert all(getattr(options, name) == getattr(default, name) for name in unset)


def test_an_index_beside_aggregation_is_checked_not_clamped(capsys, tmp_path, tiny_folder):
    code, _, err = run_cli(
        capsys,
        "export",
        "--model",
        tiny_folder("bert"),
        "--text",
        "hi",
        "--aggregation",
        "head",
        "--layer",
        "7",
        "--engine",
        "static",
        "-o",
        str(tmp_path / "a.png"),
    )
    assert code == 2 and "Layer 7 does not exist" in one_line_error(err)
    code, _, err = run_cli(
        capsys,
        "export",
        "--model",
        tiny_folder("bert"),
        "--text",
        "hi",
        "--aggregation",
        "head",
        "--head",
        "0,1",
        "--engine",
        "static",
        "-o",
        str(tmp_path / "a.png"),
    )
    assert code == 2 and "takes one index" in one_line_error(err)


@pytest.mark.parametrize(
    "given, option",
    [
        (["--aggregation", "alignment", "--layer", "1"], "--layer/--head"),
        (["--aggregation", "layer", "--head", "0,1"], "--head"),  # not read, so not refused either
        (["--rollout-layers", "0-1"], "--rollout-layers/--no-residual"),
        (["--view", "heatmap", "--gold", "0-0"], "--gold/--reverse-model"),
        (["--view", "heatmap", "--top-k", "1"], "--top-k"),
        (["--view", "grid", "--threshold", "0.3"], "--threshold"),
        (["--view", "alignment", "--log-scale"], "--log-scale"),
        (["--view", "alignment", "--color-scale", "head"], "--color-scale"),
        (["--format", "svg", "--scale", "3"], "--scale/--dpi"),
        (["--format", "html", "--engine", "kaleido"], "--engine"),
    ],
)
def test_an_option_the_figure_does_not_use_is_warned_of_and_not_recorded(capsys, tmp_path, tiny_folder, given, option):
    fmt = given[given.index("--format") + 1] if "--format" in given else "png"
    target = tmp_path / f"a.{fmt}"
    code, _, err = run_cli(
        capsys,
        "export",
        "--model",
        tiny_folder("marian"),
        "--text",
        "早上好",
        "--target",
        "Good morning",
        "--engine",
        "static",
        *given,
        "-o",
        str(target),
    )
    assert code == 0, err
    warned = [line for line in err.splitlines() if "changes nothing in this figure" in line]
    assert len(warned) == 1 and warned[0].startswith(f"attnviz: warning: {option} ")
    recorded = export.read_stamp(target.read_bytes(), fmt)["view"]["options"]
    assert "gold" not in recorded and recorded.get("layer", 0) == 0 and recorded.get("head", 0) == 0  # not as given
    engine = () if fmt == "html" else ("--engine", "static")
    code, _, err = run_cli(
        capsys,
        "export",
        "--model",
        tiny_folder("marian"),
        "--text",
        "早上好",
        "--target",
        "Good morning",
        *engine,
        "--force",
        "-o",
        str(target),
    )
    assert code == 0 and "changes nothing" not in err  # the defaults warn of nothing


def test_a_bad_input_line_is_said_and_the_lines_after_it_are_still_drawn(capsys, tmp_path, tiny_folder):
    lines = tmp_path / "lines.txt"
    text = "\ufefffine\n\tonly a target\nGood morning ||| Guten Morgen\n"  # a byte-order mark, a bad line, ' ||| '
    lines.write_text(text, encoding="utf-8")
    code, out, err = run_cli(
        capsys, "capture", "--model", tiny_folder("marian"), "--input", str(lines), "-q", "-o", str(tmp_path / "out")
    )
    assert code == 2 and "line 2 of" in one_line_error(err) and "2 files" in out and "1 lines skipped" in out
    assert numbered(tmp_path / "out") == ["0001.json", "0003.json"]
    first, third = (json.loads(path.read_text(encoding="utf-8")) for path in sorted((tmp_path / "out").iterdir()))
    assert first["source_text"] == "fine" and (third["source_text"], third["target_text"]) == (
        "Good morning",
        "Guten Morgen",
    )


@pytest.mark.parametrize(
    "option, said", [(("--top", "-1"), "--top takes 0"), (("--occurrence", "0"), "--occurrence counts from 1")]
)
def test_find_head_numbers_out_of_range_are_one_line(capsys, tiny_folder, option, said):
    argv = ("find-head", "--model", tiny_folder("bert"), "--text", "Hi there", "--query", "Hi", "--key", "there")
    code, _, err = run_cli(capsys, *argv, *option)
    assert code == 2 and said in one_line_error(err)


def test_devices_with_a_device_that_is_no_device_is_one_line(capsys):
    code, _, err = run_cli(capsys, "devices", "--device", "bogus")
    assert code == 2 and "Unknown device 'bogus'" in one_line_error(err)
    code, out, _ = run_cli(capsys, "devices", "--device", "cpu")
    assert code == 0 and "cpu" in out


@pytest.mark.parametrize(
    "argv",
    [
        ("capture", "-o", "x.png"),
        ("export", "--format", "svg", "-o", "x.png"),
        ("capture", "--format", "npz", "-o", "x.csv"),
    ],
)
def test_a_file_whose_suffix_names_another_format_is_refused_before_any_work(capsys, tmp_path, argv):
    command, *rest = argv
    rest[-1] = str(tmp_path / rest[-1])
    code, _, err = run_cli(capsys, command, "--model", "not-loaded", "--text", "hi", *rest)
    assert code == 2 and "names another format" in one_line_error(err) and not list(tmp_path.iterdir())
