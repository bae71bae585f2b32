"""Do the heads the atlas labels as retrieval heads matter for retrieval? The ablation test of Wu et al. 2024
("Retrieval Head Mechanistically Explains Long-Context Factuality", arXiv:2404.15574, §4) on the demo decoder.

    python benchmarks/bench_needle.py                 # writes its section of RESULTS.md
    python benchmarks/bench_needle.py --no-write --trials 4 --lengths 256 512

The task: a needle (a span of random words) is planted in a haystack of held-out sentences
(assets/corpus/heldout-tatoeba.tsv, never trained on); the text ends with the needle's first CUE words, and the model
writes greedily. Needle recall: the share of the needle's remaining tokens it writes at their place.

1. Lengths: the clean model's recall at each haystack length; the longest where it retrieves (recall ≥ RETRIEVES)
   is the one the ablation runs at.
2. Scoring (trials of seed 1): each head's retrieval score (`attnviz.atlas.retrieval.retrieval_scores`, from the
   atlas's exact rows) on the text followed by the needle's continuation, averaged over trials.
3. Ablation (held-out trials of seed 2): recall with the top-k heads by score removed (their outputs zeroed before
   the output projection, `attnviz.measures.head_effects.ablating_sets`), against k random heads removed (every
   k-subset of the other heads, or RANDOM_SETS of them drawn), for k = 1 … K.
"""

from __future__ import annotations

import argparse
import csv
import itertools
import os
import platform
import random
import statistics
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

os.environ.setdefault("TORCH_DEVICE_BACKEND_AUTOLOAD", "0")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

import numpy as np  # noqa: E402
import torch  # noqa: E402
from run import write_section  # noqa: E402

from attnviz.atlas import capture_atlas  # noqa: E402
from attnviz.atlas.retrieval import retrieval_scores  # noqa: E402
from attnviz.measures.head_effects import ablating_sets, head_sites, prepare_scoring  # noqa: E402
from attnviz.model.load import load_model  # noqa: E402

HAYSTACK = REPO / "assets" / "corpus" / "heldout-tatoeba.tsv"
NEEDLE_WORDS = 8  # words in a needle
CUE = 2  # the needle's first words, given at the end of the text
RETRIEVES = 0.5  # the clean model's recall from which it is said to retrieve at a length
RANDOM_SETS = 30  # random k-subsets drawn when there are more
WORDS = (
    "apple river blue stone seven window garden silver tiger music winter paper orange yellow mountain doctor "
    "cloud market candle bridge rabbit lemon violin island copper forest pencil thunder basket dragon harbor"
).split()


def sentences() -> list[str]:
    with HAYSTACK.open(encoding="utf-8") as rows:
        return [row["en"].strip() for row in csv.DictReader(rows, delimiter="\t") if row.get("en", "").strip()]


def trial(tokenizer, hay: list[str], length: int, rng: random.Random) -> dict:
    """One needle in a haystack of about `length` tokens, planted at a random depth: the text (ending with the cue),
    the needle's token span, and the token ids the model should write."""
    needle = " ".join(rng.sample(WORDS, NEEDLE_WORDS))
    chosen, tokens = [], 0
    while tokens < length:
        sentence = rng.choice(hay)
        chosen.append(sentence)
        tokens += len(tokenizer(sentence, add_special_tokens=False)["input_ids"]) + 1
    depth = rng.randrange(len(chosen) // 4, 3 * len(chosen) // 4 + 1)
    before, after = " ".join(chosen[:depth]), " ".join(chosen[depth:])
    cue = " ".join(needle.split()[:CUE])
    text = f"{before} {needle}. {after} {cue}"
    encoded = tokenizer(text, return_offsets_mapping=True)
    start = len(before) + 1
    inside = [i for i, (a, b) in enumerate(encoded["offset_mapping"]) if b > a and start <= a < start + len(needle)]
    ids = encoded["input_ids"]
    first_after_cue = next(i for i in inside if encoded["offset_mapping"][i][0] >= start + len(cue))
    expected = ids[first_after_cue : inside[-1] + 1]
    return {"text": text, "ids": ids, "needle": (inside[0], inside[-1] + 1), "expected": expected, "answer": needle}


def recall(handle, case: dict, removed: list) -> float:
    """The share of the needle's continuation the model writes at its place, greedily, with `removed` heads off."""
    ids = torch.tensor([case["ids"]])
    with torch.inference_mode(), ablating_sets([removed]):
        written = handle.model.generate(
            ids, attention_mask=torch.ones_like(ids), max_new_tokens=len(case["expected"]), do_sample=False
        )[0, ids.shape[1] :].tolist()
    expected = case["expected"]
    return sum(a == b for a, b in zip(written, expected)) / len(expected)


def scores(handle, case: dict) -> np.ndarray:
    """(layers, heads) retrieval scores of one trial: the atlas of the text followed by the needle's continuation
    (teacher-forced: what a model that recalls writes), the needle the continuation's first occurrence."""
    cue = " ".join(case["answer"].split()[:CUE])
    atlas = capture_atlas(handle, case["text"] + case["answer"][len(cue) :], block=64)
    tokens, read = atlas["self"].query_tokens, len(case["ids"])
    if len(tokens) != read + len(case["expected"]):
        raise RuntimeError("the continuation did not tokenize as in the needle")
    written = len(case["expected"])
    return retrieval_scores(atlas, (case["needle"][1] - written, case["needle"][1]), (read, read + written))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lengths", type=int, nargs="+", default=[256, 512, 1024, 2048, 3968])
    parser.add_argument("--trials", type=int, default=12, help="trials per length, and for scoring and ablation")
    parser.add_argument("--max-k", type=int, default=3, help="heads removed: 1 … max-k")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    started = time.perf_counter()
    handle = load_model("demo-decoder", "cpu")
    hay = sentences()
    clean = {}
    for length in args.lengths:
        rng = random.Random(length)
        cases = [trial(handle.tokenizer, hay, length, rng) for _ in range(args.trials)]
        clean[length] = statistics.mean(recall(handle, case, []) for case in cases)
        print(f"length {length}: clean recall {clean[length]:.3f}", flush=True)
    retrieving = [length for length in args.lengths if clean[length] >= RETRIEVES]
    length = max(retrieving) if retrieving else min(args.lengths)
    rng = random.Random(1)
    scored = [trial(handle.tokenizer, hay, length, rng) for _ in range(args.trials)]
    score = np.mean([scores(handle, case) for case in scored], axis=0)  # (layers, heads)
    sites = head_sites(handle, prepare_scoring(handle, "a b c"))["self"]
    heads = [(layer, head) for layer in range(score.shape[0]) for head in range(score.shape[1])]
    ranked = sorted(heads, key=lambda pair: -score[pair])
    rng = random.Random(2)
    held_out = [trial(handle.tokenizer, hay, length, rng) for _ in range(args.trials)]
    base = statistics.mean(recall(handle, case, []) for case in held_out)
    rows = []
    for k in range(1, args.max_k + 1):
        top = ranked[:k]
        removed = [(sites[layer], head) for layer, head in top]
        top_recall = statistics.mean(recall(handle, case, removed) for case in held_out)
        others = [pair for pair in heads if pair not in top]
        subsets = list(itertools.combinations(others, k))
        draw = random.Random(100 + k)
        subsets = subsets if len(subsets) <= RANDOM_SETS else draw.sample(subsets, RANDOM_SETS)
        random_recalls = [
            statistics.mean(recall(handle, case, [(sites[lay], h) for lay, h in subset]) for case in held_out)
            for subset in subsets
        ]
        rows.append((k, top, top_recall, random_recalls))
        print(
            f"k={k}: top {top} recall {top_recall:.3f}; random mean {statistics.mean(random_recalls):.3f}", flush=True
        )
    report = render(args, clean, length, score, base, rows, time.perf_counter() - started)
    print(report)
    if not args.no_write:
        write_section("needle", report)


def render(args, clean: dict, length: int, score: np.ndarray, base: float, rows: list, seconds: float) -> str:
    lines = [
        "## Retrieval heads and needle recall (demo decoder)",
        "",
        f"`python benchmarks/bench_needle.py` · {datetime.now(timezone.utc):%Y-%m-%d} · {platform.processor() or platform.machine()}"
        f" · torch {torch.__version__} · {args.threads} threads · {seconds:.0f} s. A needle of {NEEDLE_WORDS} random words in a "
        f"haystack of held-out Tatoeba sentences; the text ends with its first {CUE} words; recall = share of the "
        f"rest written at its place (greedy). {args.trials} trials a row.",
        "",
        "| haystack tokens | clean recall |",
        "|---:|---:|",
        *[f"| {n:,} | {value:.3f} |" for n, value in clean.items()],
        "",
        f"Longest haystack where the clean model retrieves (recall ≥ {RETRIEVES}): **{length:,} tokens**"
        + ("" if clean[length] >= RETRIEVES else " (none does: the shortest is used)")
        + ". Retrieval scores (Wu et al. 2024) from the atlas's exact rows, mean over scoring trials (seed 1), "
        "layer × head:",
        "",
        "| layer | " + " | ".join(f"head {h}" for h in range(score.shape[1])) + " |",
        "|---:|" + "---:|" * score.shape[1],
        *[f"| {layer} | " + " | ".join(f"{v:.3f}" for v in score[layer]) + " |" for layer in range(score.shape[0])],
        "",
        f"Ablation on held-out trials (seed 2; clean recall {base:.3f}): heads removed together, outputs zeroed.",
        "",
        "| k | top-k retrieval heads | recall without them | k random heads: mean recall (min–max, sets) |",
        "|---:|---|---:|---|",
    ]
    for k, top, top_recall, randoms in rows:
        named = ", ".join(f"L{layer}H{head}" for layer, head in top)
        spread = f"{statistics.mean(randoms):.3f} ({min(randoms):.3f}–{max(randoms):.3f}, {len(randoms)})"
        lines.append(f"| {k} | {named} | {top_recall:.3f} | {spread} |")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
