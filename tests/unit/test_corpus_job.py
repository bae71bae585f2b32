"""The corpus job's parts without a model: input lines and bad lines, streamed statistics, shards of a file."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from attnviz.corpus.inputs import BadLine, CorpusPair, read_pairs
from attnviz.corpus.report import ShardMerge
from attnviz.corpus.shards import JobOptions, ShardResult, is_done, read_shard, shard_specs, write_shard
from attnviz.corpus.stats import HeadAccumulator, Moments, StatisticBlock
from attnviz.maps import head_stats
from tests.support.maps import random_map, tokens_from


def _write(tmp_path, text: str | bytes):
    path = tmp_path / "pairs.tsv"
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return path


def test_bad_lines_are_listed_with_their_numbers_and_the_others_read(tmp_path):
    lines = [
        "早上 好 ！\tGood morning !\t0-0 1-1 2-2",  # 1: fine
        "",  # 2: blank, skipped silently
        "\tGood morning !\t0-0",  # 3: empty source
        "早上 好\tGood morning\t0-x",  # 4: links that cannot be read
        "早上 好\tGood morning\t5-0",  # 5: a link outside the words
        "早上 好\tGood morning",  # 6: no gold column
        "我 喜欢 学习 。\tI like studying .\t0-0 1-1 2-2 3?3",  # 7: fine
    ]
    path = _write(tmp_path, "\n".join(lines).encode() + b"\n\xff\xfe\tbroken\t0-0\n")  # 8: not UTF-8
    items = list(read_pairs(path, gold=True, is_segmented=True))
    good = [i for i in items if isinstance(i, CorpusPair)]
    bad = {i.line: i.key for i in items if isinstance(i, BadLine)}
    assert [p.line for p in good] == [1, 7]
    assert good[0].source == "早上好！" and good[0].target == "Good morning!" and good[1].gold.possible >= {(3, 3)}
    assert bad == {
        3: "corpus_empty_source",
        4: "corpus_not_pharaoh",
        5: "corpus_link_outside",
        6: "corpus_columns",
        8: "corpus_not_utf8",
    }
    sentence = next(i for i in items if isinstance(i, BadLine) and i.line == 4).message
    assert "Pharaoh" in sentence


def test_plain_text_input_keeps_the_texts_as_they_are(tmp_path):
    path = _write(tmp_path, "早上好！\tGood morning!\n")
    (pair,) = read_pairs(path)
    assert (pair.source, pair.target, pair.gold, pair.source_words) == ("早上好！", "Good morning!", None, None)


def test_moments_stream_to_the_mean_and_spread_of_all_values():
    rng = np.random.default_rng(0)
    values = rng.random((50, 2, 3))
    values[3, 0, 0] = np.nan  # a statistic that does not apply to one pair is left out of that head
    total = Moments.of(values[0])
    for v in values[1:]:
        total = total.add(Moments.of(v))
    assert total.mean() == pytest.approx(np.nanmean(values, axis=0))
    assert total.spread() == pytest.approx(np.nanstd(values, axis=0))
    assert total.count[0, 0] == 49 and total.count[1, 1] == 50


def test_accumulators_merged_in_shard_order_equal_one_pass_and_survive_their_files():
    tokens = tokens_from(["The", "cat", "sat", "."])
    maps = [random_map(tokens, layers=2, heads=3, seed=seed) for seed in range(6)]
    whole, first, second = HeadAccumulator(), HeadAccumulator(), HeadAccumulator()
    for i, amap in enumerate(maps):
        whole.add_map(amap)
        (first if i < 3 else second).add_map(amap)
    whole.pairs, first.pairs, second.pairs = 6, 3, 3
    whole.add_gold({"predicted": np.ones((2, 3))})
    second.add_gold({"predicted": np.ones((2, 3))})
    restored = HeadAccumulator.from_arrays(first.to_arrays(), first.layer_names)
    merged = restored.merge(HeadAccumulator.from_arrays(second.to_arrays(), second.layer_names))
    assert merged.pairs == 6 and merged.gold["predicted"].tolist() == whole.gold["predicted"].tolist()
    kind = maps[0].kind
    for name, moments in whole.moments[kind].items():
        assert merged.moments[kind][name].mean() == pytest.approx(moments.mean(), nan_ok=True)


def test_a_maps_means_are_over_the_heads_where_each_statistic_applies():
    amap = random_map(tokens_from(["The", "cat", "sat", "the", "cat", "."]), layers=2, heads=3, seed=4)
    means = HeadAccumulator().add_map(amap)
    for name, values in head_stats.head_statistics(amap).items():
        finite = values[np.isfinite(values)]
        assert means[name] == (
            pytest.approx(float(finite.mean()), rel=1e-6) if finite.size else pytest.approx(np.nan, nan_ok=True)
        )


def test_blocks_with_other_statistics_merge_each_one_and_keep_what_one_lacks():
    rng = np.random.default_rng(1)
    one = {name: Moments.of(rng.random((2, 3))) for name in ("entropy", "sink")}
    two = {name: Moments.of(rng.random((2, 3))) for name in ("sink", "distance")}
    merged = StatisticBlock.of(one).add(StatisticBlock.of(two)).split()
    assert list(merged) == ["entropy", "sink", "distance"]
    assert merged["sink"].total == pytest.approx(one["sink"].total + two["sink"].total)
    assert merged["entropy"].total == pytest.approx(one["entropy"].total)
    assert merged["distance"].count.tolist() == two["distance"].count.tolist()


def test_shards_cut_the_file_by_lines_and_read_back_exactly(tmp_path):
    text = "".join(f"源{i}\ttarget {i}\n" if i % 5 else "\n" for i in range(1, 24))
    path = _write(tmp_path, text)
    specs = shard_specs(path, 10)
    assert [(s.first_line, s.lines) for s in specs] == [(1, 10), (11, 10), (21, 3)]
    read = [p.line for spec in specs for p in read_shard(path, spec, JobOptions())]
    assert read == [i for i in range(1, 24) if i % 5]


def test_shards_merge_in_shard_order_as_they_finish(tmp_path):
    """A shard finished before the ones ahead of it waits for them; the sums and rows come out in shard order."""
    path = _write(tmp_path, "".join(f"源{i}\ttarget {i}\n" for i in range(1, 7)))
    specs = shard_specs(path, 2)
    tokens = tokens_from(["The", "cat", "sat", "."])

    def finish(spec) -> None:
        result = ShardResult(spec.index)
        for line in range(spec.first_line, spec.first_line + spec.lines):
            result.acc.add_map(random_map(tokens, layers=2, heads=3, seed=line))
            result.rows.append({"line": line, "source": f"源{line}", "target": f"target {line}"})
        result.acc.pairs = spec.lines
        write_shard(tmp_path, result)

    merge = ShardMerge(tmp_path, specs, "demo-zh-en")
    finish(specs[2])
    merge.advance()
    assert merge.merged == 0 and merge.pairs == 0  # shard 2 waits for shards 0 and 1
    finish(specs[0])
    merge.advance()
    assert merge.merged == 1 and merge.pairs == 2
    with pytest.raises(RuntimeError, match="not finished"):
        merge.finish()
    merge.close()  # a job stopped here lets the partial file go; a resumed job merges from the start again
    merge = ShardMerge(tmp_path, specs, "demo-zh-en")
    finish(specs[1])
    total, bad = merge.finish()
    assert all(is_done(tmp_path, spec.index) for spec in specs) and bad == []
    pairs = pd.read_parquet(tmp_path / "pairs.parquet")
    assert pairs["line"].tolist() == list(range(1, 7)) and pairs["link"].str.contains("model=demo-zh-en").all()
    assert total.pairs == 6


def test_a_pairs_link_opens_it_as_the_job_scored_it():
    from urllib.parse import parse_qs, urlsplit

    from attnviz.corpus.report import pair_link, report_options

    row = {
        "source": "早上好！",
        "target": "Good morning!",
        "gold": "0-0 1-1",
        "source_words": "早上 好 ！",
        "target_words": "Good morning !",
    }
    options = JobOptions(gold=True, segmented=True, threshold=0.25, reverse_model="demo-en-zh")
    params = parse_qs(urlsplit(pair_link("demo-zh-en", row, options=options)).query)
    assert {name: values[0] for name, values in params.items()} == {
        "model": "demo-zh-en",
        "mode": "pair",
        "text": "早上 好 ！",
        "target": "Good morning !",
        "segmented": "1",
        "gold": "0-0 1-1",
        "threshold": "0.25",
        "gold_reverse": "demo-en-zh",
    }
    plain = parse_qs(urlsplit(pair_link("demo-zh-en", {"source": "早上好！", "target": "Good morning!"})).query)
    assert set(plain) == {"model", "mode", "text", "target"} and plain["text"] == ["早上好！"]
    summary = {"options": vars(options) | {"shard_size": 256, "from_a_later_version": 1}}
    assert report_options(summary) == options  # what report.json keeps, read back; unknown names left out


def test_lines_without_a_tab_may_separate_their_columns_as_awesome_align_does(tmp_path):
    path = _write(tmp_path, "早上 好 ！ ||| Good morning ! ||| 0-0 1-1 2-2\na|||b\tc|||d\t0-0\n")
    first, second = read_pairs(path, gold=True, is_segmented=True)
    assert (first.source, first.target, first.gold.sure) == ("早上好！", "Good morning!", {(0, 0), (1, 1), (2, 2)})
    assert (second.source, second.target) == ("a|||b", "c|||d")  # a line with a tab: its columns are the tabs'


@pytest.mark.parametrize(
    "header, gold",
    [
        ("zh\ten", False),
        ("source\ttarget\tlinks", True),
        ("zh_words ||| en_words ||| alignment", True),
        ("\ufeffSRC\tTGT", False),
    ],
)
def test_a_first_line_that_names_the_columns_is_said_and_skipped_not_read_as_a_pair(tmp_path, header, gold):
    pair = "早上 好 ！\tGood morning !" + ("\t0-0 1-1 2-2" if gold else "")
    path = _write(tmp_path, f"{header}\n{pair}\nzh\ten\n")
    first, second, third = read_pairs(path, gold=gold, is_segmented=True)
    assert isinstance(first, BadLine) and (first.line, first.key) == (1, "corpus_header")
    assert "a header, not a pair" in first.message and "表头" in first.message_zh
    assert isinstance(second, CorpusPair) and second.source == "早上好！"
    assert not isinstance(third, BadLine) or third.key != "corpus_header"  # only line 1 can be a header


@pytest.mark.parametrize("line", ["no\tja", "Hello\t你好", "text\tGood morning", "en"])
def test_pairs_that_only_look_like_names_are_not_headers(line):
    from attnviz.corpus.inputs import header_names

    assert header_names(line) is None
