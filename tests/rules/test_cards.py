"""Cards and their notation (RULES.md §1) and hand sorting (RULES.md §6)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from services import rules
from services.rules import Card, CardParseError, format_cards, parse_cards
from services.rules import cards as cards_module

RANKS = list("3456789TJQKA2")


@pytest.mark.parametrize(
    "text",
    [
        "3s 3h 4d",  # spaced
        "3s3h4d",  # run together
        "3s3h 4d",  # both
        "3S 3H 4D",  # suit letters in either case
        "3s\t3h\n4d",  # any whitespace
        "  3s3h4d  ",
    ],
)
def test_spaced_run_together_and_mixed_notation_agree(text: str) -> None:
    assert format_cards(parse_cards(text), " ") == "3s 3h 4d"


def test_ten_is_an_alias_of_t() -> None:
    assert parse_cards("10h") == parse_cards("Th")
    assert parse_cards("10s10h") == parse_cards("TsTh")
    assert format_cards(parse_cards("9c 10d Jd")) == "9cTdJd"


def test_jokers_and_case() -> None:
    assert parse_cards("BJ RJ") == parse_cards("bjrj") == (rules.CARDS[52], rules.CARDS[53])
    assert parse_cards("ah") == parse_cards("Ah")  # rank letters too


def test_every_card_has_a_name_that_round_trips() -> None:
    names = [f"{r}{s}" for r in RANKS for s in "shcd"] + ["BJ", "RJ"]
    assert len(set(names)) == 54
    for name in names:
        card = Card.parse(name)
        assert str(card) == name
        assert eval(repr(card), {"Card": Card}) == card  # the repr pastes back


def test_ranks_order_low_to_high() -> None:
    # 3 < 4 < … < A < 2 < BJ < RJ, and a card knows its rank and suit.
    order = [Card.parse(f"{r}s").rank for r in RANKS] + [Card.parse("BJ").rank]
    order.append(Card.parse("RJ").rank)
    assert order == sorted(order) == list(range(15))
    assert Card.parse("Qd").suit == 3
    assert Card.parse("RJ").suit is None and Card.parse("RJ").is_joker


def test_empty_text_is_no_cards() -> None:
    assert parse_cards("") == ()
    assert parse_cards("   ") == ()
    assert format_cards(()) == ""


def test_a_multiset_keeps_repeats_and_order() -> None:
    # Two-deck hands hold two copies of a card; parsing keeps both, in the order given.
    assert parse_cards("4d 3s 3s") == (Card.parse("4d"), Card.parse("3s"), Card.parse("3s"))


@pytest.mark.parametrize(
    ("text", "token", "position"),
    [
        ("3s 3x 4d", "3x", 3),
        ("3s 1s", "1s", 3),
        ("Xs", "Xs", 0),
        ("3s 3h 4", "4", 6),
        ("3s,3h 11h", "11h", 6),
        ("3s BK", "BK", 3),
        ("3s3h3z4d", "3z4d", 4),  # run together: the token runs to the next space
    ],
)
def test_parse_error_names_the_bad_token_and_position(text: str, token: str, position: int) -> None:
    with pytest.raises(CardParseError) as err:
        parse_cards(text)
    assert err.value.token == token
    assert err.value.position == position
    assert repr(token) in str(err.value) and str(position) in str(err.value)


def test_card_parse_takes_exactly_one_card() -> None:
    with pytest.raises(CardParseError):
        Card.parse("3s3h")
    with pytest.raises(CardParseError):
        Card.parse("")


card_lists = st.lists(st.sampled_from(rules.CARDS), max_size=40)


@settings(max_examples=200, deadline=None)
@given(card_lists, st.sampled_from(["", " ", ", "]))
def test_parse_after_format_is_identity(cards: list[Card], sep: str) -> None:
    assert parse_cards(format_cards(cards, sep)) == tuple(cards)


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="3456789TtJjQqKkAa210SsHhCcDdBbRr ,", max_size=24))
def test_the_fast_reading_of_run_together_names_agrees_with_the_general_one(text: str) -> None:
    # parse_cards reads format_cards' form two characters at a time; whatever it accepts so
    # must read the same as the general reading, and whatever that refuses it refuses too.
    try:
        general: tuple[Card, ...] | str = cards_module._parse_spelled(text)
    except CardParseError as exc:
        general = str(exc)
    try:
        fast: tuple[Card, ...] | str = parse_cards(text)
    except CardParseError as exc:
        fast = str(exc)
    assert fast == general


@settings(max_examples=100, deadline=None)
@given(card_lists)
def test_format_after_parse_normalises_to_the_same_text(cards: list[Card]) -> None:
    # Lower-case ranks, upper-case suits, '10' and spacing all normalise to one text.
    messy = " ".join(str(c).swapcase().replace("t", "10").replace("T", "10") for c in cards)
    assert format_cards(parse_cards(messy)) == format_cards(cards)


# ------------------------------------------------------------------------------- sorting


def test_sort_by_rank_is_by_rank_then_suit_s_h_c_d() -> None:
    hand = parse_cards("2s RJ 3d 3s Ah BJ 3h")
    assert format_cards(rules.sort_by_rank(hand), " ") == "3s 3h 3d Ah 2s BJ RJ"


def test_sort_by_count_singles_then_pairs_then_triples_then_bombs() -> None:
    # 数目排序 (seed 001 §4, RULES.md §6): groups by count, each group low to high by rank.
    hand = parse_cards("9s 9h 9c 9d  4s 4h 4c  Kd Ks  5c 5s 5h  2d  3s  Ah Ad  RJ  BJ")
    expected = "3s 2d BJ RJ  Ks Kd Ah Ad  4s 4h 4c 5s 5h 5c  9s 9h 9c 9d"
    assert format_cards(rules.sort_by_count(hand), " ") == " ".join(expected.split())


def test_sort_by_count_in_a_two_deck_game_keeps_copies_together() -> None:
    hand = parse_cards("7s 3s 7s 3h 7h 4d")
    assert format_cards(rules.sort_by_count(hand), " ") == "4d 3s 3h 7s 7s 7h"


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(rules.CARDS), unique=True, max_size=30))
def test_sorting_only_reorders(cards: list[Card]) -> None:
    assert sorted(rules.sort_by_count(cards)) == sorted(cards)
    assert list(rules.sort_by_rank(cards)) == sorted(cards)
    counts = rules.rank_counts(cards)
    # By count: the number of cards of each card's rank never decreases along the hand.
    along = [counts[c.rank] for c in rules.sort_by_count(cards)]
    assert along == sorted(along)


def test_sort_by_count_keeps_two_deck_bombs_in_one_group_by_rank() -> None:
    # RULES.md §6: singles, pairs, triples, then bombs — a bomb of five 3s still comes before
    # a bomb of four 9s, because within a group cards go by rank.
    hand = parse_cards("9s 9h 9c 9d 3s 3s 3h 3c 3d 5s")
    assert format_cards(rules.sort_by_count(hand)) == "5s3s3s3h3c3d9s9h9c9d"
