"""The memory guard: estimates that bound what is really kept, refusals that name the estimate, budget and remedy."""

import re

import numpy as np
import pytest
import torch
import transformers

from attnviz.errors import InputError, ResourceLimitError, SettingError
from attnviz.model import memory
from attnviz.model.load import ModelHandle
from attnviz.settings import Settings


def _decoder_8k_handle() -> ModelHandle:
    """The issue's long-input model: 12 layers, 8 heads, 512 hidden (Qwen2 config), on the meta device (no memory)."""
    config = transformers.Qwen2Config(
        hidden_size=512,
        num_hidden_layers=12,
        num_attention_heads=8,
        num_key_value_heads=8,
        intermediate_size=1536,
        vocab_size=32000,
        max_position_embeddings=16384,
    )
    with torch.device("meta"):
        model = transformers.Qwen2ForCausalLM(config)
    return ModelHandle("qwen2-random", model, None, "decoder", 12, 8, "cpu", max_positions=16384)


def test_estimates_match_the_issue_at_8k_tokens():
    handle = _decoder_8k_handle()
    full = memory.estimate_bytes(handle, 8192, mode="full")
    lazy = memory.estimate_bytes(handle, 8192, mode="lazy")
    kept_weights = 12 * 8 * 8192 * 8192 * 4  # what output_attentions keeps: 25.8 GB
    assert full >= kept_weights
    assert lazy < 2 * 2**30 < kept_weights
    # Full mode grows with n², lazy mode (queries and keys) with n, apart from one opened head.
    assert memory.estimate_bytes(handle, 4096, mode="full") < full / 3.5
    # A padded batch of 3 needs at least three times one example, plus the per-example crop copy in full mode.
    assert memory.estimate_bytes(handle, 8192, mode="full", batch=3) > 3 * full
    assert memory.estimate_bytes(handle, 8192, mode="lazy", batch=3) == 3 * lazy


def test_check_budget_refuses_with_estimate_budget_and_remedies(monkeypatch):
    handle = _decoder_8k_handle()
    monkeypatch.setenv(memory.BUDGET_ENV, "4096")
    with pytest.raises(ResourceLimitError) as refused:
        memory.check_budget(handle, 8192, mode="full")
    message = str(refused.value)
    assert "8,192 tokens" in message and "4.0 GiB" in message and "lazy mode" in message
    assert "capture_lazy in Python" in message  # where lazy mode is, for a caller outside the app
    assert memory.BUDGET_ENV in message and "fewer tokens" in message
    assert memory.check_budget(handle, 8192, mode="lazy") == memory.estimate_bytes(handle, 8192, mode="lazy")
    assert memory.check_budget(handle, 8192, mode="full", budget=256 * 2**30) > 0


@pytest.mark.parametrize("raw", ["abc", "0", "-5", "nan"])
def test_bad_budget_settings_say_how_to_fix_them(monkeypatch, raw):
    monkeypatch.setenv(memory.BUDGET_ENV, raw)
    with pytest.raises(SettingError, match="positive number of megabytes"):
        memory.budget_bytes()


def test_defaults_and_overrides(monkeypatch):
    monkeypatch.delenv(memory.BUDGET_ENV, raising=False)
    monkeypatch.delenv(memory.MAX_CHARS_ENV, raising=False)
    assert memory.budget_bytes() == Settings().memory_budget_mb * 2**20 == 4096 * 2**20
    assert memory.max_chars() == Settings().max_chars == 20_000
    monkeypatch.setenv(memory.BUDGET_ENV, "512")
    assert memory.budget_bytes() == 512 * 2**20


def test_text_length_limit(monkeypatch):
    monkeypatch.setenv(memory.MAX_CHARS_ENV, "12")
    assert memory.check_text_length("早上好") == "早上好"
    with pytest.raises(ResourceLimitError, match="13 characters, more than the limit of 12"):
        memory.check_text_length("x" * 13)
    assert memory.check_text_length("x" * 13, limit=20)


def test_unknown_mode_is_refused():
    with pytest.raises(InputError, match="'full' or 'lazy'"):
        memory.estimate_bytes(_decoder_8k_handle(), 10, mode="fast")


def test_format_bytes_reads_naturally():
    assert memory.format_bytes(25.8 * 2**30) == "25.8 GiB"
    assert memory.format_bytes(300 * 2**20) == "300 MiB"
    assert memory.format_bytes(2.5 * 2**20) == "2.5 MiB"
    assert np.isfinite(memory.estimate_bytes(_decoder_8k_handle(), 1, mode="lazy"))


@pytest.mark.parametrize(
    "n_target, batch, english",
    [
        (0, 1, "Capturing 8,192 tokens with qwen2-random (full mode)"),
        (5, 1, "Capturing 8,192 tokens and a 5-token target with qwen2-random (full mode)"),
        (0, 3, "Capturing 3 texts of up to 8,192 tokens with qwen2-random (full mode)"),
        (5, 3, "Capturing 3 texts of up to 8,192 tokens and a 5-token target with qwen2-random (full mode)"),
    ],
)
def test_refusals_are_said_in_chinese_too(monkeypatch, n_target, batch, english):
    monkeypatch.delenv(memory.BUDGET_ENV, raising=False)
    handle = _decoder_8k_handle()
    with pytest.raises(ResourceLimitError) as refused:
        memory.check_budget(handle, 8192, n_target, mode="full", batch=batch)
    assert str(refused.value).startswith(english + " needs about ")
    chinese = refused.value.message("zh")
    assert "8,192 个词元" in chinese and "lazy 模式" in chinese and memory.BUDGET_ENV in chinese
    assert not re.search(r"Capturing|tokens|fewer", chinese)
    assert ("目标文本" in chinese) == bool(n_target) and ("3 段文本" in chinese) == (batch > 1)
    monkeypatch.setenv(memory.MAX_CHARS_ENV, "3")
    for what, name in (("text", "文本"), ("target", "目标文本")):
        with pytest.raises(ResourceLimitError) as long:
            memory.check_text_length("早上好！", what)
        assert str(long.value).startswith(f"The {what} has 4 characters")
        assert long.value.message("zh").startswith(f"{name}有 4 个字符")
    with pytest.raises(InputError) as mode:
        memory.estimate_bytes(handle, 10, mode="fast")
    assert mode.value.message("zh") == "未知的捕获模式 'fast'；请使用 'full' 或 'lazy'。"
