"""Smoke test of the training recipe: the real entry point, a tiny model, a slice of the corpus, a few steps."""

import json
import shutil

import pytest
import torch
from safetensors.torch import load_file

from training.common import weights
from training.common.weights import stored_dtype
from training.data.corpus import TATOEBA_HELD_OUT_FILE
from training.data.pairs import read_tsv
from training.data.phrasebook import phrasebook_pairs
from training.paths import CORPUS_DIR
from training.translator import train as trainer
from training.translator.average import average
from training.translator.average import main as average_main
from training.translator.evaluate import main as evaluate_main
from training.translator.half import main as half_main
from training.translator.half import store_half
from training.translator.train import case_variants, main, training_pairs

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
    from transformers import MarianMTModel, MarianTokenizer  # slow to import: only the tests that load a model

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
    schedule = trainer.learning_rate

    def stopped_at_step_three(config, step):
        if step == 3:
            raise KeyboardInterrupt  # the run is stopped after the checkpoint of step 2
        return schedule(config, step)

    monkeypatch.setattr(trainer, "learning_rate", stopped_at_step_three)
    with pytest.raises(KeyboardInterrupt):
        main(["--direction", "en-zh", "--out", str(tmp_path), "--no-eval", "--save-every", "2", *TINY])
    record = json.loads((tmp_path / "training.json").read_text(encoding="utf-8"))
    assert record["checkpoint_step"] == 2 and record["config"]["steps"] == 4
    assert (tmp_path / "model.safetensors").exists()
    checks = tmp_path.parent / f"{tmp_path.name}-checks.tsv"
    evaluate_main(
        ["--direction", "en-zh", "--model", str(tmp_path), "--write-card", "--corpus", str(CORPUS_DIR)]
        + ["--write-checks", str(checks)]
    )
    card = (tmp_path / "README.md").read_text(encoding="utf-8")
    assert "checkpoint saved at step 2 of the 4" in card
    # the checks file lists the translations the card scored: its flipped share is the card's Tatoeba figure
    rows = [line.split("\t") for line in checks.read_text(encoding="utf-8").splitlines()[1:]]
    tatoeba = read_tsv(CORPUS_DIR / TATOEBA_HELD_OUT_FILE)
    assert [row[0] for row in rows] == [pair.origin for pair in tatoeba]
    flipped = sum(row[4] == "1" for row in rows) / len(rows)
    assert f"| Tatoeba ({len(tatoeba)}) | {flipped:.1%} |" in card
    assert "--save-every" not in card  # checkpoints do not change the weights: the command stays the same


@pytest.fixture(scope="module")
def kept_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("kept-en-zh")
    main(["--direction", "en-zh", "--out", str(folder), "--no-eval", "--save-every", "1", "--keep-checkpoints", *TINY])
    return folder


def test_kept_checkpoints_average_to_the_mean_of_their_weights_and_the_card_says_how(kept_run, tmp_path):
    assert sorted(p.name for p in (kept_run / "checkpoints").iterdir()) == ["1", "2"]  # the end is the run's own
    folders = [kept_run / "checkpoints" / "1", kept_run / "checkpoints" / "2", kept_run]
    average_main(["--out", str(tmp_path), *map(str, folders)])
    weights = [load_file(folder / "model.safetensors") for folder in folders]
    averaged = load_file(tmp_path / "model.safetensors")
    assert averaged.keys() == weights[0].keys()
    for name in averaged:
        mean = sum(w[name].double() for w in weights) / 3
        assert torch.allclose(averaged[name].double(), mean, atol=1e-7), name
    shared = [w["model.shared.weight"] for w in weights]
    assert not any(torch.equal(a, b) for i, a in enumerate(shared) for b in shared[i + 1 :])  # three steps apart
    record = json.loads((tmp_path / "training.json").read_text(encoding="utf-8"))
    assert record["averaged_steps"] == [1, 2, 4] and "checkpoint_step" not in record
    assert (tmp_path / "vocab.json").read_bytes() == (kept_run / "vocab.json").read_bytes()
    evaluate_main(["--direction", "en-zh", "--model", str(tmp_path), "--write-card", "--corpus", str(CORPUS_DIR)])
    card = (tmp_path / "README.md").read_text(encoding="utf-8")
    assert "mean of the last stage's checkpoints at steps 1, 2, 4" in card
    assert "--keep-checkpoints\npython -m training.translator.average --out assets/models/en-zh" in card
    assert "assets/models/en-zh/checkpoints/2 assets/models/en-zh\n" in card


def test_sibling_runs_from_the_same_weights_average_into_one_model_and_the_card_says_how(kept_run, tmp_path):
    runs = []
    for seed, rate in (("31", "0.002"), ("32", "0.003")):  # two stages from the same weights, other seeds and rates
        run = tmp_path / f"run-{seed}"
        common = ["--no-eval", "--save-every", "2", "--keep-checkpoints", "--init-from", str(kept_run)]
        main(["--direction", "en-zh", "--out", str(run), *common, "--seed", seed, "--learning-rate", rate, *TINY])
        runs.append(run)
    folders = [runs[0] / "checkpoints" / "2", runs[0], runs[1] / "checkpoints" / "2", runs[1]]
    average_main(["--out", str(tmp_path / "soup"), *map(str, folders)])
    weights = [load_file(folder / "model.safetensors") for folder in folders]
    averaged = load_file(tmp_path / "soup" / "model.safetensors")
    for name in averaged:
        assert torch.allclose(averaged[name].double(), sum(w[name].double() for w in weights) / 4, atol=1e-7), name
    record = json.loads((tmp_path / "soup" / "training.json").read_text(encoding="utf-8"))
    assert record["config"]["seed"] == 32 and record["averaged_steps"] == [2, 4]
    assert [(run["config"]["seed"], run["averaged_steps"]) for run in record["sibling_runs"]] == [(31, [2, 4])]
    evaluate_main(
        ["--direction", "en-zh", "--model", str(tmp_path / "soup"), "--write-card", "--corpus", str(CORPUS_DIR)]
    )
    card = (tmp_path / "soup" / "README.md").read_text(encoding="utf-8")
    assert "mean of 4 checkpoints of 2 runs of the last stage** (steps 2, 4; 2, 4)" in card
    sibling_command = next(line for line in card.splitlines() if "--out runs/1" in line)
    assert "--seed 31 " in sibling_command and "--learning-rate 0.002 " in sibling_command
    assert sibling_command.endswith(f"--init-from {kept_run} --out runs/1 --save-every 2 --keep-checkpoints")
    averaging = "python -m training.translator.average --out assets/models/en-zh runs/1/checkpoints/2 runs/1 "
    assert averaging + "assets/models/en-zh/checkpoints/2 assets/models/en-zh\n" in card
    commands = [line for line in card.splitlines() if line.startswith("python -m training.translator.train")]
    assert "--init-from" not in commands[0] and "--seed 31" in commands[1] and "--seed 32" in commands[2]
    assert len(commands) == 3  # the sibling trains before the last stage replaces the weights they both start from
    assert "the sibling runs and the last stage from the same ones" in card


def test_averaging_refuses_a_lone_folder_a_stranger_and_another_model(kept_run, tmp_path, capsys):
    other = tmp_path / "other"
    main(["--direction", "en-zh", "--out", str(other), "--no-eval", *TINY[:2], "--d-model", "8", *TINY[4:]])
    for folders, said in (
        ([kept_run], "at least two"),
        ([kept_run, tmp_path / "nothing"], "is not a saved model folder"),
        ([kept_run, other], "was trained by another run"),
        ([kept_run / "checkpoints" / "1", kept_run / "checkpoints" / "1"], "checkpoint of step 1 again"),
    ):
        with pytest.raises(SystemExit) as stop:
            average_main(["--out", str(tmp_path / "out"), *map(str, folders)])
        assert stop.value.code == 2
        err = capsys.readouterr().err
        assert said in err and err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "out" / "model.safetensors").exists()


def test_float16_storage_halves_the_file_and_loads_as_float32(kept_run, tmp_path):
    from transformers import MarianMTModel  # slow to import: only the tests that load a model

    folder = tmp_path / "model"
    shutil.copytree(kept_run, folder, ignore=shutil.ignore_patterns("checkpoints"))
    before = load_file(folder / "model.safetensors")
    half_main([str(folder)])
    assert stored_dtype(folder) == "float16" and stored_dtype(kept_run) == "float32"
    assert (folder / "model.safetensors").stat().st_size < 0.6 * (kept_run / "model.safetensors").stat().st_size
    model = MarianMTModel.from_pretrained(str(folder))
    shared = model.model.shared.weight
    assert shared.dtype == torch.float32  # run in float32, as the config says
    assert torch.equal(shared.detach(), before["model.shared.weight"].half().float())  # only rounded to float16


def test_weights_too_large_for_one_file_are_stored_as_shards_that_load_and_average(kept_run, tmp_path, monkeypatch):
    from transformers import MarianMTModel  # slow to import: only the tests that load a model

    whole = tmp_path / "whole"
    shutil.copytree(kept_run, whole, ignore=shutil.ignore_patterns("checkpoints"))
    store_half(whole)
    limit = weights.weights_bytes(whole) // 2  # the float16 weights no longer fit one file
    monkeypatch.setattr(weights, "MAX_FILE_BYTES", limit)
    sharded = tmp_path / "sharded"
    shutil.copytree(kept_run, sharded, ignore=shutil.ignore_patterns("checkpoints"))
    store_half(sharded)
    files = weights.weight_files(sharded)
    assert len(files) >= 2
    for path in files:  # each under the limit, unless it holds one tensor larger than that (the embeddings)
        assert path.stat().st_size <= limit or len(load_file(path)) == 1, path.name
    assert not (sharded / weights.WEIGHTS).exists() and weights.stored_dtype(sharded) == "float16"
    one, shards = MarianMTModel.from_pretrained(str(whole)), MarianMTModel.from_pretrained(str(sharded))
    one_state, shard_state = one.state_dict(), shards.state_dict()
    assert one_state.keys() == shard_state.keys()
    assert all(torch.equal(one_state[name], shard_state[name]) for name in one_state)
    checkpoint = tmp_path / "checkpoint"
    shutil.copytree(kept_run / "checkpoints" / "1", checkpoint)
    average([checkpoint, sharded], tmp_path / "averaged")  # a sharded folder reads like a single file
    averaged = weights.read_weights(tmp_path / "averaged")
    first, last = load_file(checkpoint / "model.safetensors"), weights.read_weights(sharded)
    name = "model.shared.weight"
    assert torch.allclose(averaged[name].double(), (first[name].double() + last[name].double()) / 2, atol=1e-7)
