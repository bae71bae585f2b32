"""The model card (README.md) of a trained demo model: what it is, its data, its alignment head, its held-out scores
and the command that trains it, written next to the weights. attnviz.demo.evaluate scores the model and calls it:

    python -m attnviz.demo.evaluate --direction zh-en --write-card    # rescore a saved model, rewrite its card
"""

from __future__ import annotations

import json
from pathlib import Path

from attnviz.demo.config import TrainConfig

LANGUAGE_NAMES = {"zh": "Chinese", "en": "English"}
EXAMPLES = {"zh-en": ["早上好！", "我喜欢学习", "我明天在北京学习", "你喜欢苹果吗？", "书在桌子上。"],
            "en-zh": ["Good morning!", "I like studying", "I will study in Beijing tomorrow", "Do you like apples?",
                      "The book is on the table."]}


def vocabulary_size(folder: Path) -> int:
    return len(json.loads((folder / "vocab.json").read_text(encoding="utf-8")))


def torch_version() -> str:
    import torch

    return torch.__version__


def transformers_version() -> str:
    import transformers

    return transformers.__version__


def _megabytes(path: Path) -> str:
    return f"{path.stat().st_size / 1e6:.1f} MB" if path.exists() else "?"


def training_command(config: TrainConfig) -> str:
    """The command that trains this model: the defaults need only the direction."""
    defaults = TrainConfig(direction=config.direction)
    changed = [f"--{name.replace('_', '-')} {value}" for name, value in vars(config).items()
               if name != "direction" and value != getattr(defaults, name)]
    return " ".join(["python -m attnviz.demo.train --direction", config.direction, *changed])


def write_card(folder: Path, config: TrainConfig, record: dict, scores, examples: list[tuple[str, str]],
               scoring_seconds: float) -> Path:
    """`record`: training.json; `scores`: attnviz.demo.evaluate.Scores; `examples`: (input, this model's translation)
    pairs shown at the top. Returns the path of the README.md written."""
    folder = Path(folder)
    sections = [
        _introduction(config, examples),
        _scope_and_data(config, record),
        _architecture(config, record, folder),
        _alignment_head(config),
        _heldout_scores(config, scores),
        _training(config, record, scoring_seconds),
    ]
    path = folder / "README.md"
    path.write_text("\n".join(sections), encoding="utf-8")
    return path


def _introduction(config: TrainConfig, examples: list[tuple[str, str]]) -> str:
    source, target = config.languages
    shown = "\n".join(f"| {s} | {t} |" for s, t in examples)
    return f"""---
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
batch = tokenizer(["{examples[0][0]}"], return_tensors="pt")
print(tokenizer.batch_decode(model.generate(**batch), skip_special_tokens=True))  # {examples[0][1]}
```

| input | this model's translation |
|---|---|
{shown}

In attnviz it is the catalogue's `demo-{config.direction}` and the app's default model.
"""


def _scope_and_data(config: TrainConfig, record: dict) -> str:
    source, _ = config.languages
    return f"""## What it is not
**Not a general translator.** It knows only the few hundred words and the sentence patterns of its corpus
(greetings, thanks, numbers, days, and simple sentences about people studying, eating, liking and having things,
at places and times). Anything else comes out wrong, often confidently. Use it to look at attention, not to
translate.

## Data
`assets/corpus/` ({record['train_pairs']} training pairs; see its README): a hand-written phrasebook (repeated
{config.phrasebook_repeat}× in training{", plus capitalised and lower-case variants of its English" if source == "en" else ""}) and
sentences generated from a small bilingual grammar whose word alignments are known by construction, including
reorderings (我明天在北京学习 → I will study in Beijing tomorrow). Held-out pairs are never seen in training.
"""


def _architecture(config: TrainConfig, record: dict, folder: Path) -> str:
    return f"""## Model
Marian (MarianMTModel), {config.layers} encoder and {config.layers} decoder layers, d_model {config.d_model},
{config.heads} heads, feed-forward {config.ffn_dim}, swish, sinusoidal positions, shared embeddings over a joint
vocabulary of {vocabulary_size(folder)} pieces; {record['parameters']:,} parameters, `model.safetensors`
{_megabytes(folder / "model.safetensors")} (float32).
Tokenizers: SentencePiece `source.spm` / `target.spm` trained on the corpus. Chinese: unigram with every lexicon
word as a user-defined symbol (so 早上好！ splits into 早上 / 好 / ！), no dummy prefix, ASCII punctuation read as
full-width and spaces dropped (早上好! = 早上 好 ！ = 早上好！). English: BPE with NFKC normalisation
(Good morning！ = Good morning!) and punctuation as pieces of their own. `vocab.json` is the joint vocabulary
(`</s>` 0, `<unk>` 1, `<pad>` last = the decoder's start token).
"""


def _alignment_head(config: TrainConfig) -> str:
    layer, head = config.supervised_layer, config.alignment_head
    return f"""## Alignment head
Cross-attention **layer {layer}, head {head}** (`model.decoder.layers.{layer}.encoder_attn`, head {head}, 0-based) was
trained with guided alignment (Garg et al. 2019; like Marian's `--guided-alignment`): an extra loss, weight
{config.alignment_weight}, is the cross-entropy between that head's attention and the gold alignment — each target
piece's row spreads over the source pieces of the word(s) its word is aligned to, unaligned pieces and `</s>` go
to the source `</s>`. Row *i* is the decoder step that produces target piece *i*. `config.json` records it as
`"alignment_heads": [[{layer}, {head}]]`. All other heads were left free.
"""


def _heldout_scores(config: TrainConfig, scores) -> str:
    groups = "\n".join(f"| {name} | {g['pairs']} | {g['exact_match']:.3f} | {g['aer']:.3f} | {g['aer_argmax']:.3f} |"
                       for name, g in scores.by_group.items())
    return f"""## Held-out scores
Computed by `attnviz.demo.evaluate.evaluate` (`python -m attnviz.demo.evaluate --direction {config.direction}`) and
checked by `tests/integration/test_demo_models.py`, on {scores.pairs} held-out pairs never seen in training.
*Exact match*: the greedy translation equals the reference, case and spaces aside.
*AER*: alignment error rate (Och & Ney) against the gold word alignment, read from the alignment head while
force-decoding the reference, pieces merged into words: each target word links to every source word that gets at
least half of its strongest weight, or to nothing when the strongest is `</s>`. *AER argmax* keeps only the
strongest source word, so a target word that translates two source words (老师 for "the teacher") finds one of them.

| held-out pairs | exact match | AER | AER argmax |
|---|---|---|---|
| all ({scores.pairs}) | {scores.exact_match:.3f} | {scores.aer:.3f} | {scores.aer_argmax:.3f} |

| group | pairs | exact match | AER | AER argmax |
|---|---|---|---|---|
{groups}

`new-combination`: every word seen in training, the word pairing never; `new-sentence`: an unseen sentence whose
pairings training has met.
"""


def _training(config: TrainConfig, record: dict, scoring_seconds: float) -> str:
    source, _ = config.languages
    return f"""## Training
```
{training_command(config)}
```
{config.steps} steps of batch {config.batch_size} with AdamW (peak learning rate {config.learning_rate}, warm-up
{config.warmup_steps} steps then cosine decay), label smoothing {config.label_smoothing}, dropout {config.dropout},
seed {config.seed}, {config.threads} torch thread(s). From corpus to saved weights: {record['seconds'] / 60:.1f} minutes
on a 2-core CPU shared with other work; scoring the held-out pairs and writing this card: {scoring_seconds:.0f} s more.
Final training loss {record['final_loss']:.3f} (label-smoothed), alignment loss {record['final_alignment_loss']:.3f}{
" (it cannot reach 0: a Chinese word that translates two English words spreads its gold row over both)"
if source == "en" else ""}. The same command gives the same weights on the same software and CPU type (torch {torch_version()},
transformers {transformers_version()}).
"""
