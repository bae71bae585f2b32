"""What a model is given besides the text, so that it is used as it was trained and the maps show what it really read.

- NLLB / M2M100 (one model, many languages): the tokenizer's source-language code starts the input (zho_Hans,
  eng_Latn; M2M100: __zh__, __en__), the target-language code is forced as the first token the decoder writes, and a
  target given to read starts with it too. The direction of a zh ↔ en pair is taken from the text (Chinese
  characters: zh → en, else en → zh) unless the caller names the target language.
- T5 trained on tasks (t5-small): the task prefix of its config ("translate English to German: ") starts the input;
  it translates from English only, so Chinese text is refused with a sentence.
- Marian models with several target languages (opus-mt-en-zh): the target-language token (">>cmn_Hans<<") starts
  each sentence, as their model cards require.
- Every other model reads the plain text: no chat template, ever (Qwen2.5 and GPT-2 base models continue the text
  as written; BERT encoders read it with their own [CLS] … [SEP]).

Anything added is part of the text the tokenizer gets (`Reading.text`), so its tokens are drawn like any other.
"""

from __future__ import annotations

import re
import threading
from contextlib import contextmanager
from dataclasses import dataclass

from attnviz.errors import InputError
from attnviz.memo import once_per
from attnviz.text.language import main_script

LANGUAGE_CODES = {  # ISO 639-1 -> the code each multilingual tokenizer uses
    "nllb": {"zh": "zho_Hans", "en": "eng_Latn"},
    "m2m100": {"zh": "zh", "en": "en"},
}
MARIAN_CHINESE = (">>cmn_Hans<<", ">>zho_Hans<<", ">>cmn<<", ">>zho<<")  # in the order attnviz prefers them
T5_PREFIX = re.compile(r"translate (\w+) to (\w+): ")
T5_LANGUAGES = {"English": "en", "German": "de", "French": "fr", "Romanian": "ro", "Chinese": "zh"}

# Setting a tokenizer's languages rewrites its post-processor: one setting at a time per process (the app shares
# one loaded model between its sessions).
_LANGUAGES_SET = threading.RLock()


@dataclass(frozen=True)
class Reading:
    """How one text is given to a model."""

    text: str  # what the tokenizer gets: the text, after a task prefix or a target-language token
    source_code: str | None = None  # the tokenizer's source-language code (NLLB "zho_Hans"), set while it encodes
    target_code: str | None = None  # the tokenizer's target-language code, for a target it reads
    forced_bos_token_id: int | None = None  # the token the decoder is made to write first (NLLB: the target code)
    prefix: str = ""  # what was put before the text ("translate English to German: ", ">>cmn_Hans<< ")

    def generate_options(self) -> dict:
        """Keyword arguments for `model.generate`."""
        return {} if self.forced_bos_token_id is None else {"forced_bos_token_id": self.forced_bos_token_id}

    def options(self) -> dict:
        """What a capture's provenance records of it (nothing for plain text)."""
        said = {"prefix": self.prefix, "source_code": self.source_code, "target_code": self.target_code}
        return {name: value for name, value in said.items() if value}


def source_language(text: str) -> str:
    """ "zh" when Chinese characters carry the text (`language.main_script`), else "en": the direction of a zh ↔ en
    pair."""
    return "zh" if main_script(text) == "han" else "en"


def reading(handle, text: str, target_language: str | None = None) -> Reading:
    """How `text` is given to `handle`'s model (see the module's docstring); `target_language` ("en", "zh", "de"…)
    picks the direction where the model has several. Raises InputError where the model cannot read the text."""
    family, prefixes, code = once_per(handle.model, ("reading", handle.tokenizer), lambda: _conventions(handle))
    if family is not None:
        return _coded(handle, text, family, target_language)
    if prefixes:
        return _prefixed(handle, text, prefixes, target_language)
    if code is not None and not text.startswith(">>"):
        return Reading(f"{code} {text}", prefix=f"{code} ")
    return Reading(text)


def _conventions(handle) -> tuple[str | None, dict[tuple[str, str], str], str | None]:
    """How the model takes its languages: a code family, T5 task prefixes, a Marian target code (read once per model
    and tokenizer)."""
    config, tokenizer = getattr(handle.model, "config", None), handle.tokenizer
    return _code_family(config, tokenizer), _t5_prefixes(config), _marian_code(tokenizer)


@contextmanager
def applied(tokenizer, read: Reading):
    """Encode in this block with the tokenizer's languages set as `read` says; they are put back afterwards."""
    if read.source_code is None:
        yield
        return
    with _LANGUAGES_SET:
        before = tokenizer.src_lang, getattr(tokenizer, "tgt_lang", None)
        tokenizer.src_lang, tokenizer.tgt_lang = read.source_code, read.target_code
        try:
            yield
        finally:
            tokenizer.src_lang, tokenizer.tgt_lang = before


def _code_family(config, tokenizer) -> str | None:
    """ "nllb" or "m2m100" for a multilingual model whose tokenizer takes language codes, else None."""
    if getattr(config, "model_type", None) != "m2m_100" or not hasattr(tokenizer, "src_lang"):
        return None
    return "m2m100" if hasattr(tokenizer, "get_lang_id") else "nllb"


def _code_id(tokenizer, family: str, code: str) -> int | None:
    if family == "m2m100":
        return tokenizer.lang_code_to_id.get(code)
    found = tokenizer.convert_tokens_to_ids(code)
    return None if found is None or found == tokenizer.unk_token_id else found


def _coded(handle, text: str, family: str, target_language: str | None) -> Reading:
    source = source_language(text)
    target = target_language or ("en" if source == "zh" else "zh")
    codes = LANGUAGE_CODES[family]
    source_code, target_code = codes.get(source, source), codes.get(target, target)
    target_id = _code_id(handle.tokenizer, family, target_code)
    for code, found in ((source_code, _code_id(handle.tokenizer, family, source_code)), (target_code, target_id)):
        if found is None:
            raise InputError("hub_language_code_missing", model=handle.name, code=code, source=source, target=target)
    return Reading(text, source_code, target_code, forced_bos_token_id=target_id)


def _t5_prefixes(config) -> dict[tuple[str, str], str]:
    """{(source, target): prefix} of the translation tasks in a T5 config's task_specific_params."""
    if getattr(config, "model_type", None) not in ("t5", "mt5"):
        return {}
    prefixes = {}
    for task in (getattr(config, "task_specific_params", None) or {}).values():
        found = T5_PREFIX.fullmatch(str(task.get("prefix", "")))
        if found and found[1] in T5_LANGUAGES and found[2] in T5_LANGUAGES:
            prefixes[T5_LANGUAGES[found[1]], T5_LANGUAGES[found[2]]] = found[0]
    return prefixes


def _prefixed(handle, text: str, prefixes: dict[tuple[str, str], str], target_language: str | None) -> Reading:
    pairs = ", ".join(f"{source} → {target}" for source, target in prefixes)
    source = source_language(text)
    if source == "zh" and not any(pair[0] == "zh" for pair in prefixes):
        raise InputError("hub_t5_no_chinese", model=handle.name, pairs=pairs)
    choices = [pair for pair in prefixes if pair[0] == source and target_language in (None, pair[1])]
    if not choices:
        wanted = f"{source} → {target_language or '?'}"
        raise InputError("hub_t5_no_pair", model=handle.name, wanted=wanted, pairs=pairs)
    prefix = prefixes[choices[0]]
    if text.startswith(prefix):  # the caller wrote the prefix already
        return Reading(text, prefix=prefix)
    return Reading(prefix + text, prefix=prefix)


def _marian_code(tokenizer) -> str | None:
    """The Chinese target-language token of a Marian tokenizer with several targets (opus-mt-en-zh), else None."""
    codes = getattr(tokenizer, "supported_language_codes", None) or []
    return next((code for code in MARIAN_CHINESE if code in codes), None)
