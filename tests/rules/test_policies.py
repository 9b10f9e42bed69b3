"""The auto-play, auto-bid and hint policies of RULES.md §6."""

from __future__ import annotations

import random

import pytest

from services.rules import (
    Bid,
    Pass,
    PlayCards,
    apply,
    auto_bid,
    autoplay_action,
    autoplay_move,
    choose_play,
    classify,
    format_cards,
    hint,
    legal_plays,
    new_game,
    parse_cards,
    seat_view,
    variant,
)
from services.rules.kinds import Kind
from services.rules.policies import _by_rank, _kicker_cost

from .gamekit import deal, run


def pick(name: str, hand: str, last: str | None = None, **kw: object) -> str | None:
    v = variant(name)
    pattern = classify(v, parse_cards(last)) if last else None
    play = choose_play(v, parse_cards(hand), pattern, **kw)  # type: ignore[arg-type]
    return None if play is None else format_cards(play.cards)


def test_lead_all_cards_of_the_lowest_non_bomb_rank() -> None:
    assert pick("ddz3", "3s3h3c3d 5d5h 9s") == "5h5d"
    assert pick("ddz3", "4d 4s 4h 8s") == "4s4h4d"
    assert pick("ddz3", "BJ RJ 2s") == "2s"  # the jokers are the rocket
    assert pick("ddz4", "BJ BJ RJ 2s2h2c2d") == "BJBJ"
    assert pick("zsy1", "AsAhAc Kd") == "Kd"  # AAA is a bomb in zsy1


def test_lead_only_bombs_left_plays_the_smallest() -> None:
    assert pick("ddz3", "9s9h9c9d 3s3h3c3d BJ RJ") == "3s3h3c3d"
    assert pick("ddz3", "BJ RJ") == "BJRJ"
    assert pick("ddz4", "9s9h9c9d9s9h 3s3h3c3d3s") == "3s3s3h3c"  # fewest cards first
    assert pick("zsy1", "AsAhAc 3s3h3c3d") == "AsAhAc"


def test_follow_lowest_key_rank_then_bombs_then_pass() -> None:
    assert pick("ddz3", "4s 7s 7h 9s", "5d") == "7s"
    assert pick("ddz3", "4s 7s 7h 9s 9h", "5d5h") == "7s7h"
    assert pick("ddz3", "4s 3s3h3c3d 6s6h6c6d BJ RJ", "2d") == "BJ"  # a single is no bomb
    assert pick("ddz3", "4s 3s3h3c3d 6s6h6c6d", "2d") == "3s3h3c3d"
    assert pick("ddz3", "4s 3s3h3c3d BJ RJ", "2d2h") == "3s3h3c3d"
    assert pick("ddz3", "4s BJ RJ", "2d2h") == "BJRJ"
    assert pick("ddz3", "4s 6s", "2d") is None
    assert pick("ddz3", "3s3h3c3d 4s", "5d", no_bombs=True) is None


def test_kickers_from_singles_before_pairs_never_bombs_or_jokers() -> None:
    # triple + single: a single 8 goes before breaking the pair of 5s, the bomb or the joker
    assert pick("ddz3", "9s9h9c 5s5h 8d 4s4h4c4d BJ", "7s7h7c3d") == "8d9s9h9c"
    assert pick("ddz3", "9s9h9c 5s5h 4s4h4c4d BJ", "7s7h7c3d") == "5s9s9h9c"
    assert pick("ddz3", "9s9h9c 4s4h4c4d BJ", "7s7h7c3d") == "4s9s9h9c"  # no other choice
    assert pick("ddz3", "9s9h9c 4s4h4c4d BJ Ks", "7s7h7c3d") == "9s9h9cKs"
    # triple + pair: the lowest triple first, then the pair of 6s before breaking the 9s
    assert pick("ddz3", "9s9h9c 8s8h8c 6d6c", "7s7h7c3d3h") == "6c6d8s8h8c"
    assert pick("ddz3", "9s9h9c 8s8h8c 6d6c", "7s7h7c3d3h") == "6c6d8s8h8c"
    assert pick("ddz3", "9s9h9c 8s8h8c", "7s7h7c3d3h") == "8s8h8c9s9h"


def test_kicker_cost_is_lexicographic() -> None:
    v = variant("ddz3")
    hand = parse_cards("3s3h3c 5s 7s7h")
    by_rank = _by_rank(hand)
    plays = [p for p in legal_plays(v, hand, ()) if p.pattern.reading == "triple_single:3"]
    best = min(plays, key=lambda p: _kicker_cost(v, by_rank, p))
    assert format_cards(best.cards) == "3s3h3c5s"


def test_farmer_never_bombs_his_partner() -> None:
    s = deal("ddz3", ["3s 4s", "6s 5s5h5c5d", "9d 7s"], "Ks")
    s = run(s, "0 b1", "1 p", "2 p", "0 3s", "1 6s", "2 p", "0 Ks")
    assert hint(seat_view(s, 1)) == PlayCards(1, parse_cards("5s5h5c5d"))  # over the landlord: bomb
    s = deal("ddz3", ["3s 4s", "8s 5s5h5c5d", "6d 7s 9s"], "Ks")
    s = run(s, "0 b1", "1 p", "2 p", "0 3s", "1 p", "2 7s", "0 p")
    assert hint(seat_view(s, 1)) == PlayCards(1, parse_cards("8s"))  # a plain play over the partner
    s = run(s, "1 p", "2 9s", "0 p")
    assert hint(seat_view(s, 1)) == Pass(1)  # only a bomb beats the partner's 9: never bomb him


def test_auto_bid() -> None:
    v = variant("ddz3")
    assert auto_bid(v, parse_cards("3s 4s"), 0) == 1
    assert auto_bid(v, parse_cards("2s 4s"), 0) == 2
    assert auto_bid(v, parse_cards("2s 2h BJ"), 0) == 3
    assert auto_bid(v, parse_cards("2s 4s"), 2) == 0
    assert auto_bid(v, parse_cards("3s3h3c3d 2s"), 2) == 3
    s = new_game("ddz3", seed="bid")
    assert isinstance(hint(seat_view(s, s.turn)), Bid | Pass)


def test_hint_is_stable_and_only_for_the_seat_to_move() -> None:
    s = new_game("zsy2", seed="hint")
    first = hint(seat_view(s, s.turn))
    assert all(hint(seat_view(s, s.turn)) == first for _ in range(3))
    assert hint(seat_view(s, (s.turn + 1) % 4)) is None


@pytest.mark.parametrize("name", ["ddz3", "ddz4", "zsy1", "zsy2"])
def test_unit_fast_path_agrees_with_the_generator(name: str) -> None:
    """Following a single, pair or triple: the fast path picks what the generic rule picks."""
    v = variant(name)
    rng = random.Random(name)
    for _ in range(150):
        deck = list(v.deck)
        rng.shuffle(deck)
        hand = deck[: rng.randint(1, 20)]
        for size in (1, 2, 3):
            last_cards = sorted(deck[-30:])
            counts: dict[int, list[int]] = {}
            for c in last_cards:
                counts.setdefault(c // 4 if c < 52 else 13 + (c == 53), []).append(c)
            groups = [g[:size] for g in counts.values() if len(g) >= size]
            if not groups:
                continue
            try:
                last = classify(v, groups[0])
            except Exception:
                continue
            got = choose_play(v, hand, last)
            plain = [p for p in legal_plays(v, hand, last) if not p.pattern.is_bomb]
            if plain:
                want = min(plain, key=lambda p: (p.pattern.order, p.cards))
                assert got is not None and got.cards == want.cards
            elif got is not None:
                assert got.pattern.is_bomb


@pytest.mark.parametrize("name", ["ddz3", "ddz4", "zsy1", "zsy2"])
def test_autoplay_move_is_the_views_move(name: str) -> None:
    """Self-play and timeouts read the move from the state: it is the one the seat's view
    gives, at every turn of random games (bidding, forced bids, leads, follows, ♠3 leads)."""
    rng = random.Random(f"move-{name}")
    for g in range(12):
        s = new_game(name, seed=f"move-{g}")
        while s.turn is not None:
            view = seat_view(s, s.turn)
            assert autoplay_move(s, "timeout") == autoplay_action(view, "timeout")
            s, _ = apply(s, rng.choice(view.legal_actions()))


@pytest.mark.parametrize("name", ["ddz3", "ddz4", "zsy1", "zsy2"])
def test_follow_choice_is_the_one_key_minimum(name: str) -> None:
    """Following a chain, a triple with wings, …: the two-step choice (kicker costs only for
    the ties) is the least play by the whole key of RULES.md §6, as one ``min`` finds it."""
    v = variant(name)
    rng = random.Random(f"follow-{name}")
    checked = 0
    for _ in range(300):
        deck = list(v.deck)
        rng.shuffle(deck)
        hand = deck[: rng.randint(5, 20)]
        leads = [p for p in legal_plays(v, deck[20:40], ()) if p.pattern.kind not in UNITS]
        if not leads:
            continue
        last = rng.choice(leads).pattern
        if last.is_bomb:
            continue
        by_rank = _by_rank(hand)
        plain = [p for p in legal_plays(v, hand, last) if not p.pattern.is_bomb]
        got = choose_play(v, hand, last)
        if not plain:
            assert got is None or got.pattern.is_bomb
            continue
        want = min(
            plain,
            key=lambda p: (
                p.pattern.order,
                p.pattern.size,
                p.pattern.kind is Kind.STRAIGHT_FLUSH,
                _kicker_cost(v, by_rank, p),
                p.cards,
            ),
        )
        assert got == want
        checked += 1
    assert checked > 20


UNITS = (Kind.SINGLE, Kind.PAIR, Kind.TRIPLE)
