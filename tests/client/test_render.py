"""The client's wording of plays and per-seat figures (pure, no servers)."""

from __future__ import annotations

from services import rules
from services.client import render
from services.client.play import table_event_text


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


def test_a_reading_splits_into_body_and_kickers() -> None:
    cards = rules.parse_cards("3s3c3d4h4c4d5s5c5d7c")
    four = render.reading_parts(cards, "plane_two:4")
    five = render.reading_parts(cards, "plane_two:5")
    assert four is not None and five is not None
    assert render.cards_plain(four[0]) == "3♠ 3♣ 3♦ 4♥ 4♣ 4♦"
    assert render.cards_plain(five[1]) == "3♠ 3♣ 3♦ 7♣"
    assert render.reading_parts(cards[:3], "triple:3") is None
