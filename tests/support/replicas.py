"""Local tiny replicas of the hub models attnviz offers (attnviz.model.hub): each one's own config and model class with
random weights (hidden 32, 2 layers, 4 heads; grouped-query attention for Qwen2), and a tokenizer of the same kind
built here — SentencePiece models trained on a few lines (Marian, T5, NLLB), a WordPiece vocabulary (BERT),
byte-level BPE (GPT-2, Qwen2) — saved with save_pretrained as a Hugging Face folder that `load_model` reads through
the same code as the hub id. Each builder writes `folder` and returns its path."""

from __future__ import annotations

import json
from pathlib import Path

import sentencepiece as spm
import torch
import transformers
from tokenizers import Tokenizer, models, pre_tokenizers, trainers
from transformers.convert_slow_tokenizer import SentencePieceExtractor

from attnviz.model.load import without_sacremoses_request
from tests.support import tiny
from training.translator.tokenizer import PAD, build_vocab

CHINESE = ["早上好！", "我喜欢学习。", "晚上好，晚安。", "我喜欢读书。", "谢谢你的帮助。", "人工智能正在改变世界。"]
ENGLISH = [
    "Good morning!",
    "I like studying.",
    "Good evening, good night.",
    "I like reading books.",
    "Thank you for your help.",
    "The animal did not cross the street because it was tired.",
]
LINES = (CHINESE + ENGLISH) * 3
T5_TASKS = {  # google-t5/t5-small's task_specific_params (their prefixes)
    "summarization": {"prefix": "summarize: "},
    "translation_en_to_de": {"prefix": "translate English to German: "},
    "translation_en_to_fr": {"prefix": "translate English to French: "},
    "translation_en_to_ro": {"prefix": "translate English to Romanian: "},
}
QWEN_CHAT_TEMPLATE = (  # the shape of Qwen2.5's template: a model that reads plain text must never get it
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n{{ message['content'] }}<|im_end|>\n"
    "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
SMALL = dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64)
SEQ2SEQ = dict(d_model=32, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4, decoder_attention_heads=4)
SEQ2SEQ |= dict(encoder_ffn_dim=64, decoder_ffn_dim=64, max_position_embeddings=128)


def _sentencepiece(lines: list[str], prefix: Path, vocab_size: int, **options) -> Path:
    """Train a SentencePiece model on `lines`; returns the .model file."""
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(lines),
        model_prefix=str(prefix),
        vocab_size=vocab_size,
        hard_vocab_limit=False,
        character_coverage=1.0,
        num_threads=1,
        minloglevel=2,
        **options,
    )
    return prefix.with_suffix(".model")


def _save(model, tokenizer, folder) -> str:
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return str(folder)


def marian(folder, source: str = "zh", target: str = "en", codes: tuple[str, ...] = ()) -> str:
    """opus-mt-{source}-{target}: two SentencePiece models, one joint vocabulary (with target-language tokens such
    as ">>cmn_Hans<<" for opus-mt-en-zh), pad as the decoder's start, as the hub's Marian models have them."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    texts = {"zh": CHINESE * 3, "en": ENGLISH * 3}
    pieces = {lang: _sentencepiece(texts[lang], folder / f"spm_{lang}", 60) for lang in (source, target)}
    vocab = build_vocab([pieces[source], pieces[target]])
    del vocab[PAD]
    for code in codes:
        vocab[code] = len(vocab)
    vocab[PAD] = len(vocab)
    (folder / "vocab.json").write_text(json.dumps(vocab, ensure_ascii=False), encoding="utf-8")
    with without_sacremoses_request():
        tokenizer = transformers.MarianTokenizer(
            str(pieces[source]), str(pieces[target]), str(folder / "vocab.json"), model_max_length=128
        )
    config = tiny.config("marian", vocab_size=len(vocab))
    config.update(
        dict(eos_token_id=0, forced_eos_token_id=0, pad_token_id=vocab[PAD], decoder_start_token_id=vocab[PAD])
    )
    torch.manual_seed(0)
    return _save(transformers.MarianMTModel(config), tokenizer, folder)


def nllb(folder) -> str:
    """facebook/nllb-200-*: a SentencePiece BPE model, the language codes zho_Hans and eng_Latn as special tokens,
    M2M100's architecture with </s> as the decoder's start."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    model_file = _sentencepiece(LINES, folder / "spm", 120, model_type="bpe", bos_id=0, pad_id=1, eos_id=2, unk_id=3)
    extracted = SentencePieceExtractor(str(model_file)).extract(None)
    vocab, merges = extracted["vocab"], extracted["merges"]
    tokenizer = transformers.NllbTokenizer(
        vocab=vocab,
        merges=merges,
        _spm_precompiled_charsmap=extracted["_spm_precompiled_charsmap"],  # SentencePiece's NFKC: ！ reads as !
        src_lang="eng_Latn",
        extra_special_tokens=["eng_Latn", "zho_Hans", "fra_Latn"],
        model_max_length=128,
    )
    config = transformers.M2M100Config(
        vocab_size=len(tokenizer),
        **SEQ2SEQ,
        pad_token_id=1,
        bos_token_id=0,
        eos_token_id=2,
        decoder_start_token_id=2,
        scale_embedding=True,
    )
    torch.manual_seed(0)
    return _save(transformers.M2M100ForConditionalGeneration(config), tokenizer, folder)


def t5(folder) -> str:
    """google-t5/t5-small: a SentencePiece unigram model (pad 0, </s> 1, <unk> 2) and t5-small's task prefixes."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    lines = ENGLISH * 3 + [prefix["prefix"] for prefix in T5_TASKS.values()] * 3 + ["Guten Morgen!", "Bonjour !"]
    model_file = _sentencepiece(lines, folder / "spm", 80, pad_id=0, eos_id=1, unk_id=2, bos_id=-1)
    processor = spm.SentencePieceProcessor(model_file=str(model_file))
    pieces = [(processor.id_to_piece(i), processor.get_score(i)) for i in range(processor.get_piece_size())]
    tokenizer = transformers.T5Tokenizer(vocab=pieces, extra_ids=0, model_max_length=128)
    config = tiny.config("t5", vocab_size=len(tokenizer))
    config.task_specific_params = T5_TASKS
    torch.manual_seed(0)
    return _save(transformers.T5ForConditionalGeneration(config), tokenizer, folder)


def bert(folder) -> str:
    """bert-base-chinese / bert-base-multilingual-cased: a WordPiece vocabulary, each Chinese character its own
    token, [CLS] … [SEP]; BertForMaskedLM, as those checkpoints are saved."""
    backend = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    backend.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    backend.train_from_iterator(LINES, trainers.WordPieceTrainer(vocab_size=200, special_tokens=specials))
    tokenizer = transformers.BertTokenizer(
        vocab=backend.get_vocab(), do_lower_case=False, tokenize_chinese_chars=True, model_max_length=128
    )
    torch.manual_seed(0)
    model = transformers.BertForMaskedLM(tiny.config("bert", vocab_size=len(tokenizer)))
    return _save(model, tokenizer, folder)


def _byte_level_bpe(specials: list[str]) -> tuple[dict[str, int], list]:
    """(vocab, merges) of a byte-level BPE model trained on a few lines, `specials` first."""
    backend = Tokenizer(models.BPE())
    backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    trainer = trainers.BpeTrainer(
        vocab_size=400, special_tokens=specials, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
    backend.train_from_iterator(LINES, trainer)
    model = json.loads(backend.to_str())["model"]
    return model["vocab"], [tuple(merge) for merge in model["merges"]]


def gpt2(folder) -> str:
    """gpt2: byte-level BPE with <|endoftext|> as its one special token (no BOS added to a text)."""
    vocab, merges = _byte_level_bpe(["<|endoftext|>"])
    tokenizer = transformers.GPT2Tokenizer(vocab=vocab, merges=merges, model_max_length=128)
    end = vocab["<|endoftext|>"]
    config = tiny.config("gpt2", vocab_size=len(tokenizer))
    config.update(dict(bos_token_id=end, eos_token_id=end, pad_token_id=None))
    torch.manual_seed(0)
    return _save(transformers.GPT2LMHeadModel(config), tokenizer, folder)


def qwen2(folder) -> str:
    """Qwen/Qwen2.5-0.5B: byte-level BPE with Qwen's specials and a chat template, Qwen2 with grouped-query attention
    (4 query heads share 2 key/value heads) and tied embeddings."""
    specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
    vocab, merges = _byte_level_bpe(specials)
    tokenizer = transformers.Qwen2Tokenizer(vocab=vocab, merges=merges, model_max_length=128)
    tokenizer.add_special_tokens({"additional_special_tokens": specials[1:]})
    tokenizer.chat_template = QWEN_CHAT_TEMPLATE
    end = vocab["<|endoftext|>"]
    config = transformers.Qwen2Config(
        vocab_size=len(tokenizer),
        **SMALL,
        num_key_value_heads=2,
        max_position_embeddings=128,
        tie_word_embeddings=True,
        bos_token_id=end,
        eos_token_id=end,
        pad_token_id=end,
    )
    torch.manual_seed(0)
    return _save(transformers.Qwen2ForCausalLM(config), tokenizer, folder)


BUILDERS = {  # hub id -> how its replica is made
    "Helsinki-NLP/opus-mt-zh-en": lambda folder: marian(folder, "zh", "en"),
    "Helsinki-NLP/opus-mt-en-zh": lambda folder: marian(folder, "en", "zh", codes=(">>cmn_Hans<<", ">>cmn_Hant<<")),
    "facebook/nllb-200-distilled-600M": nllb,
    "google-t5/t5-small": t5,
    "bert-base-chinese": bert,
    "bert-base-multilingual-cased": bert,
    "gpt2": gpt2,
    "Qwen/Qwen2.5-0.5B": qwen2,
}
