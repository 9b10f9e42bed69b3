"""Bot moves, chosen from the seat's view only (the view the engine returns for the seat),
by the bots package: ``make_bot(level, variant, seed).act(view)``.  The matchmaker calls
nothing but :func:`choose_bot_action`.
"""

from __future__ import annotations

import json

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


def autoplay_move(view: rules.SeatView) -> rules.Action:
    """The move of a seat with auto-play on (the engine's own auto-play policy)."""
    return rules.autoplay_action(view, "autoplay")
