"""A small classroom against one server (the short version of benchmarks/bench_classroom.py): three people open
the link while the server starts, each types two sentences of its own and changes the head twice, and a fourth
leaves in the middle of its first sentence's rerun. Nobody sees an error or another person's sentence, everyone gets
its figures, and the server stays up with nothing in its log. Speeds are the benchmark's to measure, not this test's.

Without chromium or playwright this skips, except in CI (CI=true), where a missing browser is a failure."""

from __future__ import annotations

import asyncio
import time

import pytest

from tests.support import classroom
from tests.support.browser import require_browser, streamlit_server

pytestmark = pytest.mark.browser

PEOPLE, TURNS = 3, 2


def test_a_small_classroom_sees_only_its_own_sentences(tmp_path):
    require_browser()
    log = tmp_path / "server.log"
    started: list = []
    env = {"ATTNVIZ_SERVER_MODE": "on"}
    with streamlit_server(env, log, started=started, wait=False) as (base, _):
        start = time.monotonic()
        room = classroom.Room(base, started[0].pid, start, until=start + 3600)  # bounded by TURNS and the waits
        people = asyncio.run(classroom.classroom(room, PEOPLE, 10.0, leaver=True, turns=TURNS))
        assert classroom.healthy(base), "the server stopped answering"
    found = classroom.summary(people)
    assert found["errors"] == [] and found["leaks"] == {} and found["missing_first_figure"] == []
    stayed = [person for person in people if not person.left]
    assert len(stayed) == PEOPLE and people[-1].left
    assert all(len(p.sentence_s) == TURNS and len(p.head_change_s) == TURNS for p in stayed)
    assert room.samples and max(threads for _, _, threads in room.samples) > 1  # the server was watched
    text = log.read_text(encoding="utf-8", errors="replace")
    assert "Traceback" not in text, text[-2000:]
