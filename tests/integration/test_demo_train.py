"""Smoke test of the training recipe: the real entry point, a tiny model, a slice of the corpus, a few steps."""

import json

import pytest
from safetensors.torch import load_file

from attnviz.demo import CORPUS_DIR
from attnviz.demo.phrasebook import phrasebook_pairs
from attnviz.demo.train import case_variants, main, training_pairs

TINY = [
    "--steps",
    "4",
    "--d-model",
    "16",
    "--layers",
    "1",
    "--heads",
    "2",
    "--ffn-dim",
    "32",
    "--batch-size",
    "8",
    "--max-pairs",
    "50",
    "--quiet",
    "--corpus",
    str(CORPUS_DIR),
]


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tiny-en-zh")
    main(["--direction", "en-zh", "--out", str(folder), "--max-heldout", "8", *TINY])
    return folder


@pytest.mark.filterwarnings("ignore:Recommended. pip install sacremoses")  # loaded as users do, sacremoses or not
def test_training_writes_a_loadable_model_folder_with_a_card(trained):
    from transformers import MarianMTModel, MarianTokenizer

    tokenizer = MarianTokenizer.from_pretrained(str(trained))
    model = MarianMTModel.from_pretrained(str(trained))
    assert model.config.alignment_heads == [[0, 0]]
    assert model.config.d_model == 16
    batch = tokenizer(["Good morning!"], return_tensors="pt")
    assert model.generate(**batch, max_new_tokens=4).shape[0] == 1
    card = (trained / "README.md").read_text(encoding="utf-8")
    assert "| all (8) |" in card and "layer 0, head 0" in card
    record = json.loads((trained / "training.json").read_text(encoding="utf-8"))
    assert record["config"]["steps"] == 4 and record["train_pairs"] == 50


def test_training_is_reproducible(trained, tmp_path):
    main(["--direction", "en-zh", "--out", str(tmp_path), "--no-eval", *TINY])
    first, second = load_file(trained / "model.safetensors"), load_file(tmp_path / "model.safetensors")
    assert first.keys() == second.keys()
    assert all((first[name] == second[name]).all() for name in first)
    for name in ("source.spm", "target.spm", "vocab.json"):
        assert (trained / name).read_bytes() == (tmp_path / name).read_bytes()


def test_english_sources_add_case_variants_of_the_phrasebook_only():
    morning = next(p for p in phrasebook_pairs() if p.zh == "早上好！")
    assert {v.en for v in case_variants(morning)} == {"Good Morning!", "good morning!"}
    assert training_pairs([morning], "zh", 3) == [morning] * 3
    assert len(training_pairs([morning], "en", 4)) == 4 + 2


def test_a_stopped_run_leaves_its_last_checkpoint_and_its_card_says_so(tmp_path, monkeypatch):
    from attnviz.demo import train as training
    from attnviz.demo.evaluate import main as evaluate_main

    schedule = training.learning_rate

    def stopped_at_step_three(config, step):
        if step == 3:
            raise KeyboardInterrupt  # the run is stopped after the checkpoint of step 2
        return schedule(config, step)

    monkeypatch.setattr(training, "learning_rate", stopped_at_step_three)
    with pytest.raises(KeyboardInterrupt):
        main(["--direction", "en-zh", "--out", str(tmp_path), "--no-eval", "--save-every", "2", *TINY])
    record = json.loads((tmp_path / "training.json").read_text(encoding="utf-8"))
    assert record["checkpoint_step"] == 2 and record["config"]["steps"] == 4
    assert (tmp_path / "model.safetensors").exists()
    evaluate_main(["--direction", "en-zh", "--model", str(tmp_path), "--write-card", "--corpus", str(CORPUS_DIR)])
    card = (tmp_path / "README.md").read_text(encoding="utf-8")
    assert "checkpoint saved at step 2 of the 4" in card
    assert "--save-every" not in card  # checkpoints do not change the weights: the command stays the same
