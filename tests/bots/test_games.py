"""Every level of every variant plays whole games, bidding included, without one refused
action; the same seed and the same view give the same action."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from services import rules
from services.bots import LEVELS, make_bot

VARIANTS = ("doudizhu3", "doudizhu4", "zhengshangyou1", "zhengshangyou2")
GAMES = 200


def _seat_levels(players: int, game: int) -> list[str]:
    """Every level at every table: easy, normal, hard, then one more in turn (4 seats)."""
    levels = list(LEVELS)
    order = levels[game % 3 :] + levels[: game % 3]
    return [order[s % 3] if s < 3 else levels[game % 3] for s in range(players)]


def play(v: rules.Variant, seed: str, levels: list[str]) -> tuple[rules.GameState, int]:
    bots = [make_bot(level, v, f"{seed}/{s}") for s, level in enumerate(levels)]
    state = rules.new_game(v, seed=seed)
    actions = 0
    while not state.over:
        seat = state.turn
        assert seat is not None
        action = bots[seat].act(rules.seat_view(state, seat))
        assert action.seat == seat
        state, _ = rules.apply(state, action)  # raises IllegalAction on a refused action
        actions += 1
    return state, actions


@pytest.mark.parametrize("name", VARIANTS)
def test_every_level_plays_whole_games(name: str) -> None:
    v = rules.variant(name)
    played = dict.fromkeys(LEVELS, 0)
    for g in range(GAMES):
        levels = _seat_levels(v.players, g)
        final, _ = play(v, f"games/{name}/{g}", levels)
        assert final.status.value in ("finished", "disbanded")
        for level in set(levels):
            played[level] += 1
    assert all(n == GAMES for n in played.values()), played


def test_the_room_rule_first_lead_holds_spade_three() -> None:
    v = rules.variant("zhengshangyou1").override({"first_lead_holds_spade_three": True})
    room = rules.Room(overrides=(("first_lead_holds_spade_three", True),))
    for g in range(30):
        for level in LEVELS:
            bots = [make_bot(level, v, "s3") for _ in range(4)]
            state = rules.new_game("zhengshangyou1", room, seed=f"spade3/{g}")
            seat = state.turn
            assert seat is not None
            action = bots[seat].act(rules.seat_view(state, seat))
            assert isinstance(action, rules.PlayCards)
            assert rules.parse_cards("3s")[0] in action.cards
            rules.apply(state, action)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(VARIANTS), st.sampled_from(tuple(LEVELS)), st.text(min_size=1, max_size=8))
def test_generated_deals_play_legally(name: str, level: str, seed: str) -> None:
    v = rules.variant(name)
    play(v, seed, [level] * v.players)


@pytest.mark.parametrize("name", VARIANTS)
def test_same_seed_same_view_same_action(name: str) -> None:
    v = rules.variant(name)
    for level in LEVELS:
        used = [make_bot(level, v, f"same/{s}") for s in range(v.players)]
        state = rules.new_game(v, seed=f"same/{name}")
        while not state.over:
            seat = state.turn
            assert seat is not None
            view = rules.seat_view(state, seat)
            fresh = make_bot(level, v, f"same/{seat}")  # no memo: the answer is the same
            action = used[seat].act(view)
            assert fresh.act(view) == action
            assert used[seat].act(view) == action
            state, _ = rules.apply(state, action)


def test_easy_is_the_autoplay_policy() -> None:
    for name in VARIANTS:
        v = rules.variant(name)
        bots = [make_bot("easy", v, "e") for _ in range(v.players)]
        for g in range(20):
            state = rules.new_game(v, seed=f"easy/{g}")
            while not state.over:
                seat = state.turn
                assert seat is not None
                mine = bots[seat].act(rules.seat_view(state, seat))
                auto = rules.autoplay_action(rules.seat_view(state, seat))
                assert type(mine) is type(auto)
                assert getattr(mine, "cards", None) == getattr(auto, "cards", None)
                assert getattr(mine, "amount", None) == getattr(auto, "amount", None)
                state, _ = rules.apply(state, mine)


def test_make_bot_names() -> None:
    assert make_bot("hard", "ddz3", "x").variant.name == "doudizhu3"
    with pytest.raises(ValueError, match="unknown bot level"):
        make_bot("expert", "ddz3")
    bot = make_bot("normal", "doudizhu4", "x")
    state = rules.new_game("doudizhu3", seed="x")
    with pytest.raises(ValueError, match="doudizhu3 view"):
        bot.act(rules.seat_view(state, 0))
    with pytest.raises(ValueError, match="public view"):
        make_bot("easy", "doudizhu3").act(rules.public_view(state))
