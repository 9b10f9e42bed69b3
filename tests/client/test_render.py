"""The client's wording of plays and per-seat figures (pure, no servers)."""

from __future__ import annotations

from services import rules
from services.client import render
from services.client.render import table_event_text
from services.common.wire import replay_pb2
from services.rules.room import Room
from services.rules.scoring import settle_escape, settle_zhengshangyou


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
        "scores: seat 0 ann -6, Bot 1 (easy) +12, Bot 2 (easy) -6"
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


def test_render_is_pure() -> None:
    """The words a player reads import no widgets and no gRPC: a web client can share them."""
    import ast
    from pathlib import Path

    tree = ast.parse(Path(render.__file__).read_text())
    imported = {
        (n.module or "") if isinstance(n, ast.ImportFrom) else a.name
        for n in ast.walk(tree)
        if isinstance(n, ast.Import | ast.ImportFrom)
        for a in n.names
    }
    assert not any(m.startswith(("textual", "grpc", "services.common.wire")) for m in imported)


def test_refusals_speak_the_screens_notation() -> None:
    text = render.refusal_text("DOES_NOT_BEAT", "Ts (single:T) does not beat pair:A")
    assert "10♠ (single 单张, 10) does not beat pair 对子, A" in text
    assert "Ts" not in text and "pair:A" not in text
    text = render.refusal_text("NOT_A_PATTERN", "6s 6c 8c 8d is not a pattern of doudizhu3")
    assert "6♠ 6♣ 8♣ 8♦ is not a pattern" in text
    assert render.screen_notation("3s3hBJ cannot be read as rocket:RJ") == (
        "3♠ 3♥ BJ cannot be read as rocket 火箭"
    )


def test_settlement_words() -> None:
    s = {
        "status": "finished", "stake": 1, "landlord": 0, "bid": 3, "base": 3,
        "bombs": [{"kind": "rocket", "size": 2, "rank": "RJ", "seat": 1, "led": False},
                  {"kind": "bomb", "size": 4, "rank": "T", "seat": 0, "led": True}],
        "steps": [{"name": "unit", "value": 12, "how": "base 3 × multiplier 4; the landlord win"}],
        "scores": [24, -12, -12],
    }  # fmt: skip
    lines = render.settlement_lines(s, ["ann", "bob", "cy"])
    text = "\n".join(lines)
    assert lines[0].startswith("Result: the landlord wins 地主胜")
    assert "rocket 火箭 by seat 1 bob" in text and "of 2 × RJ" not in text
    assert "bomb 炸弹 of 4 × 10 by seat 0 ann, led" in text
    assert "the landlord wins" in text and "the landlord win\n" not in text + "\n"
    farmers = render.result_words({**s, "scores": [-24, 12, 12]})
    assert farmers == "the farmers win 农民胜"


def test_counts_phases_bids_and_totals() -> None:
    from types import SimpleNamespace

    assert render.plural(1, "card") == "1 card" and render.plural(2, "card") == "2 cards"
    assert render.phase_name("show_hand") == "showing the hand 明牌"
    assert "_" not in render.phase_name("show_hand")
    assert render.bid_prompt(2, False) == "your bid: 3, or 0/p for no bid"
    assert render.bid_prompt(0, False) == "your bid: 1, 2 or 3, or 0/p for no bid"
    assert "1" not in render.bid_prompt(1, True) and "must bid" in render.bid_prompt(1, True)
    totals = [SimpleNamespace(family="doudizhu", games=1, total=-4),
              SimpleNamespace(family="zhengshangyou", games=2, total=3)]  # fmt: skip
    assert render.running_total_lines(-4, totals, "doudizhu") == [
        "Your last game: -4",
        "Your running total (doudizhu): -4 in 1 game",
    ]
    assert render.running_total_lines(2, totals, "zhengshangyou")[1].endswith("+3 in 2 games")
    assert render.leftover_line(rules.parse_cards("Ad3s")) == "Your cards left: 3♠ A♦"


def test_between_games_and_leaving_texts() -> None:
    assert "press n within 25 s" in render.start_countdown(25.2, False)
    assert render.start_countdown(6, False).startswith("⚠")
    assert "ready" in render.start_countdown(6, True)
    assert "queue again" in render.REMOVED_TEXT
    assert render.resume_command("erin o") == "cardroom play --name 'erin o' --resume"
    assert "cardroom play --name alice --resume" in render.goodbye_text("alice", True)
    assert "127.0.0.1:1" in render.unreachable_text("127.0.0.1:1")
    assert "\n" not in render.unreachable_text("127.0.0.1:1")
    # A seat named by the player the event carries, not by whoever sits there now.
    players = ["bot:normal:7", "bob", "cy"]
    line = render.table_event_text("player_left", {"seat": 0, "player_id": "erin",
                                                   "why": "not_ready"}, players)  # fmt: skip
    assert line == "seat 0 erin left (not ready)"


def test_the_autoplay_tag_goes_on_the_seats_own_action() -> None:
    assert render.cause_tag("pass", "autoplay") == "  [autoplay]"
    assert render.cause_tag("play", "timeout") == "  [timeout]"
    assert render.cause_tag("new_trick", "autoplay") == ""  # the next seat's lead: not its doing
    assert render.cause_tag("play", "player") == ""


def test_a_seat_with_one_card_left() -> None:
    words = render.seat_words(bot=False, connected=True, cards=1, landlord=True,
                              autoplay=False, ready=False, total=-3)  # fmt: skip
    assert ("1 card", "") in words and ("landlord 地主", "landlord") in words
    assert [w for w, _ in words][-1] == "total -3"


def test_bots_have_readable_names_and_a_farmer_sees_its_partner() -> None:
    players = ["ann", "bot:hard:0a1b2c", "bot:normal:9f"]
    assert render.player_label(players, 1) == "Bot 1 (hard)"
    assert render.player_label(players, 0) == "ann"
    assert render.seat_name(players, 2) == "Bot 2 (normal)"
    line = render.table_event_text("bot_joined", {"seat": 1, "player_id": players[1]}, players)
    assert line == "Bot 1 (hard) sits down"
    state = rules.new_game("doudizhu3", seed="partners")
    while state.phase is rules.Phase.BIDDING:  # the first bidder bids 3: the landlord
        state, _ = rules.apply(state, rules.Bid(state.turn, 3))
    landlord = state.landlord
    farmer = next(i for i in range(3) if i != landlord)
    other = next(i for i in range(3) if i not in (landlord, farmer))
    assert render.partners(rules.seat_view(state, farmer)) == {other}
    assert render.partners(rules.seat_view(state, landlord)) == set()
    zsy = rules.new_game("zhengshangyou1", seed="x")
    assert render.partners(rules.seat_view(zsy, 0)) == set()


def test_one_or_two_cards_left_are_announced() -> None:
    def alarm(n: int) -> list[str]:
        words = render.seat_words(bot=True, connected=True, cards=n, landlord=False,
                                  autoplay=False, ready=False, total=0)  # fmt: skip
        return [w for w, kind in words if kind == "alarm"]

    assert alarm(1) == ["报单 last card!"] and alarm(2) == ["报双 two cards left!"]
    assert alarm(3) == [] and alarm(0) == []


def test_the_trick_mark_and_the_card_counter() -> None:
    assert render.last_action_plain("pass") == "不出 pass"
    assert render.last_action_plain("3s 9d 9s 9c") == "9♠ 9♣ 9♦ 3♠"
    assert render.last_action_plain(None) == ""
    state = rules.new_game("doudizhu3", seed="counter")
    while state.phase is rules.Phase.BIDDING:
        state, _ = rules.apply(state, rules.Bid(state.turn, 3))
    leader = state.turn
    lead = rules.PlayCards(leader, (min(state.hands[leader]),))
    state, _ = rules.apply(state, lead)
    me = (leader + 1) % 3
    view = rules.seat_view(state, me)
    counter = dict(render.card_counter(view))
    assert sum(counter.values()) == 54 - len(state.hands[me]) - 1
    for rank, n in counter.items():  # what the seat cannot see: the others' hands
        hidden = [c for s in range(3) if s != me for c in state.hands[s]]
        assert n == sum(1 for c in hidden if render.card_rank(c) == rank)
    assert render.counter_text(view).startswith("记牌器 not seen: RJ×")
    assert len(render.counter_text(view)) < 96  # one line at 100 columns


def test_the_game_id_and_the_hands_at_the_end() -> None:
    assert render.game_id_lines("t1.2") == [
        "Game t1.2 — watch it again: cardroom replay watch t1.2"
    ]
    bye = render.goodbye_text("alice", True, "t1.2")
    assert "cardroom replay watch t1.2" in bye and "cardroom play --name alice --resume" in bye
    assert render.goodbye_text("alice", False) == "Bye."
    line = render.series_totals_line(["ann", "bot:hard:1f"], [3, -3])
    assert line == "Series totals: ann +3, Bot 1 (hard) -3"
    lines = render.hands_lines([(0, []), (1, rules.parse_cards("Ad3s"))], ["ann", "bot:easy:1"], 0)
    assert lines == ["Cards left 剩牌:", "  you: played out", "  Bot 1 (easy): 3♠ A♦"]


def test_the_title_shows_under_a_zheng_shangyou_total_only() -> None:
    title = replay_pb2.PlayerTitle(level=1, chinese="蜗牛", english="Snail")
    assert render.title_line(title, "zhengshangyou") == "Title 称号: level 1 蜗牛 Snail"
    assert render.title_line(title, "doudizhu") == ""  # RULES.md §5.4: Dou Dizhu has none
    assert render.title_line(None, "zhengshangyou") == ""


def test_the_settlement_in_chinese_has_every_step_with_the_same_numbers() -> None:
    settlement = {
        "status": "finished", "stake": 2, "landlord": 0, "bid": 3, "base": 6,
        "bombs": [{"kind": "rocket", "seat": 1, "led": False}],
        "factors": [{"name": "rocket", "value": 2, "detail": "seat 1: rocket, over a play"}],
        "multiplier": 2,
        "steps": [
            {"name": "base", "value": 6, "how": "stake 2 × bid 3"},
            {"name": "multiplier", "value": 2, "how": "product of factors: rocket"},
            {"name": "unit", "value": 12, "how": "base 6 × multiplier 2; the landlord win"},
            {"name": "landlord", "value": 24, "how": "+2 × 12"},
            {"name": "farmer", "value": -12, "how": "-12 each"},
        ],
        "scores": [24, -12, -12],
    }  # fmt: skip
    players = ["ann", "bot:easy:x", "bot:easy:y"]
    zh = render.settlement_lines_in(settlement, players, "zh")
    assert zh[0] == "结果：地主胜   底分 2"
    assert "  叫分 3，基数 6" in zh and "  倍数 2" in zh and "  计算：" in zh
    assert "    基数 = 6   底分 2 × 叫分 3" in zh
    assert "    每份 = 12   基数 6 × 倍数 2; 地主胜" in zh
    assert "    火箭 ×2  Bot 1 (easy): 火箭，压牌" in zh
    assert zh[-1] == "  得分：seat 0 ann +24，Bot 1 (easy) -12，Bot 2 (easy) -12"
    en = render.settlement_lines_in(settlement, players, "en")
    assert en == render.settlement_lines(settlement, players)
    assert len(zh) == len(en)  # line for line the same settlement


def test_a_settlements_steps_name_each_seat_as_its_scores_do() -> None:
    # The rules' steps say "seat 2" (the record keeps it so); the player reads who that is.
    v = rules.variant("zhengshangyou1")
    s = settle_zhengshangyou(
        v, Room(stake=1), winner=1, dealt=(14, 13, 13, 14), left=(5, 0, 13, 2)
    ).to_dict()
    players = ["ann", "bob", "bot:hard:x", "cy"]
    en = render.settlement_lines(s, players)
    assert "    seat 0 ann = -5   dealt 14, played 9 → base 1; −(5 left × 1 × stake 1)" in en
    assert "    Bot 2 (hard) = -52   dealt 13, played 0 → base 4; −(13 left × 4 × stake 1)" in en
    assert "    seat 1 bob = 59   the winner: the sum of the losses" in en
    zh = render.settlement_lines_in(s, players, "zh")
    assert "    Bot 2 (hard) = -52   发 13, 出 0 → 基数 4; −(13 剩 × 4 × 底分 1)" in zh
    assert "    seat 1 bob = 59   赢家：输家之和" in zh
    escape = settle_escape(v, Room(stake=1), escaper=3, bid=0, bombs=(), cards_left=9).to_dict()
    assert "    escaper = -36   seat 3 cy scores −penalty; the others 0" in (
        render.settlement_lines(escape, players)
    )
    # Without the players (or past them), the rules' words stand.
    assert "    seat 0 = -5   dealt 14, played 9 → base 1; −(5 left × 1 × stake 1)" in (
        render.settlement_lines(s)
    )


def test_the_table_events_in_chinese_name_the_same_seats_and_numbers() -> None:
    players = ["ann", "bot:hard:x", "bot:hard:y"]
    zh = render.table_event_text_in
    assert zh("seated", {"seat": 0, "player_id": "ann"}, players, "zh") == "seat 0 ann 入座"
    assert zh("ready", {"seat": 1}, players, "zh") == "Bot 1 (hard) 已准备"
    assert zh("game_over", {"scores": [4, -2, -2]}, players, "zh") == (
        "得分：seat 0 ann +4，Bot 1 (hard) -2，Bot 2 (hard) -2"
    )
    left = {"seat": 0, "player_id": "ann", "why": "escaped"}
    assert zh("player_left", left, players, "zh") == "seat 0 ann 离桌（逃跑）"
    assert zh("ready", {"seat": 1}, players, "en") == render.table_event_text(
        "ready", {"seat": 1}, players
    )
