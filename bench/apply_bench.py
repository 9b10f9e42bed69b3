"""Section ``apply``: the engine servicer's Apply early and late in a long game, with the whole
history in the views (the default) and with ``history_delta`` (only what changed).

The servicer is called in-process (no transport), so the figure is the handler's own cost:
opening the token (from its cache), applying, sealing the next token and building the views.
The game is the longest of 20 doudizhu3 deals played slowly (every seat passes when it may,
else plays its fewest cards); "early" is its second action, "late" the call before the one
that ends the game (that one also writes the record and the settlement).
"""

from __future__ import annotations

import asyncio
import base64
from typing import Any

from cardroom.v1 import engine_pb2

from services.engine import tokens
from services.engine.service import EngineServicer

from .common import Context, Table, progress, time_reps

_KEYS = "bench:" + base64.b64encode(bytes(range(32))).decode()


def _long_game(servicer: EngineServicer, seeds: int = 20) -> list[tuple[Any, Any]]:
    """(token, action) of every Apply of the longest of ``seeds`` slowly played games."""
    games = [_slow_game(servicer, f"bench/{i}") for i in range(seeds)]
    return max(games, key=len)


def _slow_game(servicer: EngineServicer, seed: str) -> list[tuple[Any, Any]]:
    loop = asyncio.new_event_loop()
    try:
        req = engine_pb2.NewGameRequest(variant="doudizhu3", deal=engine_pb2.Deal(seed=seed))
        state = loop.run_until_complete(servicer.NewGame(req, None)).state
        steps: list[tuple[Any, Any]] = []
        while True:
            legal = loop.run_until_complete(
                servicer.ListLegalActions(engine_pb2.ListLegalActionsRequest(state=state), None)
            )
            actions = list(legal.actions)
            if not actions:
                return steps
            bids = [a for a in actions if a.WhichOneof("kind") == "bid"]
            passes = [a for a in actions if a.WhichOneof("kind") == "pass"]
            plays = [a for a in actions if a.WhichOneof("kind") == "play"]
            if bids:
                action = bids[-1]  # bid 3: the play starts at once
            elif passes:
                action = passes[0]
            else:
                action = min(plays, key=lambda a: len(a.play.cards))
            steps.append((state, action))
            answer = loop.run_until_complete(
                servicer.Apply(engine_pb2.ApplyRequest(state=state, action=action), None)
            )
            state = answer.state
    finally:
        loop.close()


def apply_rows(calls: int = 2000, reps: int = 5) -> tuple[int, list[tuple[str, float, float]]]:
    """(actions in the game, [(mode, µs early, µs late)])."""
    servicer = EngineServicer(tokens.Sealer(tokens.parse_keys(_KEYS)))
    steps = _long_game(servicer)
    early, late = steps[1], steps[-2]  # the last call ends the game: a record and a settlement
    loop = asyncio.new_event_loop()

    def runner(step: tuple[Any, Any], delta: bool) -> Any:
        state, action = step
        req = engine_pb2.ApplyRequest(
            state=state, action=action, view_seat=action.seat, history_delta=delta
        )

        async def many() -> None:
            for _ in range(calls):
                await servicer.Apply(req, None)

        return lambda: loop.run_until_complete(many())

    fns = [runner(s, d) for d in (False, True) for s in (early, late)]
    try:
        t = time_reps(fns, reps)
    finally:
        loop.close()
    us = [x.best / calls * 1e6 for x in t]
    return len(steps), [("whole history", us[0], us[1]), ("history_delta", us[2], us[3])]


def apply_section(ctx: Context) -> list[Table]:
    calls = 200 if ctx.quick else 2000
    progress(f"apply: servicer Apply early and late, {calls} calls, {ctx.reps} runs")
    n, rows = apply_rows(calls, ctx.reps)
    table = Table(
        f"Engine servicer Apply by game length: µs per call (best of {ctx.reps} runs)",
        ["views", "early (2nd action)", f"late (action {n - 1})", "late / early"],
    )
    for name, a, b in rows:
        table.rows.append([name, f"{a:,.0f}", f"{b:,.0f}", f"{b / a:.2f}×"])
    table.notes.append(
        f"In-process EngineServicer.Apply (no transport), a doudizhu3 game of {n} actions, with "
        "the public and the mover's seat view.  history_delta: the views carry only this call's "
        "actions (the caller keeps its own history); the token still seals the whole state."
    )
    return [table]
