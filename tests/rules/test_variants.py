"""The four games as data (RULES.md §2) and a room's overrides of the "choice" fields."""

from __future__ import annotations

from typing import Any

import pytest

from services import rules
from services.rules import Kind, Variant, VariantError

from .strategies import cards


@pytest.mark.parametrize(
    ("name", "full"),
    [
        ("doudizhu3", "doudizhu3"),
        ("ddz3", "doudizhu3"),
        ("doudizhu4", "doudizhu4"),
        ("ddz4", "doudizhu4"),
        ("zhengshangyou1", "zhengshangyou1"),
        ("zsy1", "zhengshangyou1"),
        ("zhengshangyou2", "zhengshangyou2"),
        ("zsy2", "zhengshangyou2"),
        (" DDZ3 ", "doudizhu3"),  # what a user types
    ],
)
def test_variant_is_found_by_name_or_alias(name: str, full: str) -> None:
    assert rules.variant(name).name == full
    assert rules.variant(name) is rules.VARIANTS[full]


@pytest.mark.parametrize("name", ["", "doudizhu5", "chess", "ddz"])
def test_unknown_variant_is_an_error_listing_the_known_ones(name: str) -> None:
    with pytest.raises(VariantError) as err:
        rules.variant(name)
    assert repr(name) in str(err.value)
    assert "doudizhu3" in str(err.value) and "zhengshangyou2" in str(err.value)


# RULES.md §2: players, deck, hand and bottom sizes, who opens
TABLE = [
    # name, players, deck size, jokers, hand, bottom, bottom public, bidding, opener
    ("doudizhu3", 3, 54, True, 17, 3, True, True, "landlord"),
    ("doudizhu4", 4, 108, True, 25, 8, False, True, "landlord"),
    ("zhengshangyou1", 4, 52, False, 13, 0, False, False, "spade_three"),
    ("zhengshangyou2", 4, 108, True, 27, 0, False, False, "spade_three"),
]


@pytest.mark.parametrize(
    ("name", "players", "deck", "jokers", "hand", "bottom", "public", "bidding", "opener"),
    TABLE,
)
def test_the_table_of_section_2(
    name: str,
    players: int,
    deck: int,
    jokers: bool,
    hand: int,
    bottom: int,
    public: bool,
    bidding: bool,
    opener: str,
) -> None:
    v = rules.variant(name)
    assert (v.players, len(v.deck), v.jokers, v.hand_size, v.bottom_size) == (
        players,
        deck,
        jokers,
        hand,
        bottom,
    )
    # Every card is dealt: the hands and the bottom are the whole deck.
    assert v.players * v.hand_size + v.bottom_size == len(v.deck)
    if bottom:
        assert v.bottom_public is public
    assert (v.bidding, v.opener) == (bidding, opener)


@pytest.mark.parametrize("name", list(rules.VARIANTS))
def test_the_deck_holds_each_card_once_per_deck(name: str) -> None:
    v = rules.variant(name)
    for card in range(54):
        expected = v.decks if card < 52 or v.jokers else 0
        assert v.deck.count(card) == expected


def test_chain_minimums() -> None:
    # RULES.md §3: pair chains of 3 pairs in Dou Dizhu, 2 in Zheng Shangyou; straights of 5.
    assert [rules.variant(n).min_pair_chain for n in rules.VARIANTS] == [3, 3, 2, 2]
    assert {rules.variant(n).min_straight for n in rules.VARIANTS} == {5}
    assert {rules.variant(n).min_triple_chain for n in rules.VARIANTS} == {2}


def test_variants_are_frozen_values() -> None:
    v = rules.variant("ddz3")
    with pytest.raises(AttributeError):
        v.players = 4  # type: ignore[misc]
    assert v.override({}) is v


# ---------------------------------------------------------------------------- overrides


@pytest.mark.parametrize(
    ("name", "changes"),
    [
        ("zsy1", {"aaa_bomb_highest": True}),
        ("ddz3", {"bid_three_ends_bidding": False}),
        ("ddz3", {"max_deals": 5}),
        ("ddz4", {"forced_bid": False, "max_deals": 4}),
        ("ddz3", {"min_straight": 6}),
    ],
)
def test_a_choice_field_may_be_overridden(name: str, changes: dict[str, Any]) -> None:
    base = rules.variant(name)
    v = base.override(changes)
    for key, value in changes.items():
        assert getattr(v, key) == value
    # the game's own value is left alone
    assert base is rules.variant(name) and all(
        getattr(base, k) != val for k, val in changes.items()
    )


def test_min_straight_override_changes_what_is_a_straight() -> None:
    v = rules.variant("ddz3").override({"min_straight": 6})
    with pytest.raises(rules.NotAPattern):
        rules.classify(v, cards("34567"))
    assert rules.classify(v, cards("345678")).reading == "straight:8"
    assert all(len(p.cards) != 5 for p in rules.legal_plays(v, cards("34567")))


def test_patterns_override_takes_kind_names() -> None:
    v = rules.variant("ddz4").override(
        {"patterns": [*sorted(rules.variant("ddz4").patterns), "four_two"]}
    )
    assert Kind.FOUR_TWO in v.patterns
    assert rules.classify(v, cards("3333+47")).reading == "four_two:3"


def test_bomb_factors_override_accepts_a_mapping() -> None:
    v = rules.variant("ddz4").override({"bomb_factors": {"4": 1, "8": 4}})
    assert v.bomb_factors == ((4, 1), (8, 4))


def test_aaa_bomb_highest_changes_the_order_of_bombs() -> None:
    default = rules.variant("zsy1")
    high = default.override({"aaa_bomb_highest": True})
    aaa, twos = cards("AAA"), cards("2222")
    assert rules.beats(rules.classify(default, twos), rules.classify(default, aaa))
    assert rules.beats(rules.classify(high, aaa), rules.classify(high, twos))
    # …and so what the generator offers against 2222.
    assert [str(p) for p in rules.legal_plays(high, aaa, last=twos)] == ["AsAhAc"]
    assert rules.legal_plays(default, aaa, last=twos) == ()


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"no_such_field": 1}, "no_such_field"),  # unknown
        ({"players": 5}, "players"),  # fixed by the game
        ({"decks": 1}, "decks"),
        ({"name": "x"}, "name"),
        ({"aaa_bomb_highest": 1}, "aaa_bomb_highest"),  # wrong type: an int for a bool
        ({"aaa_bomb_highest": "yes"}, "aaa_bomb_highest"),
        ({"max_deals": "3"}, "max_deals"),  # a string for an int
        ({"max_deals": True}, "max_deals"),  # a bool is not a number here
        ({"max_deals": -1}, "max_deals"),
        ({"turn_timeout_s": 1.5}, "turn_timeout_s"),
        ({"patterns": "single pair"}, "patterns"),  # a string, not a list
        ({"patterns": ["single", "quintuple"]}, "patterns"),
        ({"bomb_factors": {"four": 2}}, "bomb_factors"),
        ({"bomb_factors": {2: 2}}, "bomb_factors"),
        ({"max_deals": 4, "players": 5}, "players"),  # one bad field spoils the lot
    ],
)
def test_a_bad_override_is_refused_naming_the_field(changes: dict[str, Any], field: str) -> None:
    with pytest.raises(VariantError) as err:
        rules.variant("zsy1").override(changes)
    assert err.value.field == field
    assert repr(field) in str(err.value)


def test_choices_lists_every_overridable_field_as_json() -> None:
    import json

    v: Variant = rules.variant("ddz4")
    choices = v.choices()
    assert "aaa_bomb_highest" in choices and "players" not in choices
    json.dumps(choices)  # JSON-friendly
    json.dumps(v.describe())
    # Every listed choice can be set back to its own value.
    assert v.override(choices) == v


def test_a_room_may_switch_the_ace_two_chain_rule() -> None:
    # RULES.md §3.2 is a choice of zhengshangyou2 only; zsy1 keeps 3..A chains by default.
    a2345 = rules.parse_cards("As 2s 3h 4s 5s")
    with pytest.raises(rules.NotAPattern):
        rules.classify(rules.variant("zsy1"), a2345)
    wrapped = rules.variant("zsy1").override({"chain_wraps_ace_two": True})
    assert rules.classify(wrapped, a2345).reading == "straight:5"


def test_a_room_may_require_low_runs_to_reach_four() -> None:
    # The choice of §3.2: 2233 and 222333 read in the low order, though the seed names only
    # runs reaching 3 and 4.  Switched off, they are no chain; AA223344 still is.
    v = rules.variant("zsy2")
    assert rules.classify(v, rules.parse_cards("2s 2h 3s 3h")).reading == "pair_chain:3"
    strict = v.override({"low_runs_may_end_at_three": False})
    with pytest.raises(rules.NotAPattern):
        rules.classify(strict, rules.parse_cards("2s 2h 3s 3h"))
    with pytest.raises(rules.NotAPattern):
        rules.classify(strict, rules.parse_cards("2s 2h 2c 3s 3h 3c"))
    assert rules.classify(strict, rules.parse_cards("As Ah 2s 2h 3s 3h 4s 4h")).low
