"""A bot's only input is the seat's view: nothing hidden can reach it.

Two states that differ only in what the seat may not see (how the cards it cannot see are
shared among the other seats) give the seat equal views, and every bot answers both alike;
and the bots package imports nothing but the rules library and the standard library.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import random
import sys
from pathlib import Path

import pytest

from services import bots, rules
from services.bots import LEVELS, make_bot
from services.bots.base import Bot

VARIANTS = ("doudizhu3", "doudizhu4", "zhengshangyou1", "zhengshangyou2")


def _reshuffle_hidden(state: rules.GameState, seat: int, rng: random.Random) -> rules.GameState:
    """The same state with the other seats' cards dealt among them anew (same counts)."""
    others = [s for s in range(len(state.hands)) if s != seat]
    pool = [c for s in others for c in state.hands[s]]
    rng.shuffle(pool)
    hands = list(state.hands)
    at = 0
    for s in others:
        n = len(state.hands[s])
        hands[s] = tuple(sorted(pool[at : at + n]))
        at += n
    return dataclasses.replace(state, hands=tuple(hands))


@pytest.mark.parametrize("name", VARIANTS)
def test_hidden_cards_never_change_an_answer(name: str) -> None:
    v = rules.variant(name)
    rng = random.Random(name)
    players = [make_bot("easy", v, "drive") for _ in range(v.players)]
    checked = 0
    for g in range(6):
        state = rules.new_game(v, seed=f"hidden/{g}")
        while not state.over:
            seat = state.turn
            assert seat is not None
            twin = _reshuffle_hidden(state, seat, rng)
            view, twin_view = rules.seat_view(state, seat), rules.seat_view(twin, seat)
            assert view == twin_view
            for level in LEVELS:
                a = make_bot(level, v, "same").act(view)
                b = make_bot(level, v, "same").act(twin_view)
                assert a == b
                checked += 1
            state, _ = rules.apply(state, players[seat].act(rules.seat_view(state, seat)))
    assert checked > 100


def test_act_takes_the_view_only() -> None:
    params = list(inspect.signature(Bot.act).parameters)
    assert params == ["self", "view"]
    for cls in bots.LEVELS.values():
        assert list(inspect.signature(cls.act).parameters) == ["self", "view"]


def test_the_view_holds_no_other_hand() -> None:
    state = rules.new_game("doudizhu3", seed="no-peeking")
    view = rules.seat_view(state, 1)
    # every field that holds cards is the seat's own or public
    assert view.hand == state.hands[1]
    assert view.bottom is None and view.shown_hand is None and view.record is None


def test_bots_import_only_the_rules_library() -> None:
    root = Path(bots.__file__).parent
    stdlib = set(sys.stdlib_module_names)
    for path in root.glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
                if node.module == "services":  # from services import rules
                    names = [f"services.{a.name}" for a in node.names]
            for name in names:
                top = name.split(".")[0]
                ok = top in stdlib or top == "__future__" or name.startswith("services.rules")
                assert ok, f"{path.name} imports {name}"
