"""Properties over many generated games per variant: auto-play and random legal actions."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from services.rules import (
    CardParseError,
    GameState,
    IllegalAction,
    Leave,
    PlayCards,
    Timeout,
    apply,
    autoplay_action,
    legal_actions,
    new_game,
    parse_cards,
    public_view,
    replay,
    seat_view,
    write_record,
)

VARIANTS = ["doudizhu3", "doudizhu4", "zhengshangyou1", "zhengshangyou2"]


def play_game(name: str, seed: str, rng: random.Random, mode: str) -> list[GameState]:
    """Every state of one game; ``mode``: auto (auto-play), random (random legal actions),
    mixed (random, with timeouts and an occasional leave)."""
    state = new_game(name, seed=seed)
    states = [state]
    for _ in range(3000):
        if state.over:
            return states
        if mode == "auto":
            action = autoplay_action(seat_view(state, state.turn))  # type: ignore[arg-type]
        else:
            if mode == "mixed" and rng.random() < 0.002:
                action = Leave(rng.randrange(state.players))
            elif mode == "mixed" and rng.random() < 0.2:
                action = Timeout(state.turn)  # type: ignore[arg-type]
            else:
                action = rng.choice(legal_actions(state))
        state, _ = apply(state, action)
        states.append(state)
    raise AssertionError("the game did not end")


def check_game(name: str, states: list[GameState], rng: random.Random) -> None:
    final = states[-1]
    s = final.settlement
    assert final.over and s is not None
    if final.variant.family == "doudizhu":
        assert sum(s.scores) == 0 or s.status == "escaped"
    elif s.status == "finished":
        w = s.winner
        assert w is not None and s.scores[w] == -sum(x for i, x in enumerate(s.scores) if i != w)
    # replaying the record (through JSON) gives the same final state
    record = json.loads(json.dumps(write_record(final)))
    assert replay(record) == final
    # states round-trip through JSON; views hold no hidden card
    for state in rng.sample(states, min(6, len(states))):
        assert GameState.from_dict(json.loads(json.dumps(state.to_dict()))) == state
        for seat in range(state.players):
            check_view(state, seat)
    # a failed action leaves the state unchanged
    mid = rng.choice(states)
    if not mid.over:
        before = mid.to_dict()
        wrong = (mid.turn + 1) % mid.players  # type: ignore[operator]
        with pytest.raises(IllegalAction):
            apply(mid, PlayCards(wrong, mid.hands[wrong][:1]))
        assert mid.to_dict() == before


_CARD_FIELDS = {"hand", "bottom", "shown_hand", "last_play", "history", "record"}


def check_view(state: GameState, seat: int) -> None:
    """A running game's view holds the seat's own hand, public plays, and the bottom or a
    shown hand only when §7 allows; no other field holds cards."""
    d = json.loads(json.dumps(seat_view(state, seat).to_dict()))
    if state.over:
        assert d["record"] is not None and d["settlement"] is not None
        return
    assert d["record"] is None and d["settlement"] is None
    assert parse_cards(d["hand"]) == state.hands[seat]
    v = state.variant
    if d["bottom"] is not None:
        assert state.landlord is not None and (v.bottom_public or seat == state.landlord)
    elif state.landlord is not None:
        assert not v.bottom_public and seat != state.landlord
    if d["shown_hand"] is not None:
        assert state.shown and parse_cards(d["shown_hand"]) == state.hands[state.landlord]
    for key, value in d.items():
        if key not in _CARD_FIELDS and isinstance(value, str):
            with pytest.raises(CardParseError):
                parse_cards(value)  # phase, status, reading…: never cards
    for entry in d["history"]:
        assert set(entry) <= {"seat", "bid", "pass", "play", "as", "by", "show_hand", "leave"} | {
            "autoplay"
        }
    public = json.loads(json.dumps(public_view(state).to_dict()))
    assert public["hand"] is None


@pytest.mark.parametrize("name", VARIANTS)
def test_autoplay_games(name: str) -> None:
    rng = random.Random(name)
    for i in range(1000):  # the issue asks for thousands of games: 1,000 a variant, + random
        check_game(name, play_game(name, f"auto-{i}", rng, "auto"), rng)


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(VARIANTS), st.integers(0, 2**32), st.sampled_from(["random", "mixed"]))
def test_random_legal_games(name: str, seed: int, mode: str) -> None:
    rng = random.Random(seed)
    check_game(name, play_game(name, f"rnd-{seed}", rng, mode), rng)
