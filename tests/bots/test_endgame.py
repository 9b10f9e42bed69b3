"""The endgame search's pruned choice (``Endgame.choose``) against its exhaustive counts
(``Endgame.solve``): the same candidate on the same sampled worlds, for less search."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from services import rules
from services.bots import make_bot, observe
from services.bots.endgame import Endgame
from services.bots.observe import Observation
from services.bots.smart import HardBot

UNBOUNDED = 10_000_000


@st.composite
def late_positions(draw: st.DrawFn) -> tuple[rules.GameState, Observation]:
    """A position of a game played by ``easy`` until few cards are left, the seat to move's
    observation with it (the search is exhaustive there, so it never runs out of budget)."""
    name = draw(st.sampled_from(["doudizhu3", "doudizhu4", "zhengshangyou1"]))
    seed = draw(st.text(min_size=1, max_size=6))
    left = draw(st.integers(min_value=4, max_value=14))
    state = rules.new_game(name, seed=seed)
    bots = [make_bot("easy", name, str(s)) for s in range(state.variant.players)]
    while not state.over and (state.phase.value != "play" or sum(map(len, state.hands)) > left):
        assert state.turn is not None
        state, _ = rules.apply(state, bots[state.turn].act(rules.seat_view(state, state.turn)))
    return state, observe(rules.seat_view(state, state.turn or 0), state.variant)


def candidates(o: Observation, pick: int) -> list[rules.Play | None]:
    """The options hard's search weighs, with one of them (``pick``) as the heuristic's."""
    bot = make_bot("hard", o.variant, "s")
    assert isinstance(bot, HardBot)
    bot.play(o)  # sets up the decision's counting and tactics
    options = bot.search_options(o, None if o.last is not None else bot.lead(o))
    choice = options[pick % len(options)]
    return bot.search_options(o, choice)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pos=late_positions(), pick=st.integers(0, 50), worlds=st.integers(1, 6))
def test_choose_is_the_argmax_of_the_counts(
    pos: tuple[rules.GameState, Observation], pick: int, worlds: int
) -> None:
    state, o = pos
    if state.over:
        return
    options = candidates(o, pick)
    eg = Endgame(state.variant)
    wins = eg.solve(o, options, worlds, UNBOUNDED, random.Random(3))
    chosen = Endgame(state.variant).choose(o, options, worlds, UNBOUNDED, random.Random(3))
    assert wins is not None and chosen is not None
    best = max(wins)
    assert wins[chosen] == best
    # ties go to the heuristic's choice (index 0), then to the earliest option
    assert chosen == (0 if wins[0] == best else wins.index(best))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pos=late_positions(), budget=st.integers(0, 300))
def test_choose_on_a_small_budget_says_nothing_or_a_candidate(
    pos: tuple[rules.GameState, Observation], budget: int
) -> None:
    state, o = pos
    if state.over:
        return
    options = candidates(o, 0)
    chosen = Endgame(state.variant).choose(o, options, 4, budget, random.Random(5))
    assert chosen is None or 0 <= chosen < len(options)
    if budget == 0 and chosen is not None:
        # no node to spend: only a first option that goes out is known to win
        first = options[chosen]
        assert chosen == 0 and first is not None and len(first.cards) == len(o.hand)
