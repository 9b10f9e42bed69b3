"""Legal moves on hand-picked positions: what a player at the table is offered.

The generated properties (test_properties.py) check the generator against brute force; these
examples pin down the contract a caller relies on: one play per distinct set of cards (suits
only for straight flushes), the lowest suits chosen, every reading of a lead listed, passing
never a play, and the follow kinds of RULES.md §3.1.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest

from services import rules
from services.rules import Kind, Play

from . import brute_force, make_golden
from .strategies import cards, rank_key

V = {alias: rules.variant(alias) for alias in ("ddz3", "ddz4", "zsy1", "zsy2")}


def _hand(text: str) -> tuple[rules.Card, ...]:
    suited = any(ch in text for ch in "shcd")
    return rules.parse_cards(text) if suited else cards(text)


def moves(variant: str, hand: str, last: str = "") -> list[str]:
    """The plays as card notation, sorted: the generator's order is not part of the contract."""
    return sorted(str(p) for p in rules.legal_plays(V[variant], _hand(hand), last=_hand(last)))


def rank_moves(variant: str, hand: str, last: str = "") -> list[str]:
    """The plays with suits left out, for games and hands where suits do not matter."""
    return sorted("".join(ch for ch in m if ch not in "shcd") for m in moves(variant, hand, last))


def readings_of(variant: str, hand: str, last: str = "") -> list[str]:
    return [p.pattern.reading for p in rules.legal_plays(V[variant], _hand(hand), _hand(last))]


def test_follow_a_single_with_singles_bombs_and_the_rocket() -> None:
    # The module's doctest, spelled out: 4 once (two 4s in hand), both jokers, the rocket.
    assert moves("ddz3", "3s 4h 4d BJ RJ", "3d") == sorted(["4h", "BJ", "RJ", "BJRJ"])


def test_a_lead_offers_each_rank_once_whatever_the_suits() -> None:
    # 3s 3h 3c 3d: one single, one pair, one triple, one bomb, each with the lowest suits.
    assert moves("ddz3", "3d 3c 3h 3s") == sorted(["3s", "3s3h", "3s3h3c", "3s3h3c3d"])


def test_passing_is_not_a_play() -> None:
    assert moves("ddz3", "3s", "2h") == []
    assert rules.count_plays(V["ddz3"], _hand("3s"), last=_hand("2h")) == 0


def test_nothing_follows_a_rocket() -> None:
    assert moves("ddz3", "3333 2222", "BJ RJ") == []
    assert moves("zsy2", "33333333 BJ", "BJBJRJRJ") == []


def test_every_reading_of_a_lead_is_its_own_play() -> None:
    # 333444555666 may be led as the triple chain or as either plane with single wings.
    hand = "333444555666"
    found = [
        p.pattern.reading for p in rules.legal_plays(V["ddz3"], cards(hand)) if len(p.cards) == 12
    ]
    assert sorted(found) == ["plane_single:5", "plane_single:6", "triple_chain:6"]


def test_a_follow_offers_a_set_of_cards_once_as_the_reading_that_beats() -> None:
    last = rules.classify(V["ddz3"], cards("333444555+789"))  # plane_single:5
    plays = rules.legal_plays(V["ddz3"], cards("333444555666"), last=last)
    # Only the plane 4–6 with the wings 333 beats it: one play, in that reading.
    assert [p.pattern.reading for p in plays] == ["plane_single:6"]


def test_last_may_be_a_play_with_a_named_reading() -> None:
    v = V["ddz3"]
    led = Play(cards("333444555666"), rules.classify(v, cards("333444555666"), "plane_single:5"))
    hand = cards("777888999TTT")
    as_plane = [p.pattern.reading for p in rules.legal_plays(v, hand, last=led)]
    as_chain = [p.pattern.reading for p in rules.legal_plays(v, hand, last=cards("333444555666"))]
    # Against the plane 3–5 (+666) the hand answers as the plane 8–T with the wings 777 (its
    # other plane reading 7–9 + TTT is the same cards: offered once, as the higher reading);
    # against the default reading of the same cards, the triple chain 3–6, as the chain 7–T.
    assert as_plane == ["plane_single:T"]
    assert as_chain == ["triple_chain:T"]


def test_follow_must_match_kind_and_size() -> None:
    # A straight of 5 is answered only by higher straights of 5, never 6.
    assert rank_moves("ddz3", "3456789", "34567") == sorted(["45678", "56789"])
    # A pair chain of 3 pairs by pair chains of 3 pairs.
    assert rank_moves("ddz3", "33445566", "334455") == ["445566"]
    # A triple with a single by the same; the kicker is any other card, not compared.
    assert moves("ddz3", "444 5 6", "333 2") == sorted(["4s4h4c5h", "4s4h4c6c"])


def test_kickers_never_split_a_bomb_or_the_rocket() -> None:
    plays = rules.legal_plays(V["ddz3"], cards("333 4444 BJ RJ"))
    by_kind: dict[str, list[str]] = {}
    for p in plays:
        by_kind.setdefault(p.pattern.kind.value, []).append(str(p))
    # 333 + one card of each other rank; never a 4th 3 (that would be the bomb 3333).
    assert sorted(by_kind["triple_single"]) == [
        "3s3h3c4s",
        "3s3h3cBJ",
        "3s3h3cRJ",
        "3s4s4h4c",
        "4s4h4cBJ",
        "4s4h4cRJ",
    ]
    # 4444 + two cards: 3 and 33 and one joker, never BJ and RJ together (the rocket).
    assert sorted(by_kind["four_two"]) == ["3s3h4s4h4c4d", "3s4s4h4c4dBJ", "3s4s4h4c4dRJ"]
    assert by_kind["bomb"] == ["4s4h4c4d"] and by_kind["rocket"] == ["BJRJ"]


@pytest.mark.parametrize("variant", ["ddz4", "zsy2"])
def test_pair_wings_never_split_the_heavenly_bomb(variant: str) -> None:
    # 333444 + BJBJ + RJRJ would be a plane with pair wings, but the four jokers are the
    # heavenly bomb (RULES.md §3: no bomb or rocket is split up as kickers).
    plays = rules.legal_plays(V[variant], cards("333444 BJBJ RJRJ"))
    assert [str(p) for p in plays if len(p.cards) == 10] == []
    planes = [str(p) for p in plays if p.pattern.kind is Kind.PLANE_PAIR]
    assert planes == []  # no other pair wings in this hand
    # With one more pair, each joker pair may be a wing, just not both.
    plays = rules.legal_plays(V[variant], cards("333444 55 BJBJ RJRJ"))
    wings = [str(p).removeprefix("3s3h3c4h4c4d") for p in plays if len(p.cards) == 10]
    assert sorted(wings) == ["5c5dBJBJ", "5c5dRJRJ"]


def test_zsy1_kickers_never_hold_three_aces() -> None:
    # AAA is a bomb in zsy1, so it is never split up as wings of a plane: of A A A 5 6 only
    # A A 5 6 may be the four wings of 333444.
    plays = rules.legal_plays(V["zsy1"], cards("333444 AAA 56"))
    planes = [rank_key(p.cards) for p in plays if p.pattern.kind is Kind.PLANE_TWO]
    assert planes == [rank_key(cards("333444 AA 56"))]


def test_an_equal_bomb_does_not_beat() -> None:
    # Two decks: both players may hold 3333.  Only a bigger bomb (or the rocket) answers.
    assert rank_moves("ddz4", "33333", "3333") == ["33333"]
    assert moves("zsy2", "3333 4444", "4444") == []
    bomb = rules.classify(V["ddz3"], cards("7777"))
    assert [str(p) for p in rules.legal_plays(V["ddz3"], cards("7777 8888"), last=bomb)] == [
        "8s8h8c8d"
    ]


def test_zsy1_three_aces_alone_are_only_the_bomb() -> None:
    readings = readings_of("zsy1", "AAA KKK")
    assert "bomb:A" in readings and "triple:A" not in readings
    assert "triple:K" in readings and "triple_chain:A" in readings
    assert "triple_single:A" in readings and "triple_two:A" in readings
    # Against a triple, the aces answer as the bomb.
    assert readings_of("zsy1", "AAA", "KKK") == ["bomb:A"]


def test_two_deck_bombs_of_every_size_are_offered() -> None:
    hand = "33333333"
    bombs = [r for r in readings_of("ddz4", hand) if r.startswith("bomb")]
    assert bombs == ["bomb:3"] * 5  # sizes 4, 5, 6, 7, 8
    sizes = [len(p.cards) for p in rules.legal_plays(V["ddz4"], cards(hand)) if p.pattern.is_bomb]
    assert sorted(sizes) == [4, 5, 6, 7, 8]
    # Against a 6-card bomb of 2s only the 7- and 8-card bombs answer.
    answers = rules.legal_plays(V["ddz4"], cards(hand), last=cards("222222"))
    assert sorted(len(p.cards) for p in answers) == [7, 8]


def test_jokers_in_two_deck_games() -> None:
    readings = readings_of("zsy2", "BJ BJ RJ RJ")
    assert readings.count("pair:BJ") == 1 and readings.count("pair:RJ") == 1
    assert "rocket:RJ" in readings
    assert moves("zsy2", "BJ BJ RJ RJ", "22") == sorted(["BJBJ", "RJRJ", "BJBJRJRJ"])


# ------------------------------------------------------------------------- straight flushes


def test_a_straight_offered_plain_and_as_a_flush() -> None:
    assert moves("zsy1", "3s4s5s6s7s7h") == sorted(
        [
            "3s",
            "4s",
            "5s",
            "6s",
            "7s",
            "7s7h",
            "3s4s5s6s7h",  # a plain straight: one card of another suit
            "3s4s5s6s7s",  # the straight flush
        ]
    )


def test_a_hand_of_one_suit_only_has_the_flush() -> None:
    plays = rules.legal_plays(V["zsy1"], rules.parse_cards("3s4s5s6s7s"))
    five = [p for p in plays if len(p.cards) == 5]
    assert [p.pattern.kind for p in five] == [Kind.STRAIGHT_FLUSH]


def test_flushes_of_two_suits_are_two_plays() -> None:
    five = [
        str(p)
        for p in rules.legal_plays(V["zsy1"], rules.parse_cards("3s4s5s6s7s 3h4h5h6h7h"))
        if p.pattern.kind is Kind.STRAIGHT_FLUSH
    ]
    assert sorted(five) == sorted(["3s4s5s6s7s", "3h4h5h6h7h"])


def test_a_flush_follows_a_higher_plain_straight() -> None:
    # 同花色的34567比雜色的56789大: the flush 3–7 answers a plain 5–9, the plain 3–7 does not.
    assert moves("zsy1", "3s4s5s6s7s7h", "5h6c7d8s9h") == ["3s4s5s6s7s"]
    # A flush is answered only by a higher flush (or a bomb), never by a plain straight.
    assert moves("zsy1", "4h5c6d7c8d 4s5s6s7s8s", "3h4h5h6h7h") == ["4s5s6s7s8s"]
    assert moves("zsy1", "4h5c6d7c8d 9s", "3h4h5h6h7h") == []


# ------------------------------------------------------------------------- golden counts
# tests/rules/golden/move_counts.json, written by make_golden.py (which checks the counts by
# brute force before writing): a change in what the generator offers shows here.


def _golden() -> list[dict[str, Any]]:
    data = json.loads(make_golden.GOLDEN.read_text(encoding="utf-8"))
    assert data["rules_version"] == rules.RULES_VERSION, "rules changed: regenerate the file"
    positions: list[dict[str, Any]] = data["positions"]
    return positions


GOLDEN = _golden()


def test_golden_file_covers_every_variant() -> None:
    per_variant = Counter(p["variant"] for p in GOLDEN)
    assert per_variant == {name: make_golden.PER_VARIANT for name in rules.VARIANTS}
    assert {p["kind"] for p in GOLDEN} == {"deal", "landlord", "small"}


@pytest.mark.parametrize(
    "position",
    [pytest.param(p, id=f"{p['variant']}-{p['kind']}-{i}") for i, p in enumerate(GOLDEN)],
)
def test_golden_move_count(position: dict[str, Any]) -> None:
    assert make_golden.count(position) == position["count"]


@pytest.mark.parametrize(
    "position",
    [
        pytest.param(p, id=f"{p['variant']}-{i}")
        for i, p in enumerate(GOLDEN)
        if p["kind"] == "small" and len(rules.parse_cards(p["hand"])) <= 9
    ],
)
def test_small_golden_counts_are_right_by_brute_force(position: dict[str, Any]) -> None:
    # Not just self-consistent: the committed number is what every subset of the hand gives.
    v = rules.variant(position["variant"])
    last = make_golden.last_pattern(v, position)
    hand = rules.parse_cards(position["hand"])
    assert len(brute_force.by_subsets(v, hand, last)) == position["count"]


def test_move_ids_name_the_plays_of_legal_plays_in_order() -> None:
    v = V["ddz3"]
    hand = rules.parse_cards("3s 3h 4d BJ RJ")
    ids = rules.legal_ids(v, hand, rules.parse_cards("3d"))
    assert [str(rules.play_from_id(v, i)) for i in ids] == ["4d", "BJ", "RJ", "BJRJ"]
    assert rules.legal_ids(v, hand, rules.parse_cards("BJ RJ")) == rules.legal_ids(v, ())


def test_a_move_id_holds_the_cards_and_the_pattern() -> None:
    # One bit per card id in a one-deck game (Card ids 0..53), the pattern's number above:
    # the same cards read two ways are two ids, the same reading of other suits too.
    v = V["ddz3"]
    lead = rules.legal_plays(v, rules.parse_cards("3s 3h 3c 4s 4h 4c 5s 6s"))
    ids = rules.legal_ids(v, rules.parse_cards("3s 3h 3c 4s 4h 4c 5s 6s"))
    for play, move_id in zip(lead, ids, strict=True):
        assert move_id & ((1 << 54) - 1) == sum(1 << c for c in play.cards)
    spades = rules.legal_ids(v, rules.parse_cards("3s"))[0]
    hearts = rules.legal_ids(v, rules.parse_cards("3h"))[0]
    assert spades != hearts and spades >> 54 == hearts >> 54
    assert len(ids) == len(set(ids)) == len(lead)


@pytest.mark.parametrize("variant", ["ddz4", "zsy2"])
def test_two_deck_ids_count_both_copies_of_a_card(variant: str) -> None:
    v = V[variant]
    hand = rules.parse_cards("3s 3s 3h 3h 4c")
    plays = rules.legal_plays(v, hand)
    ids = rules.legal_ids(v, hand)
    assert isinstance(ids, tuple) and max(ids) >= 1 << 64  # 108 card bits: ints, no array
    assert [rules.play_from_id(v, i) for i in ids] == list(plays)
    pair = next(i for i, p in zip(ids, plays, strict=True) if str(p) == "3s3s")
    assert pair & 0b11 == 2  # two copies of card 0 (3s) in its 2-bit field


def test_one_deck_ids_come_in_one_array() -> None:
    ids = rules.legal_ids(V["zsy1"], rules.parse_cards("3s 4s 5s 6s 7s"))
    assert ids.typecode == "Q"  # type: ignore[attr-defined]
    assert all(type(i) is int for i in ids)


def test_an_int_that_is_no_move_id_is_refused() -> None:
    v = V["ddz3"]
    single = rules.legal_ids(v, rules.parse_cards("3s"))[0]
    for bad in (-1, 0, single | 0b10, 1 << 200, single ^ 1 | 1 << 53):
        with pytest.raises(rules.RulesError):
            rules.play_from_id(v, bad)
