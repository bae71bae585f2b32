"""Self-attention's "Watch it write" for a decoder-only model: the model writes its continuation token by token
(`app_pages.shared.live`: each step's self-attention row over the prompt and what it wrote before, as it comes),
above the page's normal view of the same capture."""

from __future__ import annotations

from app_pages.shared import live
from app_pages.shared.state import ViewState
from attnviz import run as runs
from attnviz.model.load import ModelHandle


def watch(view: ViewState, handle, result, kind: str) -> None:
    """The "Watch it write" button while a decoder-only model's written continuation is shown whole (not a long text
    read on demand, not a capture opened from a file: there is no model to run), and the live writing once it is
    clicked."""
    if view.mode != "generate" or kind != "self" or not isinstance(handle, ModelHandle) or handle.kind != "decoder":
        return
    if not result.is_complete or not result.steps:
        return
    if live.clicked(view, "live_watch_help_self"):
        live.write(view, handle, runs.RunRequest(view.text, None, "generate", truncate=view.truncate))
