"""Where the newest token of a replay looked, said in a sentence under the replay slider.

- `newest_focus`: the last query token of a selection's map and the keys it looked at most.
- `hidden_focus` (`HiddenFocus`): how much of that row went to tokens the view hides (special tokens, the first
  token), found in the same row and heads of the map drawn without hiding.
- `focus_sentence`: "Step 2 of 3: **morning** looked at 早上 (0.62)." — and, when the weight sits on hidden tokens,
  where it went, never naming a shown token that holds none.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from attnviz import i18n
from attnviz.text.tokens import shown as shown_text
from attnviz.types import AttentionCapture, Token
from attnviz.view.head_choice import choose_heads
from attnviz.view.selection import default_kind, prepare_map
from attnviz.view.viewing import HeadSelection, Pairs, ViewOptions

SAID_FROM = 0.01  # the weakest weight a sentence names
HIDDEN_MOSTLY = 0.5  # the share of the row on hidden tokens from which the sentence says where it went


def newest_focus(
    selection: HeadSelection, top: int = 3, floor: float = SAID_FROM
) -> tuple[Token, list[tuple[Token, float]]]:
    """The last query token of the selection's map (the newest one in a replay) and the keys it looked at most:
    at most `top`, strongest first, those below `floor` left out (but always the strongest one)."""
    row = selection.matrix()[-1]  # (keys,)
    order = [int(k) for k in np.argsort(-row, kind="stable")[:top]]
    kept = [k for k in order if row[k] >= floor] or order[:1]
    return selection.amap.query_tokens[-1], [(selection.amap.key_tokens[k], float(row[k])) for k in kept]


@dataclass(frozen=True)
class HiddenFocus:
    """Where the newest token's attention went among the tokens a view hides (special tokens, the first token):
    their total weight, and each one that holds some, strongest first."""

    weight: float
    tokens: list[tuple[Token, float]]


def hidden_focus(
    result: AttentionCapture,
    options: ViewOptions,
    chosen: HeadSelection,
    alignment_heads: Pairs = (),
    floor: float = SAID_FROM,
) -> HiddenFocus:
    """The weight of `chosen`'s newest query row (`newest_focus`) that went to tokens the view hides: the same row
    and heads in the map drawn without hiding. Nothing hidden, or a row the unhidden map lacks: weight 0."""
    shown = chosen.amap
    whole = prepare_map(result, options.kind or default_kind(result), words=options.words)
    newest = shown.query_tokens[-1]
    rows = [i for i, token in enumerate(whole.query_tokens) if token == newest]
    kept = set(shown.key_tokens)
    hidden = [i for i, token in enumerate(whole.key_tokens) if token not in kept]
    if not rows or not hidden:
        return HiddenFocus(0.0, [])
    unhidden = choose_heads(whole, replace(options, step=0), alignment_heads)
    row = unhidden.matrix()[rows[-1]]  # (keys,)
    holding = sorted(((whole.key_tokens[i], float(row[i])) for i in hidden if row[i] >= floor), key=lambda p: -p[1])
    return HiddenFocus(float(row[hidden].sum()), holding)


def focus_sentence(
    chosen: HeadSelection,
    step: int,
    steps: int,
    lang: str = "en",
    hidden: HiddenFocus | None = None,
    words: bool = False,
) -> str:
    """The replay's sentence about the newest token: "Step 2 of 3: **morning** looked at 早上 (0.62)." When half
    its attention or more went to hidden tokens (`hidden`, from `hidden_focus`), it says where, and names only the
    shown tokens that hold some weight: never "looked at 学习 (0.00)" when the weight sits on </s>. It counts what
    the replay counts: words in the word view (`words`), else tokens."""
    token, looked = newest_focus(chosen)
    unit = i18n.t("unit_word" if words else "unit_token", lang)
    values = {"step": step, "steps": steps, "token": said_token(token), "unit": unit}
    if hidden is not None and hidden.weight >= HIDDEN_MOSTLY and hidden.tokens:
        looked = [(key, weight) for key, weight in looked if weight >= SAID_FROM]
        names = i18n.t("truth_list_separator", lang).join(said_token(key) for key, _ in hidden.tokens[:2])
        values |= {"weight": f"{hidden.weight:.2f}", "hidden": names, "keys": _weighted(looked, lang)}
        return i18n.t("find_focus_hidden_also" if looked else "find_focus_hidden", lang, **values)
    return i18n.t("step_focus", lang, **values, keys=_weighted(looked, lang))


def _weighted(looked: Sequence[tuple[Token, float]], lang: str) -> str:
    """Keys and their weights as a list in `lang`: "早上 (0.62), 好 (0.20)"."""
    return i18n.t("truth_list_separator", lang).join(
        i18n.t("weighted", lang, token=said_token(key), weight=f"{weight:.2f}") for key, weight in looked
    )


def said_token(token: Token) -> str:
    """A token as a sentence names it: as plain text shows it, a space drawn ␣ as the figures draw it."""
    text = shown_text(token)
    return text if text.strip() else "␣"
