"""Hand-made positions where the right play is certain."""

from __future__ import annotations

import pytest

from services import rules
from services.bots import LEVELS, make_bot
from services.rules import Bid, ExplicitDeal, Pass, PlayCards, ShowHand

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
    # beats: seat 2 holds RJ and must not beat its partner.  (With 44 instead of 4h 6d, RJ
    # then 44 would be a certain win too: see tests/bots/test_tactics.py.)
    state = position(
        "doudizhu3",
        ["3s 9c", "BJ 5c 6c 7c", "RJ 4h 6d"],
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


def test_the_endgame_search_counts_the_worlds_each_move_wins() -> None:
    import random

    from services.bots.endgame import Endgame
    from services.bots.observe import observe

    state = position("doudizhu3", ["RJ 3s", "4s", "5s"], [Bid(0, 3)])
    v = state.variant
    o = observe(rules.seat_view(state, 0), v)
    low = rules.Play(tuple(P("3s")), rules.classify(v, P("3s")))
    high = rules.Play(tuple(P("RJ")), rules.classify(v, P("RJ")))
    wins = Endgame(v).solve(o, [low, high], 8, 10_000, random.Random(1))
    assert wins is not None
    # RJ first wins in every world; 3s first loses unless both farmers hold a 3 (none here)
    assert wins[1] == 8 and wins[0] < 8


def test_the_endgame_worlds_respect_what_is_known() -> None:
    import random

    from services.bots.endgame import Endgame
    from services.bots.observe import observe

    v = rules.variant("doudizhu3")
    state = rules.new_game(v, seed="worlds")
    lord = state.turn
    assert lord is not None
    state, _ = rules.apply(state, Bid(lord, 3))
    farmer = (lord + 1) % 3
    o = observe(rules.seat_view(state, farmer), v)
    eg = Endgame(v)
    bottom = rules.rank_counts(state.bottom)
    for seed in range(20):
        sampled = eg.sample(o, random.Random(seed))
        assert sampled is not None
        assert sum(sampled[farmer]) == 0  # its own hand is the seat's, not sampled
        world = list(sampled)
        world[farmer] = tuple(rules.rank_counts(state.hands[farmer]))
        assert [sum(h) for h in world] == [len(h) for h in state.hands]
        # the bottom cards (seen by all) are in the landlord's hand in every world
        assert all(world[lord][r] >= bottom[r] for r in range(15))
        # every card of the deck once: the other hands are dealt from what is out
        total = [sum(h[r] for h in world) for r in range(15)]
        assert total == [4] * 13 + [1, 1]


@pytest.mark.parametrize("level", ["normal", "hard"])
def test_a_long_straight_is_led_before_a_lone_low_card(level: str) -> None:
    # A person's report (issue 28): a zsy1 bot led a lone 6c holding a long straight and
    # never got the lead back.  Seat 0 opens holding 3-Q and the 6c: the straight first (few
    # hands can answer ten cards), the 6c after.
    mine = P("3s 4h 5h 6h 7d 8d 9s Ts Js Qs 6c")
    rest = [c for c in rules.variant("zhengshangyou1").deck if c not in mine]
    rest = sorted(rest)
    hands = [rules.format_cards(mine)] + [rules.format_cards(rest[i::3][:13]) for i in range(3)]
    state = position("zhengshangyou1", hands, [])
    assert state.turn == 0
    for seed in ("a", "b", "pos"):
        action = make_bot(level, state.variant, seed).act(rules.seat_view(state, 0))
        assert isinstance(action, PlayCards) and len(action.cards) >= 9, (seed, action)


def test_normal_slips_only_on_quiet_answers_to_an_enemy() -> None:
    """``normal`` is the middle level: it answers about half of the enemies' plays as
    auto-play would, but never a lead, never over a partner's play, and never with an enemy
    about to go out (the plays a person judges a partner by)."""
    from services.bots.observe import observe
    from services.bots.smart import NormalBot

    slipped = eligible = 0
    for g in range(12):
        state = rules.new_game(rules.variant("doudizhu3"), seed=f"slips/{g}")
        bots = [make_bot("normal", state.variant, f"slips/{g}/{s}") for s in range(3)]
        while not state.over:
            seat = state.turn
            assert seat is not None
            view = rules.seat_view(state, seat)
            bot = bots[seat]
            assert isinstance(bot, NormalBot)
            o = observe(view, state.variant)
            if o.phase == "play":
                quiet = (
                    o.last is not None and o.last_seat is not None
                    and not o.is_partner(o.last_seat) and bot.min_enemy(o) > bot.threat_of(o)
                )  # fmt: skip
                slips = bot.slips(o)
                assert quiet or not slips, (g, seat, o.last, o.counts)
                eligible += quiet
                slipped += slips
            state, _ = rules.apply(state, bot.act(view))
    assert eligible > 100 and 0.35 < slipped / eligible < 0.65, (slipped, eligible)
    assert not make_bot("hard", "doudizhu3").slip_share  # type: ignore[attr-defined]
