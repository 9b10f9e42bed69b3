"""The one place the bots read a seat's view: :func:`observe` turns ``rules.seat_view(state,
seat)`` into an :class:`Observation`, the only input every level's policy works on.

When the view changes shape only this module changes.  The observation holds what RULES.md §7
lets the seat see and nothing else: its own hand, every seat's count, the bids, the landlord,
the bottom cards when the seat may see them, a shown hand, the play to beat and who made it,
and every play and pass of the current deal.  What the view does not carry but the rules let
a seat work out (the cards each seat has played) is derived here from the view.
"""

from __future__ import annotations

import dataclasses

from services import rules


@dataclasses.dataclass(frozen=True, slots=True)
class Move:
    """One play or pass (``cards`` empty) of the current deal."""

    seat: int
    cards: tuple[int, ...] = ()


@dataclasses.dataclass(frozen=True, slots=True)
class Observation:
    variant: rules.Variant
    seat: int
    phase: str  # "bidding", "show_hand", "play" or "over"
    turn: int | None
    hand: tuple[int, ...]  # sorted card ids
    counts: tuple[int, ...]  # cards held by each seat
    bids: tuple[tuple[int, int], ...]  # (seat, amount; 0 = pass)
    bid: int  # the highest bid so far
    must_bid: bool  # a pass would be refused (ddz4's forced bid)
    landlord: int | None
    bottom: tuple[int, ...] | None  # when this seat may see them
    shown_hand: tuple[int, ...] | None  # the landlord's shown hand as it is now (ddz4)
    last: rules.Play | None  # the play to beat (None: this seat leads)
    last_seat: int | None
    plays: tuple[Move, ...]  # the plays and passes of the current deal, in order
    played: tuple[tuple[int, ...], ...]  # the cards each seat played this deal
    must_hold: int | None  # a card this lead must hold (the opener's ♠3 when required)
    deal_no: int

    @property
    def players(self) -> int:
        return self.variant.players

    @property
    def leading(self) -> bool:
        return self.last is None

    def is_partner(self, seat: int) -> bool:
        """Whether ``seat`` plays on this seat's side (Dou Dizhu farmers), itself excluded."""
        lord = self.landlord
        return lord is not None and seat != self.seat and seat != lord and self.seat != lord

    def enemies(self) -> tuple[int, ...]:
        """The seats playing against this one: every other seat in Zheng Shangyou."""
        n, me, lord = self.players, self.seat, self.landlord
        if lord is None:
            return tuple(s for s in range(n) if s != me)
        if me == lord:
            return tuple(s for s in range(n) if s != me)
        return (lord,)


def observe(
    view: rules.SeatView,
    variant: rules.Variant,
) -> Observation:
    """The observation of ``view`` (a seat's view, never the public one).

    ``variant`` is the bot's variant; the view's own (its room's overrides included) is the
    one played (so a room's overrides, such as the ♠3 first lead, reach the bot).
    """
    if view.seat is None or view.hand is None:
        raise ValueError("a bot acts on a seat's view, not on the public view")
    if view.variant.name != variant.name:
        raise ValueError(f"a {variant.name} bot was given a {view.variant.name} view")
    v = view.variant
    moves: list[Move] = []
    played: list[tuple[int, ...]] = [() for _ in range(v.players)]
    bidding_left = len(view.bids)  # the deal's first bids and passes are its bidding
    for action in view.history:
        if isinstance(action, rules.PlayCards):
            cards = tuple(sorted(action.cards))
            moves.append(Move(action.seat, cards))
            played[action.seat] += cards
        elif isinstance(action, rules.Pass):
            if bidding_left:
                bidding_left -= 1
            else:
                moves.append(Move(action.seat))
        elif isinstance(action, rules.Bid):
            bidding_left -= 1
    last = view.last
    if last is not None:
        last = rules.Play(tuple(sorted(last.cards)), last.pattern)
    return Observation(
        variant=v,
        seat=view.seat,
        phase=view.phase.value,
        turn=view.turn,
        hand=tuple(sorted(view.hand)),
        counts=tuple(view.counts),
        bids=tuple(view.bids),
        bid=view.bid,
        must_bid=view.must_bid,
        landlord=view.landlord,
        bottom=None if view.bottom is None else tuple(sorted(view.bottom)),
        shown_hand=None if view.shown_hand is None else tuple(sorted(view.shown_hand)),
        last=last,
        last_seat=view.last_seat,
        plays=tuple(moves),
        played=tuple(played),
        must_hold=view.must_hold,
        deal_no=view.deal_no,
    )
