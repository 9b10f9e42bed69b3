"""The actions of a game (frozen values), the events they produce, and the error an illegal
action raises.

``by`` on a bid, pass or play says who decided it when it was not the player: ``"timeout"``
(the engine's auto-play on a turn timeout) or ``"autoplay"`` (托管 or the simulator); the
rules treat it like any other action, and records keep it.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping
from typing import Any

from .errors import Reason, RulesError


class IllegalAction(RulesError):
    """An action the rules refuse; ``reason`` is its machine-readable code (``NOT_YOUR_TURN``,
    ``MUST_BID``, …).  The state it was applied to is unchanged (states are immutable)."""

    reason = Reason.ILLEGAL_ACTION


@dataclasses.dataclass(frozen=True, slots=True)
class Bid:
    seat: int
    amount: int
    by: str | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class Pass:
    """No bid in bidding; no play in play."""

    seat: int
    by: str | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class PlayCards:
    """Play ``cards`` (card ids); ``reading`` (``"plane_single:6"``) names the reading of an
    ambiguous lead."""

    seat: int
    cards: tuple[int, ...]
    reading: str | None = None
    by: str | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class ShowHand:
    seat: int


@dataclasses.dataclass(frozen=True, slots=True)
class Leave:
    """The seat leaves (or stayed disconnected past the grace time): an escape."""

    seat: int


@dataclasses.dataclass(frozen=True, slots=True)
class SetAutoplay:
    seat: int
    on: bool


@dataclasses.dataclass(frozen=True, slots=True)
class Timeout:
    """The seat to move ran out of time: the engine applies its auto-play move (in bidding a
    pass, or a bid of 1 from a forced bidder)."""

    seat: int


Action = Bid | Pass | PlayCards | ShowHand | Leave | SetAutoplay | Timeout


class EventType(enum.StrEnum):
    """Every type of event a game's log holds: its header, then what the rules produce (a
    ``str``: ``EventType.PLAY == "play"``)."""

    GAME_HEADER = "game_header"  # a game's first event: its record without actions
    DEAL = "deal"
    BID = "bid"
    PASS = "pass"
    LANDLORD = "landlord"
    BOTTOM = "bottom"
    SHOW_HAND = "show_hand"
    PLAY = "play"
    NEW_TRICK = "new_trick"
    AUTOPLAY = "autoplay"
    LEAVE = "leave"
    REDEAL = "redeal"
    GAME_OVER = "game_over"

    @property
    def is_action(self) -> bool:
        """Whether an event of this type is a seat's action (the rest are its results)."""
        return self in _ACTION_EVENTS


_ACTION_EVENTS = frozenset(
    {
        EventType.BID,
        EventType.PASS,
        EventType.PLAY,
        EventType.SHOW_HAND,
        EventType.LEAVE,
        EventType.AUTOPLAY,
    }
)


@dataclasses.dataclass(frozen=True)
class Event:
    """Something that happened.  ``to`` is None for a public event, else the one seat that
    may see it (:func:`~.views.visible_to` decides who sees what).  ``data`` holds JSON
    values."""

    type: str
    seat: int | None
    data: Mapping[str, Any]
    to: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, "seat": self.seat, "to": self.to, **self.data}
