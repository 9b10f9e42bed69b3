"""What a seat may see (RULES.md §7) — the one place that decides it.  Every stream, snapshot,
bot and client reads a :class:`SeatView`; :func:`visible_to` decides who sees each event.

While the game runs a seat sees its own hand, every bid, play and pass of the current deal,
every seat's card count, the landlord, the bottom cards (``doudizhu3``: every seat, once the
landlord is known; ``doudizhu4``: the landlord only) and a shown hand.  After the game ends it
sees the full record, every hand included, the settlement and every seat's cards left.

A view is typed (enums, the play to beat as a :class:`Play` with its pattern, actions as
values) and says what its seat may do now (:meth:`SeatView.legal_actions`, ``must_bid``,
``must_hold``), so a bot or a client plays from it alone.  ``to_dict``/``from_dict`` are its
wire form (the engine's ``view_json``).

>>> from .game import new_game
>>> s = new_game("doudizhu3", seed="cardroom")
>>> view = seat_view(s, 1)
>>> view.hand == s.hands[1], view.counts, view.bottom, view.to_move
(True, (17, 17, 17), None, False)
>>> SeatView.from_dict(view.to_dict()) == view
True
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

from .actions import Action, Bid, Event, IllegalAction, Pass, PlayCards, ShowHand
from .cards import format_cards, parse_cards
from .codec import action_to_dict, memo_action_from_dict, settlement_from_dict
from .errors import Reason
from .moves import legal_plays
from .patterns import Play, classify
from .room import Room
from .scoring import Settlement
from .state import GameState, Phase, Status, write_record
from .variants import Variant


@dataclasses.dataclass(frozen=True)
class SeatView:
    variant: Variant  # with the room's overrides
    room: Room
    seat: int | None  # None: the public view
    phase: Phase
    status: Status
    turn: int | None  # the seat to move (None once the game is over)
    deal_no: int
    first_bidder: int | None
    opener: int | None
    hand: tuple[int, ...] | None  # this seat's hand (None in the public view)
    counts: tuple[int, ...]  # every seat's cards left
    bids: tuple[tuple[int, int], ...]  # (seat, amount; 0 = pass), this deal
    bid: int  # the highest bid so far
    landlord: int | None
    bottom: tuple[int, ...] | None  # when this seat may see them
    shown_hand: tuple[int, ...] | None  # the landlord's, once shown (ddz4)
    last: Play | None  # the play to beat (None: the seat to move leads)
    last_seat: int | None
    history: tuple[Action, ...]  # this deal's actions, timeouts as the moves they made
    autoplay: tuple[bool, ...]
    must_bid: bool  # this seat is to move and may not pass (ddz4 forced bid)
    must_hold: int | None  # this seat is to move and its lead must hold this card (♠3)
    record: dict[str, Any] | None  # the whole game record, once the game is over
    settlement: Settlement | None  # once the game is over
    hands: tuple[tuple[int, ...], ...] | None  # every seat's cards left, once the game is over

    @property
    def to_move(self) -> bool:
        """Whether this view's seat must act now."""
        return self.seat is not None and self.seat == self.turn

    @property
    def over(self) -> bool:
        return self.phase is Phase.OVER

    def legal_actions(self) -> list[Action]:
        """Every bid, pass, show hand and play this seat may make now ([] when it is not to
        move; leaving and auto-play switches, open to every seat at any time, are not listed).
        A lead whose cards have several readings lists each, naming its reading."""
        seat, hand = self.seat, self.hand
        if seat is None or hand is None or seat != self.turn:
            return []
        if self.phase is Phase.BIDDING:
            actions: list[Action] = [Bid(seat, a) for a in range(self.bid + 1, 4)]
            if not self.must_bid:
                actions.append(Pass(seat))
            return actions
        out: list[Action] = []
        if self.phase is Phase.SHOW_HAND:
            out.append(ShowHand(seat))
        last = self.last
        plays = legal_plays(self.variant, hand, last.pattern if last else ())
        if last is None:
            seen: dict[tuple[int, ...], int] = {}
            for p in plays:
                seen[p.cards] = seen.get(p.cards, 0) + 1
            must = self.must_hold
            for p in plays:
                if must is not None and must not in p.cards:
                    continue
                reading = p.pattern.reading if seen[p.cards] > 1 else None
                out.append(PlayCards(seat, p.cards, reading))
        else:
            out.extend(PlayCards(seat, p.cards) for p in plays)
            out.append(Pass(seat))
        return out

    # ------------------------------------------------------------------ wire form
    def to_dict(self) -> dict[str, Any]:
        last = self.last
        return {
            "variant": self.variant.name,
            "room": self.room.to_dict(),
            "seat": self.seat,
            "phase": self.phase.value,
            "status": self.status.value,
            "turn": self.turn,
            "deal_no": self.deal_no,
            "first_bidder": self.first_bidder,
            "opener": self.opener,
            "hand": _text(self.hand),
            "counts": list(self.counts),
            "bids": [list(b) for b in self.bids],
            "bid": self.bid,
            "landlord": self.landlord,
            "bottom": _text(self.bottom),
            "shown_hand": _text(self.shown_hand),
            "last_play": None if last is None else format_cards(last.cards),
            "last_pattern": None if last is None else last.pattern.reading,
            "last_seat": self.last_seat,
            "history": [action_to_dict(a) for a in self.history],
            "autoplay": list(self.autoplay),
            "must_bid": self.must_bid,
            "must_hold": None if self.must_hold is None else format_cards((self.must_hold,)),
            "record": self.record,
            "settlement": None if self.settlement is None else self.settlement.to_dict(),
            "hands": None if self.hands is None else [format_cards(h) for h in self.hands],
        }

    @classmethod
    def from_dict(
        cls, data: Mapping[str, Any], history_before: tuple[Action, ...] = ()
    ) -> SeatView:
        """The view of :meth:`to_dict`'s output (as the engine sends it in ``view_json``).
        ``history_before``: the deal's actions before those of ``data["history"]``, for a
        caller that keeps the deal's history and asked only for what changed since."""
        room = _room_of(data["room"])
        v = room.variant_for(data["variant"])
        last = None
        if data["last_play"] is not None:
            cards = parse_cards(data["last_play"])
            last = Play(cards, classify(v, cards, data["last_pattern"]))
        settlement = data["settlement"]
        must_hold = data["must_hold"]
        hands = data.get("hands")  # absent from the views of older engines
        return cls(
            variant=v,
            room=room,
            seat=data["seat"],
            phase=Phase(data["phase"]),
            status=Status(data["status"]),
            turn=data["turn"],
            deal_no=data["deal_no"],
            first_bidder=data["first_bidder"],
            opener=data["opener"],
            hand=_cards(data["hand"]),
            counts=tuple(data["counts"]),
            bids=tuple((s, a) for s, a in data["bids"]),
            bid=data["bid"],
            landlord=data["landlord"],
            bottom=_cards(data["bottom"]),
            shown_hand=_cards(data["shown_hand"]),
            last=last,
            last_seat=data["last_seat"],
            history=history_before + tuple(map(memo_action_from_dict, data["history"])),
            autoplay=tuple(data["autoplay"]),
            must_bid=data["must_bid"],
            must_hold=None if must_hold is None else parse_cards(must_hold)[0],
            record=data["record"],
            settlement=None if settlement is None else settlement_from_dict(settlement),
            hands=None if hands is None else tuple(parse_cards(h) for h in hands),
        )


#: Rooms read from views, by their items: a bot or a client reads the same few rooms in every
#: view, and each is built and its variants checked (Room.variant_for) once, not per view.
_ROOMS: dict[tuple[tuple[str, type, Any], ...], Room] = {}
_MAX_ROOMS = 256


def _room_of(data: Any) -> Room:
    """``Room.from_dict(data)``, kept by the room's items (their types among them: a stake of
    ``True`` is not the room of ``1``)."""
    try:
        key = tuple((k, type(v), v) for k, v in data.items())
        room = _ROOMS.get(key)
    except (AttributeError, TypeError):  # not a mapping, or an override that is a list
        return Room.from_dict(data)
    if room is None:
        if len(_ROOMS) >= _MAX_ROOMS:
            _ROOMS.clear()
        room = _ROOMS[key] = Room.from_dict(data)
    return room


def _text(cards: tuple[int, ...] | None) -> str | None:
    return None if cards is None else format_cards(cards)


def _cards(text: str | None) -> tuple[int, ...] | None:
    return None if text is None else parse_cards(text)


def _view(state: GameState, seat: int | None, history_from: int = 0) -> SeatView:
    v = state.variant
    over = state.phase is Phase.OVER
    landlord = state.landlord
    bottom = None
    if landlord is not None and (over or v.bottom_public or seat == landlord):
        bottom = state.bottom
    to_move = seat is not None and state.turn == seat
    must_hold = state.must_hold() if to_move else None
    # A view is built for every timeout and bot move: fill the frozen dataclass's fields in
    # one update rather than through its generated __init__ (one object.__setattr__ each).
    view = object.__new__(SeatView)
    view.__dict__.update(
        variant=v,
        room=state.room,
        seat=seat,
        phase=state.phase,
        status=state.status,
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
        shown_hand=state.hands[landlord] if landlord is not None and state.shown else None,
        last=state.last,
        last_seat=state.last_seat,
        history=state.log[max(state.deal_start, history_from) :],
        autoplay=state.autoplay,
        must_bid=seat is not None and to_move and state.must_bid(seat),
        must_hold=must_hold,
        record=write_record(state) if over else None,
        settlement=state.settlement if over else None,
        hands=state.hands if over else None,
    )
    return view


def seat_view(state: GameState, seat: int, *, history_from: int = 0) -> SeatView:
    """What ``seat`` may see of ``state``.

    ``history_from``: an index into the game's action log (``len(previous.log)``); the view's
    history then holds only this deal's actions from there on — what changed since
    ``previous``, for a caller that keeps its own history (the engine's ``history_delta``).
    """
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < state.players:
        raise IllegalAction(f"{seat!r} is not a seat of {state.variant.name}", Reason.NO_SUCH_SEAT)
    return _view(state, seat, history_from)


def public_view(state: GameState, *, history_from: int = 0) -> SeatView:
    """What anyone may see (no hand): a spectator's or the public event stream's view
    (``history_from`` as in :func:`seat_view`)."""
    return _view(state, None, history_from)


# ------------------------------------------------------------------ events
def may_see(to: int | None, seat: int | None) -> bool:
    """Whether ``seat`` (None: the public, a spectator) may see an event addressed ``to``
    (None: public; else the one seat it is private to)."""
    return to is None or to == seat


def visible_to(event: Event, seat: int | None) -> bool:
    return may_see(event.to, seat)


def project(events: Iterable[Event], seat: int | None) -> list[Event]:
    """The events of a log that ``seat`` may see, in order (a seat's stream)."""
    return [e for e in events if may_see(e.to, seat)]
