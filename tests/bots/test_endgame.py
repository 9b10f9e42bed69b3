"""The endgame search's counts (``Endgame.solve``) and hard's choice from them: the move that
wins the most sampled worlds, the play-outs deciding between moves tied there."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from services import rules
from services.bots import make_bot, observe
from services.bots.endgame import Endgame
from services.bots.observe import Observation
from services.bots.smart import ENDGAME_BUDGET, ENDGAME_WORLDS, HardBot

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
@given(pos=late_positions(), pick=st.integers(0, 50))
def test_the_search_takes_a_move_that_wins_the_most_worlds(
    pos: tuple[rules.GameState, Observation], pick: int
) -> None:
    # hard's search: the most worlds won exactly; between moves tied there, play-outs decide
    state, o = pos
    if state.over:
        return
    options = candidates(o, pick)
    if len(options) < 2:
        return
    bot = make_bot("hard", o.variant, "s")
    assert isinstance(bot, HardBot)
    bot.play(o)
    # the same worlds as the bot's own search: the same generator, drawn first
    wins = Endgame(state.variant).solve(o, options, ENDGAME_WORLDS, ENDGAME_BUDGET, bot.rng(o))
    chosen = bot.search(o, options[0])
    assert chosen in options
    if wins is not None:
        best = max(wins)
        assert wins[options.index(chosen)] == best
        if wins.count(best) == 1 or best == ENDGAME_WORLDS:
            assert chosen == options[wins.index(best)]  # the first of the best: no play-out


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pos=late_positions(), budget=st.integers(0, 300))
def test_solve_on_a_small_budget_says_nothing_or_counts_each_candidate(
    pos: tuple[rules.GameState, Observation], budget: int
) -> None:
    state, o = pos
    if state.over:
        return
    options = candidates(o, 0)
    wins = Endgame(state.variant).solve(o, options, 4, budget, random.Random(5))
    assert wins is None or (len(wins) == len(options) and all(0 <= w <= 4 for w in wins))
    if budget == 0 and wins is not None:
        # no node to spend: a world is solved only when every option goes out at once
        assert all(p is not None and len(p.cards) == len(o.hand) for p in options)
