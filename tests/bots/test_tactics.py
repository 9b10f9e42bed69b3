"""Certain plays (``services/bots/tactics.py``): hand-made positions, one or more per family,
each with the set of acceptable actions worked out by hand in its comment and checked where
it can be by a sampled double-dummy search (every world dealt from the cards the seat cannot
see, each solved exactly).  Every level above ``easy`` must answer inside the set, whatever
its seed."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from services import rules
from services.bots import make_bot, observe
from services.bots.endgame import Endgame
from services.bots.smart import HardBot
from services.rules import Action, Bid, ExplicitDeal, Pass, PlayCards

P = rules.parse_cards
SEEDS = ("a", "b", "c", "pos", "17")
LEVELS = ("normal", "hard")


def position(name: str, hands: list[str], moves: list[Action], bottom: str = "") -> rules.GameState:
    v = rules.variant(name)
    deal = ExplicitDeal(tuple(tuple(P(h)) for h in hands), tuple(P(bottom)))
    state = rules.new_game(v, deal=deal, first_bidder=0 if v.bidding else None)
    for m in moves:
        state, _ = rules.apply(state, m)
    return state


def cards_of(action: Action) -> frozenset[int]:
    """A play's cards (empty: a pass)."""
    return frozenset(action.cards) if isinstance(action, PlayCards) else frozenset()


def answers(state: rules.GameState) -> dict[tuple[str, str], frozenset[int]]:
    """Every (level, seed)'s answer, each checked legal."""
    seat = state.turn
    assert seat is not None
    out = {}
    for level in LEVELS:
        for seed in SEEDS:
            action = make_bot(level, state.variant, seed).act(rules.seat_view(state, seat))
            rules.apply(state, action)  # refused if illegal
            out[level, seed] = cards_of(action)
    return out


def assert_answers_within(state: rules.GameState, acceptable: set[str]) -> None:
    """Every level's answer, with every seed, is one of ``acceptable`` ("" is a pass)."""
    allowed = {frozenset(P(a)) for a in acceptable}
    for key, got in answers(state).items():
        assert got in allowed, (key, rules.format_cards(sorted(got)) or "pass")


def double_dummy(state: rules.GameState, options: list[str], worlds: int = 40) -> list[int]:
    """How many of ``worlds`` sampled deals each option ("" a pass) wins, both sides playing
    perfectly with every card seen."""
    seat = state.turn
    assert seat is not None
    v = state.variant
    o = observe(rules.seat_view(state, seat), v)
    candidates: list[rules.Play | None] = []
    for text in options:
        cards = P(text)
        candidates.append(rules.Play(tuple(cards), rules.classify(v, cards)) if cards else None)
    wins = Endgame(v).solve(o, candidates, worlds, 2_000_000, random.Random(7))
    assert wins is not None
    return wins


# ---------------------------------------------------------------- not beating a partner
def partner_k_on_one_card() -> rules.GameState:
    # The first position.  Seat 2 (a farmer) leads its second-to-last card, a K; the
    # landlord passes; seat 1 holds 8888 Q A 2.  The landlord has passed this trick, so a pass
    # ends it and the partner leads its last card: a certain win.  Anything else may lose (the
    # landlord, on 8 unseen cards, may hold a 2, the rocket or a higher bomb).
    return position(
        "doudizhu3",
        ["3s 4d 7d 9d Td Js Qs Kh 2h", "8s 8h 8c 8d Qd Ad 2d", "5c Kc 6c"],
        [
            Bid(0, 3),
            PlayCards(0, P("3s")),
            Pass(1),
            PlayCards(2, P("5c")),
            Pass(0),
            Pass(1),
            PlayCards(2, P("Kc")),
            Pass(0),
        ],
    )


def test_a_partner_about_to_go_out_is_not_overtaken() -> None:
    state = partner_k_on_one_card()
    assert_answers_within(state, {""})
    easy = make_bot("easy", state.variant, "x").act(rules.seat_view(state, 1))
    assert isinstance(easy, PlayCards)  # auto-play overtakes its partner: easy checks nothing
    # pass wins in every world (with every card seen the ace may win too: not for certain)
    assert double_dummy(state, ["", "Ad", "8s 8h 8c 8d"])[0] == 40


def test_a_partners_play_that_stands_is_left_alone() -> None:
    # The landlord (one card left) led 3s; the partner took it with BJ and holds one card,
    # 5c.  Only RJ beats BJ, and seat 2 holds it: a pass gives the partner the lead and its
    # last card.  RJ then 4h may lose (the landlord's card may beat the 4h or the 6d).
    state = position(
        "doudizhu3",
        ["3s 9c", "BJ 5c", "RJ 4h 6d"],
        [Bid(0, 3), PlayCards(0, P("3s")), PlayCards(1, P("BJ"))],
    )
    assert_answers_within(state, {""})
    wins = double_dummy(state, ["", "RJ"])
    assert wins[0] == 40


# ---------------------------------------------------------------- a partner on one card
def test_a_partner_on_one_card_is_led_a_single_it_surely_beats() -> None:
    # The "a K instead of a 3": seat 1 leads; its partner (seat 2) plays next and holds
    # one card; every other 3 has been played (3s 3h by the landlord, 3d by the partner), so
    # whatever that card is it beats 3c and goes out.  No other lead is certain: the landlord
    # (four unseen cards) may take a K, an ace or the 9d and lead on.
    state = position(
        "doudizhu3",
        ["3s 3h 8c 9c Tc Jc 2s", "Kd 3c Kh Ac 9d", "5h 5d 3d 7s"],
        [
            Bid(0, 3),
            PlayCards(0, P("3s 3h")),
            Pass(1),
            PlayCards(2, P("5h 5d")),
            Pass(0),
            Pass(1),
            PlayCards(2, P("3d")),
            PlayCards(0, P("8c")),
            PlayCards(1, P("Kd")),
            Pass(2),
            Pass(0),
        ],
    )
    assert_answers_within(state, {"3c"})
    wins = double_dummy(state, ["3c", "Kh", "Ac", "9d"])
    assert wins[0] == 40 and min(wins[1:]) < 40


# ---------------------------------------------------------------- stopping an enemy
def test_a_farmer_stops_the_landlord_on_his_last_card() -> None:
    # The "passed over a Q holding 2c 2d": the landlord holds one card (both jokers
    # are played), the partner's Q may be beaten by it (a K, an ace, the 2h or 2s).  A 2 is
    # beaten by nothing the landlord can hold, so a 2 it must be: after it 2, 66 (the
    # landlord cannot answer a pair) and Th go out.
    state = position(
        "doudizhu3",
        ["BJ 5c 2s", "RJ 4h Qh 7s 8s 9s", "2c 2d 6d 6h Th"],
        [
            Bid(0, 3),
            PlayCards(0, P("BJ")),
            PlayCards(1, P("RJ")),
            Pass(2),
            Pass(0),
            PlayCards(1, P("4h")),
            Pass(2),
            PlayCards(0, P("5c")),
            PlayCards(1, P("Qh")),
        ],
    )
    assert_answers_within(state, {"2c", "2d"})
    wins = double_dummy(state, ["2c", ""])
    assert wins[0] == 40 and wins[1] < 40


def test_an_unbeatable_pair_is_led_to_a_landlord_on_two_cards() -> None:
    # The "a low single instead of an unbeatable pair": the landlord holds two cards;
    # every 2 but seat 1's pair and both jokers are played, so 22 (or either 2 alone) cannot
    # be beaten, and the 4c goes out after.  Leading the 4c first lets the landlord take it.
    state = position(
        "doudizhu3",
        ["2s BJ 3d 9s Ts", "Kc 2h 2d 4c", "RJ 2c 5h 6h 7h 8h"],
        [
            Bid(0, 3),
            PlayCards(0, P("2s")),
            Pass(1),
            PlayCards(2, P("RJ")),
            Pass(0),
            Pass(1),
            PlayCards(2, P("2c")),
            PlayCards(0, P("BJ")),
            Pass(1),
            Pass(2),
            PlayCards(0, P("3d")),
            PlayCards(1, P("Kc")),
            Pass(2),
            Pass(0),
        ],
    )
    assert_answers_within(state, {"2h 2d", "2h", "2d"})
    assert double_dummy(state, ["2h 2d"]) == [40]


def test_zheng_shangyou_stops_the_seat_about_to_go_out() -> None:
    # zsy1 (no partners, no jokers).  Seat 0 led 4s and holds one card; seat 1 to answer,
    # holding 2h.  Only another 2 beats a 2 (three are unseen, but the next seats must then
    # spend one), so the 2h leaves seat 0 nothing: its card cannot beat a 2.  Passing, or a
    # lower single, lets seat 0's card (any rank) go out over it when the others pass.
    state = position(
        "zhengshangyou1",
        ["3s 4s 9c", "2h 5d 6d 7d 8d Td", "3h 4h 5h", "3c 4c 5c"],
        [PlayCards(0, P("3s")), Pass(1), Pass(2), Pass(3), PlayCards(0, P("4s"))],
    )
    assert_answers_within(state, {"2h"})


# ---------------------------------------------------------------- going out now
def test_going_out_with_a_bomb_and_the_one_play_left() -> None:
    # The "breaking QQQQ to beat a 5 instead of bombing and going out with 44": both
    # jokers are played and the farmers hold three cards each, so QQQQ cannot be beaten and
    # 44 goes out after it.  A Q breaks the bomb and may lose.
    state = position(
        "doudizhu3",
        ["BJ Qs Qh Qc Qd 4c 4d", "RJ 5s 9h Th Jh", "6c 7c 8c"],
        [
            Bid(0, 3),
            PlayCards(0, P("BJ")),
            PlayCards(1, P("RJ")),
            Pass(2),
            Pass(0),
            PlayCards(1, P("5s")),
            Pass(2),
        ],
    )
    assert_answers_within(state, {"Qs Qh Qc Qd"})
    wins = double_dummy(state, ["Qs Qh Qc Qd", "Qs"])
    assert wins[0] == 40 and wins[1] < 40


def test_going_out_through_a_sequence_of_controls() -> None:
    # The landlord leads 22 AA 3s; each farmer holds one card, so no pair can be answered:
    # 22 and AA are controls, and either first, the other next and the 3s last goes out.  A
    # lone 2 may meet a joker, the 3s anything: neither is certain.
    state = position("doudizhu3", ["2s 2h As Ah 3s", "4s", "5s"], [Bid(0, 3)])
    assert_answers_within(state, {"2s 2h", "As Ah"})
    wins = double_dummy(state, ["2s 2h", "3s"])
    assert wins[0] == 40 and wins[1] < 40


# ---------------------------------------------------------------- keeping a bomb whole
def test_the_rocket_is_kept_whole_when_another_card_beats_the_play() -> None:
    # The landlord led a 9; seat 1 holds the rocket, a K and low cards: the K beats the 9
    # without taking a joker from the rocket.  Any answer but a lone joker will do.
    state = position(
        "doudizhu3",
        ["9s 3h 4h 5h 6h 8h Th Jh", "BJ RJ Ks 5c 6d 7d 8d", "4c 5d 6c 7c 8c 9c"],
        [Bid(0, 3), PlayCards(0, P("9s"))],
    )
    for got in answers(state).values():
        assert got not in (frozenset(P("BJ")), frozenset(P("RJ")))


# ---------------------------------------------------------------- the search sees every option
def _following_states() -> st.SearchStrategy[rules.GameState]:
    @st.composite
    def build(draw: st.DrawFn) -> rules.GameState:
        name = draw(st.sampled_from(["doudizhu3", "zhengshangyou1"]))
        seed = draw(st.text(min_size=1, max_size=6))
        steps = draw(st.integers(min_value=1, max_value=60))
        state = rules.new_game(name, seed=seed)
        bots = [make_bot("easy", name, str(s)) for s in range(state.variant.players)]
        for _ in range(steps):
            if state.phase.value == "over" or state.turn is None:
                break
            state, _ = rules.apply(state, bots[state.turn].act(rules.seat_view(state, state.turn)))
        return state

    return build()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(state=_following_states())
def test_the_search_considers_a_pass_whenever_one_is_legal(state: rules.GameState) -> None:
    # "Legal" for a bot: the rules allow it and the tactics did not strike it out (an enemy on
    # one or two cards that a pass would let out, with a play at hand that stops him).
    if state.phase.value != "play" or state.turn is None:
        return
    seat = state.turn
    bot = make_bot("hard", state.variant, "s")
    assert isinstance(bot, HardBot)
    o = observe(rules.seat_view(state, seat), state.variant)
    bot.play(o)  # sets up the decision's counting and tactics
    last = o.last.pattern if o.last is not None else ()
    plays = rules.legal_plays(state.variant, o.hand, last)
    kept, must_play = bot.tactics.follow_options(plays) if o.last is not None else (plays, False)
    may_pass = o.last is not None and not must_play
    for choice in [None, *kept[:3]] if may_pass else kept[:3]:
        options = bot.search_options(o, choice)
        assert (None in options) == may_pass
        assert options[0] == choice  # the heuristic's choice first: it wins ties
        for p in kept:  # every pattern left is among the options
            assert any(q is not None and q.pattern == p.pattern for q in options)


def test_the_search_swaps_a_play_for_a_pass_that_wins_more_worlds() -> None:
    # The bug: the search dropped "pass" from its options when the heuristic chose a
    # play.  Seat 1 holds Ad 3c; its partner led its second-to-last card, a K, and the landlord
    # passed: a pass wins every world (the partner leads its last card), the ace loses every
    # world where the landlord holds a 2.  Given the ace as the heuristic's choice, the search
    # must come back with the pass.
    state = position(
        "doudizhu3",
        ["3s 4d 7d 9d Td Js Qs Kh 2h", "Ad 3c", "5c Kc 6c"],
        [
            Bid(0, 3),
            PlayCards(0, P("3s")),
            Pass(1),
            PlayCards(2, P("5c")),
            Pass(0),
            Pass(1),
            PlayCards(2, P("Kc")),
            Pass(0),
        ],
    )
    wins = double_dummy(state, ["", "Ad"])
    assert wins[0] == 40 and wins[1] < 40
    bot = make_bot("hard", state.variant, "s")
    assert isinstance(bot, HardBot)
    o = observe(rules.seat_view(state, 1), state.variant)
    bot.play(o)
    ace = rules.Play(tuple(P("Ad")), rules.classify(state.variant, P("Ad")))
    assert None in bot.search_options(o, ace)
    assert bot.search(o, ace) is None
