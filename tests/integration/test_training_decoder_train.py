"""Smoke test of the demo decoder's recipe: the real entry point on a tiny config and a slice of the corpus."""

import json
import random

import torch
from safetensors.torch import load_file

from training.common.stages import training_stages as stages
from training.decoder import train as decoder_train
from training.decoder.card import decoder_command
from training.decoder.data import Repeats, random_loop, with_repeated_span
from training.decoder.train import DecoderConfig, build_model, lm_loss, main, prepare, step_batch
from training.paths import CORPUS_DIR

TINY = ["--hidden", "16", "--layers", "2", "--heads", "2", "--kv-heads", "1", "--ffn", "32", "--vocab-size", "400"]
TINY += ["--tokens-per-step", "256", "--lengths", "32", "64", "--length-weights", "1", "1", "--max-positions", "64"]
TINY += ["--max-pairs", "300", "--save-every", "0", "--log-every", "1", "--corpus", str(CORPUS_DIR)]


def test_training_lowers_the_loss_and_saves_a_loadable_llama(tmp_path):
    from transformers import AutoModelForCausalLM, AutoTokenizer  # slow to import: only this test loads the model

    # 40 steps: the corpus's first pairs are everyday sentences of many words, slower to learn than dictionary pairs
    main(["--steps", "40", "--learning-rate", "0.01", "--warmup-steps", "3", "--out", str(tmp_path), *TINY])
    record = json.loads((tmp_path / "training.json").read_text(encoding="utf-8"))
    losses = [loss for _, _, loss in record["losses"]]
    assert len(losses) == 40 and sum(losses[-5:]) / 5 < losses[0] - 0.3
    tokenizer = AutoTokenizer.from_pretrained(str(tmp_path))
    model = AutoModelForCausalLM.from_pretrained(str(tmp_path))
    assert model.config.model_type == "llama" and model.config.num_key_value_heads == 1
    ids = tokenizer("早上好！Good morning!", return_tensors="pt")["input_ids"]
    assert ids[0, 0] == tokenizer.bos_token_id
    assert tokenizer.decode(ids[0], skip_special_tokens=True) == "早上好！Good morning!"
    assert model(input_ids=ids).logits.shape == (1, ids.shape[1], len(tokenizer))


def test_training_is_reproducible(tmp_path):
    main(["--steps", "2", "--out", str(tmp_path / "a"), *TINY])
    main(["--steps", "2", "--out", str(tmp_path / "b"), *TINY])
    first, second = (load_file(tmp_path / run / "model.safetensors") for run in ("a", "b"))
    assert first.keys() == second.keys() and all(torch.equal(first[k], second[k]) for k in first)


def test_a_repeated_span_is_written_again_later():
    rng = random.Random(3)
    body = list(range(1000, 1400))
    out = with_repeated_span(body, Repeats(random_share=1.0, max_copies=2), range(3, 50), rng)
    assert len(out) == len(body)
    changed = [k for k in range(len(out)) if out[k] != body[k]]
    span = [out[k] for k in changed]
    half = len(span) // 2
    assert half >= Repeats().min_span and span[:half] == span[half:]  # the same random tokens, twice


def test_a_loop_repeats_one_span_no_longer_than_its_cap():
    rng = random.Random(5)
    for _ in range(50):
        loop = random_loop(127, Repeats(loop_max_span=12), range(3, 9000), rng)
        period = next(p for p in range(1, 128) if loop[p:] == loop[:-p])  # the shortest shift that maps it onto itself
        assert len(loop) == 127 and Repeats().min_span <= period <= 12


def test_a_step_holds_the_configured_tokens():
    config = DecoderConfig(vocab_size=400, max_pairs=100, lengths=(32,), length_weights=(1.0,), tokens_per_step=128)
    _, _, tokenizer, stream = prepare(config, CORPUS_DIR)
    ids = step_batch(stream, config, range(3, len(tokenizer)), random.Random(0))
    assert ids.shape == (4, 32) and (ids[:, 0] == tokenizer.bos_token_id).all()
    model = build_model(DecoderConfig(hidden=16, layers=1, heads=2, kv_heads=1, ffn=32), tokenizer)
    assert lm_loss(model, ids).item() > 0


def test_stop_at_writes_the_checkpoint_a_longer_run_saves_there(tmp_path, monkeypatch):
    saved = {}  # steps done → the weights saved then
    real_save = decoder_train.save

    def keeping(model, tokenizer, out_dir, record):
        saved[record["steps_done"]] = {k: v.clone() for k, v in model.state_dict().items()}
        real_save(model, tokenizer, out_dir, record)

    monkeypatch.setattr(decoder_train, "save", keeping)
    main(["--steps", "6", "--out", str(tmp_path / "long"), *TINY, "--save-every", "3"])
    main(["--steps", "6", "--stop-at", "3", "--out", str(tmp_path / "stopped"), *TINY])
    record = json.loads((tmp_path / "stopped" / "training.json").read_text(encoding="utf-8"))
    assert record["steps_done"] == 3 and record["config"]["steps"] == 6
    stopped = load_file(tmp_path / "stopped" / "model.safetensors")
    assert stopped and all(torch.equal(stopped[k], saved[3][k]) for k in stopped)  # the long run's step-3 weights
    assert not all(torch.equal(stopped[k], saved[6][k]) for k in stopped)  # not its last ones


def test_a_second_stage_continues_from_the_first_and_the_card_gives_both_commands(tmp_path):
    first, second = tmp_path / "first", tmp_path / "second"
    main(["--steps", "4", "--stop-at", "2", "--out", str(first), *TINY])
    optimizer = ["--weight-decay", "0.0", "--adam-beta2", "0.999", "--clip-norm", "0.0", "--repeat-loop-max-span", "32"]
    later = ["--steps", "3", "--init-from", str(first), "--repeat-loop-share", "0.6", *optimizer]
    main([*later, "--out", str(second), *TINY])
    record = json.loads((second / "training.json").read_text(encoding="utf-8"))
    assert [stage["steps_done"] for stage in stages(record)] == [2, 3]
    assert (first / "tokenizer.json").read_text(encoding="utf-8") == (second / "tokenizer.json").read_text(
        encoding="utf-8"
    )  # the second stage reads with the first stage's tokenizer
    one, two = (decoder_command(stage, first=n == 0) for n, stage in enumerate(stages(record)))
    assert "--stop-at 2" in one and "--steps 4" in one and "--init-from" not in one
    assert "--init-from assets/models/decoder" in two and "--repeat-loop-share 0.6" in two and "--steps 3" in two
    assert all(f"{flag} {value}" in two for flag, value in zip(optimizer[::2], optimizer[1::2], strict=True))
    assert "--weight-decay" not in one and "--clip-norm" not in one  # the first stage kept the defaults
