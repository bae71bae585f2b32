"""The model card (README.md) written next to each trained demo model."""

from __future__ import annotations

from pathlib import Path

LANGUAGE_NAMES = {"zh": "Chinese", "en": "English"}
EXAMPLES = {"zh-en": [("早上好！", "Good morning!"), ("我喜欢学习", "I like studying"),
                      ("我明天在北京学习", "I will study in Beijing tomorrow")],
            "en-zh": [("Good morning!", "早上好！"), ("I like studying", "我喜欢学习"),
                      ("I will study in Beijing tomorrow", "我明天在北京学习")]}


def _megabytes(path: Path) -> str:
    return f"{path.stat().st_size / 1e6:.1f} MB" if path.exists() else "?"


def write_card(folder: Path, config, report, scores) -> Path:
    folder = Path(folder)
    source, target = config.languages
    layer, head = config.supervised_layer, config.alignment_head
    groups = "\n".join(f"| {name} | {g['pairs']} | {g['exact_match']:.3f} | {g['aer']:.3f} |"
                       for name, g in scores.by_group.items())
    examples = "\n".join(f"| {s} | {t} |" for s, t in EXAMPLES[config.direction])
    card = f"""---
language: [{source}, {target}]
library_name: transformers
pipeline_tag: translation
tags: [marian, attnviz, demo, guided-alignment]
---

# attnviz demo translator, {LANGUAGE_NAMES[source]} → {LANGUAGE_NAMES[target]} ({config.direction})

A small Marian translation model trained for attnviz on this project's own corpus, so that the app opens on a real
translation model whose cross-attention means something without downloading anything. It loads with exactly the
code that loads Helsinki-NLP/opus-mt-zh-en:

```python
from transformers import MarianMTModel, MarianTokenizer
tokenizer = MarianTokenizer.from_pretrained("assets/models/{config.direction}")
model = MarianMTModel.from_pretrained("assets/models/{config.direction}")
batch = tokenizer(["{EXAMPLES[config.direction][0][0]}"], return_tensors="pt")
print(tokenizer.batch_decode(model.generate(**batch), skip_special_tokens=True))  # {EXAMPLES[config.direction][0][1]}
```

| input | output |
|---|---|
{examples}

## What it is not
**Not a general translator.** It knows only the few hundred words and the sentence patterns of its corpus
(greetings, thanks, numbers, days, and simple sentences about people studying, eating, liking and having things,
at places and times). Anything else comes out wrong, often confidently. Use it to look at attention, not to
translate.

## Data
`assets/corpus/` ({report.train_pairs} training pairs; see its README): a hand-written phrasebook (repeated
{config.phrasebook_repeat}× in training{", plus capitalised and lower-case variants of its English" if source == "en" else ""}) and
sentences generated from a small bilingual grammar whose word alignments are known by construction, including
reorderings (我明天在北京学习 → I will study in Beijing tomorrow). Held-out pairs are never seen in training.

## Model
Marian (MarianMTModel), {config.layers} encoder and {config.layers} decoder layers, d_model {config.d_model},
{config.heads} heads, feed-forward {config.ffn_dim}, swish, sinusoidal positions, shared embeddings over a joint
vocabulary; {report.parameters:,} parameters, `model.safetensors` {_megabytes(folder / "model.safetensors")} (float32).
Tokenizers: SentencePiece `source.spm` / `target.spm` trained on the corpus — Chinese: unigram with every lexicon word
as a user-defined symbol (so 早上好！ splits into 早上 / 好 / ！), no dummy prefix, ASCII punctuation read as
full-width (早上好! = 早上好！); English: BPE with NFKC normalisation (Good morning！ = Good morning!) and punctuation
as its own pieces. `vocab.json` is the joint vocabulary (`</s>` 0, `<unk>` 1, `<pad>` last = decoder start).

## Alignment head
Cross-attention **layer {layer}, head {head}** (`model.decoder.layers.{layer}.encoder_attn`, head {head}, 0-based) was
trained with guided alignment (Garg et al. 2019; like Marian's `--guided-alignment`): an extra loss, weight
{config.alignment_weight}, is the cross-entropy between that head's attention and the gold alignment — each target
piece's row spreads over the source pieces of the word(s) its word is aligned to, unaligned pieces and `</s>` go
to the source `</s>`. Row *i* is the decoder step that produces target piece *i*. `config.json` records it as
`"alignment_heads": [[{layer}, {head}]]`. All other heads were left free.

## Held-out scores
Computed by `attnviz.demo.evaluate.evaluate` (also `python -m attnviz.demo.evaluate --direction {config.direction}`)
and checked by `tests/test_demo_models.py`, on {scores.pairs} held-out pairs. *Exact match*: greedy translation equals
the reference, case and spaces aside. *AER*: alignment error rate against the gold alignment, each target word
linked to the source word (pieces merged) that the alignment head attends to most, or to nothing when that is
`</s>`.

| held-out pairs | exact match | AER |
|---|---|---|
| all ({scores.pairs}) | {scores.exact_match:.3f} | {scores.aer:.3f} |

| group | pairs | exact match | AER |
|---|---|---|---|
{groups}

`new-combination`: every word seen in training, the word pairing never; `new-sentence`: unseen sentence, seen pairing.

## Training
```
python -m attnviz.demo.train --direction {config.direction}
```
{config.steps} steps of batch {config.batch_size} with AdamW (peak learning rate {config.learning_rate}, warm-up
{config.warmup_steps} steps then cosine decay), label smoothing {config.label_smoothing}, dropout {config.dropout},
seed {config.seed}, {config.threads} CPU threads: {report.seconds / 60:.1f} minutes from corpus to this folder on 2 CPU
cores. Final training loss {report.final_loss:.3f}, alignment loss {report.final_alignment_loss:.3f}.
"""
    path = folder / "README.md"
    path.write_text(card, encoding="utf-8")
    return path
