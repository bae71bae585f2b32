"""Train a demo translation model, from corpus to a saved Hugging Face folder with its model card.

    python -m training.translator.train --direction zh-en     # and --direction en-zh (the cards give the settings)

With the settings the model cards give, each takes about 80 minutes on one core of a 2-core CPU (one torch thread;
the two directions can train side by side). Tests run a tiny version in seconds.

Steps: read (or write) the corpus, train the SentencePiece models and the MarianTokenizer files, train a small
Marian model with label-smoothed cross-entropy plus guided alignment on one cross-attention head, save it with
safetensors, score it on the held-out pairs and write README.md. Seeded: the same command gives the same model.

Guided alignment (Garg et al. 2019; Marian's --guided-alignment): the head `alignment_heads[0] = (layer, head)` of
the decoder's cross-attention is pulled toward the gold word alignment — each target piece toward the source
pieces of the word(s) its word links to, unlinked pieces and </s> toward the source </s> — by the cross-entropy
between the gold rows and the head's attention rows. The other heads are free.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from tqdm import tqdm

from attnviz.errors import InputError
from training.common.schedule import learning_rate
from training.common.stages import TRAINING_RECORD, continue_from
from training.data.corpus import load_corpus
from training.data.gold import GOLD_FILE, read_gold
from training.data.hsk import ORIGIN as HSK_ORIGIN
from training.data.pairs import Pair, merged_words
from training.data.tatoeba import ORIGIN as TATOEBA_ORIGIN
from training.paths import CORPUS_DIR
from training.translator import DEMO_BEAMS, DIRECTIONS, model_dir
from training.translator.alignment import gold_attention, piece_words, word_groups_under_pieces
from training.translator.config import TrainConfig
from training.translator.evaluate import score_and_write_card
from training.translator.tokenizer import train_sentencepiece, write_tokenizer


@dataclass
class Example:
    source_ids: list[int]  # pieces + </s>
    target_ids: list[int]  # pieces + </s>
    gold: np.ndarray  # (target length, source length): the alignment head's target rows


def case_variants(pair: Pair) -> list[Pair]:
    """ "Good Morning!" and "good morning!" for "Good morning!": English typed as people type it."""
    variants = []
    for change in (str.capitalize, str.lower):
        words = tuple(w if w == "I" else change(w) for w in pair.en_words)
        if words != pair.en_words:
            variants.append(Pair(pair.zh_words, words, pair.links, pair.origin + "/case"))
    return variants


def is_silver(pair: Pair) -> bool:
    """Links from the silver rule (training.data.silver): an unlinked word may still have a translation."""
    return pair.origin.startswith((HSK_ORIGIN + ":", TATOEBA_ORIGIN + ":"))


def is_hsk(pair: Pair) -> bool:
    return pair.origin.startswith(HSK_ORIGIN + ":")


def training_pairs(pairs: list[Pair], source_lang: str, repeat: int, hsk_repeat: int = 1) -> list[Pair]:
    """Grammar, Tatoeba and dictionary pairs once, HSK sentences `hsk_repeat` times, the phrasebook `repeat` times, and for
    English sources the phrasebook's case variants."""
    out = []
    for pair in pairs:
        if pair.origin != "phrasebook":
            out += [pair] * (hsk_repeat if is_hsk(pair) else 1)
            continue
        out += [pair] * repeat
        if source_lang == "en":
            out += [variant for variant in case_variants(pair) for _ in range(max(1, repeat // 4))]
    return out


def fitted_to_pieces(pair: Pair, chinese_pieces: list[str]) -> Pair:
    """The pair with its Chinese words merged where a piece straddles two (a silver segmentation may)."""
    groups = word_groups_under_pieces(chinese_pieces, pair.zh_words)
    if len(groups) == len(pair.zh_words):
        return pair
    return merged_words(pair.zh_words, pair.en_words, pair.links, groups, pair.origin)


def encode(tokenizer, pairs: list[Pair], source_lang: str, target_lang: str) -> list[Example]:
    """Token ids of both sides and the gold attention rows of each distinct pair."""
    distinct = list(dict.fromkeys(pairs))
    encoded = tokenizer([p.text(source_lang) for p in distinct], text_target=[p.text(target_lang) for p in distinct])
    chinese_spm = tokenizer.spm_source if source_lang == "zh" else tokenizer.spm_target
    by_pair = {}
    for k, original in enumerate(distinct):
        source_ids, target_ids = encoded["input_ids"][k], encoded["labels"][k]
        pair = original
        if is_silver(pair):
            pair = fitted_to_pieces(pair, chinese_spm.encode(pair.zh, out_type=str))
        source_owner = piece_words(
            tokenizer.spm_source.encode(pair.text(source_lang), out_type=str), pair.words(source_lang)
        )
        target_owner = piece_words(
            tokenizer.spm_target.encode(pair.text(target_lang), out_type=str), pair.words(target_lang)
        )
        if len(source_owner) + 1 != len(source_ids) or len(target_owner) + 1 != len(target_ids):
            raise InputError("demo_ids_pieces_disagree", zh=pair.zh, en=pair.en)
        gold = gold_attention(
            source_owner, target_owner, pair.links_from(source_lang), unlinked_to_end=not is_silver(pair)
        )
        by_pair[original] = Example(source_ids, target_ids, gold)
    return [by_pair[pair] for pair in pairs]


def collate(examples: list[Example], pad_id: int, start_id: int) -> dict[str, torch.Tensor]:
    batch, source_len = len(examples), max(len(e.source_ids) for e in examples)
    target_len = max(len(e.target_ids) for e in examples)
    input_ids = torch.full((batch, source_len), pad_id)
    attention_mask = torch.zeros((batch, source_len), dtype=torch.long)
    labels = torch.full((batch, target_len), -100)
    decoder_input_ids = torch.full((batch, target_len), pad_id)
    gold = torch.zeros((batch, target_len, source_len))
    for k, e in enumerate(examples):
        s, t = len(e.source_ids), len(e.target_ids)
        input_ids[k, :s] = torch.tensor(e.source_ids)
        attention_mask[k, :s] = 1
        labels[k, :t] = torch.tensor(e.target_ids)
        decoder_input_ids[k, :t] = torch.tensor([start_id] + e.target_ids[:-1])  # row i produces target i
        gold[k, :t, :s] = torch.from_numpy(e.gold)
    return {
        "input_ids": input_ids,
        "attention_mask": attention_mask,
        "labels": labels,
        "decoder_input_ids": decoder_input_ids,
        "gold": gold,
    }


def length_batches(examples: list[Example], config: TrainConfig, rng: random.Random) -> list[list[int]]:
    """One pass over the examples in batches of similar length, in random order: at most `batch_size` pairs and
    `batch_tokens` padded source + target tokens each, so the many short dictionary pairs cost little padding."""
    size = [len(e.source_ids) + len(e.target_ids) for e in examples]
    order = sorted(range(len(examples)), key=lambda k: (size[k], rng.random()))
    batches, current, longest = [], [], 0
    for k in order:
        if current and (
            len(current) == config.batch_size or max(longest, size[k]) * (len(current) + 1) > config.batch_tokens
        ):
            batches.append(current)
            current, longest = [], 0
        current.append(k)
        longest = max(longest, size[k])
    batches.append(current)
    rng.shuffle(batches)
    return batches


def build_model(config: TrainConfig, tokenizer):
    from transformers import GenerationConfig, MarianConfig, MarianMTModel  # slow to import: only when building

    pad, eos = tokenizer.pad_token_id, tokenizer.eos_token_id
    model_config = MarianConfig(
        vocab_size=len(tokenizer),
        decoder_vocab_size=len(tokenizer),
        d_model=config.d_model,
        encoder_layers=config.layers,
        decoder_layers=config.layers,
        encoder_attention_heads=config.heads,
        decoder_attention_heads=config.heads,
        encoder_ffn_dim=config.ffn_dim,
        decoder_ffn_dim=config.ffn_dim,
        max_position_embeddings=128,
        activation_function="swish",
        scale_embedding=True,
        dropout=config.dropout,
        attention_dropout=0.0,
        pad_token_id=pad,
        eos_token_id=eos,
        decoder_start_token_id=pad,
        forced_eos_token_id=eos,
        share_encoder_decoder_embeddings=True,
        tie_word_embeddings=True,
    )
    # The head trained to align; attnviz.model.load reads it as ModelHandle.alignment_heads.
    model_config.alignment_heads = [[config.supervised_layer, config.alignment_head]]
    model = MarianMTModel(model_config)
    model.set_attn_implementation("eager")  # only eager attention returns the weights the alignment loss needs
    model.generation_config = GenerationConfig(
        decoder_start_token_id=pad,
        eos_token_id=eos,
        pad_token_id=pad,
        forced_eos_token_id=eos,
        bad_words_ids=[[pad]],
        max_new_tokens=64,
        num_beams=DEMO_BEAMS,
        do_sample=False,
    )
    return model


CHECKPOINTS = "checkpoints"  # the sub-folder of kept checkpoints (--keep-checkpoints)
DERIVED_WEIGHTS = ("embed_tokens", "embed_positions", "lm_head")  # tied to model.shared, or sinusoidal


def losses(model, batch: dict[str, torch.Tensor], config: TrainConfig) -> tuple[torch.Tensor, torch.Tensor]:
    """Label-smoothed cross-entropy of the translation, and the guided-alignment cross-entropy of one head."""
    output = model(
        input_ids=batch["input_ids"],
        attention_mask=batch["attention_mask"],
        decoder_input_ids=batch["decoder_input_ids"],
        output_attentions=True,
    )
    logits = output.logits  # (batch, target, vocab)
    translation = F.cross_entropy(
        logits.flatten(0, 1), batch["labels"].flatten(), ignore_index=-100, label_smoothing=config.label_smoothing
    )
    attention = output.cross_attentions[config.supervised_layer][:, config.alignment_head]  # (batch, target, source)
    rows = batch["gold"].sum(-1) > 0  # (batch, target): a silver pair's unlinked words are not supervised
    per_row = -(batch["gold"] * torch.log(attention.clamp_min(1e-9))).sum(-1)  # (batch, target)
    alignment = per_row[rows].mean()
    return translation, alignment


def train(
    config: TrainConfig,
    corpus_dir: Path = CORPUS_DIR,
    out_dir: Path | None = None,
    progress: bool = True,
    evaluate_heldout: bool = True,
    keep_checkpoints: bool = False,
) -> dict:
    """Train, save to `out_dir` (default assets/models/<direction>), then score and write the card.
    `keep_checkpoints`: each checkpoint is also kept whole in `out_dir`/checkpoints/<step> (for training.translator.average).

    Returns the training record, also saved as training.json: config, seconds to saved weights, sizes, losses."""
    if config.direction not in DIRECTIONS:
        raise InputError("demo_unknown_direction", direction=config.direction, directions=", ".join(DIRECTIONS))
    began = time.monotonic()
    out_dir = Path(out_dir or model_dir(config.direction))
    torch.set_num_threads(config.threads)
    torch.manual_seed(config.seed)
    corpus = load_corpus(Path(corpus_dir), config.seed)
    pairs = corpus.train[: config.max_pairs] if config.max_pairs else corpus.train
    tokenizer, examples = prepare_examples(config, corpus.train, pairs, out_dir)
    model = build_model(config, tokenizer)
    earlier = continue_from(model, config.init_from, DERIVED_WEIGHTS) if config.init_from else None

    def save(translation: float, alignment: float, step: int | None = None) -> dict:
        """Weights and training.json; `step`: a checkpoint of a run still going (usable if it is stopped)."""
        model.save_pretrained(str(out_dir))
        record = {
            "config": asdict(config),
            "seconds": round(time.monotonic() - began, 1),
            "parameters": sum(p.numel() for p in model.parameters()),
            "final_loss": round(translation, 4),
            "final_alignment_loss": round(alignment, 4),
            "train_pairs": len(pairs),
        }
        if step is not None:
            record["checkpoint_step"] = step
        if earlier:
            record["earlier_stage"] = earlier
        (out_dir / TRAINING_RECORD).write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
        if step is not None and keep_checkpoints:
            kept = out_dir / CHECKPOINTS / str(step)
            shutil.rmtree(kept, ignore_errors=True)  # nothing of an earlier run's checkpoint stays mixed in
            shutil.copytree(out_dir, kept, ignore=shutil.ignore_patterns(CHECKPOINTS, "README.md"))
        return record

    translation, alignment = optimize(model, tokenizer, examples, config, progress, began, save)
    model.eval()
    record = save(translation, alignment)
    if evaluate_heldout:
        gold = read_gold(Path(corpus_dir) / GOLD_FILE) if (Path(corpus_dir) / GOLD_FILE).exists() else []
        score_and_write_card(out_dir, corpus.heldout, gold, corpus.heldout_grammar, corpus.heldout_tatoeba)
    return record


def prepare_examples(config: TrainConfig, whole: list[Pair], pairs: list[Pair], out_dir: Path):
    """The tokenizer written to `out_dir`, and the encoded training examples of `pairs`.

    Both directions train the same SentencePiece models: phrasebook repeats and case variants included, on the
    `whole` training corpus even when training takes a slice of it, so a small run reads every character a full one
    reads."""
    source_lang, target_lang = config.languages
    spm_pairs = training_pairs(whole, "en", config.phrasebook_repeat)
    with tempfile.TemporaryDirectory() as tmp:
        spm_models = {lang: train_sentencepiece(spm_pairs, lang, Path(tmp) / f"{lang}.model") for lang in ("zh", "en")}
        tokenizer = write_tokenizer(out_dir, source_lang, target_lang, spm_models)
    repeated = training_pairs(pairs, source_lang, config.phrasebook_repeat, config.hsk_repeat)
    return tokenizer, encode(tokenizer, repeated, source_lang, target_lang)


def optimize(model, tokenizer, examples: list[Example], config: TrainConfig, progress: bool, began: float, save):
    """`config.steps` AdamW steps over shuffled length batches; returns the last (translation, alignment) losses.
    `save(translation, alignment, step)` keeps a checkpoint every `config.save_every` steps."""
    rng = random.Random(config.seed)
    model.train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.learning_rate, betas=(0.9, 0.98), weight_decay=0.01)
    pad, start = tokenizer.pad_token_id, model.config.decoder_start_token_id
    queue: list[list[int]] = []
    bar = tqdm(range(config.steps), desc=f"train {config.direction}", disable=not progress, unit="step")
    translation = alignment = torch.tensor(0.0)
    for step in bar:
        if not queue:  # a fresh shuffled pass over the examples
            queue = length_batches(examples, config, rng)
        batch = collate([examples[k] for k in queue.pop()], pad, start)
        for group in optimizer.param_groups:
            group["lr"] = learning_rate(config, step)
        translation, alignment = losses(model, batch, config)
        loss = translation + config.alignment_weight * alignment
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        if step % 20 == 0:
            bar.set_postfix(loss=f"{translation.item():.3f}", align=f"{alignment.item():.3f}")
        if config.save_every and step and step % config.save_every == 0 and step < config.steps - 1:  # not the end
            save(translation.item(), alignment.item(), step)
            model.train()
        if config.log_every and step % config.log_every == 0:
            print(
                f"step {step} loss {translation.item():.3f} align {alignment.item():.3f} "
                f"{time.monotonic() - began:.0f}s",
                flush=True,
            )
    return translation.item(), alignment.item()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description="Train a demo translation model (two stages, about an hour in all on 2 CPU cores; see the model card)."
    )
    parser.add_argument("--direction", choices=DIRECTIONS, default="zh-en")
    parser.add_argument("--out", type=Path, default=None, help="model folder (default: assets/models/<direction>)")
    parser.add_argument("--corpus", type=Path, default=CORPUS_DIR)
    defaults = TrainConfig()
    sizes = (
        "steps",
        "d_model",
        "layers",
        "heads",
        "ffn_dim",
        "batch_size",
        "batch_tokens",
        "seed",
        "threads",
        "hsk_repeat",
        "log_every",
        "save_every",
        "warmup_steps",
    )
    for name in sizes:
        parser.add_argument("--" + name.replace("_", "-"), type=int, default=getattr(defaults, name))
    parser.add_argument("--max-pairs", type=int, default=None, help="train on the first N corpus pairs only")
    parser.add_argument("--max-heldout", type=int, default=None, help="score the first N held-out pairs only")
    parser.add_argument("--no-eval", action="store_true", help="skip the held-out scores and the model card")
    parser.add_argument("--init-from", default=None, help="continue from the weights of an earlier run's folder")
    parser.add_argument("--learning-rate", type=float, default=defaults.learning_rate)
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument(
        "--keep-checkpoints",
        action="store_true",
        help="keep every checkpoint in OUT/checkpoints/<step> (to average them: training.translator.average)",
    )
    args = parser.parse_args(argv)
    config = TrainConfig(
        direction=args.direction,
        max_pairs=args.max_pairs,
        max_heldout=args.max_heldout,
        init_from=args.init_from,
        learning_rate=args.learning_rate,
        **{name: getattr(args, name) for name in sizes},
    )
    began = time.monotonic()
    record = train(
        config,
        args.corpus,
        args.out,
        progress=not args.quiet,
        evaluate_heldout=not args.no_eval,
        keep_checkpoints=args.keep_checkpoints,
    )
    print(
        f"saved {args.out or model_dir(config.direction)} ({record['parameters']:,} parameters): weights after "
        f"{record['seconds'] / 60:.1f} min, done after {(time.monotonic() - began) / 60:.1f} min"
    )


if __name__ == "__main__":
    main()
