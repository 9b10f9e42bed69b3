"""Bot moves, chosen from the seat's view only (the view the engine returns for the seat),
by the bots package: ``make_bot(level, variant, seed).act(view)``.  The matchmaker calls
nothing but :func:`choose_bot_action`.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import signal
from collections.abc import Awaitable, Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from services import rules
from services.bots import LEVELS, SEARCHING_LEVELS, VERSION, make_bot
from services.common.wire import action_message, engine_pb2

DEFAULT_LEVEL = "normal"
#: Enqueue's default: the level whose fixed rating is nearest the table's people's mean
#: (services/ratings/model.py: closest_level), chosen when the table forms.
AUTO_LEVEL = "auto"
__all__ = [
    "AUTO_LEVEL",
    "DEFAULT_LEVEL",
    "LEVELS",
    "SEARCHING_LEVELS",
    "VERSION",
    "Deal",
    "KeptViews",
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


#: This process's pool of bot workers for the searching levels (chosen on the event loop,
#: every table and every call of the instance would wait for them), shared by its runners,
#: made on first use (spawned: a fork would copy the gRPC threads' state; spawned workers
#: import the bots alone).
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


#: Predicted seat views kept (one per table at most) before they are all dropped.
MAX_VIEWS = 10_000


class KeptViews:
    """The seat views an instance keeps between a table's steps for the moves it chooses itself
    (a searching bot's, or every bot's and auto-play seat's with engine runs off), so that
    most of those moves need no GetSeatView and no whole history from the engine.

    * The view of the seat predicted to move next, from the last Apply (the engine token it is
      a view of, seat, view): saves a GetSeatView when the table's token is still that one and
      the prediction holds.  The token, not the seq, identifies the state, so a write that lost
      its race leaves a prediction that never matches.
    * The deal's history as of a token, as the last view read here held it: the next Apply
      from that very token asks the engine for the new actions only (history_delta), and the
      bot's view is this plus those: the engine encodes and this process parses each action
      once, not once per move."""

    def __init__(self) -> None:
        self._views: dict[str, tuple[bytes, int, engine_pb2.View, Deal | None]] = {}
        self._deals: dict[str, tuple[bytes, Deal]] = {}

    def ask(
        self, table_id: str, token: bytes, seat: int, request: engine_pb2.ApplyRequest
    ) -> Deal | None:
        """Asks ``request`` (an Apply from ``token``) for the view of ``seat``, predicted to move
        next, as a delta when this deal is known; returns the deal the delta adds to."""
        request.view_seat = seat
        known = self._deals.get(table_id)
        if known is None or known[0] != token:
            return None
        request.history_delta = True
        return known[1]

    def answered(
        self, table_id: str, token: bytes, seat: int, msg: engine_pb2.View, earlier: Deal | None
    ) -> None:
        """The predicted view came, for the state of ``token`` (the Apply's answer)."""
        if len(self._views) > MAX_VIEWS:
            self._views.clear()
        self._views[table_id] = (token, seat, msg, earlier)

    def drop(self, table_id: str) -> None:
        self._views.pop(table_id, None)

    async def view(
        self,
        table_id: str,
        token: bytes,
        seat: int,
        fetch: Callable[[], Awaitable[engine_pb2.View]],
    ) -> rules.SeatView:
        """The view of ``seat``, the seat to move: the predicted one if it is of this very state,
        else ``fetch()``'s (the engine's GetSeatView)."""
        known = self._views.pop(table_id, None)
        earlier = None
        if known is not None and known[0] == token and known[1] == seat:
            msg, earlier = known[2], known[3]
        else:
            msg = await fetch()
        view = view_of(msg, earlier)
        if len(self._deals) > MAX_VIEWS:
            self._deals.clear()
        self._deals[table_id] = (token, (view.deal_no, view.history))
        return view
