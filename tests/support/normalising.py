"""Tiny tokenizers that change the text they read, built here in seconds: a Marian tokenizer whose SentencePiece
models drop spaces and read ASCII punctuation as full-width (as the demo translators' Chinese side does), a
WordPiece tokenizer that lower-cases and strips accents (BERT uncased), and a BPE with byte fallback; and `located`,
which checks that each token's label is the text it covers."""

from __future__ import annotations

from pathlib import Path

import sentencepiece as spm
import transformers
from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors

from attnviz.types import Token
from training.translator.tokenizer import write_tokenizer

CHINESE = ["早上好！我喜欢学习。", "晚上好，晚安。", "谢谢你的帮助！", "我们在图书馆学习。", "你好吗？我很好。"] * 8
ENGLISH = ["Good morning!", "I like studying.", "Thank you for your help!", "Where is the library?"] * 8
# ASCII punctuation read as the full-width form, spaces dropped (SentencePiece's rule TSV: hex code points)
RULES = {"!": "！", "?": "？", ",": "，", ".": "。", " ": ""}


def _train(lines: list[str], prefix: Path, **options) -> Path:
    (prefix.parent / f"{prefix.name}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    spm.SentencePieceTrainer.train(
        input=str(prefix.parent / f"{prefix.name}.txt"),
        model_prefix=str(prefix),
        character_coverage=1.0,
        hard_vocab_limit=False,
        bos_id=-1,
        pad_id=-1,
        eos_id=2,
        unk_id=1,
        minloglevel=2,
        num_threads=1,
        **options,
    )
    return prefix.with_suffix(".model")


def normalising_marian(folder: Path) -> transformers.MarianTokenizer:
    """zh → en Marian tokenizer: Chinese source normalised by `RULES` (no dummy prefix), English target NFKC."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    rules = folder / "rules.tsv"
    rules.write_text("".join(f"{ord(a):X}\t{' '.join(f'{ord(c):X}' for c in b)}\n" for a, b in RULES.items()))
    source = _train(
        CHINESE,
        folder / "zh",
        model_type="unigram",
        vocab_size=40,
        add_dummy_prefix=False,
        normalization_rule_tsv=str(rules),
    )
    target = _train(ENGLISH, folder / "en", model_type="bpe", vocab_size=60)
    return write_tokenizer(folder / "tokenizer", "zh", "en", {"zh": source, "en": target})


def wordpiece() -> transformers.PreTrainedTokenizerFast:
    """BERT-uncased style WordPiece: lower-cases, strips accents, splits CJK characters; [UNK] for what it lacks."""
    vocab = {name: i for i, name in enumerate(["[PAD]", "[UNK]", "[CLS]", "[SEP]"])}
    for piece in ["cafe", "naive", "good", "morning", "!", "早", "上", "##s", "word"]:
        vocab[piece] = len(vocab)
    tokenizer = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.BertNormalizer(lowercase=True, strip_accents=True, handle_chinese_chars=True)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.decoder = decoders.WordPiece()
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])]
    )
    return transformers.PreTrainedTokenizerFast(
        tokenizer_object=tokenizer, unk_token="[UNK]", cls_token="[CLS]", sep_token="[SEP]", pad_token="[PAD]"
    )


def byte_fallback() -> transformers.PreTrainedTokenizerFast:
    """A BPE over a few letters whose other characters fall back to their UTF-8 bytes (<0xE9> …), as Llama's does."""
    vocab = {"<unk>": 0, "</s>": 1, **{f"<0x{byte:02X}>": 2 + byte for byte in range(256)}}
    for piece in ["a", "b", "c", "ab", "▁"]:
        vocab[piece] = len(vocab)
    tokenizer = Tokenizer(models.BPE(vocab, [("a", "b")], unk_token="<unk>", byte_fallback=True))
    tokenizer.decoder = decoders.Sequence([decoders.ByteFallback(), decoders.Fuse()])
    return transformers.PreTrainedTokenizerFast(tokenizer_object=tokenizer, unk_token="<unk>", eos_token="</s>")


def located(tokens: list[Token], text: str) -> list[tuple[str, int, int, bool]]:
    """(text, start, end, unknown) of each token but the special ones, after asserting each label is the text it
    covers in `text`."""
    for token in tokens:
        if not token.special:
            assert token.text == text[token.start : token.end], token  # the label is what it covers
    return [(t.text, t.start, t.end, t.unknown) for t in tokens if not t.special]
