"""The state machine: every rule of RULES.md §4 and every refusal reason."""

from __future__ import annotations

from typing import Any

import pytest

from services.rules import (
    Bid,
    IllegalAction,
    Pass,
    PlayCards,
    ShowHand,
    Timeout,
    apply,
    format_cards,
    legal_actions,
    new_game,
    parse_cards,
    variant,
)
from services.rules.deal import deal_from_seed, first_bidder, redeal_seed

from .gamekit import action, deal, run


def refused(state, move: str, reason: str) -> None:  # type: ignore[no-untyped-def]
    before = state.to_dict()
    with pytest.raises(IllegalAction) as exc:
        apply(state, action(move) if isinstance(move, str) else move)
    assert exc.value.reason == reason
    assert state.to_dict() == before


def test_bidding_order_and_bid_rules() -> None:
    s = deal("ddz3", ["3s", "4s", "5s"], "6s 7s 8s", first_bidder=1)
    assert s.turn == 1
    refused(s, "0 b1", "NOT_YOUR_TURN")
    refused(s, "1 b4", "BAD_BID")
    refused(s, "1 b0", "BAD_BID")
    refused(s, "1 3s", "WRONG_PHASE")
    refused(s, "1 show", "WRONG_PHASE")
    refused(s, "7 p", "NO_SUCH_SEAT")
    s = run(s, "1 b2")
    refused(s, "2 b2", "BID_TOO_LOW")
    refused(s, "2 b1", "BID_TOO_LOW")
    s = run(s, "2 p", "0 p")
    assert (s.landlord, s.bid, s.phase.value, s.turn) == (1, 2, "play", 1)
    assert format_cards(s.hands[1]) == "4s6s7s8s"  # the landlord takes the bottom


def test_bid_three_ends_bidding_at_once() -> None:
    s = run(deal("ddz3", ["3s", "4s", "5s"], "6s", first_bidder=2), "2 b3")
    assert s.landlord == 2 and s.phase.value == "play"


def test_forced_bidder_pass_refused_and_timeout_bids_one() -> None:
    s = deal("ddz4", ["3s", "BJ BJ RJ RJ 4s", "5s", "6s"], "7s", first_bidder=0)
    s = run(s, "0 p")
    assert s.must_bid(1)
    refused(s, "1 p", "MUST_BID")
    assert Pass(1) not in legal_actions(s)
    t, _ = apply(s, Timeout(1))
    assert t.bid == 1 and t.log[-1] == Bid(1, 1, "timeout")
    # once somebody has bid, the forced bidder may pass
    s2 = deal("ddz4", ["3s", "3h3c3d3s 4s4h4c4d 5h5c5d5s", "5s", "6s"], "7s", first_bidder=0)
    assert s2.forced[1]
    s2 = run(s2, "0 b1", "1 p")
    assert s2.turn == 2


def test_redeal_then_disband_with_a_seed() -> None:
    v = variant("ddz3")
    seed = "redeal-test"
    s = new_game(v, seed=seed)
    fb = first_bidder(seed, 3)
    assert s.turn == fb
    order = [(fb + i) % 3 for i in range(3)]
    for deal_no in (1, 2):
        s, events = apply(s, Pass(order[0]))
        s, events = apply(s, Pass(order[1]))
        s, events = apply(s, Pass(order[2]))
        assert s.deal_no == deal_no and s.turn == fb and s.bids == ()
        assert s.hands == deal_from_seed(v, redeal_seed(seed, deal_no)).hands
        assert "redeal" in [e.type for e in events]
    for seat in order:
        s, _ = apply(s, Pass(seat))
    assert s.status.value == "disbanded" and s.settlement.scores == (0, 0, 0)
    refused(s, f"{order[0]} b1", "GAME_OVER")


def test_explicit_deal_all_pass_is_status_redeal() -> None:
    s = run(deal("ddz3", ["3s", "4s", "5s"], "6s"), "0 p", "1 p", "2 p")
    assert s.status.value == "redeal" and s.settlement.scores == (0, 0, 0)


def test_tricks_passes_and_free_lead() -> None:
    s = deal("ddz3", ["3s 9s 9h", "4s 8s Ks", "5s 6s"], "7s")
    s = run(s, "0 b1", "1 p", "2 p")
    refused(s, "0 p", "MUST_LEAD")
    refused(s, "0 Ks", "CARDS_NOT_IN_HAND")
    refused(s, "0 3s9s", "NOT_A_PATTERN")
    s = run(s, "0 3s")
    refused(s, "1 3s", "CARDS_NOT_IN_HAND")
    refused(s, "1 4s8s", "NOT_A_PATTERN")
    s = run(s, "1 p", "2 5s", "0 7s")
    refused(s, "1 4s", "DOES_NOT_BEAT")
    s = run(s, "1 8s", "2 p", "0 9s", "1 p", "2 p")  # a seat that passed played again
    assert s.last is None and s.turn == 0  # everyone else passed: seat 0 leads freely
    s = run(s, "0 9h")
    assert s.status.value == "finished" and s.winner == 0


def test_show_hand_window_and_declining() -> None:
    s = run(deal("ddz4", ["3s 4s", "5s", "6s", "7s"], "8s"), "0 b1", "1 p", "2 p", "3 p")
    assert s.phase.value == "show_hand" and ShowHand(0) in legal_actions(s)
    refused(s, "0 p", "MUST_LEAD")
    declined = run(s, "0 3s")
    assert not declined.shown and declined.phase.value == "play"
    refused(declined, "1 show", "WRONG_PHASE")
    shown = run(s, "0 show")
    assert shown.shown and shown.phase.value == "play"
    ddz3 = run(deal("ddz3", ["3s", "4s", "5s"], "6s"), "0 b1", "1 p", "2 p")
    assert ddz3.phase.value == "play"
    refused(ddz3, "0 show", "WRONG_PHASE")


def test_spade_three_openers() -> None:
    for i in range(10):
        s = new_game("zsy1", seed=f"o{i}")
        assert parse_cards("3s")[0] in s.hands[s.turn]
        s2 = new_game("zsy2", seed=f"o{i}")
        assert s2.turn == deal_from_seed(variant("zsy2"), f"o{i}").spade_three_seat
        assert parse_cards("3s")[0] in s2.hands[s2.turn]
    assert deal("zsy2", ["4s", "3s", "3s", "5s"], first_bidder=None).turn == 1
    assert deal("zsy2", ["4s", "3s", "3s", "5s"], first_bidder=None, opener=2).turn == 2


def test_first_lead_holds_spade_three_option() -> None:
    from services.rules import Room

    room = Room(overrides=(("first_lead_holds_spade_three", True),))
    s = deal("zsy1", ["3s 4s", "5s", "6s", "7s"], first_bidder=None, room=room)
    refused(s, "0 4s", "MUST_HOLD_SPADE_THREE")
    assert all(0 in a.cards for a in legal_actions(s) if isinstance(a, PlayCards))
    s = run(s, "0 timeout")
    assert s.log[-1] == PlayCards(0, parse_cards("3s"), None, "timeout")


def test_timeout_in_play_applies_the_autoplay_move() -> None:
    s = run(deal("ddz3", ["3s 4s 4h", "5s 8s", "6s 7s"], "Ks"), "0 b1", "1 p", "2 p")
    s = run(s, "0 timeout")
    assert s.log[-1] == PlayCards(0, parse_cards("3s"), None, "timeout")
    s = run(s, "1 timeout")
    assert s.log[-1] == PlayCards(1, parse_cards("5s"), None, "timeout")
    refused(s, "1 timeout", "NOT_YOUR_TURN")


def test_escape_is_open_to_any_seat_and_autoplay_switch() -> None:
    s = deal("ddz3", ["3s", "4s", "5s"], "6s")
    s = run(s, "0 b1")
    s2, events = apply(s, action("2 leave"))
    assert [e.type for e in events] == ["leave", "game_over"]
    assert s2.status.value == "escaped" and s2.escaper == 2
    from services.rules import SetAutoplay

    s3, _ = apply(s, SetAutoplay(2, True))
    assert s3.autoplay == (False, False, True) and s3.turn == s.turn


def test_explicit_deal_checks() -> None:
    from services.rules import ExplicitDeal

    for hands, bottom, reason in [
        (["3s", "3s", "4s"], "", "BAD_DEAL"),  # one deck holds one 3s
        (["3s", "4s"], "", "BAD_DEAL"),
        (["", "4s", "5s"], "", "BAD_DEAL"),
    ]:
        spec = ExplicitDeal(tuple(parse_cards(h) for h in hands), parse_cards(bottom))
        with pytest.raises(IllegalAction) as exc:
            new_game("ddz3", deal=spec, first_bidder=0)
        assert exc.value.reason == reason
    with pytest.raises(IllegalAction):
        new_game("ddz3", deal=ExplicitDeal((parse_cards("3s"),) * 3))


def test_ambiguous_lead_reading() -> None:
    hand = "3s3h3c 4s4h4c 5s5h5c 6s6h6c"
    s = run(deal("ddz3", [hand, "7s", "8s"], "9s 9h 9c"), "0 b1", "1 p", "2 p")
    plain = run(s, "0 3s3h3c4s4h4c5s5h5c6s6h6c")
    assert plain.last.pattern.reading == "triple_chain:6"
    named = run(s, "0 3s3h3c4s4h4c5s5h5c6s6h6c as plane_single:5")
    assert named.last.pattern.reading == "plane_single:5"
    assert named.log[-1].reading == "plane_single:5"
    readings = [a.reading for a in legal_actions(s) if isinstance(a, PlayCards) and a.reading]
    assert "plane_single:6" in readings


#: Rooms whose options change what self-play meets: the ♠3 first lead, a show-hand phase.
_AUTOPLAY_ROOMS = {
    "zsy1": (("first_lead_holds_spade_three", True),),
    "zsy2": (("first_lead_holds_spade_three", True),),  # two ♠3: one may outlive the first lead
    "ddz3": (("show_hand_factor", 2),),
}


@pytest.mark.parametrize("name", ["ddz3", "ddz4", "zsy1", "zsy2"])
def test_autoplay_out_is_apply_repeated(name: str) -> None:
    """autoplay_out (simulate's loop, with no per-action states or events) ends in the state
    that applying autoplay_move until nobody is to move reaches: equal in every field (log,
    hands, bombs, settlement, …), from fresh deals, rooms with options, and mid-game states
    (random legal moves first, escapes and autoplay switches included)."""
    import random

    from services.rules import Leave, Room, SetAutoplay, autoplay_move, autoplay_out

    rng = random.Random(f"autoplay-out-{name}")
    rooms = [None, Room(overrides=_AUTOPLAY_ROOMS.get(name, ()))]
    games = 0
    for g in range(60):
        s = new_game(name, rooms[g % 2], seed=f"out-{g}")
        for _ in range(rng.choice((0, 0, 3, 12, 30))):
            if s.turn is None:
                break
            moves: list[Any] = legal_actions(s)
            moves += [SetAutoplay(rng.randrange(s.players), True), Leave(s.turn)]
            s, _ = apply(s, moves[-1] if rng.random() < 0.02 else rng.choice(moves[:-1]))
        want = s
        while want.turn is not None:
            want, _ = apply(want, autoplay_move(want))
        got = autoplay_out(s)
        assert got == want
        assert got.settlement is not None and got.settlement == want.settlement
        games += got.status.value == "finished"
    assert games > 40


def test_a_new_game_is_built_as_the_dataclass_would_build_it() -> None:
    # new_game skips GameState's frozen __init__ (state.build): every field, the same value.
    import dataclasses

    from services.rules import GameState
    from services.rules.state import build

    for name in ("ddz3", "ddz4", "zsy1", "zsy2"):
        s = new_game(name, seed="build", game_id="g1")
        fields = {f.name: getattr(s, f.name) for f in dataclasses.fields(GameState)}
        assert type(s) is GameState and s == GameState(**fields)
        assert s.to_dict() == GameState.from_dict(s.to_dict()).to_dict()
        del fields["game_id"]
        with pytest.raises(TypeError, match="game_id"):
            build(**fields)
        with pytest.raises(TypeError, match="extra"):
            build(**fields, game_id=None, extra=1)
