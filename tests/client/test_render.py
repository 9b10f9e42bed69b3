"""The client's wording of plays and per-seat figures (pure, no servers)."""

from __future__ import annotations

from services.client import render
from services.client.play import table_event_text
from services.engine import rules


def test_a_play_shows_its_body_first_and_a_rocket_no_rank() -> None:
    cards = rules.parse_cards("3d9s9c9d")
    assert render.cards_plain(render.play_order(cards)) == "9♠ 9♣ 9♦ 3♦"
    straight = rules.parse_cards("3s4h5d6c7s")
    assert render.play_order(straight) == sorted(straight)
    assert render.pattern_name("rocket:RJ") == "rocket 火箭"
    line = render.event_text("play", {"seat": 1, "cards": "3d9s9c9d", "pattern": "triple_single:9"})
    assert "plays 9♠ 9♣ 9♦ 3♦ — triple + single 三带一, 9" in line


def test_scores_and_totals_name_the_seats() -> None:
    players = ["ann", "bot:easy:1", "bot:easy:2"]
    assert table_event_text("game_over", {"scores": [-6, 12, -6]}, players) == (
        "scores: seat 0 ann -6, seat 1 bot:easy:1 +12, seat 2 bot:easy:2 -6"
    )
    assert table_event_text("series", {"games": 1, "totals": [1, 0, -1]}, players).startswith(
        "series after 1 game: totals seat 0 ann +1"
    )
