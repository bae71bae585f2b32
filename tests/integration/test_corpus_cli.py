"""`python -m attnviz corpus` on the demo translator: the report's tables hold what one pair at a time gives, bad
lines are listed and skipped, a stopped job resumes, and the report is standalone HTML."""

from __future__ import annotations

import contextlib
import io
import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from attnviz.attention.capture import capture
from attnviz.cli import main
from attnviz.corpus.gold import Counts, Gold
from attnviz.corpus.pair import PairWords, head_scores
from attnviz.corpus.shards import shard_paths
from attnviz.corpus.words import segmented
from attnviz.maps import head_stats
from attnviz.model.load import load_model
from tests.support.corpus_files import corpus_file, gold_lines

MODEL = "demo-zh-en"


def _run(capsys, *argv) -> tuple[int, str, str]:
    try:
        code = main([str(a) for a in argv])
    except SystemExit as exit_:
        code = exit_.code
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def handle():
    return load_model(MODEL, "cpu")


@pytest.fixture(scope="module")
def job(tmp_path_factory):
    """One job for the module's tests (those that change its report work on a copy)."""
    folder = tmp_path_factory.mktemp("corpus")
    path, bad = corpus_file(folder, count=9, bad_every=3)
    out = folder / "report"
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        code = main(
            [
                "corpus",
                "--model",
                MODEL,
                "--input",
                str(path),
                "--gold",
                "--segmented",
                "--shard-size",
                "4",
                "--batch-size",
                "3",
                "-q",
                "-o",
                str(out),
            ]
        )
    assert code == 0, stderr.getvalue()
    return path, bad, out, stdout.getvalue(), stderr.getvalue()


def test_the_report_holds_every_heads_statistics_and_aer_as_one_pair_at_a_time_gives(job, handle):
    path, bad, out, stdout, err = job
    assert "9 pairs" in stdout and "3 lines skipped" in err
    heads = pd.read_parquet(out / "heads.parquet")
    pairs = pd.read_parquet(out / "pairs.parquet")
    assert len(pairs) == 9 and sorted(pairs["line"]) == sorted(set(range(1, 13)) - set(bad))
    captured, counts = [], None
    for line in gold_lines(9):
        source, target, links = line.split("\t")
        words = PairWords(segmented(source), segmented(target))
        result = capture(handle, words.source.text, words.target.text)
        captured.append(result)
        scored = head_scores(result["cross"], words, Gold.parse(links), 0.1).counts
        counts = scored if counts is None else {k: counts[k] + v for k, v in scored.items()}
    for kind in ("encoder", "decoder", "cross"):
        per_pair = np.stack(
            [head_stats.head_statistics(r[kind])["entropy"] for r in captured]
        )  # (pairs, layers, heads)
        rows = heads[heads["kind"] == kind].sort_values(["layer", "head"])
        assert rows["entropy_mean"].to_numpy() == pytest.approx(per_pair.mean(axis=0).ravel(), rel=1e-4)
        assert rows["entropy_std"].to_numpy() == pytest.approx(per_pair.std(axis=0).ravel(), rel=1e-3, abs=1e-5)
    cross = heads[heads["kind"] == "cross"].sort_values(["layer", "head"])
    layers, heads_per_layer = captured[0]["cross"].weights.shape[:2]
    expected = [
        Counts(**{k: int(v[lay, h]) for k, v in counts.items()}).scores().aer
        for lay in range(layers)
        for h in range(heads_per_layer)
    ]
    assert cross["aer"].to_numpy() == pytest.approx(expected)
    assert cross.sort_values("aer_rank").iloc[0]["aer"] == pytest.approx(min(expected))


def test_bad_lines_are_listed_with_line_numbers_and_reasons(job):
    _, bad, out, _, _ = job
    listed = pd.read_parquet(out / "bad_lines.parquet")
    assert dict(zip(listed["line"], listed["key"], strict=True)) == bad
    summary = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert summary["pairs"] == 9 and summary["bad_lines"] == 3 and summary["best_heads"][0]["aer"] <= 1


def test_pairs_over_max_tokens_or_the_models_positions_are_skipped_and_the_rest_counted(tmp_path, capsys, handle):
    short = ["我喜欢学习中文。\tI like studying Chinese.", "早上好！\tGood morning!", "谢谢。\tThank you."]
    over_option = "我喜欢学习中文，也喜欢看书。\tI like studying Chinese and I also like reading books."
    over_model = "我" * (handle.max_positions + 20) + "\tI."  # more than the model has positions for
    path = tmp_path / "pairs.tsv"
    path.write_text("\n".join([short[0], over_option, short[1], over_model, short[2]]) + "\n", encoding="utf-8")
    code, _, err = _run(
        capsys,
        "corpus",
        "--model",
        MODEL,
        "--input",
        path,
        "--max-tokens",
        "10",
        "--batch-size",
        "5",
        "-q",
        "-o",
        tmp_path / "report",
    )
    assert code == 0, err
    listed = pd.read_parquet(tmp_path / "report" / "bad_lines.parquet")
    assert dict(zip(listed["line"], listed["key"], strict=True)) == {2: "corpus_too_long", 4: "corpus_too_long"}
    assert "more than the 10 the job takes" in listed[listed["line"] == 4]["message"].iloc[0]  # said as the job's
    longest = max(
        len(handle.tokenizer(over_option.split("\t")[0]).input_ids),
        len(handle.tokenizer(text_target=over_option.split("\t")[1]).input_ids),
    )
    assert f"{longest} tokens" in listed[listed["line"] == 2]["message"].iloc[0]
    pairs = pd.read_parquet(tmp_path / "report" / "pairs.parquet").sort_values("line")
    assert pairs["line"].tolist() == [1, 3, 5]
    for (_, row), line in zip(pairs.iterrows(), short, strict=True):  # counted as when captured on their own
        alone = capture(handle, *line.split("\t"))
        assert row["encoder.entropy"] == pytest.approx(
            np.nanmean(head_stats.head_statistics(alone["encoder"])["entropy"])
        )


def test_the_html_report_is_standalone_and_links_each_pair_to_the_app(job):
    _, _, out, _, _ = job
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "<script src=" not in page and "plotly" in page.lower()  # plotly.js inside, nothing fetched
    assert "fig-gold.aer" in page and "fig-encoder.entropy" in page and "Lines skipped (3)" in page
    pairs = pd.read_parquet(out / "pairs.parquet")
    assert pairs["link"].str.contains("mode=pair").all() and pairs["link"].str.contains("gold=").all()


def test_a_stopped_job_resumes_from_its_finished_shards_and_counts_nothing_twice(job, capsys, tmp_path):
    path, _, done, _, _ = job
    out = tmp_path / "report"
    shutil.copytree(done, out)
    before = {name: pd.read_parquet(out / f"{name}.parquet") for name in ("heads", "pairs", "bad_lines")}
    shard_paths(out, 1)["json"].unlink()  # as if the job stopped while writing shard 1
    finished = shard_paths(out, 0)["json"].stat().st_mtime_ns
    code, _, err = _run(
        capsys,
        "corpus",
        "--model",
        MODEL,
        "--input",
        path,
        "--gold",
        "--segmented",
        "--shard-size",
        4,
        "--batch-size",
        3,
        "-q",
        "--resume",
        "-o",
        out,
    )
    assert code == 0, err
    assert shard_paths(out, 0)["json"].stat().st_mtime_ns == finished  # not computed again
    for name, table in before.items():
        pd.testing.assert_frame_equal(pd.read_parquet(out / f"{name}.parquet"), table)


def test_an_earlier_report_is_kept_without_force_and_bad_options_are_one_line(job, capsys):
    path, _, out, _, _ = job
    code, _, err = _run(capsys, "corpus", "--model", MODEL, "--input", path, "-q", "-o", out)
    assert code == 2 and "--force" in err and len(err.strip().splitlines()) == 1
    code, _, err = _run(capsys, "corpus", "--model", MODEL, "--input", path, "--shard-size", 0, "-o", out / "x")
    assert code == 2 and "--shard-size" in err
    code, _, err = _run(capsys, "corpus", "--model", MODEL, "--input", out / "missing.tsv", "-o", out / "y")
    assert code == 2 and "missing.tsv" in err
    code, _, err = _run(
        capsys, "corpus", "--model", MODEL, "--input", path, "--engine", "ray", "--keep-workers", "-q", "-o", out / "z"
    )
    assert code == 2 and "--ray-address" in err and len(err.strip().splitlines()) == 1
    assert not (out / "z").exists()  # refused before anything was written


def test_export_input_files_take_a_gold_column_drawn_over_the_alignment(tmp_path, capsys):
    from attnviz.cli.commands.export import figure
    from attnviz.cli.parser import parse

    path = tmp_path / "lines.tsv"
    path.write_text("早上好！\tGood morning!\t0-0 1-1 2-2\n早上好！\tGood morning!\n", encoding="utf-8")
    code, _, err = _run(
        capsys,
        "export",
        "--model",
        MODEL,
        "--input",
        path,
        "--view",
        "alignment",
        "--format",
        "html",
        "-q",
        "-o",
        tmp_path / "figures",
    )
    assert code == 0, err
    with_gold, without = sorted((tmp_path / "figures").glob("000[12]_*.html"))  # by line, then what each holds
    assert '"verdict"' in with_gold.read_text(encoding="utf-8")
    assert '"verdict"' not in without.read_text(encoding="utf-8")
    args = parse(
        [
            "export",
            "--model",
            MODEL,
            "--text",
            "早上好！",
            "--target",
            "Good morning!",
            "--view",
            "alignment",
            "--gold",
            "0-0 1-1 2-2",
            "-o",
            "x.png",
        ]
    )
    handle = load_model(MODEL, "cpu")
    drawn = figure(capture(handle, "早上好！", "Good morning!"), args, handle, args.gold)
    assert [t.meta["verdict"] for t in drawn.data if t.legendgroup == "gold"] == ["found", "missed", "extra"]


SOURCE, TARGET = "他明天去上海。", "He is going to Shanghai tomorrow."


def test_export_with_a_reverse_model_draws_what_the_app_draws(tmp_path):
    import json

    from streamlit.testing.v1 import AppTest

    from attnviz.cli.commands.export import figure
    from attnviz.cli.parser import parse

    gold = "0-0 1-5 2-2 2-3 3-4 4-6"
    args = parse(
        [
            "export",
            "--model",
            MODEL,
            "--text",
            SOURCE,
            "--target",
            TARGET,
            "--view",
            "alignment",
            "--gold",
            gold,
            "--reverse-model",
            "demo-en-zh",
            "-o",
            "x.png",
        ]
    )
    handle = load_model(MODEL, "cpu")
    drawn = figure(capture(handle, SOURCE, TARGET), args, handle, args.gold)
    cli = {t.meta["verdict"]: t.meta["links"] for t in drawn.data if t.legendgroup == "gold"}
    one_way = figure(
        capture(handle, SOURCE, TARGET),
        parse(
            [
                "export",
                "--model",
                MODEL,
                "--text",
                SOURCE,
                "--target",
                TARGET,
                "--view",
                "alignment",
                "--gold",
                gold,
                "-o",
                "x.png",
            ]
        ),
        handle,
        gold,
    )
    alone = {t.meta["verdict"]: t.meta["links"] for t in one_way.data if t.legendgroup == "gold"}
    assert cli.get("found", 0) + cli.get("extra", 0) <= alone.get("found", 0) + alone.get("extra", 0)

    app = Path(__file__).resolve().parents[2] / "app_pages" / "main.py"
    at = AppTest.from_file(str(app), default_timeout=180)
    for name, value in {
        "model": MODEL,
        "text": SOURCE,
        "target": TARGET,
        "mode": "pair",
        "gold": gold,
        "gold_reverse": "demo-en-zh",
    }.items():
        at.query_params[name] = value
    at.run()
    specs = [json.loads(element.proto.spec) for element in at.get("plotly_chart")]
    alignment = next(s for s in specs if s["layout"].get("meta", {}).get("view") == "alignment")
    shown = {t["meta"]["verdict"]: t["meta"]["links"] for t in alignment["data"] if t.get("legendgroup") == "gold"}
    assert shown == cli


def test_an_exported_figure_records_the_gold_links_and_reverse_model_drawn_on_it(tmp_path, capsys):
    from attnviz.export.stamp import read_stamp

    out = tmp_path / "align.html"
    code, _, err = _run(
        capsys,
        "export",
        "--model",
        MODEL,
        "--text",
        SOURCE,
        "--target",
        TARGET,
        "--view",
        "alignment",
        "--gold",
        "0-0 1-5",
        "--reverse-model",
        "demo-en-zh",
        "-o",
        out,
    )
    assert code == 0, err
    options = read_stamp(out.read_bytes(), "html")["view"]["options"]
    assert options["gold"] == "0-0 1-5" and options["reverse_model"] == "demo-en-zh"
    code, _, err = _run(
        capsys,
        "export",
        "--model",
        MODEL,
        "--text",
        SOURCE,
        "--target",
        TARGET,
        "--reverse-model",
        "demo-en-zh",
        "-o",
        tmp_path / "x.html",
    )
    assert code == 2 and "--gold" in err and len(err.strip().splitlines()) == 1


def test_a_start_that_failed_is_no_report_in_the_way_and_force_leaves_nothing_of_the_old(capsys, tmp_path):
    path = tmp_path / "pairs.tsv"
    path.write_text("\n".join(gold_lines(6)) + "\n", encoding="utf-8")
    out, gold = tmp_path / "report", ("--gold", "--segmented")
    code, _, err = _run(capsys, "corpus", "--model", "demo-zh-xx", "--input", path, *gold, "-q", "-o", out)
    assert code == 2 and "demo-zh-xx" in err
    code, _, err = _run(capsys, "corpus", "--model", MODEL, "--input", path, *gold, "-q", "-o", out)
    assert code == 0, err  # no --force needed: the failed start left no report
    bad = pd.read_parquet(out / "bad_lines.parquet")  # none, and still the columns a script reads
    assert bad.empty and bad.columns.tolist() == ["line", "key", "message", "message_zh", "text"]
    heads = pd.read_parquet(out / "heads.parquet")
    assert heads[heads["kind"] != "cross"]["aer_rank"].isna().all()  # only cross-attention heads are ranked
    assert sorted(heads[heads["kind"] == "cross"]["aer_rank"]) == list(range(1, (heads["kind"] == "cross").sum() + 1))
    code, _, err = _run(capsys, "corpus", "--model", "demo-zh-xx", "--input", path, *gold, "-q", "--force", "-o", out)
    assert code == 2
    assert not [p.name for p in out.iterdir() if p.is_file()]  # no report of the job before, taken for this one's


def test_resuming_after_the_input_was_edited_is_refused(job, capsys, tmp_path):
    path = tmp_path / "pairs.tsv"
    shutil.copy(job[0], path)
    out = tmp_path / "report"
    argv = ("corpus", "--model", MODEL, "--input", path, "--gold", "--segmented", "--shard-size", 4, "-q", "-o", out)
    assert _run(capsys, *argv)[0] == 0
    shard_paths(out, 1)["json"].unlink()  # stopped before shard 1 was written …
    path.write_text("早上 好 ！\tGood morning !\t0-0 1-1 2-2\n" + path.read_text(encoding="utf-8"), encoding="utf-8")
    code, _, err = _run(capsys, *argv, "--resume")  # … and the input edited since: other lines at the same places
    assert code == 2 and "another job" in err


def test_a_byte_order_mark_trailing_tabs_and_a_gold_column_without_gold_are_read_as_a_user_means(capsys, tmp_path):
    path = tmp_path / "pairs.tsv"
    lines = ["早上好！\tGood morning!", "谢谢。\tThank you.\t", "我喜欢学习中文。\tI like studying Chinese.\t0-0"]
    path.write_bytes("\ufeff".encode() + "\n".join(lines).encode() + b"\n")
    code, _, err = _run(capsys, "corpus", "--model", MODEL, "--input", path, "-q", "-o", tmp_path / "report")
    assert code == 0, err
    pairs = pd.read_parquet(tmp_path / "report" / "pairs.parquet")
    assert pairs["source"].tolist() == ["早上好！", "谢谢。"]  # no byte-order mark read; the empty column dropped
    bad = pd.read_parquet(tmp_path / "report" / "bad_lines.parquet")
    assert bad["key"].tolist() == ["corpus_columns_gold"] and "--gold" in bad["message"].iloc[0]


def test_a_job_that_can_analyse_no_pair_says_why_in_one_line(capsys, tmp_path):
    links = tmp_path / "links.tsv"
    links.write_text("早上好！\tGood morning!\t0-0\n谢谢。\tThank you.\t0-0\n", encoding="utf-8")
    code, _, err = _run(capsys, "corpus", "--model", MODEL, "--input", links, "-q", "-o", tmp_path / "a")
    assert code == 2 and "line 1" in err and "--gold" in err and len(err.strip().splitlines()) == 1
    assert (tmp_path / "a" / "bad_lines.parquet").exists()  # the report that lists them is written
    blank = tmp_path / "blank.tsv"
    blank.write_text("\n  \n", encoding="utf-8")
    code, _, err = _run(capsys, "corpus", "--model", MODEL, "--input", blank, "-q", "-o", tmp_path / "b")
    assert code == 2 and "blank" in err
    code, _, err = _run(capsys, "corpus", "--model", "minilm", "--input", links, "--gold", "-q", "-o", tmp_path / "c")
    assert code == 2 and "cross-attention" in err and len(err.strip().splitlines()) == 1


def test_bad_threads_and_an_output_that_is_a_file_are_one_line(job, capsys, tmp_path):
    code, _, err = _run(capsys, "corpus", "--model", MODEL, "--input", job[0], "--threads", -2, "-o", tmp_path / "t")
    assert code == 2 and "--threads must be 1 or more" in err and not (tmp_path / "t").exists()
    afile = tmp_path / "afile"
    afile.write_text("x", encoding="utf-8")
    code, _, err = _run(capsys, "corpus", "--model", MODEL, "--input", job[0], "-q", "-o", afile)
    assert code == 1 and err.strip().endswith(f"({afile / 'shards'})") and len(err.strip().splitlines()) == 1


def test_pairs_in_a_script_the_model_does_not_read_are_counted_and_said(capsys, tmp_path):
    path = tmp_path / "pairs.tsv"
    lines = ["早上好！\tGood morning!", "谢谢。\tThank you.", "Good morning!\t早上好！"]  # the last: the other way
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, _, err = _run(capsys, "corpus", "--model", MODEL, "--input", path, "-q", "-o", tmp_path / "r")
    assert code == 0 and "1 of 3 pairs have a source in a script demo-zh-en does not read (it reads Chinese)" in err
    pairs = pd.read_parquet(tmp_path / "r" / "pairs.parquet")
    assert pairs["source_read"].tolist() == [True, True, False]
    summary = json.loads((tmp_path / "r" / "report.json").read_text(encoding="utf-8"))
    assert summary["unread"] == {"source": 1, "languages": ["zh"], "reverse": 0, "reverse_languages": []}
    assert "1 of 3 pairs have a source" in (tmp_path / "r" / "report.html").read_text(encoding="utf-8")
    code, _, err = _run(capsys, "corpus", "--model", "demo-en-zh", "--input", path, "-q", "-o", tmp_path / "e")
    assert code == 0 and "2 of 3 pairs" in err and "(it reads English)" in err
    gold = tmp_path / "gold.tsv"
    gold.write_text("早上好！\tGood morning!\t0-0\n", encoding="utf-8")
    code, _, err = _run(
        capsys,
        "corpus",
        "--model",
        MODEL,
        "--reverse-model",
        MODEL,
        "--input",
        gold,
        "--gold",
        "-q",
        "-o",
        tmp_path / "g",
    )
    assert code == 0 and "1 of 1 pairs have a target in a script the reverse model demo-zh-en does not read" in err


def test_a_folder_or_a_utf16_file_as_input_is_one_line(capsys, tmp_path):
    code, _, err = _run(capsys, "corpus", "--model", MODEL, "--input", tmp_path, "-o", tmp_path / "r")
    assert code == 2 and "is a folder" in err
    utf16 = tmp_path / "pairs.tsv"
    utf16.write_bytes("早上好！\tGood morning!\n".encode("utf-16"))  # with its byte-order mark, as Excel writes it
    code, _, err = _run(capsys, "corpus", "--model", MODEL, "--input", utf16, "-o", tmp_path / "r")
    assert code == 2 and "UTF-16" in err and len(err.strip().splitlines()) == 1 and not (tmp_path / "r").exists()


def test_pair_links_open_the_app_where_it_runs(job, capsys, tmp_path):
    argv = ("corpus", "--model", MODEL, "--input", job[0], "--gold", "--segmented", "-q")
    code, _, err = _run(capsys, *argv, "--app-url", "https://attnviz.example.org/", "-o", tmp_path / "r")
    assert code == 0, err
    assert (
        pd.read_parquet(tmp_path / "r" / "pairs.parquet")["link"].str.startswith("https://attnviz.example.org/?").all()
    )
    code, _, err = _run(capsys, *argv, "--app-url", "attnviz.example.org", "-o", tmp_path / "s")
    assert code == 2 and "--app-url" in err


def test_gold_links_on_a_translator_given_no_target_ask_for_the_target(capsys, tmp_path):
    code, _, err = _run(
        capsys,
        "export",
        "--model",
        MODEL,
        "--text",
        "我喜欢绿茶。",
        "--gold",
        "0-0",
        "--view",
        "alignment",
        "-o",
        tmp_path / "g.png",
    )
    assert code == 2 and "give demo-zh-en the target text too (--target" in err


def test_a_reverse_model_that_cannot_read_the_target_is_warned_of(capsys, tmp_path):
    argv = (
        "export",
        "--model",
        MODEL,
        "--text",
        "早上好！",
        "--target",
        "Good morning!",
        "--gold",
        "0-0",
        "--view",
        "alignment",
        "--engine",
        "static",
    )
    code, _, err = _run(capsys, *argv, "--reverse-model", MODEL, "-o", tmp_path / "same.png")  # the same direction
    assert code == 0 and "warning: --reverse-model:" in err and "demo-zh-en does not read" in err
    code, _, err = _run(capsys, *argv, "--reverse-model", "demo-en-zh", "-o", tmp_path / "back.png")
    assert code == 0 and "--reverse-model" not in err


def test_a_reverse_model_that_cannot_write_the_source_is_warned_of(capsys, tmp_path):
    from training.translator import model_dir

    english_german = tmp_path / "en-de"  # demo-en-zh's weights under a card that says it writes German
    english_german.mkdir()
    for file in model_dir("en-zh").iterdir():
        if file.name != "README.md":
            (english_german / file.name).symlink_to(file)
    (english_german / "README.md").write_text("---\nlanguage: [en, de]\n---\n", encoding="utf-8")
    argv = (
        "export",
        "--model",
        MODEL,
        "--text",
        "早上好！",
        "--target",
        "Good morning!",
        "--gold",
        "0-0",
        "--view",
        "alignment",
        "--engine",
        "static",
        "--reverse-model",
        english_german,
        "-o",
        tmp_path / "back.png",
    )
    code, _, err = _run(capsys, *argv)
    warned = [line for line in err.splitlines() if "warning: --reverse-model:" in line]
    assert code == 0 and len(warned) == 1 and "does not write (it writes German)" in warned[0]


def test_export_with_gold_links_says_the_views_precision_recall_and_aer(capsys, tmp_path):
    import re

    code, out, err = _run(
        capsys,
        "export",
        "--model",
        MODEL,
        "--text",
        "我喜欢学习。",
        "--target",
        "I like studying.",
        "--gold",
        "0-0 1-1 2-2 3-3",
        "--view",
        "alignment",
        "--engine",
        "static",
        "-o",
        tmp_path / "g.png",
    )
    assert code == 0 and out.strip() == str(tmp_path / "g.png")  # stdout names the file, the score goes to stderr
    said = re.search(r"precision (\S+) · recall (\S+) · AER (\S+) \((\d+) found, (\d+) missed, (\d+) extra\)", err)
    assert said, err
    precision, recall, aer = (float(value) for value in said.groups()[:3])
    found, missed, extra = (int(value) for value in said.groups()[3:])
    assert found + missed == 4  # every gold link is found or missed
    assert precision == pytest.approx(found / max(found + extra, 1), abs=0.01)  # sure links only: AER = 1 − F1
    assert recall == pytest.approx(found / 4, abs=0.01)
    assert aer == pytest.approx(1 - 2 * found / (found + extra + 4), abs=0.01)
