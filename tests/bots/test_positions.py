"""Hand-made positions where the right play is certain."""

from __future__ import annotations

import pytest

from services.bots import LEVELS, make_bot
from services.engine import rules
from services.engine.rules import Bid, ExplicitDeal, Pass, PlayCards, ShowHand

P = rules.parse_cards


def position(
    name: str, hands: list[str], moves: list[rules.Action], bottom: str = ""
) -> rules.GameState:
    v = rules.variant(name)
    deal = ExplicitDeal(tuple(tuple(P(h)) for h in hands), tuple(P(bottom)))
    state = rules.new_game(v, deal=deal, first_bidder=0 if v.bidding else None)
    for m in moves:
        state, _ = rules.apply(state, m)
    return state


def answer(level: str, state: rules.GameState) -> rules.Action:
    seat = state.turn
    assert seat is not None
    action = make_bot(level, state.variant, "pos").act(rules.seat_view(state, seat))
    rules.apply(state, action)  # legal
    return action


def test_exact_endgame_win_leads_the_control_first() -> None:
    # The landlord holds RJ and 3s; each farmer one card: RJ first, then 3s, wins.
    state = position("doudizhu3", ["RJ 3s", "4s", "5s"], [Bid(0, 3)])
    for level in ("normal", "hard"):
        action = answer(level, state)
        assert isinstance(action, PlayCards) and action.cards == tuple(P("RJ")), level
    # auto-play leads its lowest card and loses
    assert answer("easy", state).cards == tuple(P("3s"))


def test_exact_endgame_win_through_a_follow() -> None:
    # Seat 2 (a farmer) holds the rocket and a 4: the rocket over the landlord's pair keeps
    # the lead whatever the others hold, and the 4 then goes out.
    state = position(
        "doudizhu3",
        ["9s 9h 8c", "5c 6c 7c Tc Jc", "BJ RJ 4d"],
        [Bid(0, 3), PlayCards(0, P("9s9h")), Pass(1)],
    )
    action = answer("hard", state)
    assert isinstance(action, PlayCards) and set(action.cards) == set(P("BJ RJ"))


def test_a_farmer_lets_his_partners_winning_play_stand() -> None:
    # Landlord led 3s and holds one card; partner (seat 1) took it with BJ, which only RJ
    # beats: seat 2 holds RJ and must not beat its partner.
    state = position(
        "doudizhu3",
        ["3s 9c", "BJ 5c 6c 7c", "RJ 4h 4d"],
        [Bid(0, 3), PlayCards(0, P("3s")), PlayCards(1, P("BJ"))],
    )
    for level in ("normal", "hard"):
        assert isinstance(answer(level, state), Pass), level
    assert answer("easy", state).cards == tuple(P("RJ"))  # auto-play beats its partner


def test_a_bomb_is_kept_whole() -> None:
    # Beating the landlord's 6 with a 7 would break the 7777 bomb: play the 9 instead.
    state = position(
        "doudizhu3",
        ["6s 8s 9s Ts Js Qs Ks 3h 3d", "7s 7h 7c 7d 9h 5d 5c", "4s 4h 4c 4d 8h 8d Th Jh"],
        [Bid(0, 3), PlayCards(0, P("6s"))],
    )
    for level in ("normal", "hard"):
        action = answer(level, state)
        assert isinstance(action, PlayCards), level
        assert not set(action.cards) & set(P("7s 7h 7c 7d")), level
    assert answer("easy", state).cards == tuple(P("7s"))  # auto-play breaks it


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize(
    "hand",
    [
        "3s 3h 3c 3d 4s 4h 4c 4d 5s 5h 5c 5d 6s",  # three bombs
        "BJ BJ RJ RJ 6s 7h 9c",  # every joker
    ],
)
def test_the_forced_doudizhu4_bid(level: str, hand: str) -> None:
    state = position("doudizhu4", [hand, "8s 8h", "9s 9h", "Ts Th"], [])
    view = rules.seat_view(state, 0)
    assert view.must_bid
    action = answer(level, state)
    assert isinstance(action, Bid) and action.amount >= 1


@pytest.mark.parametrize("level", LEVELS)
def test_the_show_hand_phase_is_answered(level: str) -> None:
    state = position("doudizhu4", ["3s 4h 5c 6d 8s", "8h 9h", "9s Th", "Ts Jh"], [Bid(0, 3)])
    assert state.phase.value == "show_hand"
    assert isinstance(answer(level, state), ShowHand | PlayCards)
