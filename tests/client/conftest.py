"""The client against real services: the matchmaker's cluster (engine, replay, matchmaker on
port 0, tests/matchmaker/conftest.py) and a Textual pilot that waits on conditions."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import textual.app
import textual.pilot
from textual.pilot import Pilot

from services.client.play import CELL, HandView, PlayApp
from services.client.session import Session
from services.common.wire import matchmaker_pb2 as M
from tests.matchmaker.conftest import Cluster, cluster, engine_target  # noqa: F401

#: Bots move at once; a person has time enough for a pilot on a loaded machine.
TIMERS = M.Timers(bid_ms=30_000, turn_ms=30_000, start_ms=30_000, grace_ms=10_000,
                  bot_think_ms=0)  # fmt: skip
SIZE = (110, 48)


@pytest.fixture
def db_url(tmp_path: Any) -> Iterator[str]:
    """SQLite only: these tests are about the client; the matchmaker's and replay's own
    tests run every backend."""
    yield f"sqlite:///{tmp_path / 'store.sqlite3'}"


async def _short_idle(*_args: Any, **_kwargs: Any) -> None:
    await asyncio.sleep(0.01)


@pytest.fixture(autouse=True)
def quick_keys(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The pilot waits after every key until the process is idle (CPU time against wall
    time), at most a second.  The servers run in this process and never idle, so every key
    would cost that second: wait a short moment instead; the tests wait on conditions."""
    monkeypatch.setattr(textual.app, "wait_for_idle", _short_idle)
    monkeypatch.setattr(textual.pilot, "wait_for_idle", _short_idle)
    yield


def make_app(
    c: Cluster, variant: str = "doudizhu3", *, name: str = "", timers: M.Timers = TIMERS,
    resume: bool = False,
) -> PlayApp:  # fmt: skip
    assert c.mm_server is not None
    session = Session(c.mm_server.target, name or f"p-{uuid.uuid4().hex[:6]}")
    return PlayApp(session, variant, timers=timers, resume=resume, bot_level="easy")


async def until(pilot: Pilot[Any], check: Callable[[], Any], timeout: float = 30.0) -> Any:
    """Poll ``check`` (letting the app run) until it is true."""
    end = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {getattr(check, '__name__', check)}")
        await pilot.pause(0.05)


def card_offset(app: PlayApp, i: int) -> tuple[int, int]:
    """Where card ``i`` of the hand is, relative to the hand widget (border and padding)."""
    per = app.query_one("#hand", HandView).per_row()
    return (2 + (i % per) * CELL + 1, 1 + i // per)


async def click_card(pilot: Pilot[Any], app: PlayApp, i: int, button: int = 1) -> None:
    """Click card ``i`` of the hand as a person would: where the hand is on the screen.

    The pilot aims when called and clicks after letting the app run, and a panel above the
    hand grows a line when its new text is laid out (the bottom cards shown as the bidding
    ends), a moment after the text changed: a click aimed before that lands on the hand's
    border.  So wait until the hand holds still, and aim again if it moved all the same."""
    hand = app.query_one("#hand", HandView)
    for _ in range(10):
        before = hand.region
        await pilot.pause()
        if hand.region != before:
            continue
        await pilot.click(hand, offset=card_offset(app, i), button=button)
        if hand.region == before:
            return
    raise AssertionError("the hand never held still for a click")


def my_turn(app: PlayApp) -> bool:
    v = app.view
    return v is not None and v.to_move and not v.over


def settled(app: PlayApp) -> bool:
    snap = app.snap
    return (
        snap is not None
        and snap.message.state == M.TABLE_STATE_WAITING
        and bool(snap.settlement)
        and app.query_one("#settlement").display
    )


async def take_turn(pilot: Pilot[Any], app: PlayApp) -> None:
    """One turn the way a person plays: a bid of 3, or the hint and Enter (p for a pass)."""
    from services import rules

    view = app.view
    assert view is not None
    seq = app.snap.seq if app.snap else 0
    if view.phase is rules.Phase.BIDDING:
        await pilot.press("3")
    elif view.phase is rules.Phase.SHOW_HAND:
        await pilot.press("w")  # ddz4: the landlord shows the hand (score ×3)
    else:
        before = app.hint_key
        await pilot.press("h")
        key = (app.snap.message.game_id if app.snap else "", len(view.history))
        await until(pilot, lambda: app.hint_key == key or app.hint_key != before)
        hint = app.hint_action
        kind = hint.WhichOneof("kind") if hint is not None else None
        await pilot.press("enter" if kind == "play" else "p")
    await until(pilot, lambda: (app.snap is not None and app.snap.seq != seq) or settled(app))


async def play_to_the_end(pilot: Pilot[Any], app: PlayApp, timeout: float = 90.0) -> int:
    """Play every turn of the seat until the settlement shows; returns the turns taken."""
    turns = 0
    end = time.monotonic() + timeout
    while not settled(app):
        assert time.monotonic() < end, "the game did not end"
        if my_turn(app):
            await take_turn(pilot, app)
            turns += 1
        else:
            await pilot.pause(0.05)
    return turns


def screen_text(svg: str) -> str:
    """The text of an exported screenshot (SVG), spaces as spaces, for asserting on."""
    import html
    import re

    return html.unescape("".join(re.findall(r">([^<]*)</text>", svg))).replace("\xa0", " ")
