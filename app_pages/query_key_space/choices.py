"""The point picked in the query–key space as the link keeps it: "q3" (query 3) or "k5" (key 5). No Streamlit here."""

from __future__ import annotations

import re

PREFIX = {"query": "q", "key": "k"}


def picked_to_field(picked: tuple[str, int]) -> str:
    """("query", 3) -> "q3"."""
    role, index = picked
    return f"{PREFIX[role]}{int(index)}"


def picked_from_field(field: str, queries: int, keys: int) -> tuple[str, int] | None:
    """ "q3" -> ("query", 3) when the map has that query (or key, for "k…"); None for nothing, or a point it lacks."""
    match = re.fullmatch(r"([qk])(\d+)", (field or "").strip())
    if match is None:
        return None
    role = "query" if match.group(1) == "q" else "key"
    index = int(match.group(2))
    return (role, index) if index < (queries if role == "query" else keys) else None


def selection_of(event) -> dict | None:
    """The `selection` part of a plotly chart's event (`st.plotly_chart(on_select=…)` state), or None."""
    if event is None:
        return None
    try:
        return event["selection"]
    except (KeyError, TypeError):
        return getattr(event, "selection", None)
