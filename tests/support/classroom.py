"""A classroom against one running app: N people open the server's link within seconds of its start, each types
sentences of its own and changes the head shown, while the server's memory is sampled; one of them may leave in the
middle of a rerun. Every wait is bounded.

Used by benchmarks/bench_classroom.py (the full load test) and tests/browser/test_classroom_browser.py (a short
version). Each person is a browser context of one Debian chromium, driven through Playwright's async API; the page
is Translate & align on the default model, opened by a link that shows one head (so the Head control is open).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import statistics
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field

from tests.support.browser import CHROMIUM_ARGS, chromium_path

# One character per person, known to the demo translator (none reads as <unk>), in nobody else's sentence.
MARKERS = "猫狗鱼鸟马牛羊猪虎兔龙鸡鸭花草树雨雪风云茶饭面米书笔桌车船灯"
FIRST_WORD = "早上"  # a word of the default text: the first page's figures are drawn when their labels hold it
LINK = "/?cross_aggregation=head&lang=en"  # the shared link: Translate & align, one head
HEADS = 4  # demo-zh-en's heads per layer
WAIT_MS = 180_000  # the longest any one step may take before it counts as an error
LEAVE_AFTER_S = 0.3  # a person who leaves closes the browser this long after pressing Enter: the rerun still runs
SETTLE_S = 15.0  # after people leave: the server's time to end their reruns and close their sessions
CHARTS = """() => [...document.querySelectorAll('[data-testid="stMain"] [data-testid="stPlotlyChart"]')]
    .filter(c => c.querySelector('.main-svg')).map(c => c.innerText).join('\\n')"""
IDLE = """() => !document.querySelector('[data-testid="stStatusWidget"]')"""
TITLES = """() => [...document.querySelectorAll('[data-testid="stMain"] .gtitle')].map(t => t.textContent)"""
ERRORS = """() => [...document.querySelectorAll(
    '[data-testid="stMain"] [data-testid="stException"], [data-testid="stMain"] [data-testid="stAlertContentError"]'
)].map(e => e.innerText)"""


PHASE_TURNS = 1000  # sentence numbers of one phase of a run: a later phase's sentences are new to the caches


def sentence(marker: str, turn: int, phase: int = 0) -> str:
    """Person `marker`'s sentence on its `turn`-th edit in `phase`: its own character, and a number no other turn
    (of any phase) has."""
    return f"我喜欢{marker}。这是第{phase * PHASE_TURNS + turn + 1}次。"


@dataclass
class Person:
    """What one person saw: seconds to the first figure, to its own sentence's figures and to each head change;
    the errors its page showed (or its steps ran into), and the other people's characters it saw (leaks)."""

    marker: str
    phase: int = 0  # which phase of a run it belongs to: its sentences are numbered apart (`sentence`)
    first_figure_s: float | None = None
    sentence_s: list[float] = field(default_factory=list)
    head_change_s: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    leaks: set[str] = field(default_factory=set)
    left: bool = False  # closed its browser in the middle of a rerun

    @property
    def interactions(self) -> int:
        return len(self.sentence_s) + len(self.head_change_s)


@dataclass
class Room:
    """The run's shared clock and what the server's process looks like over it."""

    base: str
    pid: int
    started: float  # monotonic time the server process was started
    until: float  # monotonic time the people stop starting new interactions
    samples: list[tuple[float, int, int]] = field(default_factory=list)  # (s since start, RSS bytes, threads)
    events: dict[str, tuple[int, int]] = field(default_factory=dict)  # name → (RSS, threads) at that moment
    cpu: dict[str, float] = field(default_factory=dict)  # name → the server's CPU seconds (user + system) then

    def mark(self, name: str) -> None:
        self.events[name] = server_state(self.pid)
        self.cpu[name] = server_cpu(self.pid)


def server_state(pid: int) -> tuple[int, int]:
    """(resident bytes, threads) of the server process."""
    import psutil

    process = psutil.Process(pid)
    return process.memory_info().rss, process.num_threads()


def server_cpu(pid: int) -> float:
    """The server process's CPU seconds so far (user + system, every thread): what its work cost, whatever else
    the cores were doing."""
    import psutil

    times = psutil.Process(pid).cpu_times()
    return times.user + times.system


async def sample_memory(room: Room, every_s: float = 1.0) -> None:
    """Sample the server's RSS and threads until cancelled."""
    while True:
        with contextlib.suppress(Exception):
            rss, threads = server_state(room.pid)
            room.samples.append((time.monotonic() - room.started, rss, threads))
        await asyncio.sleep(every_s)


async def _opened(page, url: str, deadline: float) -> None:
    """Open `url`, again every half second while the server does not answer yet (as a person reloads)."""
    while True:
        try:
            await page.goto(url, timeout=WAIT_MS)
            return
        except Exception:  # connection refused while the server starts: reload
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.5)


async def _drawn(page, wanted: Callable[[str], bool], titles: Callable[[list[str]], bool] | None = None) -> None:
    """Wait until no script runs and the page's charts (and titles) show what is wanted: polled, bounded."""
    deadline = time.monotonic() + WAIT_MS / 1000
    while time.monotonic() < deadline:
        if await page.evaluate(IDLE) and wanted(await page.evaluate(CHARTS)):
            if titles is None or titles(await page.evaluate(TITLES)):
                return
        await asyncio.sleep(0.1)
    raise TimeoutError("the page did not draw what was asked within the wait")


async def _choose(page, label: str, option: str, tries: int = 3) -> None:
    """Pick `option` in the selectbox labelled `label`, as a person does (`tests.support.browser.choose_option`);
    a field the page redrew under the pointer (a rerun's widgets replace the old ones) is found again and clicked
    again, `tries` times at most."""
    from playwright.async_api import Error as PlaywrightError

    for attempt in range(tries):
        field_ = page.get_by_role("combobox", name=label, exact=True)
        try:
            await field_.scroll_into_view_if_needed()
            await page.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")
            await field_.click()
            await page.get_by_role("option", name=option, exact=True).first.click(timeout=10_000)
            return
        except PlaywrightError:
            if attempt == tries - 1:
                raise
            await asyncio.sleep(0.5)


async def _check(page, person: Person, everyone: str) -> None:
    """Record what the page shows that it must not: errors, and another person's character."""
    person.errors.extend(await page.evaluate(ERRORS))
    shown = await page.locator('[data-testid="stMain"]').inner_text() + await page.evaluate(CHARTS)
    person.leaks |= {marker for marker in everyone if marker != person.marker and marker in shown}


async def one_person(
    browser, room: Room, person: Person, opens_at: float, everyone: str, leave: bool, turns: int | None = None
) -> None:
    """Open the link at `opens_at` (s after the server started), then until the room's end (or `turns` times): type
    a sentence of its own, wait for its figures, change the head, wait for that head's figure. `leave`: close the
    browser in the middle of its first sentence's rerun instead."""
    await asyncio.sleep(max(0.0, room.started + opens_at - time.monotonic()))
    context = await browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    try:
        page = await context.new_page()
        page.set_default_timeout(WAIT_MS)
        clicked = time.monotonic()
        await _opened(page, room.base + LINK, clicked + WAIT_MS / 1000)
        await _drawn(page, lambda charts: FIRST_WORD in charts)
        person.first_figure_s = time.monotonic() - clicked
        turn = 0
        while time.monotonic() < room.until and (turns is None or turn < turns):
            box = page.get_by_label("Text", exact=True)
            await box.fill(sentence(person.marker, turn, person.phase))
            clicked = time.monotonic()
            await box.press("Enter")
            if leave:  # in the middle of the rerun its sentence started
                await asyncio.sleep(LEAVE_AFTER_S)
                person.left = True
                return
            await _drawn(page, lambda charts: person.marker in charts)
            person.sentence_s.append(time.monotonic() - clicked)
            head = (turn + 1) % HEADS
            clicked = time.monotonic()
            await _choose(page, "Head", str(head))
            named = f"head {head}"
            await _drawn(page, lambda charts: True, lambda titles, named=named: any(named in t for t in titles))
            person.head_change_s.append(time.monotonic() - clicked)
            await _check(page, person, everyone)
            turn += 1
            await asyncio.sleep(1.0)  # a person reads the figure before the next change
    except Exception as error:  # a step that failed or timed out: an error this person saw
        person.errors.append(f"{type(error).__name__}: {error}".splitlines()[0][:200])
    finally:
        await context.close()


async def classroom(
    room: Room, people: int, open_within_s: float, leaver: bool, turns: int | None = None, phase: int = 0
) -> list[Person]:
    """`people` people opening the link spread over `open_within_s` seconds of the server's start (and, with
    `leaver`, one more who leaves in the middle of a rerun), each for `turns` turns at most; the server's memory
    sampled throughout."""
    from playwright.async_api import async_playwright

    from attnviz.figures import fonts

    markers = MARKERS[: people + int(leaver)]
    persons = [Person(marker, phase) for marker in markers]
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=chromium_path(),
            args=CHROMIUM_ARGS,
            env={**os.environ, **fonts.chromium_environment()},
            timeout=60_000,
        )
        sampler = asyncio.ensure_future(sample_memory(room))
        try:
            spread = open_within_s / max(len(persons), 1)
            await asyncio.gather(
                *(
                    one_person(
                        browser, room, person, index * spread, markers, leaver and index == len(persons) - 1, turns
                    )
                    for index, person in enumerate(persons)
                )
            )
        finally:
            sampler.cancel()
            await browser.close()
    return persons


async def leave_mid_rerun(room: Room, marker: str, phase: int = 1) -> Person:
    """One person alone: opens the link, waits for the first figure, types a sentence and closes the browser in
    the middle of that sentence's rerun."""
    from playwright.async_api import async_playwright

    from attnviz.figures import fonts

    person = Person(marker, phase)
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=chromium_path(), args=CHROMIUM_ARGS, env={**os.environ, **fonts.chromium_environment()}
        )
        try:
            room.until = time.monotonic() + 3600  # it leaves at its first sentence whatever the clock says
            await one_person(browser, room, person, 0.0, marker, leave=True)
        finally:
            await browser.close()
    return person


async def sessions_held(room: Room, count: int, phase: int = 2) -> list[Person]:
    """`count` people at once, the server otherwise idle: each opens the link, waits for the first figure and
    types one sentence; the server's state is marked "held" while all of them are still open, then they leave and
    it is marked "released" SETTLE_S later."""
    from playwright.async_api import async_playwright

    from attnviz.figures import fonts

    persons = [Person(marker, phase) for marker in MARKERS[:count]]
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=chromium_path(), args=CHROMIUM_ARGS, env={**os.environ, **fonts.chromium_environment()}
        )
        contexts = [await browser.new_context(viewport={"width": 1280, "height": 900}) for _ in persons]
        try:
            await asyncio.gather(
                *(_first_sentence(context, room, person) for context, person in zip(contexts, persons))
            )
            room.mark("held")
        finally:
            for context in contexts:
                await context.close()
            await browser.close()
    await asyncio.sleep(SETTLE_S)
    room.mark("released")
    return persons


async def _first_sentence(context, room: Room, person: Person) -> None:
    """Open the link, wait for the first figure, type one sentence and wait for its figures; the page stays open."""
    try:
        page = await context.new_page()
        page.set_default_timeout(WAIT_MS)
        clicked = time.monotonic()
        await _opened(page, room.base + LINK, clicked + WAIT_MS / 1000)
        await _drawn(page, lambda charts: FIRST_WORD in charts)
        person.first_figure_s = time.monotonic() - clicked
        box = page.get_by_label("Text", exact=True)
        await box.fill(sentence(person.marker, 0, person.phase))
        clicked = time.monotonic()
        await box.press("Enter")
        await _drawn(page, lambda charts: person.marker in charts)
        person.sentence_s.append(time.monotonic() - clicked)
    except Exception as error:
        person.errors.append(f"{type(error).__name__}: {error}".splitlines()[0][:200])


def healthy(base: str) -> bool:
    try:
        with urllib.request.urlopen(f"{base}/_stcore/health", timeout=5) as response:
            return response.status == 200
    except OSError:
        return False


def percentile(values: list[float], share: float) -> float | None:
    """The `share` (0–1) percentile by the nearest-rank method; None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, int(-(-share * len(ordered) // 1)) - 1))]


def summary(persons: list[Person]) -> dict:
    """The figures the goals read: p50 / p95 / max of each wait, errors, leaks, interactions."""
    stayed = [p for p in persons if not p.left]
    first = [p.first_figure_s for p in persons if p.first_figure_s is not None]
    sentences = [s for p in stayed for s in p.sentence_s]
    heads = [s for p in stayed for s in p.head_change_s]

    def spread(values):
        if not values:
            return None
        return {"p50": statistics.median(values), "p95": percentile(values, 0.95), "max": max(values)}

    return {
        "first_figure": spread(first),
        "sentence": spread(sentences),
        "head_change": spread(heads),
        "errors": [f"{p.marker}: {e}" for p in persons for e in p.errors],
        "leaks": {p.marker: sorted(p.leaks) for p in persons if p.leaks},
        "interactions": sum(p.interactions for p in persons),
        "missing_first_figure": [p.marker for p in persons if p.first_figure_s is None],
    }
