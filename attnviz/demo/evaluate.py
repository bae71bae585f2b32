"""Score a demo model on held-out pairs: exact-match translation rate and alignment error rate (AER).

    python -m attnviz.demo.evaluate --direction zh-en                # print the scores
    python -m attnviz.demo.evaluate --direction zh-en --write-card   # and rewrite the model card (attnviz.demo.card)

Exact match compares the greedy translation with the reference, ignoring case and spaces. AER compares the word
alignment read from the model's alignment head (config `alignment_heads`) while force-decoding the reference with
the gold alignment: each target word links to the source words that get at least half of its strongest weight
(pieces merged), or to nothing when the strongest is </s>. `aer_argmax` keeps only the strongest source word, which
cannot find both words of "the teacher" for 老师 and so counts one miss there.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

from attnviz.demo import CORPUS_DIR, DIRECTIONS, model_dir
from attnviz.demo.alignment import alignment_error_rate, argmax_links, piece_words, strong_links, word_attention
from attnviz.demo.card import EXAMPLES, write_card
from attnviz.demo.config import TRAINING_RECORD, TrainConfig
from attnviz.demo.corpus import HELD_OUT_FILE
from attnviz.demo.pairs import Pair, read_tsv
from attnviz.errors import InputError
from attnviz.models import without_sacremoses_request

BATCH_SIZE = 256  # few long batches: greedy decoding costs per step, not per sentence


@dataclass(frozen=True)
class Scores:
    pairs: int
    exact_match: float
    aer: float  # links: source words with at least half the strongest weight (see alignment.strong_links)
    aer_argmax: float  # links: the strongest source word only
    by_group: dict[str, dict[str, float]] = field(default_factory=dict)  # group -> the same four numbers


def load(folder: Path):
    """The model and tokenizer exactly as a user loads them, with eager attention so weights can be returned."""
    from transformers import MarianMTModel, MarianTokenizer

    with without_sacremoses_request():
        tokenizer = MarianTokenizer.from_pretrained(str(folder))
    model = MarianMTModel.from_pretrained(str(folder), attn_implementation="eager")
    return model.eval(), tokenizer


def languages(tokenizer) -> tuple[str, str]:
    return tokenizer.source_lang, tokenizer.target_lang


def same_text(a: str, b: str) -> bool:
    """Equal once case and spaces are set aside ("Good morning!" == "good Morning !")."""
    return "".join(a.split()).casefold() == "".join(b.split()).casefold()


@torch.no_grad()
def translate(model, tokenizer, texts: list[str], batch_size: int = BATCH_SIZE) -> list[str]:
    """Greedy translations, batched."""
    out = []
    for start in range(0, len(texts), batch_size):
        batch = tokenizer(texts[start:start + batch_size], return_tensors="pt", padding=True)
        generated = model.generate(**batch)  # greedy, at most 64 tokens: the generation_config.json settings
        out += tokenizer.batch_decode(generated, skip_special_tokens=True)
    return out


def source_pieces(tokenizer, text: str) -> list[str]:
    return tokenizer.spm_source.encode(text, out_type=str)


def target_pieces(tokenizer, text: str) -> list[str]:
    return tokenizer.spm_target.encode(text, out_type=str)


@torch.no_grad()
def alignment_attention(model, tokenizer, sources: list[str], targets: list[str], layer: int, head: int,
                        batch_size: int = BATCH_SIZE) -> list[np.ndarray]:
    """Cross-attention of one head while force-decoding each target: (target pieces + </s>, source pieces + </s>).

    Row i is the decoder step that produces target piece i (it reads the start token and the pieces before i)."""
    matrices = []
    start_id = model.config.decoder_start_token_id
    for begin in range(0, len(sources), batch_size):
        src, tgt = sources[begin:begin + batch_size], targets[begin:begin + batch_size]
        batch = tokenizer(src, text_target=tgt, return_tensors="pt", padding=True)
        labels = batch.pop("labels")
        pad = tokenizer.pad_token_id
        decoder_input_ids = torch.cat([torch.full_like(labels[:, :1], start_id), labels[:, :-1]], dim=1)
        decoder_input_ids = decoder_input_ids.masked_fill(decoder_input_ids == -100, pad)
        output = model(**batch, decoder_input_ids=decoder_input_ids, output_attentions=True)
        weights = output.cross_attentions[layer][:, head]  # (batch, target positions, source positions)
        for k in range(len(src)):
            rows = int(((labels[k] != pad) & (labels[k] != -100)).sum())
            cols = int(batch["attention_mask"][k].sum())
            matrices.append(weights[k, :rows, :cols].float().numpy())
    return matrices


def alignment_head(model) -> tuple[int, int]:
    heads = getattr(model.config, "alignment_heads", None)
    if not heads:
        raise InputError("demo_no_alignment_heads")
    layer, head = heads[0]
    return int(layer), int(head)


def word_matrices(model, tokenizer, pairs: list[Pair]) -> list[tuple[np.ndarray, list[int], list[int]]]:
    """Word-level attention of the alignment head for each pair, with the piece → word maps of both sides."""
    source_lang, target_lang = languages(tokenizer)
    layer, head = alignment_head(model)
    sources = [pair.text(source_lang) for pair in pairs]
    targets = [pair.text(target_lang) for pair in pairs]
    out = []
    for pair, matrix, src, tgt in zip(pairs, alignment_attention(model, tokenizer, sources, targets, layer, head),
                                      sources, targets, strict=True):
        source_owner = piece_words(source_pieces(tokenizer, src), pair.words(source_lang))
        target_owner = piece_words(target_pieces(tokenizer, tgt), pair.words(target_lang))
        if matrix.shape != (len(target_owner) + 1, len(source_owner) + 1):
            raise InputError("demo_pieces_attention_disagree", source=src, target=tgt, shape=matrix.shape)
        out.append((word_attention(matrix, source_owner, target_owner), source_owner, target_owner))
    return out


def group_of(pair: Pair) -> str:
    return pair.origin.split("/", 1)[1] if "/" in pair.origin else pair.origin


def evaluate(model, tokenizer, pairs: list[Pair]) -> Scores:
    source_lang, target_lang = languages(tokenizer)
    hypotheses = translate(model, tokenizer, [pair.text(source_lang) for pair in pairs])
    exact = [same_text(h, pair.text(target_lang)) for h, pair in zip(hypotheses, pairs, strict=True)]
    matrices = [matrix for matrix, _, _ in word_matrices(model, tokenizer, pairs)]
    strong, strongest = [strong_links(m) for m in matrices], [argmax_links(m) for m in matrices]
    gold = [set(pair.links_from(source_lang)) for pair in pairs]

    def scores(ks: list[int]) -> dict[str, float]:
        return {"pairs": len(ks), "exact_match": float(np.mean([exact[k] for k in ks])),
                "aer": alignment_error_rate([strong[k] for k in ks], [gold[k] for k in ks]),
                "aer_argmax": alignment_error_rate([strongest[k] for k in ks], [gold[k] for k in ks])}

    groups = defaultdict(list)
    for k, pair in enumerate(pairs):
        groups[group_of(pair)].append(k)
    overall = scores(list(range(len(pairs))))
    return Scores(len(pairs), overall["exact_match"], overall["aer"], overall["aer_argmax"],
                  {name: scores(ks) for name, ks in sorted(groups.items())})


def score_and_write_card(folder: Path, heldout: list[Pair]) -> Scores:
    """Score the saved model in `folder` on `heldout` and write its README.md; returns the scores."""
    folder = Path(folder)
    record = json.loads((folder / TRAINING_RECORD).read_text(encoding="utf-8"))
    config = TrainConfig(**record["config"])
    began = time.monotonic()
    model, tokenizer = load(folder)
    scores = evaluate(model, tokenizer, heldout[: config.max_heldout])
    inputs = EXAMPLES[config.direction]
    examples = list(zip(inputs, translate(model, tokenizer, inputs), strict=True))
    write_card(folder, config, record, scores, examples, time.monotonic() - began)
    return scores


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Score a demo model on the held-out pairs.")
    parser.add_argument("--direction", choices=DIRECTIONS, default="zh-en")
    parser.add_argument("--model", type=Path, default=None, help="model folder (default: the committed one)")
    parser.add_argument("--corpus", type=Path, default=CORPUS_DIR)
    parser.add_argument("--write-card", action="store_true", help="also rewrite the folder's README.md")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    folder = args.model or model_dir(args.direction)
    heldout = read_tsv(args.corpus / HELD_OUT_FILE)
    if args.write_card:
        scores = score_and_write_card(folder, heldout)
    else:
        scores = evaluate(*load(folder), heldout)
    print(f"{scores.pairs} held-out pairs: exact match {scores.exact_match:.3f}, AER {scores.aer:.3f} "
          f"(argmax {scores.aer_argmax:.3f})")
    for name, group in scores.by_group.items():
        print(f"  {name}: {group['pairs']} pairs, exact match {group['exact_match']:.3f}, AER {group['aer']:.3f} "
              f"(argmax {group['aer_argmax']:.3f})")


if __name__ == "__main__":
    main()
