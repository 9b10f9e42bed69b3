"""The table features of `cardroom play` (issue 25): the trick at a glance, 报单/报双, the card
counter, the seed's mouse gestures, the hands shown at the end, readable bot names and the
farmer's partner, the game id, 要不起 auto-pass and the start screen — each through Textual's
pilot against a real matchmaker, engine and replay."""

from __future__ import annotations

import asyncio
import uuid

from services import rules
from services.client import render
from services.client.play import HandView, PlayApp, StartScreen
from services.client.session import Session
from services.common.wire import matchmaker_pb2 as M
from tests.client.conftest import (
    SIZE,
    TIMERS,
    click_card,
    make_app,
    my_turn,
    screen_text,
    settled,
    take_turn,
    until,
)
from tests.matchmaker.conftest import Cluster


def seats_text(app: PlayApp) -> str:
    return str(app.query_one("#seats").render())


def table_text(app: PlayApp) -> str:
    return str(app.query_one("#table").render())


def settlement_text(app: PlayApp) -> str:
    return str(app.query_one("#settlement").render())


def following(app: PlayApp) -> bool:
    v = app.view
    return my_turn(app) and v is not None and v.phase is rules.Phase.PLAY and v.last is not None


def record_seats(app: PlayApp) -> list[tuple[tuple[int, ...], list[str | None], str]]:
    """Every rendering of the seats panel during play: the counts and trick marks it was
    drawn from, and the text it showed."""
    seen: list[tuple[tuple[int, ...], list[str | None], str]] = []
    draw = app._render_seats

    def recording() -> None:
        draw()
        v, snap = app.view, app.snap
        if v is not None and snap is not None and not v.over and v.phase is rules.Phase.PLAY:
            marks = [s.last_action if s.HasField("last_action") else None
                     for s in snap.message.seats]  # fmt: skip
            seen.append((tuple(v.counts), marks, seats_text(app)))

    app._render_seats = recording  # type: ignore[method-assign]
    return seen


def test_the_trick_alarms_partner_counter_hands_and_game_id(cluster: Cluster) -> None:
    """A farmer's game against bots to the end: every seat's last play or 不出 beside it
    while the trick lasts, 报单/报双 whenever a seat is down to one or two cards, the bots'
    names and the partner, the counter on c, and at the end every seat's cards left and
    the game's id with the commands to watch it and come back."""
    # Bots think 0.1 s: the screen follows every move, so a seat's last cards are seen.
    timers = M.Timers(bid_ms=30_000, turn_ms=30_000, start_ms=30_000, grace_ms=10_000,
                      bot_think_ms=100)  # fmt: skip
    app = make_app(cluster, "doudizhu3", name="farmer-" + uuid.uuid4().hex[:4], timers=timers)

    async def scenario() -> None:
        async with app.run_test(size=SIZE) as pilot:
            seen = record_seats(app)
            games = 0
            while True:
                games += 1
                await until(pilot, lambda: my_turn(app) or settled(app))
                while app.view is not None and app.view.phase is rules.Phase.BIDDING:
                    if my_turn(app):
                        await pilot.press("0")  # no bid: a bot is the landlord
                    await pilot.pause(0.05)
                await until(pilot, lambda: app.view is not None and app.view.landlord is not None)
                view = app.view
                assert view is not None and view.seat is not None
                text = seats_text(app)
                bots = [i for i in range(3) if i != view.seat]
                for i in bots:
                    assert f"seat {i} Bot {i} (easy)" in text and "bot:easy" not in text
                if view.landlord != view.seat:
                    partner = next(i for i in bots if i != view.landlord)
                    line = next(x for x in text.splitlines() if f"seat {partner} " in x)
                    assert "your partner 队友" in line
                    assert "队友" not in next(
                        x for x in text.splitlines() if f"seat {view.landlord} " in x
                    )
                # The card counter: c shows it (what this seat has not seen), c hides it.
                await until(pilot, lambda: my_turn(app) or settled(app))
                if my_turn(app):
                    await pilot.press("c")
                    await until(pilot, lambda: "记牌器 not seen:" in table_text(app))
                    assert app.view is not None
                    assert render.counter_text(app.view) in table_text(app)
                    await pilot.press("c")
                    assert "记牌器" not in table_text(app)
                while not settled(app):
                    if my_turn(app):
                        await take_turn(pilot, app)
                    else:
                        await pilot.pause(0.05)
                alarms = [r for r in seen if any(n in (1, 2) for n in r[0])]
                if alarms or games == 5:
                    break
                await pilot.press("n")
                await until(pilot, lambda: app.view is not None and not app.view.over)
            # The trick at a glance, as every snapshot had it: a play's cards or 不出.
            marked = [r for r in seen if any(m for m in r[1])]
            assert marked
            for _counts, marks, text in marked:
                lines = text.splitlines()
                for i, mark in enumerate(marks):
                    if mark:
                        assert render.last_action_plain(mark) in lines[i], (mark, lines[i])
            assert any("不出 pass" in text for _c, _m, text in marked)
            # 报单 / 报双 on the seat down to one or two cards.
            assert alarms, "no seat got down to one or two cards in five games"
            for counts, _marks, text in alarms:
                lines = text.splitlines()
                for i, n in enumerate(counts):
                    if n in (1, 2):
                        assert render.ALARMS[n] in lines[i]
            # The hands at the end: every seat's cards left, under the settlement.
            await until(pilot, lambda: "Cards left 剩牌:" in settlement_text(app))
            shown = settlement_text(app)
            assert app.shown_hands and len(app.shown_hands) == 3
            me = app.snap.message.seat if app.snap else 0
            for seat, cards in app.shown_hands:
                if seat == me:
                    assert sorted(cards) == sorted(app.last_hand)
                words = render.cards_plain(sorted(cards)) if cards else "played out"
                who = "you" if seat == me else render.seat_name(app.players, seat)
                assert f"{who}: {words}" in shown
            # The game id and how to watch it, in the box and on the way out.
            game_id = app.game_id_played
            assert game_id.startswith(app.session.table_id)
            assert f"cardroom replay watch {game_id}" in shown
            assert "bot:" not in shown  # every bot by its readable name
            await pilot.press("ctrl+q")
            bye = render.goodbye_text(app.session.player_id, app.quit_seated, game_id)
            assert f"cardroom replay watch {game_id}" in bye
            assert f"cardroom play --name {app.session.player_id} --resume" in bye

    asyncio.run(scenario())


def test_the_mouse_gestures_of_seed_001(cluster: Cluster) -> None:
    """Clicking a card toggles it; a double left-click on the empty table returns every
    selected card; a right-click on the hand plays the selection."""
    app = make_app(cluster, "doudizhu3")

    async def scenario() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: my_turn(app))
            if app.view is not None and app.view.phase is rules.Phase.BIDDING:
                await pilot.press("3")
            await until(pilot, lambda: my_turn(app) and app.view.phase is rules.Phase.PLAY)
            hand = app.query_one("#hand", HandView)
            await click_card(pilot, app, 0)
            await click_card(pilot, app, 1)
            assert sorted(hand.selected) == [0, 1]
            await click_card(pilot, app, 1)  # a click unselects
            assert hand.selected == [0]
            await pilot.click("#table", offset=(40, 1), times=2)  # the empty table
            assert hand.selected == []
            # The hint's cards, played by a right-click on the hand: on a turn whose hint is a
            # play (a bot may have bid 3 first, and a farmer's hint may be a pass: then pass).
            for _ in range(20):
                await until(pilot, lambda: my_turn(app) and app.view.phase is rules.Phase.PLAY)
                turn = len(app.view.history)
                await pilot.press("h")
                await until(pilot, lambda t=turn: app.hint_key is not None and app.hint_key[1] == t)
                if hand.selected:
                    break
                await pilot.press("p")
                await until(pilot, lambda t=turn: app.view is None or len(app.view.history) > t)
            assert hand.selected, "no turn with a play for a hint"
            chosen = hand.selected_cards()
            count = len(hand.cards)
            await click_card(pilot, app, 0, button=3)
            await until(pilot, lambda: app.view is not None and app.view.hand is not None
                        and len(app.view.hand) == count - len(chosen))  # fmt: skip
            played = render.cards_plain(render.play_order(chosen))
            assert any(f"plays {played}" in line for line in app.log_lines)
            await pilot.press("ctrl+q")

    asyncio.run(scenario())


def test_auto_pass_when_nothing_beats_is_off_by_default_and_o_turns_it_on(
    cluster: Cluster,
) -> None:
    """要不起: off, the seat waits although only a pass is left; o turns it on and the seat
    passes at once, and again on its next such turn without a key."""
    app = make_app(cluster, "doudizhu3")

    def only_pass(a: PlayApp) -> bool:
        v = a.view
        return (
            following(a)
            and v is not None
            and all(isinstance(x, rules.Pass) for x in v.legal_actions())
        )

    async def scenario() -> None:
        async with app.run_test(size=SIZE) as pilot:
            for _game in range(4):
                while not settled(app) and not only_pass(app):
                    if my_turn(app):
                        await take_turn(pilot, app)
                    else:
                        await pilot.pause(0.05)
                if only_pass(app):
                    break
                await pilot.press("n")
                await until(pilot, lambda: app.view is not None and not app.view.over)
            assert only_pass(app), "never left with nothing that beats in four games"
            seq = app.snap.seq if app.snap else 0
            await pilot.pause(1.0)
            assert only_pass(app) and app.snap is not None and app.snap.seq == seq  # waits
            await pilot.press("o")
            await until(pilot, lambda: app.snap is not None and app.snap.seq != seq)
            assert app.message == render.AUTO_PASS_DONE or not only_pass(app)
            me = app.snap.message.seat
            who = render.seat_name(app.players, me)
            assert any(f"{who} passes" in line for line in app.log_lines)
            await pilot.press("ctrl+q")

    asyncio.run(scenario())


def test_enter_takes_a_hint_to_pass(cluster: Cluster) -> None:
    """A person who follows the hints with Enter: when the hint is a pass ("hint: pass —
    press Enter or p"), Enter passes (it said "select cards first", and the turn ran out)."""
    app = make_app(cluster, "doudizhu3")

    async def scenario() -> bool:
        async with app.run_test(size=SIZE) as pilot:
            for _game in range(4):
                while not settled(app):
                    if not my_turn(app):
                        await pilot.pause(0.05)
                        continue
                    view = app.view
                    assert view is not None and app.snap is not None
                    if following(app):
                        key = (app.snap.message.game_id, len(view.history))
                        await pilot.press("h")
                        await until(pilot, lambda k=key: app.hint_key == k)
                        hint = app.hint_action
                        if hint is not None and hint.WhichOneof("kind") == "pass":
                            assert app.message == render.HINT_PASS
                            who = render.seat_name(app.players, app.snap.message.seat)
                            seen = len(app.log_lines)
                            await pilot.press("enter")
                            await until(pilot, lambda w=who, n=seen: any(
                                f"{w} passes" in x for x in app.log_lines[n:]))  # fmt: skip
                            passed = [x for x in app.log_lines[seen:] if f"{who} passes" in x]
                            assert "timeout" not in passed[0], passed
                            await pilot.press("ctrl+q")
                            return True
                    await take_turn(pilot, app)
                await pilot.press("n")
                await until(pilot, lambda: app.view is not None and not app.view.over)
            await pilot.press("ctrl+q")
            return False

    assert asyncio.run(scenario()), "no hint to pass in four games"


def test_the_start_screen_chooses_the_table(cluster: Cluster) -> None:
    """Without --variant the start screen asks: variant, the bots' level, the stake and a
    private code (a stake that is no number is refused there, in words)."""
    assert cluster.mm_server is not None
    session = Session(cluster.mm_server.target, "chooser-" + uuid.uuid4().hex[:4])
    app = PlayApp(session, timers=TIMERS, ask=True)

    async def scenario() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: isinstance(app.screen, StartScreen))
            await pilot.click("#v-zhengshangyou1")
            await pilot.click("#l-hard")
            stake = app.screen.query_one("#start-stake")
            stake.value = ""  # type: ignore[attr-defined]
            await pilot.click("#start-stake")
            await pilot.press("x")  # not a number: the integer input ignores it
            await pilot.press("backspace", "backspace")
            await pilot.press("0")
            await pilot.click("#start-go")
            assert isinstance(app.screen, StartScreen)  # a stake of 0 is refused
            assert render.BAD_STAKE in str(app.screen.query_one("#start-error").render())
            await pilot.click("#start-stake")
            await pilot.press("end", "backspace", "5")
            await pilot.press("enter")  # Enter sits down
            await until(pilot, lambda: app.view is not None, timeout=30)
            snap = app.snap
            assert snap is not None
            assert snap.message.variant == "zhengshangyou1" and snap.message.room.stake == 5
            assert all(s.player_id.startswith("bot:hard:") for s in snap.message.seats if s.bot)
            assert "Bot " in seats_text(app) and "(hard)" in seats_text(app)
            await pilot.press("ctrl+q")

    asyncio.run(scenario())


def test_a_private_code_sits_friends_together(cluster: Cluster) -> None:
    """--private-code: the friend who gives the same code sits at the same table."""
    assert cluster.mm_server is not None
    code = "friends-" + uuid.uuid4().hex[:6]
    friend = Session(cluster.mm_server.target, "friend-" + uuid.uuid4().hex[:4])
    ticket = friend.enqueue("doudizhu3", 3000, TIMERS, private_code=code)
    session = Session(cluster.mm_server.target, "host-" + uuid.uuid4().hex[:4])
    app = PlayApp(session, "doudizhu3", timers=TIMERS, private_code=code,
                  wait_for_humans_s=3.0)  # fmt: skip

    async def scenario() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: app.snap is not None, timeout=30)
            seated = friend.wait_seated(ticket)
            assert seated.table_id == app.session.table_id
            players = [s.player_id for s in app.snap.message.seats] if app.snap else []
            assert friend.player_id in players
            assert friend.player_id in screen_text(app.export_screenshot())
            await pilot.press("ctrl+q")

    asyncio.run(scenario())
    friend.shutdown()
