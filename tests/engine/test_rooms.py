"""Issue 8 through the rules API: rooms whose games could stall, crash or overflow are refused
(naming the field); every room that is accepted plays to its end with scores in bounds."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from services.engine import rules
from services.engine.rules import Room, VariantError

cards = rules.parse_cards


@pytest.mark.parametrize("name", ["zsy1", "ddz3"])
@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"min_straight": 13}, "min_straight"),
        ({"max_plane": 1}, "max_plane"),
        ({"min_triple_chain": 13}, "min_triple_chain"),
        ({"min_straight": 1}, "min_straight"),
        ({"min_triple_chain": 1}, "min_triple_chain"),
        ({"min_triple_chain": 4, "max_plane": 3}, "max_plane"),
        ({"max_plane": 13}, "max_plane"),
        ({"patterns": []}, "patterns"),
        ({"patterns": ["bomb"]}, "patterns"),
        ({"patterns": ["pair", "straight", "bomb", "rocket"]}, "patterns"),
        ({"max_deals": 0}, "max_deals"),
        ({"max_deals": 10**6}, "max_deals"),
        ({"rocket_factor": 10**18}, "rocket_factor"),
        ({"spring_factor": 0}, "spring_factor"),
        ({"escape_base": -1}, "escape_base"),
        ({"turn_timeout_s": 0}, "turn_timeout_s"),
        ({"bomb_factors": {"4": 10**18}}, "bomb_factors"),
        ({"bomb_factors": {"4": 2, "9": 2}}, "bomb_factors"),
        ({"bomb_factors": [[4, 2], [4, 3]]}, "bomb_factors"),
        ({"bomb_factors": {"4.5": 2}}, "bomb_factors"),
        ({"bomb_factors": [[4.0, 2]]}, "bomb_factors"),
    ],
)
def test_overrides_that_break_a_game_are_refused(
    name: str, changes: dict[str, Any], field: str
) -> None:
    with pytest.raises(VariantError) as err:
        rules.variant(name).override(changes)
    assert err.value.field == field
    # …and by a room, when a game starts.
    with pytest.raises(VariantError) as err:
        rules.new_game(name, Room(overrides=tuple(changes.items())), seed="x")
    assert err.value.field == field


def test_the_blame_goes_to_the_field_the_room_changed() -> None:
    # zsy2's chains use 13 ranks; without the A/2 rule, 12: a minimum of 13 no longer fits.
    with pytest.raises(VariantError) as err:
        rules.variant("zsy2").override({"min_straight": 13, "chain_wraps_ace_two": False})
    assert err.value.field == "min_straight"
    with pytest.raises(VariantError) as err:
        rules.variant("zsy2").override({"min_straight": 13}).override(
            {"chain_wraps_ace_two": False}
        )
    assert err.value.field == "chain_wraps_ace_two"


def test_the_edges_a_room_may_use_are_accepted() -> None:
    v = rules.variant("zsy1").override(
        {"min_straight": 12, "min_triple_chain": 12, "max_plane": 12}
    )
    hand = cards("3s4s5s6s7s8s9sTsJsQsKsAs")
    plays = rules.legal_plays(v, hand)
    assert {len(p.cards) for p in plays} == {1, 12}
    assert rules.variant("zsy2").override({"min_straight": 13}).min_straight == 13
    assert rules.variant("ddz3").override({"patterns": ["single"]}).patterns == {rules.Kind.SINGLE}


def test_chain_limits_that_leave_no_length_list_no_chain() -> None:
    """The generator is total even for a variant no room can make (the IndexError's root)."""
    v = dataclasses.replace(rules.variant("zsy1"), min_straight=13, max_plane=1)
    hand = cards("3s4s5s6s7s8s9sTsJsQsKsAs 3h3c3d4h4c4d")
    plays = rules.legal_plays(v, hand)
    assert plays and all(p.pattern.kind is not rules.Kind.STRAIGHT for p in plays)
    assert all(p.pattern.kind is not rules.Kind.PLANE_TWO for p in plays)
    assert rules.legal_plays(v, hand, last=cards("5h5c")) != ()
