"""Worked examples for every row and factor of RULES.md §5, on short explicit deals."""

from __future__ import annotations

import pytest

from services.rules import Room, format_cards, parse_cards, title_for, variant
from services.rules.deal import deal_from_seed
from services.rules.scoring import zsy_base

from .gamekit import deal, run


def factors(state) -> list[tuple[str, int]]:  # type: ignore[no-untyped-def]
    return [(f.name, f.value) for f in state.settlement.factors]


# ---------------------------------------------------------------- doudizhu3
def test_ddz3_landlord_wins_base_is_stake_times_bid() -> None:
    s = deal("ddz3", ["3s", "5s 6s", "7s 8s"], "2s 2h")
    s = run(s, "0 b2", "1 p", "2 p", "0 3s", "1 5s", "2 7s", "0 2s", "1 p", "2 p", "0 2h")
    st = s.settlement
    assert (st.status, st.base, st.multiplier, st.scores) == ("finished", 2, 1, (4, -2, -2))
    assert factors(s) == []


def test_ddz3_spring() -> None:
    s = deal("ddz3", ["3s 3h", "5s", "7s"], "4s")
    s = run(s, "0 b1", "1 p", "2 p", "0 3s3h", "1 p", "2 p", "0 4s")
    assert factors(s) == [("spring", 2)]
    assert s.settlement.scores == (4, -2, -2)


def test_ddz3_anti_spring_farmers_win() -> None:
    s = deal("ddz3", ["3s", "5s 6s", "7s 8s"], "4s 4h")
    s = run(s, "0 b1", "1 p", "2 p", "0 3s", "1 5s", "2 p", "0 p", "1 6s")
    assert factors(s) == [("anti_spring", 2)]
    assert s.settlement.scores == (-4, 2, 2)


def _bombs_game(room: Room | None = None):  # type: ignore[no-untyped-def]
    s = deal("ddz3", ["3s3h3c3d 5s", "7s 8s", "9s Ts"], "BJ RJ 6s", room=room)
    return run(
        s,
        "0 b3",
        "0 5s",
        "1 7s",
        "2 9s",
        "0 3s3h3c3d",
        "1 p",
        "2 p",
        "0 BJRJ",
        "1 p",
        "2 p",
        "0 6s",
    )


def test_ddz3_bomb_and_rocket_double_each() -> None:
    s = _bombs_game(Room(stake=2))
    assert factors(s) == [("bomb", 2), ("rocket", 2)]
    st = s.settlement
    assert (st.base, st.multiplier, st.scores) == (6, 4, (48, -24, -24))
    assert sum(st.scores) == 0


def test_ddz3_max_multiplier_caps_the_whole_multiplier() -> None:
    st = _bombs_game(Room(stake=2, max_multiplier=3)).settlement
    assert (st.multiplier_before_cap, st.multiplier, st.scores) == (4, 3, (36, -18, -18))


# ---------------------------------------------------------------- doudizhu4
def test_ddz4_show_hand_bomb_table_and_led_bomb() -> None:
    hands = ["7s7h7c7d7s7h 9s9h9c9d9s9h9c9d 4s 6c", "5s 8s 8h", "Ts", "Js"]
    s = deal("ddz4", hands, "BJ BJ RJ RJ")
    s = run(
        s,
        *("0 b1", "1 p", "2 p", "3 p", "0 show"),
        *("0 7s7h7c7d7s7h", "1 p", "2 p", "3 p"),  # a led 6-card bomb: ×1
        *("0 4s", "1 5s", "2 p", "3 p", "0 9s9h9c9d9s9h9c9d", "1 p", "2 p", "3 p"),  # ×3
        *("0 6c", "1 8s", "2 p", "3 p", "0 BJBJRJRJ"),  # heavenly bomb over a play: ×3
    )
    assert factors(s) == [("bomb", 1), ("bomb", 3), ("rocket", 3), ("show_hand", 3)]
    st = s.settlement
    assert (st.multiplier, st.scores) == (27, (81, -27, -27, -27))


def test_ddz4_six_card_bomb_over_a_play_doubles() -> None:
    s = deal("ddz4", ["3s 7s7h7c7d7s7h", "5s 6s", "Ts", "Js"], "4s")
    s = run(s, "0 b2", "1 p", "2 p", "3 p", "0 3s", "1 5s", "2 p", "3 p", "0 7s7h7c7d7s7h")
    s = run(s, "1 p", "2 p", "3 p", "0 4s")
    assert factors(s) == [("bomb", 2)]
    assert s.settlement.scores == (12, -4, -4, -4)  # base 2 × M 2, landlord ×3


def test_ddz4_spring_and_anti_spring() -> None:
    s = deal("ddz4", ["3s 3h", "5s", "6s", "7s"], "4s")
    s = run(s, "0 b2", "1 p", "2 p", "3 p", "0 3s3h", "1 p", "2 p", "3 p", "0 4s")
    assert not s.shown and factors(s) == [("spring", 2)]
    assert s.settlement.scores == (12, -4, -4, -4)
    s = deal("ddz4", ["3s", "5s 6s", "7s", "8s"], "4s 4h")
    s = run(s, "0 b1", "1 p", "2 p", "3 p", "0 3s", "1 5s", "2 p", "3 p", "0 p", "1 6s")
    assert factors(s) == [("anti_spring", 2)]
    assert s.settlement.scores == (-6, 2, 2, 2)


# ---------------------------------------------------------------- escape
def _escape(room: Room) -> tuple[int, ...]:
    s = deal("ddz3", ["3s3h3c3d 5s 6s", "7s 8s 9h", "9s Ts"], "BJ RJ 4s", room=room)
    s = run(s, "0 b2", "1 p", "2 p", "0 5s", "1 7s", "2 p", "0 3s3h3c3d", "1 p", "2 p")
    s = run(s, "0 6s", "1 8s", "2 p", "0 BJRJ", "1 leave")
    st = s.settlement
    assert st.status == "escaped" and st.escaper == 1 and len(st.bombs) == 2
    assert [x.name for x in st.steps][:2] == ["B", "m"] and st.steps[0].value == 4
    return st.scores


@pytest.mark.parametrize(
    ("max_m", "esc_m", "m"),
    [(None, None, 4), (2, None, 2), (None, 8, 8), (2, 3, 3), (8, 2, 4), (None, 3, 4)],
)
def test_escape_with_room_bounds(max_m: int | None, esc_m: int | None, m: int) -> None:
    # penalty = stake 1 × b 2 × 3 × m
    assert _escape(Room(max_multiplier=max_m, escape_multiplier=esc_m)) == (0, -6 * m, 0)


def test_escape_in_bidding_uses_b_1_or_the_highest_bid() -> None:
    s = run(deal("ddz3", ["3s", "4s", "5s"], "6s", room=Room(escape_multiplier=2)), "2 leave")
    assert s.settlement.scores == (0, 0, -6)
    s = run(deal("ddz3", ["3s", "4s", "5s"], "6s", room=Room(stake=5)), "0 b2", "2 leave")
    assert s.settlement.scores == (0, 0, -30)


def test_ddz4_escape_counts_effective_bombs_only() -> None:
    s = deal("ddz4", ["7s7h7c7d7s7h 3s", "5s", "6s", "8s"], "4s")
    s = run(s, "0 b2", "1 p", "2 p", "3 p", "0 show", "0 7s7h7c7d7s7h", "3 leave")
    st = s.settlement
    assert st.steps[0].value == 1  # the led bomb counts ×1; show hand does not count
    assert st.scores == (0, 0, 0, -6)


def test_zsy_escape_cards_left_times_four() -> None:
    s = deal("zsy1", ["3s 4s", "5s 6s 7s", "8s", "9s"], first_bidder=None)
    s = run(s, "0 3s", "1 leave")
    assert s.settlement.scores == (0, -12, 0, 0)


# ---------------------------------------------------------------- zheng shangyou
@pytest.mark.parametrize(
    ("dealt", "played", "base"),
    [
        *[(13, 0, 4), (13, 1, 3), (13, 3, 3), (13, 4, 2), (13, 6, 2), (13, 7, 1), (13, 12, 1)],
        *[(27, 0, 4), (27, 1, 3), (27, 6, 3), (27, 7, 2), (27, 13, 2), (27, 14, 1), (27, 26, 1)],
    ],
)
def test_zsy_base_table(dealt: int, played: int, base: int) -> None:
    assert zsy_base(dealt, played) == base


def test_zsy1_full_deal_worked_example() -> None:
    v = variant("zsy1")
    winner = parse_cards("3s 4s5s6s7s8s9sTsJsQsKsAs 2s")
    used = parse_cards("2h 3h 4h 5h")
    rest = [c for c in v.deck if c not in winner and c not in used]
    hands = [
        format_cards(winner),
        format_cards([*used[:2], *rest[:11]]),
        format_cards([used[2], *rest[11:23]]),
        format_cards([used[3], *rest[23:35]]),
    ]
    s = deal("zsy1", hands, first_bidder=None)
    assert s.turn == 0  # the ♠3 holder opens
    s = run(s, "0 3s", "1 2h", "2 p", "3 p", "0 p", "1 3h", "2 4h", "3 5h", "0 2s")
    s = run(s, "1 p", "2 p", "3 p", "0 4s5s6s7s8s9sTsJsQsKsAs")
    # seat 1 played 2 of 13 (4·2 < 13: base 3), seats 2 and 3 played 1 (base 3)
    assert s.settlement.scores == (105, -33, -36, -36)


def test_zsy2_no_card_played_is_base_four() -> None:
    s = deal("zsy2", ["3s 3s", "4s", "5s 6s", "7s"], first_bidder=None)
    s = run(s, "0 3s3s")
    assert s.settlement.scores == (4 + 8 + 4, -4, -8, -4)


def test_titles() -> None:
    assert title_for(-5) == (1, "蜗牛", "Snail")
    assert title_for(139)[0] == 2 and title_for(140)[0] == 3
    assert title_for(12_000) == (12, "照夜玉狮子", "Zhaoye Yushizi")
    assert title_for(999_999)[0] == 22 and title_for(10**9)[2] == "Zhuifeng"


def test_seeded_deal_scores_sum_to_zero_after_autoplay() -> None:
    from services.engine.game_cli import play_out
    from services.rules import new_game

    for i in range(20):
        s = play_out(new_game("ddz4", seed=f"z{i}"))
        assert sum(s.settlement.scores) == 0
    assert deal_from_seed(variant("ddz3"), "x").hands
