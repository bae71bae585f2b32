"""A corpus job's report: its finished shards merged in shard order, as Parquet tables, report.json and report.html.

Files in the report folder (all Parquet, read by pandas, DuckDB, Ray or pyarrow):
- `heads.parquet`: one row per map kind × layer × head: every head statistic's mean and spread (`<stat>_mean`,
  `<stat>_std`, over the pairs where it applies) and, for cross-attention with gold links, `precision`, `recall`,
  `aer` (the corpus' links counted together; with a reverse model, each head's links its view also finds, as the
  page's head map scores them) and `aer_rank` (1 = the best-aligning head);
- `layers.parquet`: the same averaged over each layer's heads;
- `pairs.parquet`: one row per pair (line, texts, token counts, each map's statistics averaged over its heads, with
  gold the scores of the model's alignment view and its best head for that pair, `link`: the pair in the app,
  `source_read`: whether the source is in a script the model reads, `reverse_read`: the target, the reverse model;
  a pre-segmented pair's words in `source_words`, `target_words`);
- `bad_lines.parquet`: every input line skipped, with its number and why;
- `report.json`: the summary (model, options, counts, `unread`: pairs in a script a model does not read (with the
  languages it declares), best heads, and with gold `links`: precision, recall and AER
  over the corpus of the alignment view's links, `view`, and with a reverse model of the links both directions find,
  `both`); `report.html`: the figures, standalone (`attnviz.corpus.html_report`);
- `timeline.json`: when each part of the last run ran (`attnviz.corpus.timeline`).
"""

from __future__ import annotations

import json
import math
import urllib.parse
from dataclasses import asdict
from pathlib import Path

import numpy as np

from attnviz import i18n
from attnviz.corpus.gold import Scores
from attnviz.corpus.shards import SHARDS, JobOptions, ShardSpec, is_done, read_shard_sums, shard_paths
from attnviz.corpus.stats import HeadAccumulator
from attnviz.errors import InputError
from attnviz.figures.common import format_value
from attnviz.maps import head_stats
from attnviz.model.catalogue import declared_languages
from attnviz.text.caveats import language_names

APP_URL = (
    "http://localhost:8501/"  # where `link` opens a pair by default (`--app-url`); the Corpus page opens it itself
)
TABLES = ("heads", "layers", "pairs", "bad_lines")
PARTIAL = ".pairs.parquet.partial"  # pairs.parquet while the shards are merged
OUTPUTS = ("report.json", "report.html", PARTIAL, *(f"{name}.parquet" for name in TABLES))  # what a report writes
BEST = 10  # heads ranked in report.json and the HTML report


class ShardMerge:
    """The finished shards merged in shard order — sums added up, bad lines in line order, pair rows streamed into
    pairs.parquet — as they finish: `advance()` after each shard merges every finished one at the front of the order,
    so a driver that waits on its workers merges while they compute; `finish()` merges the rest. The order is the
    shards', whoever finished first, so the sums are the same bits on every engine (given the same torch threads:
    a matrix product may round its last bit otherwise)."""

    def __init__(
        self,
        folder: Path,
        specs: list[ShardSpec],
        model: str,
        app_url: str = APP_URL,
        options: JobOptions | None = None,
    ):
        self.folder, self.specs, self.model, self.app_url = Path(folder), specs, model, app_url
        self.options = options or JobOptions()  # what each pair's `link` opens it with
        self.total, self.bad, self.pairs = HeadAccumulator(), [], 0
        self.unread = {"source_read": 0, "reverse_read": 0}  # pairs a model was given in a script it does not read
        self.faithfulness: dict[str, list[float]] = {}  # faithfulness column -> [sum, pairs], in shard order
        self.merged = 0  # shards merged so far: specs[:merged]
        self._partial = self.folder / PARTIAL  # becomes pairs.parquet once every shard is in
        self._writer = None

    def advance(self) -> None:
        while self.merged < len(self.specs) and is_done(self.folder, self.specs[self.merged].index):
            self._add(self.specs[self.merged].index)
            self.merged += 1

    def finish(self) -> tuple[HeadAccumulator, list]:
        """(the corpus' sums, every bad line) once every shard is merged, pairs.parquet written."""
        self.advance()
        if self.merged < len(self.specs):  # a shard the engines did not finish: a fault, not a user's mistake
            raise RuntimeError(f"shard {self.specs[self.merged].index} of {self.folder} is not finished")
        if self._writer is None:
            _write_table([], self._partial, _schema(EMPTY_PAIRS_COLUMNS))
        else:
            self._writer.close()
        self._partial.replace(self.folder / "pairs.parquet")
        return self.total, self.bad

    def close(self) -> None:
        """Let go of the partial pairs file when the job stops before `finish` (a resumed job starts it again)."""
        if self._writer is not None:
            self._writer.close()
            self._writer = None

    def _add(self, index: int) -> None:
        import pyarrow as pa  # pyarrow: only where a report is written
        import pyarrow.parquet as pq  # pyarrow: only where a report is written

        acc, shard_bad = read_shard_sums(self.folder, index)
        self.total.merge(acc)
        self.bad += shard_bad
        table = pq.read_table(shard_paths(self.folder, index)["parquet"])
        if table.num_rows == 0:
            return
        for column in self.unread:
            if column in table.column_names:
                self.unread[column] += table.num_rows - sum(table[column].to_pylist())
        self._add_faithfulness(table)
        rows = table.select(_link_columns(table)).to_pylist()
        links = [pair_link(self.model, row, self.app_url, self.options) for row in rows]
        table = table.append_column("link", pa.array(links, pa.string()))
        if self._writer is None:
            self._writer = pq.ParquetWriter(self._partial, table.schema)
        self._writer.write_table(table.cast(self._writer.schema))
        self.pairs += table.num_rows

    def _add_faithfulness(self, table) -> None:
        """Sum each numeric faithfulness column of a shard's pairs (the report's means: `faithfulness_means`)."""
        for name in table.column_names:
            if name.startswith("faithfulness.") and name.count(".") == 3:
                values = [value for value in table[name].to_pylist() if value is not None]
                total = self.faithfulness.setdefault(name, [0.0, 0])
                total[0] += sum(values)
                total[1] += len(values)
        if "faithfulness.decides" in table.column_names:
            decided = self.faithfulness.setdefault("faithfulness.decides", [0.0, 0])
            decided[0] += sum(table["faithfulness.decides"].to_pylist())
            decided[1] += table.num_rows

    def faithfulness_means(self) -> dict:
        """{measure: {baseline: {score: mean over the pairs}}} and the share of pairs whose scores decide; {} when
        the job did not score faithfulness."""
        means: dict = {}
        for name, (total, count) in self.faithfulness.items():
            if name == "faithfulness.decides" or not count:
                continue
            _, measure, baseline, score = name.split(".")
            means.setdefault(measure, {}).setdefault(baseline, {})[score] = total / count
        decided = self.faithfulness.get("faithfulness.decides")
        return {"means": means, "decides": decided[0] / decided[1]} if means and decided and decided[1] else {}


def head_rows(acc: HeadAccumulator) -> list[dict]:
    rows = []
    gold = Scores.of(**acc.gold) if acc.gold else None
    ranks = None
    if gold is not None:
        order = np.argsort(np.where(np.isfinite(gold.aer), gold.aer, np.inf), axis=None, kind="stable")
        ranks = np.empty(order.size, dtype=int)
        ranks[order] = np.arange(1, order.size + 1)
        ranks = ranks.reshape(gold.aer.shape)
    for kind, stats in acc.moments.items():
        shape = next(iter(stats.values())).count.shape
        for layer in range(shape[0]):
            for head in range(shape[1]):
                row = {"kind": kind, "layer": layer, "head": head, "layer_name": acc.layer_names[kind][layer]}
                for name in head_stats.STATISTICS:
                    if name in stats:
                        row[f"{name}_mean"] = float(stats[name].mean()[layer, head])
                        row[f"{name}_std"] = float(stats[name].spread()[layer, head])
                if gold is not None:
                    is_cross = kind == "cross"
                    for name in ("precision", "recall", "aer"):
                        row[name] = float(getattr(gold, name)[layer, head]) if is_cross else math.nan
                    row["aer_rank"] = int(ranks[layer, head]) if is_cross else None  # ranked: cross heads only
                rows.append(row)
    return rows


def layer_rows(heads: list[dict]) -> list[dict]:
    """Each kind × layer: the mean over its heads of every numeric column of `head_rows`."""
    groups: dict[tuple[str, int], list[dict]] = {}
    for row in heads:
        groups.setdefault((row["kind"], row["layer"]), []).append(row)
    rows = []
    for (kind, layer), members in groups.items():
        row = {"kind": kind, "layer": layer, "layer_name": members[0]["layer_name"]}
        for name in members[0]:
            if name.endswith(("_mean", "_std")) or name in ("precision", "recall", "aer"):
                values = np.array([m[name] for m in members], dtype=np.float64)
                row[name] = float(np.nanmean(values)) if np.isfinite(values).any() else math.nan
        rows.append(row)
    return rows


def pair_view(model: str, row: dict, options: JobOptions | None = None) -> dict:
    """A pair as the job scored it, as the Translate & align page's view fields (name → value): its texts (a
    pre-segmented pair's words, which its gold links index), its gold links, the link threshold, the reverse model."""
    options = options or JobOptions()
    view = {"model": model, "text": row["source"], "target": row["target"], "mode": "pair"}
    if isinstance(row.get("source_words"), str):
        view |= {"text": row["source_words"], "target": row["target_words"], "segmented": True}
    if isinstance(row.get("gold"), str) and row["gold"]:
        view |= {"gold": row["gold"], "threshold": options.threshold}
        if options.reverse_model:
            view["gold_reverse"] = options.reverse_model
    return view


def pair_link(model: str, row: dict, app_url: str = APP_URL, options: JobOptions | None = None) -> str:
    """The pair opened on the app's Translate & align page (`pair_view`), as a link."""
    view = pair_view(model, row, options)
    params = {
        name: "1" if value is True else f"{value:g}" if isinstance(value, float) else value
        for name, value in view.items()
    }
    return f"{app_url}?{urllib.parse.urlencode(params)}"


def report_options(summary: dict) -> JobOptions:
    """The options a report's job ran with (report.json's), as far as this version knows them."""
    known = {
        name: value for name, value in summary.get("options", {}).items() if name in JobOptions.__dataclass_fields__
    }
    return JobOptions(**known)


def _write_table(rows: list[dict], path: Path, schema=None) -> None:
    """`rows` as a Parquet file; `schema` (pyarrow) keeps a table of no rows its columns."""
    import pyarrow as pa  # pyarrow: only where a report is written
    import pyarrow.parquet as pq  # pyarrow: only where a report is written

    pq.write_table(pa.Table.from_pylist(rows, schema=schema if not rows else None), path)


def _schema(columns: dict[str, str]):
    import pyarrow as pa  # pyarrow: only where a report is written

    return pa.schema([(name, pa.int64() if kind == "int" else pa.string()) for name, kind in columns.items()])


BAD_LINE_COLUMNS = {"line": "int", "key": "str", "message": "str", "message_zh": "str", "text": "str"}
EMPTY_PAIRS_COLUMNS = {"line": "int", "source": "str", "target": "str", "link": "str"}  # a corpus of no pair


def _link_columns(table) -> list[str]:
    return [name for name in ("source", "target", "gold", "source_words", "target_words") if name in table.column_names]


def write_report(config, specs: list[ShardSpec], seconds: float, merge: ShardMerge | None = None) -> dict:
    """Merge the finished shards (the rest of `merge`'s, if one has begun) into the report's tables and report.json;
    returns the summary (`html_report.write_html` draws report.html from them)."""
    folder = Path(config.output)
    merge = merge or ShardMerge(folder, specs, config.model, config.app_url or APP_URL, config.options)
    acc, bad = merge.finish()
    heads = head_rows(acc)
    _write_table(heads, folder / "heads.parquet")
    _write_table(layer_rows(heads), folder / "layers.parquet")
    _write_table(
        [{name: getattr(b, name) for name in BAD_LINE_COLUMNS} for b in bad],
        folder / "bad_lines.parquet",
        _schema(BAD_LINE_COLUMNS),
    )
    pairs = merge.pairs
    summary = {
        "model": config.model,
        "input": str(Path(config.input).resolve()),
        "options": vars(config.options) | {"shard_size": config.shard_size},
        "engine": config.engine,
        "workers": config.workers if config.engine == "ray" else 1,
        "seconds": round(seconds, 3),
        "shards": len(specs),
        "pairs": pairs,
        "bad_lines": len(bad),
        "unread": unread_summary(config, merge.unread),
        "faithfulness": merge.faithfulness_means(),
        "links": {view: asdict(counts.scores()) for view, counts in acc.view_counts().items()},
        "kinds": list(acc.moments),
        "statistics": [name for name in head_stats.STATISTICS if any(name in s for s in acc.moments.values())],
        "best_heads": [
            {key: row[key] for key in ("layer", "head", "aer", "precision", "recall")}
            for row in sorted((r for r in heads if r["kind"] == "cross" and "aer" in r), key=lambda r: r["aer_rank"])
        ][:BEST],
    }
    (folder / "report.json").write_text(json.dumps(summary, ensure_ascii=False, indent=2), encoding="utf-8")
    return summary


def unread_summary(config, unread: dict[str, int]) -> dict:
    """How many pairs' source the model, and target the reverse model, were given in a script they do not read
    (pairs.parquet's `source_read`, `reverse_read`), with the languages each declares."""
    reverse = config.options.reverse_model
    return {
        "source": unread["source_read"],
        "languages": list(declared_languages(config.model)),
        "reverse": unread["reverse_read"],
        "reverse_languages": list(declared_languages(reverse) if reverse else ()),
    }


def links_sentences(summary: dict, lang: str = "en") -> list[str]:
    """What a report with gold links scored over the corpus: the alignment view's links at the job's threshold, and
    with a reverse model the links both directions find (report.json's `links`)."""
    found, options = summary.get("links") or {}, summary.get("options", {})
    said = []
    for view, key in (("view", "corpus_links_view"), ("both", "corpus_links_both")):
        if view in found:
            scores = {name: format_value(found[view][name]) for name in ("precision", "recall", "aer")}
            said.append(
                i18n.t(
                    key,
                    lang,
                    threshold=f"{options.get('threshold', JobOptions.threshold):g}",
                    model=options.get("reverse_model") or "",
                    **scores,
                )
            )
    return said


def unread_sentences(summary: dict, lang: str = "en") -> list[str]:
    """The warnings of a report whose pairs were (partly) in a script its models do not read."""
    unread, found = summary.get("unread") or {}, []
    for side, model, languages in (
        ("source", summary["model"], "languages"),
        ("reverse", summary.get("options", {}).get("reverse_model"), "reverse_languages"),
    ):
        if unread.get(side):
            found.append(
                i18n.t(
                    f"corpus_unread_{side}",
                    lang,
                    count=unread[side],
                    pairs=summary["pairs"],
                    model=model,
                    languages=language_names(unread[languages], lang),
                )
            )
    return found


def read_report(folder: Path) -> dict:
    """A report's summary and tables (pandas DataFrames), as the Corpus page opens it."""
    folder = Path(folder)
    files = {path.name: path.read_bytes() for path in folder.glob("*") if path.name in REPORT_FILES}
    return read_report_files(files, str(folder))


REPORT_FILES = ("report.json", *(f"{name}.parquet" for name in TABLES))


def bad_lines_in(bad, lang: str):
    """The bad-lines table (DataFrame) as shown: line, why (in `lang` where the report has it), text."""
    column = "message_zh" if lang == "zh" and "message_zh" in bad.columns else "message"
    shown = bad[["line", column, "text"]]
    return shown.rename(columns={column: "message"}) if column != "message" else shown


def read_report_files(files: dict[str, bytes], where: str = "") -> dict:
    """A report from its files' bytes (file name → bytes; report.json and heads.parquet at least), as an upload
    brings them: {"summary": report.json, and each table of TABLES as a DataFrame (empty when absent)}."""
    import io

    import pandas as pd  # pandas: only where a report is read

    if "report.json" not in files or "heads.parquet" not in files:
        raise InputError("corpus_report_missing", path=where or ", ".join(sorted(files)))
    try:
        report = {"summary": json.loads(files["report.json"].decode("utf-8"))}
        for name in TABLES:
            data = files.get(f"{name}.parquet")
            report[name] = pd.read_parquet(io.BytesIO(data)) if data else pd.DataFrame()
    except (ValueError, OSError) as error:  # not JSON, not Parquet (pyarrow's errors are ValueError or OSError)
        raise InputError("corpus_report_unreadable", path=where, detail=str(error)[:200]) from None
    if not {"model", "pairs", "kinds", "statistics"} <= set(report["summary"]):
        raise InputError("corpus_report_unreadable", path=where, detail="report.json")
    return report


__all__ = ["SHARDS", "ShardMerge", "read_report", "write_report"]
