"""The tokenizer of the demo decoder: byte-level BPE over Chinese and English, trained on the corpus text.

Byte-level (as GPT-2 and Qwen): every text has pieces, so there is no <unk>; a character the merges do not reach is
read as its UTF-8 bytes (attnviz.text.tokens gives such pieces the whole character). Each CJK character is a pre-token of
its own, so a piece never spans two Chinese characters (a common one is one piece) and English words merge as usual.
Saved as tokenizer.json + tokenizer_config.json: `AutoTokenizer.from_pretrained(folder)` loads it; every encoding
starts with <s>, the token the attention sink forms on.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

BOS, EOS, PAD = "<s>", "</s>", "<pad>"
SPECIAL_TOKENS = (BOS, EOS, PAD)  # ids 0, 1, 2
# CJK ideographs (basic, extension A, compatibility) and the CJK punctuation and full-width forms people type.
_CJK = r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]"


def train_tokenizer(texts: Iterable[str], vocab_size: int, model_max_length: int):
    """A PreTrainedTokenizerFast trained on `texts` (byte-level BPE, `vocab_size` pieces with the specials)."""
    # tokenizers and transformers: seconds to import, only when a tokenizer is trained
    from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast

    tokenizer = Tokenizer(models.BPE())
    tokenizer.normalizer = normalizers.NFC()
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(_CJK), behavior="isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True),
        ]
    )
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        min_frequency=2,
        special_tokens=list(SPECIAL_TOKENS),
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tokenizer.train_from_iterator(texts, trainer)
    tokenizer.post_processor = processors.TemplateProcessing(
        single=f"{BOS} $A", pair=f"{BOS} $A $B", special_tokens=[(BOS, tokenizer.token_to_id(BOS))]
    )
    return PreTrainedTokenizerFast(
        tokenizer_object=tokenizer,
        bos_token=BOS,
        eos_token=EOS,
        pad_token=PAD,
        model_max_length=model_max_length,
        clean_up_tokenization_spaces=False,
    )


def save_tokenizer(tokenizer, folder: Path) -> None:
    Path(folder).mkdir(parents=True, exist_ok=True)
    tokenizer.save_pretrained(str(folder))
