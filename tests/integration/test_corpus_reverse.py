"""`python -m attnviz corpus --reverse-model M2`: the links both directions find, scored per pair and over the
corpus, are the forward alignment view's links intersected with the reverse model's (transposed), as one pair at a
time gives them; tiny random translators each way."""

from __future__ import annotations

import contextlib
import io
import json

import numpy as np
import pandas as pd
import pytest

from attnviz.attention.capture import capture
from attnviz.cli import main
from attnviz.corpus import links
from attnviz.corpus.gold import Counts, Gold
from attnviz.corpus.pair import PairWords, head_scores, reverse_mask
from attnviz.corpus.view import reverse_view
from attnviz.corpus.words import segmented
from attnviz.figures.common import format_value
from attnviz.model.load import load_model
from attnviz.view import head_choice
from tests.support.corpus_files import corpus_file, gold_lines
from tests.support.tiny import save_tiny

THRESHOLD = 0.05  # low, so random tiny models find links in both directions


def _main(*argv) -> tuple[int, str, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        try:
            code = main([str(a) for a in argv])
        except SystemExit as exit_:
            code = exit_.code
    return code, stdout.getvalue(), stderr.getvalue()


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    folder = tmp_path_factory.mktemp("reverse-models")
    return save_tiny("marian", folder / "forward", seed=0), save_tiny("marian", folder / "reverse", seed=1)


@pytest.fixture(scope="module")
def report(models, tmp_path_factory):
    folder = tmp_path_factory.mktemp("reverse-corpus")
    path, _ = corpus_file(folder, count=5, bad_every=10)
    forward, reverse = models
    code, _, err = _main(
        "corpus",
        "--model",
        forward,
        "--reverse-model",
        reverse,
        "--input",
        path,
        "--gold",
        "--segmented",
        "--threshold",
        THRESHOLD,
        "--shard-size",
        2,
        "-q",
        "-o",
        folder / "report",
    )
    assert code == 0, err
    return folder / "report"


def _view_links(handle, source: str, target: str, words: PairWords) -> frozenset:
    """The alignment view's links of one pair, as the app's view finds them: (source word, target word)."""
    cross = capture(handle, source, target)["cross"]
    heads = head_choice.alignment_pairs(handle.alignment_heads, cross.num_layers, cross.num_heads)
    weights = words.word_weights(cross)  # (layers, heads, target words, source words)
    view = weights[[h[0] for h in heads], [h[1] for h in heads]].mean(axis=0)
    return links.links_of(links.link_mask(view, THRESHOLD))


def test_both_directions_links_are_the_intersection_one_pair_at_a_time_gives(models, report):
    forward, reverse = (load_model(m, "cpu") for m in models)
    pairs = pd.read_parquet(report / "pairs.parquet").sort_values("line")
    assert len(pairs) == 5
    total_view, total_both = Counts(), Counts()
    for (_, row), line in zip(pairs.iterrows(), gold_lines(5), strict=True):
        source, target, gold_text = line.split("\t")
        words = PairWords(segmented(source), segmented(target))
        gold = Gold.parse(gold_text)
        there = _view_links(forward, words.source.text, words.target.text, words)
        back = _view_links(reverse, words.target.text, words.source.text, PairWords(words.target, words.source))
        both = links.intersect(there, back)
        assert both <= there
        view_counts, both_counts = Counts.of(there, gold), Counts.of(both, gold)
        assert row["precision"] == pytest.approx(view_counts.scores().precision, nan_ok=True)
        assert row["both_precision"] == pytest.approx(both_counts.scores().precision, nan_ok=True)
        assert row["both_recall"] == pytest.approx(both_counts.scores().recall)
        assert row["both_aer"] == pytest.approx(both_counts.scores().aer, nan_ok=True)
        total_view, total_both = total_view + view_counts, total_both + both_counts
        backward = reverse_view(capture(reverse, words.target.text, words.source.text), reverse.alignment_heads)
        page = head_scores(
            capture(forward, words.source.text, words.target.text)["cross"],
            words,
            gold,
            THRESHOLD,
            reverse_mask(words, backward, THRESHOLD),
        )  # the page's head map, both directions
        best = np.unravel_index(int(np.argmin(page.aer)), page.aer.shape)
        assert (row["best_layer"], row["best_head"]) == best and row["best_aer"] == pytest.approx(page.aer[best])
    summary = json.loads((report / "report.json").read_text(encoding="utf-8"))
    assert summary["options"]["reverse_model"] == models[1]
    assert summary["links"]["view"]["aer"] == pytest.approx(total_view.scores().aer)
    assert summary["links"]["both"]["aer"] == pytest.approx(total_both.scores().aer)
    assert summary["links"]["both"]["recall"] <= summary["links"]["view"]["recall"]
    assert total_both.predicted > 0  # the test compares links, not two empty sets
    page = (report / "report.html").read_text(encoding="utf-8")
    both_aer = format_value(total_both.scores().aer)
    assert "reading each pair back, also finds: precision" in page and f"AER {both_aer}" in page


def test_a_reverse_model_without_gold_links_is_one_line(models, tmp_path):
    path, _ = corpus_file(tmp_path, count=2, bad_every=10)
    code, _, err = _main(
        "corpus",
        "--model",
        models[0],
        "--reverse-model",
        models[1],
        "--input",
        path,
        "--segmented",
        "-q",
        "-o",
        tmp_path / "out",
    )
    assert code == 2 and "--gold" in err and len(err.strip().splitlines()) == 1
