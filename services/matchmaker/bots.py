"""Bot moves, chosen from the seat's view only (the view the engine returns for the seat),
by the bots package: ``make_bot(level, variant, seed).act(view)``.  The matchmaker calls
nothing but :func:`choose_bot_action`.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import signal
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from services import rules
from services.bots import LEVELS, VERSION, make_bot
from services.common.wire import action_message, engine_pb2

DEFAULT_LEVEL = "normal"
#: Enqueue's default: the level whose fixed rating is nearest the table's people's mean
#: (services/ratings/model.py: closest_level), chosen when the table forms.
AUTO_LEVEL = "auto"
__all__ = [
    "AUTO_LEVEL",
    "DEFAULT_LEVEL",
    "LEVELS",
    "VERSION",
    "Deal",
    "action_message",
    "autoplay_move",
    "choose_bot_action",
    "choose_bot_move",
    "view_of",
]


#: A deal's number and its actions so far, as a caller keeps them between views.
Deal = tuple[int, tuple[rules.Action, ...]]


def view_of(msg: engine_pb2.View, earlier: Deal | None = None) -> rules.SeatView:
    """The typed view of the engine's View message (its ``view_json``).  ``earlier``: the
    deal as the caller last saw it, when the message's history holds only the actions since
    (ApplyRequest.history_delta); ignored if the deal was dealt again meanwhile (its history
    starts anew)."""
    data = json.loads(msg.view_json)
    before = earlier[1] if earlier is not None and earlier[0] == data["deal_no"] else ()
    return rules.SeatView.from_dict(data, before)


def choose_bot_action(level: str, view: rules.SeatView, seed: str) -> rules.Action:
    """The move of a bot of ``level`` (easy, normal or hard: Enqueue refuses any other) in
    ``view``'s seat, which must be the seat to move."""
    bot = make_bot(level, view.variant, seed)
    action: rules.Action = bot.act(view)
    return action


#: Levels whose decisions are searches: a few ms on average, now and then half a second
#: (bench bots: hard's worst decisions took 0.5-0.8 s).  Chosen on the event loop, every
#: table and every call of the instance waited for them; they run in worker processes.
SEARCHING_LEVELS = frozenset({"hard"})
#: This process's pool of bot workers, shared by its runners, made on first use (spawned:
#: a fork would copy the gRPC threads' state; spawned workers import the bots alone).
_pool: ProcessPoolExecutor | None = None


async def choose_bot_move(
    level: str, view: rules.SeatView, seed: str, processes: int
) -> rules.Action:
    """:func:`choose_bot_action`, in one of ``processes`` worker processes for a searching
    level (on this thread for the others, which take a fraction of a millisecond, and for
    every level when ``processes`` is 0).  The same move either way: a bot is made from its
    seed for each decision.  A worker that died costs this decision a pool made anew and the
    move chosen here."""
    global _pool
    if level not in SEARCHING_LEVELS or processes <= 0:
        return choose_bot_action(level, view, seed)
    if _pool is None:
        _pool = ProcessPoolExecutor(
            processes, mp_context=multiprocessing.get_context("spawn"), initializer=_worker_setup
        )
    try:
        return await asyncio.get_running_loop().run_in_executor(
            _pool, choose_bot_action, level, view, seed
        )
    except BrokenProcessPool:
        _pool = None
        return choose_bot_action(level, view, seed)


def _worker_setup() -> None:
    """A bot worker leaves Ctrl-C to its parent (a terminal sends it to the whole group: the
    worker would print a KeyboardInterrupt while the parent stops it in order)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def autoplay_move(view: rules.SeatView) -> rules.Action:
    """The move of a seat with auto-play on (the engine's own auto-play policy)."""
    return rules.autoplay_action(view, "autoplay")
