"""Issue 8 through the rules API: rooms whose games could stall, crash or overflow are refused
(naming the field); every room that is accepted plays to its end with scores in bounds."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from services import rules
from services.rules import Room, VariantError

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


# ------------------------------------------------------------------ rules version 2 (§5.3)
FIXTURE = Path(__file__).parent / "fixtures" / "zsy_v1_stake5.json"
V1_GAMES = json.loads(FIXTURE.read_text(encoding="utf-8"))["games"]


@pytest.mark.parametrize("game", V1_GAMES, ids=lambda g: g["settlement"]["status"])
def test_version_1_zsy_records_settle_exactly_as_version_1_did(game: dict[str, Any]) -> None:
    record = game["record"]
    assert record["rules_version"] == 1 and record["room"]["stake"] == 5
    state = rules.replay(record)
    assert state.rules_version == 1
    assert state.settlement.to_dict() == game["settlement"]
    # The record it writes, and the state's sealed form, keep the version.
    assert rules.write_record(state)["rules_version"] == 1
    again = rules.GameState.from_dict(json.loads(json.dumps(state.to_dict())))
    assert again.rules_version == 1 and again.settlement == state.settlement


@pytest.mark.parametrize("game", V1_GAMES, ids=lambda g: g["settlement"]["status"])
def test_version_2_multiplies_zsy_scores_by_the_stake(game: dict[str, Any]) -> None:
    v2 = rules.replay({**game["record"], "rules_version": 2})
    assert v2.rules_version == 2
    assert list(v2.settlement.scores) == [5 * s for s in game["settlement"]["scores"]]
    assert "stake 5" in " ".join(step.how for step in v2.settlement.steps)
    # A record without a version is of the current one.
    bare = {k: v for k, v in game["record"].items() if k != "rules_version"}
    assert rules.replay(bare).settlement == v2.settlement


def test_a_version_1_state_plays_on_by_version_1_after_its_token_round_trip() -> None:
    record = V1_GAMES[0]["record"]
    start = rules.new_game(
        record["variant"], Room(stake=5), seed=record["deal"]["seed"], rules_version=1
    )
    state = start
    for action in rules.load_record(record).actions:
        state = rules.GameState.from_dict(json.loads(json.dumps(state.to_dict())))
        assert state.rules_version == 1
        state, _ = rules.apply(state, action)
    assert list(state.settlement.scores) == V1_GAMES[0]["settlement"]["scores"]
    assert rules.new_game("zsy1", Room(stake=5), seed="x").rules_version == rules.RULES_VERSION


def test_unknown_rules_versions_are_refused() -> None:
    for version in (0, 3, True, "2", None):
        with pytest.raises(rules.RecordError) as err:
            rules.load_record({"variant": "zsy1", "rules_version": version, "deal": {"seed": "x"}})
        assert err.value.field == "rules_version"
    with pytest.raises(VariantError):
        rules.new_game("zsy1", seed="x", rules_version=3)


def test_the_documented_stake_bounds_are_the_derived_ones() -> None:
    """README's room section and room.py's docstring state these; each is MAX_SCORE over the
    variant's worst settlement at stake 1."""
    documented = {
        "doudizhu3": 5_086_263_020,  # 10^15 // (2 × 3 × 2^13 bombs × 2 rocket × 2 spring)
        "doudizhu4": 3_871_762,  # 10^15 // (3 × 3 × 3^13 × 3 rocket × 3 shown × 2 spring)
        "zhengshangyou1": 6_410_256_410_256,  # 10^15 // (3 losers × 13 × 4)
        "zhengshangyou2": 3_086_419_753_086,  # 10^15 // (3 × 27 × 4)
    }
    for name, top in documented.items():
        assert rules.max_stake(rules.VARIANTS[name], Room()) == top
        assert rules.new_game(name, Room(stake=top), seed="x").room.stake == top
        with pytest.raises(VariantError) as err:
            rules.new_game(name, Room(stake=top + 1), seed="x")
        assert err.value.field == "stake"
    # A Zheng Shangyou game of version 1 ignores the stake: only the room's own bound holds.
    assert rules.max_stake(rules.VARIANTS["zhengshangyou1"], Room(), 1) == rules.MAX_SCORE
    # A capped multiplier raises the stake a room allows: 3 × bid 3 × 8, and the escape's
    # 3 × escape_base 3 × 8.
    capped = Room(max_multiplier=8)
    assert rules.max_stake(rules.VARIANTS["doudizhu4"], capped) == 10**15 // 72


def test_straight_flushes_need_straights() -> None:
    """Found by the room property test: with straight flushes but no straights the generator
    listed 3c4c (min_straight 2) and the classifier refused it, so a room must allow both."""
    room = Room.from_dict({"min_straight": 2, "patterns": ["single", "straight_flush"]})
    with pytest.raises(VariantError) as info:
        room.variant_for("doudizhu3")
    assert info.value.field == "patterns" and "straight_flush" in str(info.value)
    ok = Room.from_dict({"patterns": ["single", "straight", "straight_flush"], "min_straight": 2})
    v = ok.variant_for("doudizhu3")
    plays = rules.legal_plays(v, rules.parse_cards("3c 4c 9d"), ())
    assert all(rules.classify(v, p.cards).kind is p.pattern.kind for p in plays)


def test_timers_are_table_settings_and_share_the_variant() -> None:
    plain = Room()
    timed = Room.from_dict({"turn_timeout_s": 12, "disconnect_grace_s": 0})
    assert timed.timers == rules.TableSettings(turn_timeout_s=12, disconnect_grace_s=0)
    assert plain.timers == rules.TableSettings()
    assert timed.variant_for("doudizhu3") is plain.variant_for("doudizhu3")
    assert Room.from_dict(timed.to_dict()) == timed
    with pytest.raises(VariantError) as info:
        rules.variant("ddz3").override({"turn_timeout_s": 12})
    assert "table setting" in str(info.value)


def test_the_skill_window_is_a_table_setting_with_ranges() -> None:
    plain = Room()
    assert plain.skill == rules.SkillSettings(
        skill_narrow_mu=2, skill_wide_mu=10, skill_anyone_s=30
    )
    set_ = Room.from_dict({"skill_narrow_mu": 0, "skill_wide_mu": 4, "turn_timeout_s": 12})
    assert set_.skill == rules.SkillSettings(skill_narrow_mu=0, skill_wide_mu=4)
    assert set_.timers == rules.TableSettings(turn_timeout_s=12)
    assert set_.variant_for("doudizhu3") is plain.variant_for("doudizhu3")
    assert Room.from_dict(set_.to_dict()) == set_
    # A room that sets none keeps none in its JSON (its records stay as they were).
    assert plain.to_dict() == Room.from_dict({}).to_dict()
    assert not any(k.startswith("skill_") for k in plain.to_dict())
    for bad, field in [
        ({"skill_narrow_mu": -1}, "skill_narrow_mu"),
        ({"skill_wide_mu": 1001}, "skill_wide_mu"),
        ({"skill_wide_mu": 2.5}, "skill_wide_mu"),
        ({"skill_anyone_s": True}, "skill_anyone_s"),
        ({"skill_anyone_s": 86_401}, "skill_anyone_s"),
        ({"skill_wide_mu": 1}, "skill_wide_mu"),  # below the default narrow 2
        ({"skill_narrow_mu": 11}, "skill_narrow_mu"),  # above the default wide 10
        ({"skill_narrow_mu": 5, "skill_wide_mu": 4}, "skill_wide_mu"),
    ]:
        with pytest.raises(VariantError) as info:
            Room.from_dict(bad)
        assert info.value.field == field, bad
        assert field in str(info.value)


def test_scoring_overrides_share_the_move_tables() -> None:
    """A room that changes only factors gets a new variant but the same tables: the
    classifier's memo and the generator's tables are keyed by what decides patterns."""
    base = rules.variant("doudizhu3")
    scored = Room.from_dict({"spring_factor": 3, "rocket_factor": 4}).variant_for("doudizhu3")
    assert scored is not base and scored.pattern_key == base.pattern_key
    assert scored.readings_memo is base.readings_memo
    hand = rules.parse_cards("3s 3h 4s 4h 5s 5h BJ RJ")
    assert rules.legal_plays(scored, hand, ()) == rules.legal_plays(base, hand, ())
    from services.rules import moves

    assert moves._tables(scored) is moves._tables(base)


def test_exports_written_before_the_shape_change_still_settle() -> None:
    """The same fixture through the rules: each record loads and settles to its result."""
    old = json.loads(
        (Path(__file__).parent / "fixtures/exports_before_table_settings.json").read_text()
    )
    for rec in old:
        state = rules.replay(rec)
        assert state.rules_version == 1 and state.room.timers.turn_timeout_s == 20
        assert state.settlement is not None and state.settlement.to_dict() == rec["result"]
