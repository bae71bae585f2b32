"""The Corpus page (AppTest): it opens a report folder, runs a small corpus with a progress bar, shows the gold maps,
best heads, statistics, pairs and bad lines, and a head or a pair is one click from opening on Translate & align."""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import SimpleNamespace
from unittest import mock

import pandas as pd
import pytest
from streamlit.proto.WidgetStates_pb2 import WidgetState
from streamlit.testing.v1 import AppTest

from attnviz.corpus.job import JobConfig, run_job
from attnviz.corpus.report import read_report
from attnviz.corpus.shards import JobOptions
from attnviz.figures.common import format_value
from tests.support.corpus_files import corpus_file, gold_lines

APP = str(Path(__file__).resolve().parents[2] / "app_pages" / "main.py")
MODEL = "demo-zh-en"


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("corpus")
    path, _ = corpus_file(folder, count=6, bad_every=3)
    config = JobConfig(MODEL, path, folder / "report", JobOptions(gold=True, segmented=True), shard_size=4)
    run_job(config)
    return folder / "report"


def open_corpus(**params) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=180)
    for name, value in params.items():
        at.query_params[name] = str(value)
    at.run()
    return at.switch_page("page_scripts/corpus.py").run()


def views(at: AppTest) -> list[str]:
    return [json.loads(c.proto.spec)["layout"].get("meta", {}).get("view") for c in at.get("plotly_chart")]


def select(at: AppTest, element, selection: dict) -> None:
    """Run the app as a selection in a chart or table makes the browser run it."""
    states = at._tree.get_widget_states()
    states.widgets.append(WidgetState(id=element.proto.id, string_value=json.dumps({"selection": selection})))
    at._run(widget_state=states)


def test_the_corpus_scores_of_the_alignment_view_are_said_at_the_jobs_threshold(report):
    at = open_corpus(corpus=str(report))
    summary = json.loads((report / "report.json").read_text(encoding="utf-8"))
    line = next(m.value for m in at.markdown if "Over the corpus" in m.value)
    assert "at least 0.1" in line and f"AER {format_value(summary['links']['view']['aer'])}" in line


def test_a_report_folder_opens_with_its_maps_tables_and_bad_lines(report):
    at = open_corpus(corpus=str(report))
    assert not at.exception and not at.error
    assert "pairs: 6" in at.success[0].value and "lines skipped: 2" in at.success[0].value
    assert {"score_grid", "layer_aer", "statistic"} <= set(views(at))
    assert len(at.dataframe(key="corpus_pairs").value) == 6 and len(at.dataframe[-1].value) == 2  # the bad lines
    assert at.query_params["corpus"] == str(report)  # the report is in the link


def test_in_chinese_the_summary_and_bad_lines_are_chinese(report):
    at = open_corpus(corpus=str(report), lang="zh")
    assert not at.exception and not at.error
    assert "跳过 2 行" in at.success[0].value and "进程内引擎" in at.success[0].value
    bad = at.dataframe[-1].value
    assert list(bad.columns) == ["line", "message", "text"] and len(bad) == 2
    english = read_report(report)["bad_lines"]["message"]
    for why, said in zip(bad["message"], english, strict=True):  # each reason in Chinese, none left in English
        assert re.search(r"[\u4e00-\u9fff]", why) and not re.search(r"\b(source|target|side|Expected)\b", why)
        assert why != said


def test_uploaded_files_that_make_no_report_are_named_in_the_error(tmp_path):
    at = open_corpus(lang="zh")
    at.switch_page("page_scripts/corpus.py")
    uploaded = [SimpleNamespace(name="notes.json", getvalue=lambda: b"{}")]
    with mock.patch("streamlit.file_uploader", return_value=uploaded):
        at.run()
    assert "notes.json 中没有语料报告" in at.error[0].value


def test_a_best_head_row_opens_that_head_on_translate(report):
    at = open_corpus(corpus=str(report))
    best = at.dataframe(key="corpus_best_heads").value
    layer, head = int(best.iloc[1]["layer"]), int(best.iloc[1]["head"])
    table = next(d for d in at.dataframe if d.key == "corpus_best_heads")
    select(at, table, {"rows": [1], "columns": [], "cells": []})
    assert not at.exception
    assert at.title[0].value == "Translate & align"
    assert (at.selectbox(key="w_layer").value, at.selectbox(key="w_head").value) == (layer, head)


def test_a_cell_of_the_aer_map_opens_that_head(report):
    at = open_corpus(corpus=str(report))
    chart = next(
        c for c in at.get("plotly_chart") if json.loads(c.proto.spec)["layout"]["meta"]["view"] == "score_grid"
    )
    select(at, chart, {"points": [{"x": 2, "y": 1}], "point_indices": [6], "box": [], "lasso": []})
    assert at.title[0].value == "Translate & align"
    assert (
        at.selectbox(key="w_cross_aggregation").value,
        at.selectbox(key="w_layer").value,
        at.selectbox(key="w_head").value,
    ) == (
        "head",
        1,
        2,
    )


def test_a_pair_opens_on_translate_with_its_gold_links(report):
    at = open_corpus(corpus=str(report), view="head", layer=1, head=2)  # a head chosen before: not how it was scored
    pairs = pd.read_parquet(report / "pairs.parquet")  # the table shows these rows, less the words and link
    table = next(d for d in at.dataframe if d.key == "corpus_pairs")
    select(at, table, {"rows": [0], "columns": [], "cells": []})
    assert not at.exception and at.title[0].value == "Translate & align"
    row = pairs.iloc[0]  # a pre-segmented pair (爷爷 和 奶奶 …): it opens as its words, which its gold links index
    assert at.text_input(key="w_text").value == row["source_words"] and at.checkbox(key="w_segmented").value
    assert at.text_input(key="w_gold").value == row["gold"]
    assert (
        at.selectbox(key="w_cross_aggregation").value == "alignment"
    )  # the model's alignment view, as the job scored it
    line = next(m.value for m in at.markdown if "AER" in m.value)
    assert re.search(r"AER\D*([0-9.]+)", line).group(1) == format_value(row["aer"])  # the score the report gave it
    assert any(" · ".join(row["source_words"].split()) in c.value for c in at.caption)  # not the word merge's 爷 · 爷


def test_a_small_corpus_runs_live_on_the_page():
    at = open_corpus()
    at.radio(key="w_corpus_source").set_value("run").run()
    at.text_area(key="w_corpus_lines").set_value("\n".join(gold_lines(3))).run()
    at.checkbox(key="w_corpus_has_gold").check().run()
    at.checkbox(key="w_corpus_segmented").check().run()
    at.button(key="corpus_run").click().run()
    assert not at.exception and not at.error
    assert "pairs: 3" in at.success[0].value and "score_grid" in views(at)


def test_a_folder_without_a_report_is_a_sentence(tmp_path):
    at = open_corpus(corpus=str(tmp_path))
    assert not at.exception and at.error and "report.json" in at.error[0].value


def test_the_corpus_page_speaks_chinese(report):
    at = open_corpus(corpus=str(report), lang="zh")
    assert at.title[0].value == "语料" and "对句子" in at.success[0].value


@pytest.mark.parametrize("lang, said", [("en", "1 of 2 pairs have a source in a script"), ("zh", "2 对句子中有 1 对")])
def test_pairs_the_model_cannot_read_are_said_on_the_page(lang, said):
    at = open_corpus(lang=lang)
    at.radio(key="w_corpus_source").set_value("run").run()
    at.text_area(key="w_corpus_lines").set_value("早上好！\tGood morning!\nThank you.\t谢谢。").run()
    at.button(key="corpus_run").click().run()
    assert not at.exception and not at.error
    assert any(said in w.value for w in at.warning)


def test_the_pages_choices_outlive_a_switch_of_language_and_page_and_the_run_works_after():
    at = open_corpus()
    at.radio(key="w_corpus_source").set_value("run").run()
    at.text_area(key="w_corpus_lines").set_value("早上好！ ||| Good morning!\n谢谢。 ||| Thank you.").run()
    at.checkbox(key="w_corpus_has_gold").check().uncheck().run()
    at.button_group(key="w_lang").set_value("zh").run()
    at.switch_page("page_scripts/translate.py").run()
    at.switch_page("page_scripts/corpus.py").run()
    assert at.radio(key="w_corpus_source").value == "run"
    assert at.text_area(key="w_corpus_lines").value.startswith("早上好！ ||| Good morning!")
    at.button(key="corpus_run").click().run()
    assert not at.exception and not at.error and "2 对句子" in at.success[0].value  # ||| separates the columns


def test_a_run_of_only_bad_lines_lists_them_and_a_long_paste_says_what_was_left_out():
    at = open_corpus()
    at.radio(key="w_corpus_source").set_value("run").run()
    at.text_area(key="w_corpus_lines").set_value("garbage only\nmore garbage").run()
    at.button(key="corpus_run").click().run()
    assert not at.exception and not at.error and "pairs: 0" in at.success[0].value
    bad = next(d.value for d in at.dataframe if "message" in d.value.columns)
    assert bad["line"].tolist() == [1, 2]
    assert "corpus_kind" not in [s.key for s in at.selectbox]  # no statistics of no pairs
    lines = "\n".join(["早上好！\tGood morning!", ""] * 203)  # blank lines are no pairs: 200 pairs run, 3 left out
    at.text_area(key="w_corpus_lines").set_value(lines).run()
    at.button(key="corpus_run").click().run()
    assert "pairs: 200" in at.success[0].value and any("3 more left out" in w.value for w in at.warning)


def test_the_statistics_choice_outlives_a_page_switch_and_a_folder_that_fails_leaves_no_report(report, tmp_path):
    at = open_corpus(corpus=str(report))
    at.selectbox(key="w_corpus_kind").set_value("cross").run()
    at.switch_page("page_scripts/translate.py").run()
    at.switch_page("page_scripts/corpus.py").run()
    assert at.selectbox(key="w_corpus_kind").value == "cross"
    at.text_input(key="w_corpus").set_value(str(tmp_path)).run()  # no report there
    assert at.error and not at.success  # the report before is not left on show under the error
