"""SentencePiece models and the MarianTokenizer files (source.spm, target.spm, vocab.json) for the demo models.

Chinese: every lexicon and phrasebook word is a user-defined symbol, so SentencePiece segments unsegmented text
(早上好！) into the corpus's words (早上 / 好 / ！) and the gold word alignment maps onto pieces one to one.
No dummy prefix, so no lone "▁" piece starts each sentence. A custom normaliser turns ASCII punctuation into the
full-width forms Chinese uses (早上好! reads as 早上好！), drops spaces, and leaves full-width punctuation alone, so
an en→zh model writes ！ and 。 rather than the ! and . that NFKC would make of them.
English: a BPE model sized so the corpus's words are whole pieces, with the usual NFKC normaliser
(Good morning！ reads as Good morning!) and punctuation as pieces of their own.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import sentencepiece as spm

from attnviz.errors import InputError
from attnviz.model.load import without_sacremoses_request
from training.data.corpus import chinese_symbols
from training.data.pairs import Pair

EOS, UNK, PAD = "</s>", "<unk>", "<pad>"
ENGLISH_PUNCTUATION = [".", ",", "!", "?", ";", ":", "-", "%", "(", ")", '"']
ENGLISH_VOCABULARY = 4000  # BPE pieces: the common words whole, the rare ones in pieces
# Chinese normalisation: ASCII punctuation -> the full-width form the corpus uses; spaces (which Chinese does not
# write between words) are dropped, so 早上 好 ！ reads as 早上好！ rather than growing lone "▁" pieces.
CHINESE_NORMALISATION = {
    "!": "！",
    "?": "？",
    ",": "，",
    ";": "；",
    ":": "：",
    ".": "。",
    "(": "（",
    ")": "）",
    " ": "",
    "\u3000": "",
}
CHARACTERS_PER_LINE = 500  # at most 2,000 bytes of UTF-8
SPM_MARGIN = 64  # room above the symbols and characters for pieces SentencePiece learns


def _chinese_rule_tsv(path: Path) -> Path:
    lines = [f"{ord(src):X}\t{' '.join(f'{ord(c):X}' for c in dst)}" for src, dst in CHINESE_NORMALISATION.items()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def train_sentencepiece(pairs: list[Pair], lang: str, model_path: Path) -> Path:
    """Train the SentencePiece model of `lang` ("zh" or "en") on the corpus; writes `model_path`, returns it."""
    model_path = Path(model_path)
    texts = [pair.text(lang) for pair in pairs]
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        common = {
            "character_coverage": 1.0,
            "num_threads": 1,
            "hard_vocab_limit": False,
            "bos_id": -1,
            "pad_id": -1,
            "eos_id": 2,
            "unk_id": 1,
            "minloglevel": 2,
            "shuffle_input_sentence": False,
        }
        if lang == "zh":
            # The whole lexicon, not only the words in `pairs`: a slice of the corpus segments like all of it.
            words = sorted(chinese_symbols())
            chars = sorted({c for text in texts + words for c in text})
            # Lines of the characters give SentencePiece an alphabet besides the symbols: short ones, as
            # SentencePiece skips a line longer than its sentence limit (4192 bytes).
            lines = texts + [
                "".join(chars[k : k + CHARACTERS_PER_LINE]) for k in range(0, len(chars), CHARACTERS_PER_LINE)
            ]
            # Pieces beyond the symbols are single characters, so no piece ever straddles two words.
            options = {
                "model_type": "unigram",
                "user_defined_symbols": words,
                "add_dummy_prefix": False,
                "max_sentencepiece_length": 1,
                "normalization_rule_tsv": str(_chinese_rule_tsv(tmp / "zh_rules.tsv")),
                "vocab_size": len(words) + len(chars) + SPM_MARGIN,
            }
        elif lang == "en":
            words = {w for pair in pairs for w in pair.en_words}
            lines = texts
            # BPE merges every frequent word into one piece; a unigram model this small keeps splitting them.
            options = {
                "model_type": "bpe",
                "user_defined_symbols": ENGLISH_PUNCTUATION,
                "vocab_size": min(ENGLISH_VOCABULARY, 2 * len(words) + SPM_MARGIN),
            }
        else:
            raise InputError("demo_unknown_language", lang=lang)
        (tmp / "input.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
        spm.SentencePieceTrainer.train(input=str(tmp / "input.txt"), model_prefix=str(tmp / lang), **common, **options)
        model_path.parent.mkdir(parents=True, exist_ok=True)
        model_path.write_bytes(_without_paths((tmp / f"{lang}.model").read_bytes()))
    return model_path


def _without_paths(model: bytes) -> bytes:
    """The model minus the temporary file names SentencePiece records, so the same corpus gives the same bytes."""
    from sentencepiece import sentencepiece_model_pb2  # loads protobuf (streamlit's too): only when a model is saved

    proto = sentencepiece_model_pb2.ModelProto()
    proto.ParseFromString(model)
    del proto.trainer_spec.input[:]
    proto.trainer_spec.model_prefix = ""
    proto.normalizer_spec.normalization_rule_tsv = ""  # the rules themselves stay, compiled into the model
    return proto.SerializeToString()


def build_vocab(spm_paths: list[Path]) -> dict[str, int]:
    """The joint Marian vocabulary: </s> 0, <unk> 1, every piece of both models once, <pad> last (as opus-mt does)."""
    vocab = {EOS: 0, UNK: 1}
    for path in spm_paths:
        processor = spm.SentencePieceProcessor(model_file=str(path))
        for i in range(processor.get_piece_size()):
            if processor.is_control(i) or processor.is_unknown(i):
                continue
            vocab.setdefault(processor.id_to_piece(i), len(vocab))
    vocab[PAD] = len(vocab)
    return vocab


def write_tokenizer(folder: Path, source_lang: str, target_lang: str, spm_models: dict[str, Path]):
    """Write a MarianTokenizer into `folder` and return it, loaded back the way users load it."""
    from transformers import MarianTokenizer  # transformers: seconds to import, only when a tokenizer is written

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    source, target = spm_models[source_lang], spm_models[target_lang]
    vocab_path = folder / "vocab.json"
    vocab_path.write_text(json.dumps(build_vocab([source, target]), ensure_ascii=False, indent=1), encoding="utf-8")
    with without_sacremoses_request():
        tokenizer = MarianTokenizer(
            source_spm=str(source),
            target_spm=str(target),
            vocab=str(vocab_path),
            source_lang=source_lang,
            target_lang=target_lang,
            model_max_length=128,
        )
        tokenizer.save_pretrained(str(folder))
        return MarianTokenizer.from_pretrained(str(folder))
