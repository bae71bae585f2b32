"""Facts computed once per loaded object (a model, a tokenizer) and kept while it lives.

A loaded model's weights hash, its record and its shape, or a tokenizer's special ids, do not change while it is
loaded, and every capture reads them; in transformers each read costs tens of microseconds (config and tokenizer
attributes resolve through `__getattr__`), which on a short text is a visible share of the capture.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Hashable
from typing import TypeVar

Value = TypeVar("Value")
# object -> {key: value}; weak, so a model or tokenizer let go of is not kept alive by what was learned about it
_FACTS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def once_per(owner: object, key: Hashable, compute: Callable[[], Value]) -> Value:
    """`compute()`, once per `owner` and `key` (again each time for an owner that cannot be weakly referenced)."""
    try:
        return _FACTS[owner][key]
    except (KeyError, TypeError):
        pass
    value = compute()
    try:
        _FACTS.setdefault(owner, {})[key] = value
    except TypeError:
        pass
    return value


def first_weight(model):
    """The model's first floating-point parameter (None if it has none), found once per model: what its dtype and
    weight size are read from. Walking `model.parameters()` costs tens of microseconds each time; casting a model
    (`.half()`, `.to(dtype)`) changes its parameters in place, so the one found stays the one to read."""

    def find():
        parameters = getattr(model, "parameters", None)
        found = parameters() if callable(parameters) else ()
        return next((parameter for parameter in found if parameter.is_floating_point()), None)

    return once_per(model, "first_weight", find)
