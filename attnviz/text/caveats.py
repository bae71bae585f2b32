"""What a page, the CLI and a capture file say about a run that is not to be trusted as it looks: words the model
read as unknown, and tokens it wrote without being sure (a low probability at its step). Each caveat is a sentence
in the UI language (`Caveat.sentence`) and a record a file keeps (`Caveat.record`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from attnviz import i18n
from attnviz.text.excerpts import excerpt
from attnviz.text.language import main_script, reads
from attnviz.types import AttentionResult, GenerationStep

UNSURE_BELOW = 0.5  # a written token whose probability is below this is called a guess
MOST_NAMED = 8  # words a sentence names before it says "…"
# Full models to suggest, by the script of the text (the embedded translators know only their corpus).
TRANSLATORS = {"han": "Helsinki-NLP/opus-mt-zh-en", "latin": "Helsinki-NLP/opus-mt-en-zh"}
ANY_TRANSLATOR = "facebook/nllb-200-distilled-600M"
READER = "bert-base-multilingual-cased"  # for models that read rather than translate
WRITER = "Qwen/Qwen2.5-0.5B"  # for models that continue text (Chinese and English)


@dataclass(frozen=True)
class Caveat:
    """One warning: its catalogue key (`truth_unknown_words(_read)`, `truth_unsure(_continued)`) and
    what it names: `words` (unknown words), `tokens` ((text, probability) of unsure steps), `suggestion`."""

    key: str
    words: tuple[str, ...] = ()
    tokens: tuple[tuple[str, float], ...] = ()
    suggestion: str = ""
    threshold: float = UNSURE_BELOW

    def sentence(self, lang: str = "en") -> str:
        """The caveat in `lang` ("en" or "zh"): which words, and what to do."""
        separator = i18n.t("truth_list_separator", lang)
        words = separator.join(_shortened([f"“{excerpt(word, lang)}”" for word in self.words]))
        tokens = separator.join(
            _shortened(
                [
                    i18n.t("truth_token_probability", lang, token=text, probability=f"{probability:.2f}")
                    for text, probability in self.tokens
                ]
            )
        )
        key = self.key
        if len(self.words) + len(self.tokens) == 1 and i18n.has(f"{key}_one", lang):
            key = f"{key}_one"  # one word or token: the sentence says "it", not "them"
        return i18n.t(
            key, lang, words=words, tokens=tokens, suggestion=self.suggestion, threshold=f"{self.threshold:g}"
        )

    def record(self) -> dict:
        """The caveat as a capture file keeps it: its key, what it names, and its English sentence."""
        return {
            "key": self.key,
            "words": list(self.words),
            "tokens": [{"text": text, "probability": probability} for text, probability in self.tokens],
            "suggestion": self.suggestion,
            "threshold": self.threshold,
            "message": self.sentence("en"),
        }


def _shortened(items: list[str]) -> list[str]:
    """At most `MOST_NAMED` of the items a sentence names, then "…" for the rest."""
    return items[:MOST_NAMED] + (["…"] if len(items) > MOST_NAMED else [])


def unknown_words(result: AttentionResult) -> list[str]:
    """The texts of the tokens the model read (or wrote) as unknown, each once, in order."""
    words: dict[str, None] = {}
    for kind in result.kinds:
        for tokens in result.tokens(kind):
            words.update((token.text, None) for token in tokens if token.unknown)
    return list(words)


def unsure_steps(steps: Sequence[GenerationStep] | None, below: float = UNSURE_BELOW) -> list[GenerationStep]:
    """The generated steps whose written token (not an end token) had a probability below `below`."""
    return [
        step
        for step in steps or []
        if step.probability is not None and step.probability < below and not step.token.special
    ]


def suggestion(result: AttentionResult) -> str:
    """A full hub model for the run's text: a translator for translation runs, a model that writes for a decoder's
    (one that continues text), else a multilingual reader."""
    if "self" in result.kinds:
        return WRITER if _continues(result) else READER
    return full_translator(result.source_text or "")


def _continues(result: AttentionResult) -> bool:
    """Whether the run is a decoder's: a model that reads causally, and may write a continuation."""
    try:
        return bool(result["self"].causal)
    except Exception:  # noqa: BLE001 - a lazy result may not build the map here; its steps say it wrote
        return bool(getattr(result, "steps", None))


def caveats(result: AttentionResult, below: float = UNSURE_BELOW) -> list[Caveat]:
    """What is to be said about `result` before anyone reads its attention: unknown words, then unsure steps."""
    found = []
    suggested = suggestion(result)
    words = unknown_words(result)
    wrote = bool(getattr(result, "steps", None))  # the model wrote the target (else it read one given)
    if words:
        translated = "self" not in result.kinds and wrote  # "give the translation yourself" only where it wrote one
        key = "truth_unknown_words" if translated else "truth_unknown_words_read"
        found.append(Caveat(key, words=tuple(words), suggestion=suggested))
    unsure = unsure_steps(getattr(result, "steps", None), below)
    if unsure:
        tokens = tuple((step.token.text, float(step.probability)) for step in unsure)
        key = "truth_unsure_continued" if "self" in result.kinds else "truth_unsure"
        found.append(Caveat(key, tokens=tokens, suggestion=suggested, threshold=below))
    return found


def records(result: AttentionResult) -> list[dict]:
    """`caveats(result)` as a capture file keeps them."""
    return [caveat.record() for caveat in caveats(result)]


def language_sentence(
    text: str, model: str, languages: Sequence[str], lang: str = "en", key: str = "truth_language_mismatch"
) -> str | None:
    """The sentence for a text in a script `model` does not read (it reads `languages`), or None when it reads it
    (or declares nothing); said before a capture (`attnviz.text.language`). With `key="truth_writes_mismatch"`: for a
    text in a script a translator does not write (it writes `languages`)."""
    if reads(languages, text):
        return None
    script = i18n.t(f"truth_script_{main_script(text)}", lang)
    return i18n.t(key, lang, script=script, model=model, languages=language_names(languages, lang))


def language_names(languages: Sequence[str], lang: str = "en") -> str:
    """ISO codes as the catalogue names them in `lang` ("Chinese, English"); a code it does not name, as itself."""
    separator = i18n.t("truth_list_separator", lang)
    return separator.join(
        i18n.t(f"truth_language_{code}", lang) if i18n.has(f"truth_language_{code}", lang) else code
        for code in languages
    )


def full_translator(text: str) -> str:
    """A full hub translator that reads `text` (by its script), for a sentence that has none to offer here."""
    return TRANSLATORS.get(main_script(text), ANY_TRANSLATOR)
