"""What a seat may see (RULES.md §7) — the one function every stream, snapshot and bot reads.

While the game runs a seat sees its own hand, every bid, play and pass of the current deal,
every seat's card count, the landlord, the bottom cards (``doudizhu3``: every seat, once the
landlord is known; ``doudizhu4``: the landlord only) and a shown hand.  After the game ends it
sees the full record, every hand included, and the settlement.

>>> from .game import new_game
>>> s = new_game("doudizhu3", seed="cardroom")
>>> view = seat_view(s, 1)
>>> view.hand == s.hands[1], view.counts, view.bottom
(True, (17, 17, 17), None)
"""

from __future__ import annotations

import dataclasses
from typing import Any

from .cards import format_cards
from .game import GameState, Phase
from .record import action_to_dict, write_record


@dataclasses.dataclass(frozen=True)
class SeatView:
    variant: str
    seat: int | None  # None: the public view
    phase: str
    status: str
    turn: int | None
    deal_no: int
    first_bidder: int | None
    opener: int | None
    hand: tuple[int, ...] | None
    counts: tuple[int, ...]
    bids: tuple[tuple[int, int], ...]
    bid: int
    landlord: int | None
    bottom: tuple[int, ...] | None
    shown_hand: tuple[int, ...] | None
    last_play: tuple[int, ...] | None
    last_pattern: str | None
    last_seat: int | None
    history: tuple[dict[str, Any], ...]
    autoplay: tuple[bool, ...]
    must_bid: bool
    record: dict[str, Any] | None  # the whole record, once the game is over
    settlement: dict[str, Any] | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "variant": self.variant,
            "seat": self.seat,
            "phase": self.phase,
            "status": self.status,
            "turn": self.turn,
            "deal_no": self.deal_no,
            "first_bidder": self.first_bidder,
            "opener": self.opener,
            "hand": None if self.hand is None else format_cards(self.hand),
            "counts": list(self.counts),
            "bids": [list(b) for b in self.bids],
            "bid": self.bid,
            "landlord": self.landlord,
            "bottom": None if self.bottom is None else format_cards(self.bottom),
            "shown_hand": None if self.shown_hand is None else format_cards(self.shown_hand),
            "last_play": None if self.last_play is None else format_cards(self.last_play),
            "last_pattern": self.last_pattern,
            "last_seat": self.last_seat,
            "history": list(self.history),
            "autoplay": list(self.autoplay),
            "must_bid": self.must_bid,
            "record": self.record,
            "settlement": self.settlement,
        }


def _view(state: GameState, seat: int | None) -> SeatView:
    v = state.variant
    over = state.phase is Phase.OVER
    landlord = state.landlord
    bottom = None
    if landlord is not None and (over or v.bottom_public or seat == landlord):
        bottom = state.bottom
    shown = state.hands[landlord] if landlord is not None and state.shown else None
    last = state.last
    return SeatView(
        variant=v.name,
        seat=seat,
        phase=state.phase.value,
        status=state.status.value,
        turn=state.turn,
        deal_no=state.deal_no,
        first_bidder=state.first_bidder,
        opener=state.opener,
        hand=state.hands[seat] if seat is not None else None,
        counts=tuple(len(h) for h in state.hands),
        bids=state.bids,
        bid=state.bid,
        landlord=landlord,
        bottom=bottom,
        shown_hand=shown,
        last_play=last.cards if last is not None else None,
        last_pattern=last.pattern.reading if last is not None else None,
        last_seat=state.last_seat,
        history=_history(state),
        autoplay=state.autoplay,
        must_bid=seat is not None and state.turn == seat and state.must_bid(seat),
        record=write_record(state) if over else None,
        settlement=state.settlement.to_dict() if over and state.settlement else None,
    )


def _history(state: GameState) -> tuple[dict[str, Any], ...]:
    """The current deal's actions in record form.  Views are asked for after every action, so
    the converted prefix is kept on the state, and a state made from it by ``apply`` (which
    copies the parent's attributes and only ever appends to the log) converts just the new
    actions.  The dicts are shared between views: read them, never change them."""
    start, log = state.deal_start, state.log
    cached: tuple[int, tuple[dict[str, Any], ...]] | None = state.__dict__.get("_history")
    done = cached[1] if cached is not None and cached[0] == start else ()
    if len(done) > len(log) - start:
        done = ()
    if len(done) < len(log) - start:
        done += tuple(action_to_dict(a) for a in log[start + len(done) :])
        state.__dict__["_history"] = (start, done)
    return done


def seat_view(state: GameState, seat: int) -> SeatView:
    """What ``seat`` may see of ``state``."""
    if not 0 <= seat < state.variant.players:
        from .actions import IllegalAction

        raise IllegalAction(f"{seat!r} is not a seat of {state.variant.name}", "NO_SUCH_SEAT")
    return _view(state, seat)


def public_view(state: GameState) -> SeatView:
    """What anyone may see (no hand): a spectator's or the public event stream's view."""
    return _view(state, None)
