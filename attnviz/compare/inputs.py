"""What B must be before anything runs, for every face (CLI, app): a text that is not empty, in a language its
model reads (`attnviz.text.language`: by script), so that a comparison never sets a model's reading of text it cannot
read beside another's."""

from __future__ import annotations

from collections.abc import Sequence

from attnviz.errors import InputError, Phrase
from attnviz.text.language import main_script, reads


def check_text_b(text: str | None, model: str, languages: Sequence[str]) -> None:
    """An InputError when text B is empty (None is fine: B then reads A's text) or written in a script model B
    (which reads `languages`, () when it does not say) does not read."""
    if text is None:
        return
    if not text.strip():
        raise InputError("compare_text_empty")
    if not reads(languages, text):
        script = Phrase(f"truth_script_{main_script(text)}")
        raise InputError("compare_model_unread", script=script, model=model, languages=", ".join(languages))
