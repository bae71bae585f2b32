"""A corpus in shards: consecutive lines of the input, each processed alone and written to its own files.

A shard is the unit of work on every engine, of retry and of resume: `shard_specs` cuts the input into shards of
`shard_size` non-blank-or-blank lines (a byte offset each, found by one streamed pass); `process_shard` reads its
lines, captures its pairs in batches of similar length, and sums what the report needs (`stats.HeadAccumulator`,
one row per pair, the bad lines); `write_shard` writes that atomically, its `.json` last, so a shard whose `.json`
exists is finished and complete. A shard run again replaces its own files: nothing is counted twice.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass, field, replace
from itertools import islice
from pathlib import Path

import numpy as np

from attnviz.corpus import links
from attnviz.corpus.gold import Gold, Scores
from attnviz.corpus.inputs import BadLine, CorpusPair, bad_line, parse_lines
from attnviz.corpus.pair import PairWords, TokenView, reverse_mask
from attnviz.corpus.stats import HeadAccumulator
from attnviz.corpus.view import in_forward_texts, reading_prefix, reverse_view
from attnviz.corpus.words import merged
from attnviz.errors import AttnvizError, InputError
from attnviz.maps.faithfulness_verdict import verdict
from attnviz.measures.faithfulness import faithfulness
from attnviz.model.load import source_languages
from attnviz.run import RunRequest, run, run_pairs
from attnviz.text.language import reads
from attnviz.view import head_choice

SHARDS = "shards"  # the report folder's subfolder of shard files


@dataclass(frozen=True)
class JobOptions:
    """What every shard is computed with (the same on every engine, so the reports are the same)."""

    gold: bool = False  # the input's third column holds gold links
    segmented: bool = False  # each side is space-separated words
    batch_size: int = 32  # pairs per forward pass (grouped by length; 32 is ~10% faster than 16 on short pairs)
    max_tokens: int = 256  # longer pairs (either side, in the tokens the model reads) are bad lines
    threshold: float = links.DEFAULT_THRESHOLD  # weakest link (`links.link_mask`)
    reverse_model: str | None = None  # a model translating target → source: also score the links both find
    faithfulness: bool = False  # also score every measure on each pair (`attnviz.measures.faithfulness`): costly


@dataclass(frozen=True)
class ShardSpec:
    index: int
    offset: int  # byte offset of its first line
    first_line: int  # 1-based number of its first line
    lines: int  # how many lines (blank ones included) it holds


@dataclass
class ShardResult:
    index: int
    acc: HeadAccumulator = field(default_factory=HeadAccumulator)
    rows: list[dict] = field(default_factory=list)  # one per pair, in line order
    bad: list[BadLine] = field(default_factory=list)


def shard_specs(path: Path, shard_size: int) -> list[ShardSpec]:
    """The shards of `path`: `shard_size` lines each (the last may hold fewer), found in one streamed pass."""
    specs, offset, number = [], 0, 0
    with open(path, "rb") as lines:
        while True:
            start, first = offset, number + 1
            chunk = list(islice(lines, shard_size))
            if not chunk:
                return specs
            offset += sum(len(line) for line in chunk)
            number += len(chunk)
            specs.append(ShardSpec(len(specs), start, first, len(chunk)))


def read_shard(path: Path, spec: ShardSpec, options: JobOptions) -> list[CorpusPair | BadLine]:
    with open(path, "rb") as lines:
        lines.seek(spec.offset)
        numbered = zip(range(spec.first_line, spec.first_line + spec.lines), islice(lines, spec.lines), strict=False)
        return list(parse_lines(numbered, options.gold, options.segmented))


# ----------------------------------------------------------------------------------------------------------------------
# Work


def _refusal(captured, limit: int) -> AttnvizError | None:
    """Why a pair is not counted, or None: the error its capture raised (a line longer than the model takes said as
    the job's limit: the smaller of the model's and `limit`), or more than `limit` tokens on either side."""
    if not isinstance(captured, AttnvizError):
        return _too_long(captured, limit)
    if captured.key == "text_too_many_tokens":
        return InputError(
            "corpus_too_long", tokens=captured.values["count"], limit=min(limit, captured.values["limit"])
        )
    return captured


def _too_long(captured, limit: int) -> InputError | None:
    """The refusal of a pair of which either side has more than `limit` tokens as the model read it (counted on its
    capture: the pair is tokenized once, and a line longer than the model takes has already been refused there)."""
    maps = [captured[kind] for kind in captured.kinds]
    longest = max(max(len(amap.query_tokens), len(amap.key_tokens)) for amap in maps)
    return InputError("corpus_too_long", tokens=longest, limit=limit) if longest > limit else None


def _captures(handle, pairs: list[CorpusPair], batch_size: int):
    """(pair, capture or the error it raised) for every pair, in batches of similar length (fewer pad tokens); a
    batch that fails is retried pair by pair, so one bad pair costs only itself."""
    order = sorted(pairs, key=lambda p: (len(p.source) + len(p.target), p.line))
    for start in range(0, len(order), batch_size):
        batch = order[start : start + batch_size]
        try:
            results = run_pairs(handle, [(p.source, p.target) for p in batch])
            yield from zip(batch, results, strict=True)
        except AttnvizError:
            for pair in batch:
                try:
                    yield pair, run(handle, RunRequest(pair.source, pair.target))
                except AttnvizError as error:
                    yield pair, error


def _reverse_views(reverse, pairs: list[CorpusPair], batch_size: int) -> dict[int, TokenView | AttnvizError]:
    """line → the reverse model's alignment view of each pair read the other way (its source: the pair's target),
    or the error its capture raised."""
    views: dict[int, TokenView | AttnvizError] = {}
    swapped = [replace(pair, source=pair.target, target=pair.source) for pair in pairs]
    for pair, captured in _captures(reverse, swapped, batch_size):
        try:
            if isinstance(captured, AttnvizError):
                raise captured
            views[pair.line] = reverse_view(captured, reverse.alignment_heads)  # (pair source, target tokens)
        except AttnvizError as error:  # this pair's line is bad; the others go on
            views[pair.line] = error
    return views


def process_shard(handle, path: Path, spec: ShardSpec, options: JobOptions, reverse=None) -> ShardResult:
    """One shard's sums, rows and bad lines (rows and bad lines in line order); `reverse`: the loaded
    `options.reverse_model`."""
    for model in (handle, reverse) if options.gold else ():  # a job-wide mistake: said once, not on every line
        if model is not None and not model.is_seq2seq:
            raise InputError("corpus_no_cross", model=model.name)
    result = ShardResult(spec.index)
    pairs = []
    for item in read_shard(path, spec, options):
        if isinstance(item, BadLine):
            result.bad.append(item)
            continue
        pairs.append(item)
    backward = _reverse_views(reverse, pairs, options.batch_size) if reverse is not None else {}
    for pair, captured in _captures(handle, pairs, options.batch_size):
        try:
            refusal = _refusal(captured, options.max_tokens)
            if refusal is not None:
                raise refusal
            result.rows.append(_pair_row(handle, pair, captured, result.acc, options, backward.get(pair.line)))
        except AttnvizError as error:
            result.bad.append(bad_line(pair.line, error, f"{pair.source}\t{pair.target}"))
    _mark_unread(result.rows, handle, reverse)
    result.rows.sort(key=lambda row: row["line"])
    result.bad.sort(key=lambda bad: bad.line)
    return result


def _mark_unread(rows: list[dict], handle, reverse=None) -> None:
    """Each row's `source_read`: whether its source is in a script the model reads (as its catalogue entry says:
    a pair in another language is computed, but its attention says little); with a reverse model, `reverse_read`
    of its target."""
    languages = source_languages(handle)
    backward = source_languages(reverse) if reverse is not None else None
    for row in rows:
        row["source_read"] = reads(languages, row["source"])
        if backward is not None:
            row["reverse_read"] = reads(backward, row["target"])


def _pair_row(handle, pair: CorpusPair, captured, acc: HeadAccumulator, options: JobOptions, backward=None) -> dict:
    """Count one pair into `acc` and return its row: line, texts, token counts, each map's statistics averaged over
    its heads, and with gold links the scores of the model's alignment view, of its best head and (with a reverse
    model, `backward` its view of this pair) of the links both directions find."""
    gold_part = _gold_part(handle, pair, captured, options, backward) if options.gold else None  # may refuse: first
    scored = _faithfulness_part(handle, captured) if options.faithfulness else {}  # may refuse too
    row = {"line": pair.line, "source": pair.source, "target": pair.target}
    if pair.source_words is not None:  # a pre-segmented pair: the words its gold links index
        row |= {"source_words": " ".join(pair.source_words.words), "target_words": " ".join(pair.target_words.words)}
    first = captured["cross"] if "cross" in captured.kinds else captured[captured.kinds[0]]
    row["source_tokens"] = len(first.key_tokens)
    row["target_tokens"] = len(first.query_tokens) if "cross" in captured.kinds else 0
    for kind in captured.kinds:
        for name, mean in acc.add_map(captured[kind]).items():
            row[f"{kind}.{name}"] = mean
    if gold_part is not None:
        counts, views, (layer, head) = gold_part
        acc.add_gold(counts)
        best = Scores.of(**{name: values[layer, head] for name, values in counts.items()})
        view = views["view"].scores()
        row |= {
            "gold": pair_gold_text(pair.gold),
            "precision": view.precision,
            "recall": view.recall,
            "aer": view.aer,
            "best_layer": layer,
            "best_head": head,
            "best_aer": float(best.aer),
        }
        for name, view_counts in views.items():
            acc.add_view(name, view_counts)
        if "both" in views:
            both = views["both"].scores()
            row |= {"both_precision": both.precision, "both_recall": both.recall, "both_aer": both.aer}
    acc.pairs += 1
    return row | scored


FAITHFULNESS_SCORES = ("comprehensiveness", "sufficiency", "margin")  # the columns each measure and baseline get


def _faithfulness_part(handle, captured) -> dict:
    """One pair's faithfulness columns: `faithfulness.<measure>.<baseline>.<score>` for each measure and the random
    floor ("random"), the best measure and whether the scores decide — of the whole target the pair gives (or the
    model wrote) for a translator, a decoder's next token, an encoder's pooled output."""
    target = captured.target_text if handle.is_seq2seq else None
    board = faithfulness(handle, captured.source_text, target)
    found = verdict(board)
    columns = {"faithfulness.best": found.best, "faithfulness.decides": found.decides}
    for row in board.table():
        for score in FAITHFULNESS_SCORES:
            columns[f"faithfulness.{row['measure']}.{row['baseline']}.{score}"] = float(row[score])
    return columns


def pair_gold_text(gold: Gold) -> str:
    return " ".join(f"{i}{'-' if (i, j) in gold.sure else '?'}{j}" for i, j in sorted(gold.possible | gold.sure))


def _gold_part(handle, pair: CorpusPair, captured, options: JobOptions, backward=None):
    """(per-head counts — with a reverse model, of each head's links its view also finds —, the views' counts —
    "view": the alignment view's, "both": its links that the reverse model's view (`backward`) also finds —, the best
    head) of one pair; InputError when its links point outside its
    words, a model has no cross-attention or the reverse model's capture failed."""
    if "cross" not in captured.kinds:
        raise InputError("corpus_no_cross", model=handle.name)
    cross, prefix = captured["cross"], reading_prefix(captured)  # offsets count what the model put before the text
    if pair.source_words is not None:
        words = PairWords(pair.source_words.behind(prefix), pair.target_words)
    else:
        words = PairWords(
            merged(cross.key_tokens, captured.source_text, skip=len(prefix)), merged(cross.query_tokens, pair.target)
        )
    gold = pair.gold.check(len(words.source), len(words.target))
    backward_mask = None  # with a reverse model: the links its view finds, (source words, target words)
    if options.reverse_model:
        if backward is None or isinstance(backward, AttnvizError):
            raise backward or InputError("corpus_reverse_failed", model=options.reverse_model)
        backward = in_forward_texts(backward, prefix)  # its queries: the source, read here after the prefix
        backward_mask = reverse_mask(words, backward, options.threshold)
    word_weights = words.word_weights(cross)  # (layers, heads, target words, source words)
    masks = links.link_mask(word_weights, options.threshold)
    if backward_mask is not None:  # each head's links both directions find, as the page's head map scores them
        masks = links.intersect_masks(masks, backward_mask)
    counts = links.mask_counts(masks, gold)
    pairs = head_choice.alignment_pairs(handle.alignment_heads, cross.num_layers, cross.num_heads)
    view = word_weights[[p[0] for p in pairs], [p[1] for p in pairs]].mean(axis=0)  # (target words, source words)
    view_mask = links.link_mask(view, options.threshold)
    views = {"view": links.counts_at(links.mask_counts(view_mask, gold), ())}
    if backward_mask is not None:
        both = links.intersect_masks(view_mask, backward_mask)
        views["both"] = links.counts_at(links.mask_counts(both, gold), ())
    aer = Scores.of(**counts).aer
    best = np.unravel_index(int(np.argmin(aer)), aer.shape)
    return counts, views, (int(best[0]), int(best[1]))


# ----------------------------------------------------------------------------------------------------------------------
# Files


def shard_paths(folder: Path, index: int) -> dict[str, Path]:
    base = Path(folder) / SHARDS / f"shard-{index:05d}"
    return {suffix: base.with_suffix(f".{suffix}") for suffix in ("parquet", "npz", "json")}


def _atomic(path: Path, write) -> None:
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    write(temporary)
    os.replace(temporary, path)


def write_shard(folder: Path, result: ShardResult) -> None:
    """The shard's rows (Parquet), sums (NPZ) and bad lines with its layer names (JSON, written last: the mark that
    the shard is finished)."""
    import pyarrow as pa  # pyarrow: only where a shard is written
    import pyarrow.parquet as pq  # pyarrow: only where a shard is written

    paths = shard_paths(folder, result.index)
    paths["json"].parent.mkdir(parents=True, exist_ok=True)
    _atomic(paths["parquet"], lambda p: pq.write_table(pa.Table.from_pylist(result.rows), p))
    _atomic(paths["npz"], lambda p: _save_arrays(p, result.acc.to_arrays()))
    done = {
        "index": result.index,
        "pairs": result.acc.pairs,
        "layer_names": result.acc.layer_names,
        "bad": [asdict(bad) for bad in result.bad],
    }
    _atomic(paths["json"], lambda p: p.write_text(json.dumps(done, ensure_ascii=False), encoding="utf-8"))


def run_shard(handle, path: Path, spec: ShardSpec, options: JobOptions, folder: Path, reverse=None) -> dict:
    """Compute and write one shard; returns its timeline entry (`attnviz.corpus.timeline`): wall seconds, CPU seconds
    of this process (≈ wall when it keeps one core busy, more with several threads), writing seconds, pairs."""
    start, cpu = time.time(), time.process_time()
    result = process_shard(handle, path, spec, options, reverse)
    computed = time.time()
    write_shard(folder, result)
    return {
        "index": spec.index,
        "worker": os.getpid(),
        "start": start,
        "end": time.time(),
        "cpu_s": time.process_time() - cpu,
        "write_s": time.time() - computed,
        "pairs": result.acc.pairs,
    }


def _save_arrays(path: Path, arrays: dict[str, np.ndarray]) -> None:
    with open(path, "wb") as file:
        np.savez(file, **arrays)


def is_done(folder: Path, index: int) -> bool:
    return shard_paths(folder, index)["json"].exists()


def read_shard_sums(folder: Path, index: int) -> tuple[HeadAccumulator, list[BadLine]]:
    paths = shard_paths(folder, index)
    done = json.loads(paths["json"].read_text(encoding="utf-8"))
    with np.load(paths["npz"]) as arrays:
        acc = HeadAccumulator.from_arrays(dict(arrays), done["layer_names"])
    return acc, [BadLine(**bad) for bad in done["bad"]]
