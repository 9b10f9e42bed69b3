"""The middle-game search's play-outs (:mod:`services.bots.rollout`): every move its policy
makes is a legal play of the hand (checked against the rules' own move generator), the
enemies' model is auto-play's policy, a world is played out until a seat goes out, and the
choice is the candidate that wins the most worlds, the heuristic's winning ties unless
another wins more than the margin more."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from services import rules
from services.bots import make_bot, observe
from services.bots.endgame import Endgame, Hand
from services.bots.hand import Analyzer
from services.bots.observe import Observation
from services.bots.rollout import Rollout
from services.bots.smart import ENDGAME_CARDS, FARMER_LEAD_SEARCH, MID_OPTIONS, HardBot

NAMES = ["doudizhu3", "doudizhu4", "zhengshangyou1", "zhengshangyou2"]


def rollout(name: str) -> tuple[Rollout, Endgame]:
    v = rules.variant(name)
    eg = Endgame(v)
    return Rollout(v, eg, Analyzer(v)), eg


@st.composite
def hands(draw: st.DrawFn) -> tuple[str, Hand, list[int]]:
    """A variant, a hand of it (rank counts) and the cards it was drawn from."""
    name = draw(st.sampled_from(NAMES))
    v = rules.variant(name)
    deck = list(rules.new_game(v, seed="deck").hands[0])
    for h in rules.new_game(v, seed="deck").hands[1:]:
        deck += h
    cards = draw(st.lists(st.sampled_from(sorted(set(deck))), min_size=1, max_size=20))
    counts = rules.rank_counts(cards)
    counts = [min(c, v.copies[r]) for r, c in enumerate(counts)]
    return name, tuple(counts), cards


def legal(eg: Endgame, hand: Hand, last: rules.Pattern | None) -> set[tuple[Hand, object]]:
    """(the hand after, kind, order, size) of every legal play, every kicker choice."""
    cards = [
        r * 4 + (r + k) % 4 if r < 13 else 52 + r - 13 for r in range(15) for k in range(hand[r])
    ]
    out = set()
    for play in rules.legal_plays(eg.v, cards, last if last is not None else ()):
        after = list(hand)
        for c in play.cards:
            after[13 + (c == 53) if c >= 52 else c >> 2] -= 1
        p = play.pattern
        out.add((tuple(after), (p.kind, p.order, p.size)))
    return out


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    h=hands(),
    lead_cards=st.integers(0, 19),
    partner=st.booleans(),
    threat=st.booleans(),
)
def test_the_policy_plays_only_legal_moves(
    h: tuple[str, Hand, list[int]], lead_cards: int, partner: bool, threat: bool
) -> None:
    name, hand, _ = h
    ro, eg = rollout(name)
    if any(hand):
        for after, p in (ro.lead(hand), ro.auto_lead(hand)):
            assert (after, (p.kind, p.order, p.size)) in legal(eg, hand, None)
    # a play to beat: one of the leads of another hand
    other = list(reversed(hand))
    other[12 - lead_cards % 13] += 1
    other_hand = tuple(min(c, rules.variant(name).copies[r]) for r, c in enumerate(other))
    for _, last in eg.moves(other_hand, None)[:: max(1, lead_cards)]:
        for move in (ro.follow(hand, last, partner, threat), ro.auto_follow(hand, last, partner)):
            if move is not None:
                after, p = move
                assert (after, (p.kind, p.order, p.size)) in legal(eg, hand, last)
                assert rules.beats(p, last)


@st.composite
def positions(draw: st.DrawFn) -> tuple[rules.GameState, Observation]:
    """A position of a game played by ``easy`` to somewhere in its middle."""
    name = draw(st.sampled_from(NAMES))
    seed = draw(st.text(min_size=1, max_size=6))
    moves = draw(st.integers(min_value=0, max_value=30))
    state = rules.new_game(name, seed=seed)
    bots = [make_bot("easy", name, str(s)) for s in range(state.variant.players)]
    played = 0
    while not state.over and (state.phase.value != "play" or played < moves):
        assert state.turn is not None
        played += state.phase.value == "play"
        state, _ = rules.apply(state, bots[state.turn].act(rules.seat_view(state, state.turn)))
    return state, observe(rules.seat_view(state, state.turn or 0), state.variant)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pos=positions(), worlds=st.integers(1, 4), margin=st.integers(0, 2))
def test_choose_is_the_candidate_winning_most_worlds(
    pos: tuple[rules.GameState, Observation], worlds: int, margin: int
) -> None:
    state, o = pos
    if state.over:
        return
    bot = make_bot("hard", o.variant, "s")
    assert isinstance(bot, HardBot)
    bot.play(o)  # sets up the decision's counting and tactics
    choice = bot.lead(o) if o.last is None else bot.follow(o)
    options = bot.mid_options(o, choice)
    ro, eg = rollout(o.variant.name)
    chosen = ro.choose(o, options, worlds, random.Random(5), margin)
    # the same worlds, each candidate played out by hand
    rng = random.Random(5)
    hand = tuple(rules.rank_counts(o.hand))
    mine = [s == o.seat or o.is_partner(s) for s in range(o.players)]
    wins = [0] * len(options)
    for _ in range(worlds):
        deal = eg.sample(o, rng)
        assert deal is not None
        deal[o.seat] = hand
        for i, cand in enumerate(options):
            wins[i] += ro._one(o, list(deal), hand, o.last.pattern if o.last else None, cand, mine)
    assert 0 <= chosen < len(options)
    if chosen == 0:
        assert max(wins) <= wins[0] + margin
    else:
        assert wins[chosen] == max(wins) > wins[0] + margin
        assert all(w < wins[chosen] for w in wins[:chosen])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pos=positions(), seed=st.integers(0, 1000))
def test_a_world_is_played_out_until_a_seat_goes_out(
    pos: tuple[rules.GameState, Observation], seed: int
) -> None:
    state, o = pos
    if state.over:
        return
    ro, eg = rollout(o.variant.name)
    deal = eg.sample(o, random.Random(seed))
    assert deal is not None
    deal[o.seat] = tuple(rules.rank_counts(o.hand))
    mine = [s == o.seat or o.is_partner(s) for s in range(o.players)]
    last = o.last.pattern if o.last is not None else None
    last_seat = o.last_seat if o.last_seat is not None else o.seat
    hands = list(deal)
    first = ro.play_out(hands, o.seat, last, last_seat, 0, o.landlord, mine)
    assert 0 <= first < o.players
    assert not any(hands[first]) and all(sum(h) <= c for h, c in zip(hands, o.counts, strict=True))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(h=hands(), pick=st.integers(0, 1000), no_bombs=st.booleans())
def test_the_enemies_model_is_auto_play(
    h: tuple[str, Hand, list[int]], pick: int, no_bombs: bool
) -> None:
    # The play-outs' enemies play as auto-play (rules.choose_play, the easy level) does: the
    # same kind, key rank and size on rank counts (kickers aside, which the counts omit).
    name, hand, _ = h
    v = rules.variant(name)
    ro, eg = rollout(name)
    cards = [
        r * 4 + (r + k) % 4 if r < 13 else 52 + r - 13 for r in range(15) for k in range(hand[r])
    ]
    auto = rules.choose_play(v, cards, None)
    assert auto is not None
    if not auto.pattern.is_bomb:
        _, p = ro.auto_lead(hand)
        want = (auto.pattern.kind, auto.pattern.order, auto.pattern.size)
        assert (p.kind, p.order, p.size) == want
    leads = eg.moves(tuple(min(c, v.copies[r]) for r, c in enumerate(reversed(hand))), None)
    if not leads:
        return
    _, last = leads[pick % len(leads)]
    auto = rules.choose_play(v, cards, last, no_bombs=no_bombs)
    mine = ro.auto_follow(hand, last, no_bombs)
    if auto is None:
        assert mine is None
    else:
        assert mine is not None
        want = (auto.pattern.kind, auto.pattern.order, auto.pattern.size)
        assert (mine[1].kind, mine[1].order, mine[1].size) == want


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pos=positions())
def test_a_follow_searched_weighs_the_heuristic_a_pass_and_legal_plays(
    pos: tuple[rules.GameState, Observation],
) -> None:
    """The middle-game search of a follow decides between the heuristic's choice (first: it
    wins ties), a pass whenever the tactics leave one, and other plays that beat the play."""
    state, o = pos
    if state.over or o.last is None:
        return
    bot = make_bot("hard", o.variant, "s")
    assert isinstance(bot, HardBot)
    bot.play(o)  # sets up the decision's counting and tactics
    choice = bot.follow(o)
    options = bot.mid_options(o, choice)
    assert options[0] == choice
    plays = rules.legal_plays(o.variant, o.hand, o.last.pattern)
    _, must_play = bot.tactics.follow_options(plays)
    assert (None in options) == (not must_play)
    legal = {(p.cards, p.pattern) for p in plays}
    assert all((p.cards, p.pattern) in legal for p in options if p is not None)
    assert len(options) <= 1 + MID_OPTIONS


class Recording(HardBot):
    """Hard, noting the budget of each middle-game search it makes."""

    def __init__(self, v: rules.Variant, seed: str) -> None:
        super().__init__(v, seed)
        self.searched: list[int] = []

    def mid_search(
        self, o: Observation, choice: rules.Play | None, budget: int
    ) -> rules.Play | None:
        self.searched.append(budget)
        return super().mid_search(o, choice, budget)


def test_a_doudizhu3_farmer_searches_its_leads_once_the_landlord_is_within_reach() -> None:
    """Hard's farmer weighs its lead against its split's other groups (the middle-game
    search) once the landlord holds FARMER_LEAD_SEARCH's cards or fewer, never before, and
    the landlord's leads are searched as before; every searched lead is a legal play."""
    close, moves = FARMER_LEAD_SEARCH["doudizhu3"]
    v = rules.variant("doudizhu3")
    start = ENDGAME_CARDS[(3, 1)]
    seen = {"farmer near": 0, "farmer far": 0, "searched": 0}
    for seed in range(30):
        state = rules.new_game(v, seed=f"farmer-lead/{seed}")
        easy = [make_bot("easy", v, str(s)) for s in range(3)]
        while not state.over:
            assert state.turn is not None
            view = rules.seat_view(state, state.turn)
            o = observe(view, v)
            if state.phase.value == "play" and o.last is None and sum(o.counts) > start:
                bot = Recording(v, f"{seed}")
                chosen = bot.play(o)
                searched = bot.searched
                if o.landlord != o.seat and o.must_hold is None:
                    near = o.counts[o.landlord] <= close
                    seen["farmer near" if near else "farmer far"] += 1
                    # a certain play (tactics) may come first; a search is always this one's
                    assert searched in ([moves], []) if near else searched == []
                    seen["searched"] += len(searched)
                    assert chosen is not None
                    legal = {(p.cards, p.pattern) for p in rules.legal_plays(v, o.hand, ())}
                    assert (chosen.cards, chosen.pattern) in legal
            state, _ = rules.apply(state, easy[state.turn].act(view))
    assert seen["farmer near"] and seen["farmer far"] and seen["searched"], seen
