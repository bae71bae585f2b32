"""Smoke test of the demo decoder's recipe: the real entry point on a tiny config and a slice of the corpus."""

import json
import random

import torch
from safetensors.torch import load_file

from attnviz.demo import CORPUS_DIR
from attnviz.demo.decoder_data import Repeats, with_repeated_span
from attnviz.demo.decoder_train import DecoderConfig, build_model, lm_loss, main, prepare, step_batch

TINY = ["--hidden", "16", "--layers", "2", "--heads", "2", "--kv-heads", "1", "--ffn", "32", "--vocab-size", "400"]
TINY += ["--tokens-per-step", "256", "--lengths", "32", "64", "--length-weights", "1", "1", "--max-positions", "64"]
TINY += ["--max-pairs", "300", "--save-every", "0", "--log-every", "1", "--corpus", str(CORPUS_DIR)]


def test_training_lowers_the_loss_and_saves_a_loadable_llama(tmp_path):
    from transformers import AutoModelForCausalLM, AutoTokenizer

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


def test_a_step_holds_the_configured_tokens():
    config = DecoderConfig(vocab_size=400, max_pairs=100, lengths=(32,), length_weights=(1.0,), tokens_per_step=128)
    _, _, tokenizer, stream = prepare(config, CORPUS_DIR)
    ids = step_batch(stream, config, range(3, len(tokenizer)), random.Random(0))
    assert ids.shape == (4, 32) and (ids[:, 0] == tokenizer.bos_token_id).all()
    model = build_model(DecoderConfig(hidden=16, layers=1, heads=2, kv_heads=1, ffn=32), tokenizer)
    assert lm_loss(model, ids).item() > 0
