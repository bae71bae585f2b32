"""The detached-translation flag (`attnviz.maps.detachment`) on a constructed set of held-out pairs: AUROC of good
translations against detached ones.

    python benchmarks/bench_detached.py                 # demo-zh-en and demo-en-zh, every held-out HSK pair
    python benchmarks/bench_detached.py --pairs 60      # a smoke run on the first 60 pairs

The set (never the training data): `assets/corpus/heldout.tsv`, the 350 HSK pairs held out of the demo translators'
training (`training/data/heldout.py`). Each pair gives three translations of its source:
- true: its own reference target (negative);
- other: the target of another pair (a derangement of the pairs, seeded) (positive);
- half: its own target cut in half (the first half of its words, or of its characters for Chinese) (positive).
The thresholds are calibrated on another held-out file, `assets/corpus/heldout-tatoeba.tsv` (Tatoeba pairs never
trained on), the first `CALIBRATION_PAIRS` of a seeded shuffle: the 5th percentile of each number over their reference
targets. The goal: AUROC ≥ 0.85 for true against the other two, with the flag's score. Writes its section of
benchmarks/RESULTS.md and prints the thresholds to keep in `attnviz.maps.detachment.THRESHOLDS`.
"""

from __future__ import annotations

import argparse
import csv
import os
import platform
import sys
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")

from run import write_section  # noqa: E402  (the shared results file)

from attnviz import load_model  # noqa: E402
from attnviz.maps.detachment import THRESHOLDS, Thresholds, auroc, detachment_score, percentile_threshold  # noqa: E402
from attnviz.measures.detached import detachment  # noqa: E402

GOAL = 0.85
SEED = 7
CALIBRATION_PAIRS = 300
TEST_FILE = "assets/corpus/heldout.tsv"
CALIBRATION_FILE = "assets/corpus/heldout-tatoeba.tsv"
DIRECTIONS = {"demo-zh-en": ("zh", "en"), "demo-en-zh": ("en", "zh")}


def read_pairs(path: str) -> list[dict]:
    with open(REPO / path, encoding="utf-8", newline="") as file:
        return list(csv.DictReader(file, delimiter="\t"))


def half(text: str, lang: str) -> str:
    """The first half of a target: of its words (English), of its characters (Chinese); at least one."""
    if lang == "zh":
        return text[: max(1, len(text) // 2)]
    words = text.split()
    return " ".join(words[: max(1, len(words) // 2)])


def constructed(pairs: list[dict], source: str, target: str) -> list[tuple[str, str, str]]:
    """(kind, source, target) triples: each pair's true target, another pair's, and its own cut in half."""
    order = np.random.default_rng(SEED).permutation(len(pairs))
    other = {int(order[k]): int(order[(k + 1) % len(order)]) for k in range(len(order))}  # a derangement
    made = []
    for index, pair in enumerate(pairs):
        made.append(("true", pair[source], pair[target]))
        made.append(("other", pair[source], pairs[other[index]][target]))
        made.append(("half", pair[source], half(pair[target], target)))
    return made


def numbers(handle, items) -> np.ndarray:
    """float64 (items, 2): each item's source share and sequence log-probability."""

    found = [detachment(handle, source, target) for _kind, source, target in items]
    return np.array([[d.source_share, d.log_probability] for d in found])


def evaluate(name: str, limit: int | None) -> dict:

    source, target = DIRECTIONS[name]
    handle = load_model(name)
    calibration = read_pairs(CALIBRATION_FILE)
    chosen = np.random.default_rng(SEED).permutation(len(calibration))[:CALIBRATION_PAIRS]
    calibrating = numbers(handle, [("true", calibration[k][source], calibration[k][target]) for k in chosen])
    thresholds = Thresholds(
        percentile_threshold(calibrating[:, 0]),
        percentile_threshold(calibrating[:, 1]),
        float(calibrating[:, 0].std()),
        float(calibrating[:, 1].std()),
        CALIBRATION_FILE,
        len(chosen),
    )
    pairs = read_pairs(TEST_FILE)[:limit]
    items = constructed(pairs, source, target)
    kinds = np.array([kind for kind, _, _ in items])
    found = numbers(handle, items)
    scores = {
        "flag": detachment_score(found[:, 0], found[:, 1], thresholds),
        "source share alone": -found[:, 0],
        "log-probability alone": -found[:, 1],
    }
    true = kinds == "true"
    result = {"model": name, "pairs": len(pairs), "items": len(items), "thresholds": thresholds}
    for label, score in scores.items():
        result[label] = {
            "all": auroc(score[~true], score[true]),
            "other": auroc(score[kinds == "other"], score[true]),
            "half": auroc(score[kinds == "half"], score[true]),
        }
    flagged = scores["flag"] > 0
    result["flagged"] = {kind: float(flagged[kinds == kind].mean()) for kind in ("true", "other", "half")}
    result["kept"] = THRESHOLDS.get(name)
    return result


def _rounded(thresholds):
    """The thresholds as the code keeps them: four decimals."""
    from dataclasses import replace

    return replace(
        thresholds,
        **{name: round(getattr(thresholds, name), 4) for name in ("source_share", "log_probability", "share_spread")},
        log_probability_spread=round(thresholds.log_probability_spread, 4),
    )


def render(results: list[dict]) -> str:
    lines = [
        "## Detached-translation flag: ALTI+ source share with sequence log-probability",
        "",
        f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, {platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} CPUs (`benchmarks/bench_detached.py`). Set: `{TEST_FILE}` (the HSK pairs held out of the "
        "demo translators' training), each pair with its true target (negative), another pair's target and its own "
        "target cut in half (positives). Thresholds: 5th percentile of each number over the reference targets of "
        f"{CALIBRATION_PAIRS} pairs of `{CALIBRATION_FILE}` (held out too, another file); flag score "
        "max((τ_share − share)/σ_share, (τ_logp − logp)/σ_logp), σ each number's spread over the calibration pairs, "
        "flagged above 0.",
        "",
        "| model | pairs (items) | τ share | τ logp | score | AUROC true vs both | vs other | vs half |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        t = r["thresholds"]
        for label in ("flag", "source share alone", "log-probability alone"):
            a = r[label]
            bold = f"**{a['all']:.3f}**" if label == "flag" else f"{a['all']:.3f}"
            lines.append(
                f"| {r['model']} | {r['pairs']} ({r['items']}) | {t.source_share:.4f} | {t.log_probability:.4f} | "
                f"{label} | {bold} | {a['other']:.3f} | {a['half']:.3f} |"
            )
    lines.append("")
    for r in results:
        f = r["flagged"]
        verdict = "met" if r["flag"]["all"] >= GOAL else "NOT met"
        lines.append(
            f"{r['model']}: flagged {f['true']:.1%} of true, {f['other']:.1%} of other, {f['half']:.1%} of half "
            f"targets; AUROC {r['flag']['all']:.3f} (goal ≥ {GOAL}: {verdict})."
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, help="only the first N held-out pairs (a smoke run)")
    parser.add_argument("--models", nargs="+", default=list(DIRECTIONS), choices=list(DIRECTIONS))
    parser.add_argument("--no-write", action="store_true", help="print only; leave RESULTS.md as it is")
    args = parser.parse_args()
    results = [evaluate(name, args.pairs) for name in args.models]
    section = render(results)
    print(section)
    for r in results:
        t = r["thresholds"]
        kept = "matches" if r["kept"] == _rounded(t) else f"differs from the kept {r['kept']}"
        spreads = f"{t.share_spread:.4f}, {t.log_probability_spread:.4f}"
        print(
            f'"{r["model"]}": Thresholds({t.source_share:.4f}, {t.log_probability:.4f}, {spreads}, '
            f'"{t.corpus}", {t.pairs}),  # {kept}'
        )
    if not args.no_write and args.pairs is None:
        write_section("bench_detached", section)


if __name__ == "__main__":
    main()
