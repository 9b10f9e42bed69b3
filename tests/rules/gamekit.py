"""Helpers for the game tests: explicit deals and scripted moves."""

from __future__ import annotations

from services.rules import (
    Action,
    Bid,
    ExplicitDeal,
    GameState,
    Leave,
    Pass,
    PlayCards,
    Room,
    ShowHand,
    Timeout,
    apply,
    new_game,
    parse_cards,
)


def deal(
    variant: str,
    hands: list[str],
    bottom: str = "",
    *,
    first_bidder: int | None = 0,
    room: Room | None = None,
    opener: int | None = None,
) -> GameState:
    spec = ExplicitDeal(tuple(parse_cards(h) for h in hands), parse_cards(bottom), opener)
    return new_game(variant, room, deal=spec, first_bidder=first_bidder)


def action(move: str) -> Action:
    """``"0 b2"`` bid, ``"1 p"`` pass, ``"2 show"``, ``"0 leave"``, ``"1 timeout"``,
    ``"0 3s3h"`` a play (``"0 3s3h as pair:3"`` names a reading)."""
    seat_text, _, what = move.partition(" ")
    seat = int(seat_text)
    if what == "p":
        return Pass(seat)
    if what == "show":
        return ShowHand(seat)
    if what == "leave":
        return Leave(seat)
    if what == "timeout":
        return Timeout(seat)
    if what.startswith("b") and what[1:].isdigit():
        return Bid(seat, int(what[1:]))
    cards, _, reading = what.partition(" as ")
    return PlayCards(seat, parse_cards(cards), reading or None)


def run(state: GameState, *moves: str) -> GameState:
    for move in moves:
        state, _ = apply(state, action(move))
    return state
