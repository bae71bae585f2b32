"""Train the demo decoder: a small Llama-style language model with rotary positions and grouped-query attention.

    python -m training.decoder.train --out assets/models/decoder
    python -m training.decoder.card --model assets/models/decoder     # measure the heads, write README.md

Steps: read the corpus (training.data.corpus), train the byte-level BPE tokenizer on its text
(training.decoder.tokenizer), then train next-token prediction on packed sequences, a share of them with
repeated spans (training.decoder.data). Each step holds `tokens_per_step` tokens: many short sequences or a few
long ones; the lengths are drawn per step from `lengths` with `length_weights`, so the heads also learn to work
4,096 tokens on. The folder is saved every `save_every` steps, so a usable model exists before the end. Seeded: the
same command gives the same model on the same software and CPU type.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import torch
import torch.nn.functional as F

from training.common.schedule import learning_rate  # warm-up then cosine decay, as for the translators
from training.common.stages import TRAINING_RECORD, continue_from
from training.data.corpus import DEFAULT_SEED, load_corpus
from training.decoder.data import Repeats, TokenStream, corpus_lines
from training.decoder.tokenizer import BOS, EOS, PAD, SPECIAL_TOKENS, save_tokenizer, train_tokenizer
from training.paths import CORPUS_DIR, MODELS_DIR

DECODER_DIR = MODELS_DIR / "decoder"


@dataclass
class DecoderConfig:
    seed: int = DEFAULT_SEED
    vocab_size: int = 8192
    hidden: int = 96
    layers: int = 3
    heads: int = 4
    kv_heads: int = 2  # grouped-query attention: 2 query heads share each key/value head
    ffn: int = 256
    max_positions: int = 4096
    rope_theta: float = 10000.0
    steps: int = 4000
    tokens_per_step: int = 2048
    lengths: tuple[int, ...] = (256, 512, 1024, 4096)
    length_weights: tuple[float, ...] = (0.5, 0.3, 0.15, 0.05)
    learning_rate: float = 3e-3
    warmup_steps: int = 100
    weight_decay: float = 0.05
    adam_beta2: float = 0.95  # AdamW's second-moment decay (0.999 is torch's default)
    clip_norm: float = 1.0  # the gradient's norm is clipped to this (0: never clipped)
    repeats: Repeats = field(default_factory=Repeats)
    save_every: int = 200  # steps between saved checkpoints (0: only at the end)
    threads: int = 1  # on a shared 2-core machine a second thread waits on the first more than it helps
    max_pairs: int | None = None  # train on the first N corpus pairs only (tests)
    log_every: int = 10
    init_from: str | None = None  # continue from an earlier run's folder (its weights and tokenizer): a second stage
    stop_at: int | None = None  # stop at this step, as the checkpoint a longer run saves there (its schedule: `steps`)


def build_model(config: DecoderConfig, tokenizer):
    from transformers import LlamaConfig, LlamaForCausalLM  # slow to import: only when building

    model_config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=config.hidden,
        intermediate_size=config.ffn,
        num_hidden_layers=config.layers,
        num_attention_heads=config.heads,
        num_key_value_heads=config.kv_heads,
        max_position_embeddings=config.max_positions,
        rope_theta=config.rope_theta,
        tie_word_embeddings=True,
        bos_token_id=tokenizer.convert_tokens_to_ids(BOS),
        eos_token_id=tokenizer.convert_tokens_to_ids(EOS),
        pad_token_id=tokenizer.convert_tokens_to_ids(PAD),
    )
    return LlamaForCausalLM(model_config)


def lm_loss(model, ids: torch.Tensor) -> torch.Tensor:
    """Mean next-token cross-entropy of a batch of full sequences (batch, length)."""
    logits = model(input_ids=ids).logits  # (batch, length, vocab)
    return F.cross_entropy(logits[:, :-1].flatten(0, 1), ids[:, 1:].flatten())


def step_batch(stream: TokenStream, config: DecoderConfig, vocab: range, rng: random.Random) -> torch.Tensor:
    length = rng.choices(config.lengths, weights=config.length_weights)[0]
    batch = max(1, config.tokens_per_step // length)
    return torch.tensor([stream.sequence(length, config.repeats, vocab) for _ in range(batch)])  # (batch, length)


def prepare(config: DecoderConfig, corpus_dir: Path):
    """Corpus, tokenizer (trained on the lines, or an earlier stage's) and the token stream of the training lines."""
    corpus = load_corpus(Path(corpus_dir), config.seed)
    pairs = corpus.train[: config.max_pairs] if config.max_pairs else corpus.train
    rng = random.Random(config.seed)
    lines = corpus_lines(pairs, rng)
    if config.init_from:
        from transformers import AutoTokenizer  # transformers: seconds to import, only when a stage continues

        tokenizer = AutoTokenizer.from_pretrained(config.init_from)
    else:
        tokenizer = train_tokenizer(lines, config.vocab_size, config.max_positions)
    line_ids = tokenizer(lines, add_special_tokens=False)["input_ids"]
    newline = tokenizer("\n", add_special_tokens=False)["input_ids"]
    stream = TokenStream(line_ids, tokenizer.convert_tokens_to_ids(BOS), newline, rng)
    return corpus, pairs, tokenizer, stream


def save(model, tokenizer, out_dir: Path, record: dict) -> None:
    model.save_pretrained(str(out_dir))
    save_tokenizer(tokenizer, out_dir)
    (out_dir / TRAINING_RECORD).write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")


def train(config: DecoderConfig, corpus_dir: Path = CORPUS_DIR, out_dir: Path = DECODER_DIR) -> dict:
    """Train and save to `out_dir`; returns the training record (also training.json): config, seconds, losses."""
    began = time.monotonic()
    out_dir = Path(out_dir)
    torch.set_num_threads(config.threads)
    torch.manual_seed(config.seed)
    _, pairs, tokenizer, stream = prepare(config, corpus_dir)
    rng = random.Random(config.seed + 1)
    vocab = range(len(SPECIAL_TOKENS), len(tokenizer))  # random spans never hold <s>, </s>, <pad>
    model = build_model(config, tokenizer)
    earlier = continue_from(model, config.init_from, ("lm_head",)) if config.init_from else None  # tied head
    model.train()
    optimizer = torch.optim.AdamW(
        model.parameters(), lr=config.learning_rate, betas=(0.9, config.adam_beta2), weight_decay=config.weight_decay
    )
    record = {"config": asdict(config), "train_pairs": len(pairs), "losses": []}
    if earlier is not None:
        record["earlier_stage"] = earlier
    for step in range(config.steps):
        ids = step_batch(stream, config, vocab, rng)
        for group in optimizer.param_groups:
            group["lr"] = learning_rate(config, step)
        loss = lm_loss(model, ids)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        if config.clip_norm:
            torch.nn.utils.clip_grad_norm_(model.parameters(), config.clip_norm)
        optimizer.step()
        if config.log_every and step % config.log_every == 0:
            seconds = time.monotonic() - began
            record["losses"].append([step, ids.shape[1], round(loss.item(), 4)])
            print(f"step {step} length {ids.shape[1]} loss {loss.item():.3f} {seconds:.0f}s", flush=True)
        if config.stop_at is not None and step == config.stop_at:  # the checkpoint a longer run saves at this step
            break
        if config.save_every and step and step % config.save_every == 0:
            save(model, tokenizer, out_dir, finished(record, model, step, loss, began))
    model.eval()
    done = config.steps if config.stop_at is None else min(config.stop_at, config.steps)
    record = finished(record, model, done, loss, began)
    save(model, tokenizer, out_dir, record)
    return record


def finished(record: dict, model, steps_done: int, loss: torch.Tensor, began: float) -> dict:
    """The training record of the weights saved now (a checkpoint's says how many steps it has)."""
    return record | {
        "steps_done": steps_done,
        "seconds": round(time.monotonic() - began, 1),
        "parameters": sum(p.numel() for p in model.parameters()),
        "final_loss": round(loss.item(), 4),
        "machine": machine(),
    }


def machine() -> str:
    """The CPU (or accelerator) this ran on and the torch threads it had."""
    name = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                name = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{name}, {os.cpu_count()} cores, {torch.get_num_threads()} torch thread(s)"


REPEAT_OPTIONS = ("share", "random_share", "loop_share", "loop_max_span", "text_token_share")  # --repeat-… flags


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Train the demo decoder (a small Llama) on the corpus, on CPU.")
    parser.add_argument("--out", type=Path, default=DECODER_DIR)
    parser.add_argument("--corpus", type=Path, default=CORPUS_DIR)
    defaults = DecoderConfig()
    sizes = ("steps", "hidden", "layers", "heads", "kv_heads", "ffn", "vocab_size", "tokens_per_step", "seed")
    sizes += ("save_every", "threads", "log_every", "warmup_steps", "max_positions")
    for name in sizes:
        parser.add_argument("--" + name.replace("_", "-"), type=int, default=getattr(defaults, name))
    parser.add_argument("--lengths", type=int, nargs="+", default=list(defaults.lengths))
    parser.add_argument("--length-weights", type=float, nargs="+", default=list(defaults.length_weights))
    rates = ("learning_rate", "weight_decay", "adam_beta2", "clip_norm")  # the optimizer's numbers
    rates += ("rope_theta",)  # and the rotary base: a later stage may change it (slower rotations reach farther)
    for name in rates:
        parser.add_argument("--" + name.replace("_", "-"), type=float, default=getattr(defaults, name))
    parser.add_argument("--max-pairs", type=int, default=None, help="train on the first N corpus pairs only")
    parser.add_argument("--init-from", default=None, help="continue from an earlier run's folder (weights, tokenizer)")
    parser.add_argument("--stop-at", type=int, default=None, help="stop at this step (the schedule runs to --steps)")
    mix = Repeats()
    for name in REPEAT_OPTIONS:
        parser.add_argument(
            f"--repeat-{name.replace('_', '-')}",
            type=type(getattr(mix, name)),
            default=getattr(mix, name),
            help=f"synthetic repeats: {name} (decoder_data.Repeats)",
        )
    args = parser.parse_args(argv)
    repeats = Repeats(**{name: getattr(args, f"repeat_{name}") for name in REPEAT_OPTIONS})
    config = DecoderConfig(
        lengths=tuple(args.lengths),
        length_weights=tuple(args.length_weights),
        max_pairs=args.max_pairs,
        init_from=args.init_from,
        stop_at=args.stop_at,
        repeats=repeats,
        **{name: getattr(args, name) for name in sizes + rates},
    )
    record = train(config, args.corpus, args.out)
    print(f"saved {args.out} ({record['parameters']:,} parameters) after {record['seconds'] / 60:.1f} min")


if __name__ == "__main__":
    main()
