"""The searching bots' moves (hard) are chosen in a worker process, off the event loop that
every table and call of an instance shares: the same moves as on the loop, and the loop runs
on meanwhile.  The easy levels stay on the loop (a fraction of a millisecond)."""

from __future__ import annotations

import asyncio

import pytest

from services import rules
from services.common.settings import SettingsError
from services.matchmaker import bots
from services.matchmaker.server import BOT_PROCESSES_ENV, MatchmakerConfig


def test_hard_moves_off_the_loop_are_the_moves_it_makes_on_it() -> None:
    """A whole doudizhu3 game of hard bots, each move chosen in the worker process and
    checked against the move chosen here from the same view and seed."""

    async def main() -> tuple[int, int]:
        v = rules.variant("doudizhu3")
        state = rules.new_game(v, seed="off-the-loop")
        ticks = moves = 0

        async def ticker() -> None:
            nonlocal ticks
            while True:
                await asyncio.sleep(0)
                ticks += 1

        beat = asyncio.create_task(ticker())
        try:
            while not state.over:
                seat = state.turn
                assert seat is not None
                view = rules.seat_view(state, seat)
                seed = f"g:{moves}"
                there = await bots.choose_bot_move("hard", view, seed, processes=1)
                assert there == bots.choose_bot_action("hard", view, seed)
                state, _ = rules.apply(state, there)
                moves += 1
        finally:
            beat.cancel()
        return moves, ticks

    moves, ticks = asyncio.run(main())
    assert bots._pool is not None, "no worker process chose a move"
    # While each move was chosen elsewhere the loop went round (a move on the loop would
    # have let the ticker run once between moves at most).
    assert ticks > moves


def test_easy_levels_and_no_processes_stay_on_the_loop() -> None:
    v = rules.variant("zhengshangyou1")
    state = rules.new_game(v, seed="here")
    assert state.turn is not None
    view = rules.seat_view(state, state.turn)

    async def main() -> None:
        for level, processes in (("easy", 1), ("normal", 1), ("hard", 0)):
            move = await bots.choose_bot_move(level, view, "s", processes)
            assert move == bots.choose_bot_action(level, view, "s")

    asyncio.run(main())


def test_the_worker_processes_are_a_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    assert MatchmakerConfig.from_env().runner.bot_processes == 1
    monkeypatch.setenv(BOT_PROCESSES_ENV, "0")
    assert MatchmakerConfig.from_env().runner.bot_processes == 0
    monkeypatch.setenv(BOT_PROCESSES_ENV, "3")
    assert MatchmakerConfig.from_env().runner.bot_processes == 3
    for bad in ("65", "-1", "1.5", "²", "9" * 5000, "many"):
        monkeypatch.setenv(BOT_PROCESSES_ENV, bad)
        with pytest.raises(SettingsError, match=BOT_PROCESSES_ENV):
            MatchmakerConfig.from_env()
