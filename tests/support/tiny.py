"""Tiny random models and tokenizers for tests: hidden 32, 2 layers, 4 heads, built from configs in seconds."""

from __future__ import annotations

from pathlib import Path

import torch
import transformers
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers

import attnviz.model.devices  # noqa: F401  (settles a torch_npu that cannot load before transformers' models look for it)

CORPUS = [
    "Good morning! I like studying.",
    "早上好！我喜欢学习。",
    "The cat sat on the mat, and the dog looked at the cat.",
    "晚上好，晚安。我喜欢读书。",
    "Attention lets every token look at every other token.",
    "🙂 emoji and café naïve résumé",
] * 4

SPECIALS = ["<pad>", "</s>", "<unk>", "<s>"]


def byte_level_tokenizer(vocab_size: int = 300, add_eos: bool = True) -> transformers.PreTrainedTokenizerFast:
    """A GPT-2 style byte-level BPE tokenizer trained on a few lines (Chinese included)."""
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size, special_tokens=SPECIALS, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
    tokenizer.train_from_iterator(CORPUS, trainer)
    if add_eos:
        eos = tokenizer.token_to_id("</s>")
        tokenizer.post_processor = processors.TemplateProcessing(single="$A </s>", special_tokens=[("</s>", eos)])
    else:
        tokenizer.post_processor = processors.ByteLevel(trim_offsets=True)
    return transformers.PreTrainedTokenizerFast(
        tokenizer_object=tokenizer, pad_token="<pad>", eos_token="</s>", unk_token="<unk>", bos_token="<s>"
    )


COMMON = dict(pad_token_id=0, eos_token_id=1, bos_token_id=3)
# Llama's and Qwen2's shape: 4 query heads sharing 2 key/value heads (grouped-query attention)
LLAMA_SHAPE = dict(
    hidden_size=32,
    num_hidden_layers=2,
    num_attention_heads=4,
    num_key_value_heads=2,
    intermediate_size=64,
    max_position_embeddings=128,
)


def config(family: str, vocab_size: int = 300):
    if family == "bert":
        return transformers.BertConfig(
            vocab_size=vocab_size,
            hidden_size=32,
            num_hidden_layers=2,
            num_attention_heads=4,
            intermediate_size=64,
            pad_token_id=0,
        )
    if family == "gpt2":
        return transformers.GPT2Config(vocab_size=vocab_size, n_embd=32, n_layer=2, n_head=4, n_positions=128, **COMMON)
    if family == "llama":  # grouped-query attention: 4 query heads share 2 key/value heads
        return transformers.LlamaConfig(vocab_size=vocab_size, **LLAMA_SHAPE, **COMMON)
    if family == "bart":
        return transformers.BartConfig(
            vocab_size=vocab_size,
            d_model=32,
            encoder_layers=2,
            decoder_layers=2,
            encoder_attention_heads=4,
            decoder_attention_heads=4,
            encoder_ffn_dim=64,
            decoder_ffn_dim=64,
            max_position_embeddings=128,
            decoder_start_token_id=1,
            **COMMON,
        )
    if family == "marian":
        return transformers.MarianConfig(
            vocab_size=vocab_size,
            d_model=32,
            encoder_layers=2,
            decoder_layers=2,
            encoder_attention_heads=4,
            decoder_attention_heads=4,
            encoder_ffn_dim=64,
            decoder_ffn_dim=64,
            max_position_embeddings=128,
            decoder_start_token_id=0,
            pad_token_id=0,
            eos_token_id=1,
            forced_eos_token_id=1,
        )
    if family == "t5":
        return transformers.T5Config(
            vocab_size=vocab_size,
            d_model=32,
            d_kv=8,
            d_ff=64,
            num_layers=2,
            num_decoder_layers=2,
            num_heads=4,
            decoder_start_token_id=0,
            pad_token_id=0,
            eos_token_id=1,
        )
    raise ValueError(family)


MODEL_CLASSES = {
    "bert": transformers.BertModel,
    "gpt2": transformers.GPT2LMHeadModel,
    "llama": transformers.LlamaForCausalLM,
    "bart": transformers.BartForConditionalGeneration,
    "marian": transformers.MarianMTModel,
    "t5": transformers.T5ForConditionalGeneration,
}
FAMILIES = tuple(MODEL_CLASSES)
SEQ2SEQ = ("bart", "marian", "t5")


def save_tiny(family: str, folder, seed: int = 0) -> str:
    """Save a random tiny model of `family` and a byte-level tokenizer as a Hugging Face folder (safetensors)."""
    torch.manual_seed(seed)
    model = MODEL_CLASSES[family](config(family))
    model.save_pretrained(folder)
    byte_level_tokenizer(add_eos=family != "gpt2" and family != "llama").save_pretrained(folder)
    return str(folder)


def save_qwen2(folder, seed: int = 0, **changes) -> str:
    """A random tiny Qwen2 (a Llama block with grouped-query heads whose q, k and v projections carry biases, the
    value biases drawn non-zero so that they count) and the byte-level tokenizer, as a Hugging Face folder;
    `changes`: config values that differ (tie_word_embeddings=False …)."""
    torch.manual_seed(seed)
    model = transformers.Qwen2ForCausalLM(transformers.Qwen2Config(vocab_size=300, **LLAMA_SHAPE, **COMMON, **changes))
    for layer in model.model.layers:
        torch.nn.init.normal_(layer.self_attn.v_proj.bias)  # biases start at 0
    model.save_pretrained(folder)
    byte_level_tokenizer(add_eos=False).save_pretrained(folder)
    return str(folder)


CARD = "---\nlanguage: [en, zh]\nlibrary_name: transformers\n---\n\n# A random long-context Llama stand-in\n"


def save_long_llama(
    folder, positions: int = 4096, hidden: int = 32, layers: int = 2, heads: int = 4, seed: int = 0
) -> str:
    """A random Llama (rotary positions, grouped-query heads) reading `positions` tokens, with a byte-level tokenizer
    and a model card saying it reads English and Chinese: a stand-in for a shipped long-context decoder."""
    torch.manual_seed(seed)
    settings = transformers.LlamaConfig(
        vocab_size=300,
        hidden_size=hidden,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        num_key_value_heads=max(1, heads // 2),
        intermediate_size=2 * hidden,
        max_position_embeddings=positions,
        **COMMON,
    )
    transformers.LlamaForCausalLM(settings).save_pretrained(folder)
    byte_level_tokenizer(add_eos=False).save_pretrained(folder)
    (Path(folder) / "README.md").write_text(CARD, encoding="utf-8")
    return str(folder)
