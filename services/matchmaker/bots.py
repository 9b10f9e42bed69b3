"""Bot moves, chosen from the seat's view only (the view the engine returns for the seat).

Until the bots package lands on main, every level plays the rules' auto-play policy; the
matchmaker calls nothing but :func:`choose_bot_action`, so switching to
``services.bots.make_bot(level, variant, seed).act(view)`` is a change here alone.
"""

from __future__ import annotations

import json

from services.common.wire import action_message, engine_pb2
from services.engine import rules

DEFAULT_LEVEL = "auto"
__all__ = ["DEFAULT_LEVEL", "action_message", "autoplay_move", "choose_bot_action", "view_of"]


def view_of(msg: engine_pb2.View) -> rules.SeatView:
    """The typed view of the engine's View message (its ``view_json``)."""
    return rules.SeatView.from_dict(json.loads(msg.view_json))


def choose_bot_action(level: str, view: rules.SeatView, seed: str) -> rules.Action:
    """The move of a bot of ``level`` in ``view``'s seat, which must be the seat to move."""
    del level, seed  # one policy for every level until the bots package lands
    return rules.autoplay_action(view, "bot")


def autoplay_move(view: rules.SeatView) -> rules.Action:
    """The move of a seat with auto-play on (the engine's own auto-play policy)."""
    return rules.autoplay_action(view, "autoplay")
