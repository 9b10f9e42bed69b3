"""`cardroom play` through Textual's pilot against a real matchmaker, engine and replay."""

from __future__ import annotations

import asyncio
import dataclasses
import re
import threading
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from services import rules
from services.client import play, render
from services.client.play import ChooseReading, ConfirmLeave, HandView, PlayApp
from services.client.session import Session
from services.client.watch import LoadError, WatchApp, load, step_text
from services.common.wire import matchmaker_pb2 as M
from tests.client.conftest import (
    SIZE,
    TIMERS,
    click_card,
    make_app,
    my_turn,
    play_to_the_end,
    screen_text,
    settled,
    take_turn,
    until,
)
from tests.matchmaker.conftest import Cluster, wait_for


@pytest.mark.parametrize("variant", ["doudizhu3", "doudizhu4", "zhengshangyou1", "zhengshangyou2"])
def test_a_whole_game_against_bots(cluster: Cluster, variant: str) -> None:
    app = make_app(cluster, variant)

    async def scenario() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: app.view is not None)
            turns = await play_to_the_end(pilot, app)
            assert turns > 0
            assert settled(app)
            text = str(app.query_one("#settlement").render())
            assert "Result: " in text and "scores:" in text and "Series totals" in text
            if variant.startswith("zhengshangyou"):  # the running total's title (§5.4)
                await until(pilot, lambda: "Title 称号: level" in str(
                    app.query_one("#settlement").render()))  # fmt: skip
            # The running total after every game, the first too, as GetPlayer has it now;
            # the cards left in hand; keys that fit the variant only.
            family = rules.variant(variant).family
            await until(pilot, lambda: "Your running total" in str(
                app.query_one("#settlement").render()))  # fmt: skip
            text = str(app.query_one("#settlement").render())
            info = app.session.player()
            total = next(t for t in info.totals if t.family == family)
            assert total.games == 1
            assert f"Your running total ({family}): {total.total:+d} in 1 game" in text
            assert f"Your last game: {info.last_score:+d}" in text
            # Every seat's cards left, from the game_over event (it may reach the screen
            # after the snapshot that first drew the settlement): this seat's among them.
            await until(pilot, lambda: "Cards left" in str(app.query_one("#settlement").render()))
            text = str(app.query_one("#settlement").render())
            me = app.snap.message.seat
            left = next(cards for seat, cards in app.shown_hands if seat == me)
            assert sorted(left) == sorted(app.last_hand)
            mine = render.cards_plain(sorted(left)) if left else "played out"
            assert f"you: {mine}" in text

            # The rating and this game's change, once replay has rated it (a game with a
            # score always counts): "pending" until then, and then this game's figures.
            shown = await until(pilot, lambda: rating_shown(app))
            assert shown == this_games_rating_line(app)
            hand = app.query_one("#hand", HandView)
            assert sorted(hand.cards) == sorted(app.last_hand)
            v = rules.variant(variant)
            assert not app.query_one("#b-bid1").display  # no bidding after the game
            assert app.query_one("#b-show").display == (v.show_hand_factor > 0)
            if not v.show_hand_factor:
                await pilot.press("w")
                assert app.message == render.NO_SHOW_HAND
            if variant == "doudizhu4" and app.snap is not None:
                landlord = app.snap.settlement.get("landlord")
                shown = any("shows the hand" in line for line in app.log_lines)
                assert shown == (landlord == app.snap.message.seat)
            await pilot.press("ctrl+q")

    asyncio.run(scenario())


def settlement_text(app: PlayApp) -> str:
    return str(app.query_one("#settlement").render())


def rating_shown(app: PlayApp) -> str | None:
    """The settlement's rating line with its figures, if it shows one."""
    found = re.search(r"^Rating 等级分: -?\d+.*$", settlement_text(app), re.M)
    return found.group(0) if found else None


def this_games_rating_line(app: PlayApp) -> str:
    """The rating line of the game on the screen, as GetPlayer has it now (its change for
    this very game: a game's change never changes once rated)."""
    info = app.session.player()
    change = info.last_rating_change
    assert app.last_game_id and change.game_id == app.last_game_id  # the game_over's id
    provisional = any(r.provisional for r in info.ratings if r.variant == change.variant)
    return render.rating_line(change.display, change.display_before, provisional)


def test_the_rating_is_pending_until_replay_rates_this_game(
    cluster: Cluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With replay away, the second game's settlement says "rating pending" (not the first
    game's change) and keeps asking GetPlayer past its first quick asks; once replay is
    back and rates the game, the line shows this game's change."""
    monkeypatch.setattr(play, "RATING_ASKS", 2)  # the slower asks begin sooner
    monkeypatch.setattr(play, "RATING_LATER_S", 2.0)
    app = make_app(cluster)

    async def scenario() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: app.view is not None)
            await play_to_the_end(pilot, app)
            first = await until(pilot, lambda: rating_shown(app))
            assert first == this_games_rating_line(app)
            cluster.stop_replay()
            await pilot.press("n")
            await until(pilot, lambda: app.snap is not None and app.snap.message.game_no == 2)
            await until(pilot, lambda: app.view is not None)
            if not settled(app):
                await pilot.press("a")  # auto-play: the bots' pace
            await until(pilot, lambda: settled(app) and app.snap.message.game_no == 2,
                        timeout=60)  # fmt: skip
            # GetPlayer's last game is this one at once (the game_over's write); its rating
            # change waits for replay.
            await until(pilot, lambda: "Your last game" in settlement_text(app))
            asks = app._rating_asks
            await until(pilot, lambda: app._rating_asks >= max(asks, play.RATING_ASKS) + 2,
                        timeout=60)  # fmt: skip
            text = settlement_text(app)
            assert render.RATING_PENDING in text and rating_shown(app) is None
            assert first not in text
            assert app.last_game_id.endswith(".2")
            assert app.session.player().last_rating_change.game_id != app.last_game_id
            cluster.start_replay()  # on the same port: the outbox delivers, replay rates
            second = await until(pilot, lambda: rating_shown(app), timeout=60)
            assert second == this_games_rating_line(app)
            assert render.RATING_PENDING not in settlement_text(app)
            await pilot.press("ctrl+q")

    asyncio.run(scenario())


RANK_KEY = {"T": "t", "J": "j", "Q": "q", "K": "k", "A": "A", "BJ": "bj", "RJ": "rj"}


async def _to_my_play(pilot: Pilot[Any], app: PlayApp) -> None:
    """Bid 3 when asked, then wait until this seat is to play a card."""
    await until(pilot, lambda: my_turn(app))
    assert app.view is not None
    if app.view.phase is rules.Phase.BIDDING:
        assert "bid: you" in str(app.query_one("#table").render())  # not "turn" while bidding
        highest = app.view.bid or 0
        shown = [a for a in (1, 2, 3) if app.query_one(f"#b-bid{a}").display]
        assert shown == [a for a in (1, 2, 3) if a > highest]  # the bids still open only
        await pilot.press("3")
    await until(pilot, lambda: my_turn(app) and app.view.phase is rules.Phase.PLAY)
    assert not any(app.query_one(f"#b-bid{a}").display for a in (1, 2, 3))  # bidding is over


def test_select_refuse_hint_autoplay_and_settle(cluster: Cluster, tmp_path: Path) -> None:
    app = make_app(cluster, "doudizhu3")

    async def scenario() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await _to_my_play(pilot, app)
            hand = app.query_one("#hand", HandView)
            cards = list(hand.cards)
            assert len(cards) in (17, 20)
            svg = screen_text(app.export_screenshot())
            assert "landlord" in svg and "phase: play" in svg and "turn: you" in svg
            assert "to beat:" in svg and "bottom:" in svg and "cards" in svg
            assert "phase: play 出牌" in svg
            bottom = list(app.view.bottom or ()) if app.view is not None else []
            assert render.cards_plain(sorted(bottom)) in str(app.query_one("#table").render())

            # Typing a rank selects the lowest card of it, again the next one.
            rank = render.card_rank(cards[0])
            for key in RANK_KEY.get(rank, rank):
                await pilot.press(key)
            assert hand.selected_cards() == [cards[0]]
            # The selection reads without colour too: the card is in brackets.
            text = screen_text(app.export_screenshot())
            assert f"[{render.card_label(cards[0])}]" in text
            await pilot.press("escape")
            assert "[" not in str(hand.render())
            assert hand.selected == []

            # By mouse: a click on a card selects it, a second click puts it back.
            await click_card(pilot, app, 2)
            assert hand.selected_cards() == [cards[2]]
            await click_card(pilot, app, 2)
            assert hand.selected == []

            # By keys: the lowest and the highest card are no pattern (or do not beat the
            # play on the table); refused in words, the hand as it was.
            await pilot.press("home", "space", *["right"] * (len(cards) - 1), "space")
            assert hand.selected_cards() == [cards[0], cards[-1]]
            await pilot.press("enter")
            await until(pilot, lambda: "Refused" in app.message)
            assert ("NOT_A_PATTERN" in app.message and "not a pattern" in app.message) or (
                "DOES_NOT_BEAT" in app.message and "does not beat" in app.message
            )
            assert hand.cards == cards and hand.selected_cards() == [cards[0], cards[-1]]

            # Sort by count and back.
            await pilot.press("s")
            assert hand.cards == list(rules.sort_by_count(cards))  # type: ignore[arg-type]
            await pilot.press("s")
            assert hand.cards == cards

            # The hint twice: the same suggestion; Enter plays it.
            await pilot.press("h")
            await until(pilot, lambda: app.hint_action is not None)
            first, shown = app.hint_action, hand.selected_cards()
            await pilot.press("escape", "h")
            await until(pilot, lambda: hand.selected_cards() == shown)
            assert app.hint_action == first and "hint:" in app.message
            # Typing one more rank: the line no longer offers the hint but says what Enter
            # plays now; Backspace takes it back.
            extra = next((c for c in cards if c not in shown), None)
            if extra is not None and shown:
                rank = render.card_rank(extra)
                await pilot.press(*RANK_KEY.get(rank, rank))
                assert len(hand.selected_cards()) == len(shown) + 1
                assert app.message.startswith("selected:") and "hint:" not in app.message
                added = [c for c in hand.selected_cards() if c not in shown]
                assert render.cards_plain(hand.selected_cards()) in app.message and added
                await pilot.press("backspace")
                assert hand.selected_cards() == shown
            seq = app.snap.seq if app.snap else 0
            plays = first is not None and first.WhichOneof("kind") == "play"
            await pilot.press("enter" if plays else "p")
            await until(pilot, lambda: app.snap is not None and app.snap.seq > seq)
            if plays:
                await until(pilot, lambda: len(hand.cards) < len(cards) or settled(app))

            # Auto-play on, off, and on again to the end of the game.
            await pilot.press("a")
            await until(pilot, lambda: app.snap.message.seats[app.snap.message.seat].autoplay
                        or settled(app))  # fmt: skip
            if not settled(app):
                await pilot.press("a")
                await until(pilot, lambda: not app.snap.message.seats[app.snap.message.seat]
                            .autoplay or settled(app))  # fmt: skip
                await pilot.press("a")
            await until(pilot, lambda: settled(app), timeout=60)
            # The panel shows once the screen has been laid out again after it appeared.
            await until(pilot, lambda: "Result:" in screen_text(app.export_screenshot()))
            svg_file = app.export_screenshot()
            text = screen_text(svg_file)
            (tmp_path / "settlement.svg").write_text(svg_file)
            assert "Result:" in text
            # The box's end (scrolled to with PgDn when the settlement is long).
            whole = str(app.query_one("#settlement").render())
            assert "Series" in whole and "ready for the next game" in whole
            assert any("auto-play on" in line for line in app.log_lines)

            # Ready for the next game: it starts; between games, leaving just leaves.
            await pilot.press("n")
            await until(pilot, lambda: app.snap is not None and app.snap.message.game_no == 2)
            await until(pilot, lambda: app.view is not None)
            if app.view.phase is not rules.Phase.OVER and not settled(app):
                await pilot.press("a")
            await until(pilot, lambda: settled(app) and app.snap.message.game_no == 2,
                        timeout=60)  # fmt: skip
            await pilot.press("l")
            await until(pilot, lambda: app.return_code == 0)

    asyncio.run(scenario())


def test_a_timeout_plays_for_the_seat(cluster: Cluster) -> None:
    timers = M.Timers(bid_ms=1500, turn_ms=1500, start_ms=30_000, grace_ms=10_000,
                      bot_think_ms=0)  # fmt: skip
    app = make_app(cluster, "zhengshangyou1", timers=timers)

    async def scenario() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: my_turn(app))
            assert "s left" in str(app.query_one("#table").render())  # the countdown
            await until(pilot, lambda: any("[timeout]" in x for x in app.log_lines))
            tagged = [x for x in app.log_lines if "[timeout]" in x or "[autoplay]" in x]
            assert all(" passes" in x or " plays " in x or " bids " in x for x in tagged), tagged
            await pilot.press("a")
            await until(pilot, lambda: settled(app), timeout=60)
            await pilot.press("ctrl+q")

    asyncio.run(scenario())


def test_a_lost_connection_resumes_and_a_restart_rejoins(cluster: Cluster) -> None:
    name = "resumer"
    app = make_app(cluster, "doudizhu3", name=name)

    async def first() -> str:
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: app.view is not None and app.connection == "connected")
            seen = app.session.last_seq
            app.session.drop()  # the stream breaks as a lost connection would
            await until(pilot, lambda: app.connection == "reconnecting")
            await until(pilot, lambda: app.connection == "connected")
            if my_turn(app):
                await take_turn(pilot, app)
            await until(pilot, lambda: app.session.last_seq > seen or settled(app))
            seqs = [int(x.split()[0][1:]) for x in app.log_lines]
            assert seqs == sorted(set(seqs))  # nothing missed twice, nothing repeated
            table = app.session.table_id
            await pilot.press("ctrl+q")  # quit without leaving: the seat waits out its grace
            assert app.quit_seated  # play_main prints how to come back:
            assert render.goodbye_text(name, True).endswith(f"cardroom play --name {name} --resume")
            return table

    table = asyncio.run(first())
    again = make_app(cluster, "doudizhu3", name=name, resume=True)

    async def second() -> None:
        async with again.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: again.snap is not None)
            assert again.session.table_id == table
            # The log again holds the game's earlier plays, not only what came after.
            # (The replayed lines arrive over a few screen updates: wait for both.)
            await until(pilot, lambda: any("starts (" in x for x in again.log_lines)
                        and any(" is dealt " in x or "cards dealt" in x
                                for x in again.log_lines))  # fmt: skip
            await until(pilot, lambda: again.snap.message.seats[again.snap.message.seat]
                        .connected)  # fmt: skip
            if not settled(again):
                await pilot.press("a")
            await until(pilot, lambda: settled(again), timeout=60)
            await pilot.press("ctrl+q")

    asyncio.run(second())


def test_leaving_mid_game_names_the_penalty_then_watch_shows_the_audit(
    cluster: Cluster,
) -> None:
    app = make_app(cluster, "doudizhu3")

    async def scenario() -> str:
        async with app.run_test(size=SIZE) as pilot:
            await _to_my_play(pilot, app)
            game_id = app.snap.message.game_id if app.snap else ""
            await pilot.press("l")
            await until(pilot, lambda: isinstance(app.screen, ConfirmLeave))
            warning = str(app.screen.query_one("#warning").render())
            assert app.view is not None and app.view.seat is not None
            preview = render.escape_preview(app.view)
            assert preview is not None
            penalty = -preview.scores[app.view.seat]
            assert penalty >= 9  # stake 1 × bid 3 × 3, times the bombs so far
            assert f"penalty of {penalty}" in warning and "escape" in warning
            # The price shown is the price now: a snapshot while the question is open (a bid
            # or a bomb meanwhile) reprices it — here the same snapshot at ten times the stake,
            # then the real one again.
            real = app.snap
            assert real is not None and app.view is not None
            dearer = dataclasses.replace(
                app.view, room=dataclasses.replace(app.view.room, stake=app.view.room.stake * 10)
            )
            app._apply_snapshot(dataclasses.replace(real, view=dearer))
            assert f"penalty of {penalty * 10}" in str(app.screen.query_one("#warning").render())
            app._apply_snapshot(real)
            assert str(app.screen.query_one("#warning").render()) == warning
            await pilot.press("n")
            await until(pilot, lambda: not isinstance(app.screen, ConfirmLeave))
            await pilot.press("l")
            await until(pilot, lambda: isinstance(app.screen, ConfirmLeave))
            await pilot.press("y")
            await until(pilot, lambda: "you left" in app.message)
            # The settlement shows, the table no longer waits on this seat, and the log names
            # the player who left, not the bot that took the seat.
            await until(pilot, lambda: "escaped" in str(app.query_one("#settlement").render()))
            assert app.query_one("#settlement").display
            await pilot.pause(0.5)  # a snapshot from before the leave may still arrive
            assert "turn: you" not in str(app.query_one("#table").render())
            me = app.session.player_id
            await until(pilot, lambda: any("leaves the game" in x for x in app.log_lines))
            left = [x for x in app.log_lines if "leaves the game" in x or "scores:" in x]
            assert left and all(me in x for x in left), left
            assert not any("bot:" in x for x in app.log_lines if "leaves the game" in x)
            assert "queue again" in str(app.query_one("#settlement").render())
            # The escape is rated (the escaper last): the settlement, no longer at a table,
            # still asks until replay has rated it, and then shows this game's change.
            shown = await until(pilot, lambda: rating_shown(app), timeout=60)
            assert shown == this_games_rating_line(app)
            await pilot.press("ctrl+q")
            assert not app.quit_seated
            return game_id

    game_id = asyncio.run(scenario())
    target = f"127.0.0.1:{cluster.replay_port}"

    def stored() -> bool:
        try:
            return load(target, game_id).ended
        except LoadError:
            return False

    wait_for(stored)
    game = load(target, game_id)
    watcher = WatchApp(game)

    async def watch() -> None:
        async with watcher.run_test(size=SIZE) as pilot:
            assert "1/" in str(watcher.query_one("#step").render())
            header = str(watcher.query_one("#header").render())
            assert "Bot " in header and "bot:" not in header  # bots by readable names
            await pilot.press("right", "right")
            assert watcher.index == 2
            await pilot.press("left")
            assert watcher.index == 1
            await pilot.press("end")
            svg = screen_text(watcher.export_screenshot())
            assert "game over: escaped" in svg and "Escape audit" in svg
            assert "consistent" in svg and "penalty" in svg and "cause player" in svg
            assert "recomputed" in svg and "recorded" in svg
            audit = str(watcher.query_one("#audit").render())
            assert "✓" in audit and "✗" not in audit
            # An escape is rated (the escaper last): each person's change, by seat.
            assert [c.player_id.startswith("bot:") for c in game.ratings].count(False) == 1
            mine = next(c for c in game.ratings if not c.player_id.startswith("bot:"))
            assert mine.mu < mine.mu_before
            shown = str(watcher.query_one("#settlement").render())
            assert "Rating" in shown
            assert render.rating_text(mine.display, mine.display_before) in shown
            await pilot.press("left")
            assert "leaves the game" in str(watcher.query_one("#step").render())
            await pilot.press("q")

    asyncio.run(watch())
    small = WatchApp(game)

    async def watch_small() -> None:  # 100×30: the audit's end is reached by scrolling
        async with small.run_test(size=(100, 30)) as pilot:
            await pilot.press("end", *["pagedown"] * 6)
            await pilot.pause(0.2)
            assert "consistent" in screen_text(small.export_screenshot())
            await pilot.press("q")

    asyncio.run(watch_small())
    seat_view = load(target, game_id, seat=1)
    assert all(not e.envelope.HasField("seat") or e.envelope.seat == 1 for e in seat_view.events)

    # --seat 1: only what seat 1 saw — its own hand, the others' hidden until the game ends.
    seen = load(target, game_id, seat=1)
    first, final = seen.states[0], seen.states[-1]
    assert len(first.hands[0]) >= 17 and final.phase is rules.Phase.OVER
    start = str(step_text(seen, 0))
    assert render.cards_plain(first.hands[1]) in start
    assert render.cards_plain(first.hands[0]) not in start
    assert render.cards_plain(first.hands[2]) not in start
    as_seat = WatchApp(seen)

    async def watch_as_seat() -> None:
        async with as_seat.run_test(size=SIZE) as pilot:
            svg = screen_text(as_seat.export_screenshot())
            assert "as seen by seat 1" in svg
            assert render.cards_plain(first.hands[0][:3]) not in svg
            await pilot.press("end")
            end = str(as_seat.query_one("#step").render())
            assert "game over" in end
            for hand in final.hands:
                assert render.cards_plain(hand) in end
            await pilot.press("q")

    asyncio.run(watch_as_seat())


def test_an_ambiguous_lead_asks_which_reading(
    cluster: Cluster, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Cards that read as two patterns: the play screen asks which one, and Act sends it."""
    import types

    from services.matchmaker import runner

    # A known deal (the engine deals it from the seed as from any other): seat 0, the human,
    # holds the first ♠3 and 3s3c3d 4h4c4d 5s5c5d 7c 8h Kd Ac.  333444555+7 is a plane with
    # the wings 5557 (key 4) or 3337 (key 5).
    seed = types.SimpleNamespace(token_hex=lambda _n=16: "amb39940")
    monkeypatch.setattr(runner, "secrets", seed)
    app = make_app(cluster, "zhengshangyou1")

    async def scenario() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: my_turn(app))
            assert app.snap is not None and app.snap.message.seat == 0
            hand = app.query_one("#hand", HandView)
            await pilot.press(*"3334445557")
            assert rules.format_cards(hand.selected_cards()) == "3s3c3d4h4c4d5s5c5d7c"

            # Esc in the chooser goes back to the hand, nothing played.
            await pilot.press("enter")
            await until(pilot, lambda: isinstance(app.screen, ChooseReading))
            svg = app.export_screenshot()
            (tmp_path / "chooser.svg").write_text(svg)  # kept for a look (pytest's tmp dir)
            text = screen_text(svg)
            assert "1  plane + two-card wings 飞机带二, 4" in text
            assert "2  plane + two-card wings 飞机带二, 5" in text
            await pilot.press("escape")
            await until(pilot, lambda: not isinstance(app.screen, ChooseReading))
            assert "not played" in app.message and len(hand.selected) == 10

            # The second reading: the play goes out as the plane with key 5.
            await pilot.press("enter")
            await until(pilot, lambda: isinstance(app.screen, ChooseReading))
            await pilot.press("2")
            await until(pilot, lambda: any("飞机带二, 5" in x and "plays" in x
                                           for x in app.log_lines))  # fmt: skip
            assert not any("飞机带二, 4" in x for x in app.log_lines)
            await until(pilot, lambda: len(hand.cards) == 3 or settled(app))
            await pilot.press("ctrl+q")

    asyncio.run(scenario())


def test_nothing_to_resume_and_no_matchmaker_say_so_in_one_line(cluster: Cluster) -> None:
    app = make_app(cluster, "doudizhu3", name="nobody-seated", resume=True)

    async def scenario(app: PlayApp) -> None:
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: app.return_code is not None)

    asyncio.run(scenario(app))
    assert app.return_code == 1 and app.fatal == render.NOTHING_TO_RESUME
    lost = PlayApp(Session("127.0.0.1:1", "lonely"), "doudizhu3", timers=TIMERS)
    asyncio.run(scenario(lost))
    assert lost.return_code == 1 and lost.fatal == render.unreachable_text("127.0.0.1:1")


class CountingEvent(threading.Event):
    """A threading.Event that counts its waits."""

    def __init__(self) -> None:
        super().__init__()
        self.waits = 0

    def wait(self, timeout: float | None = None) -> bool:
        self.waits += 1
        return super().wait(timeout)


def test_the_start_timer_counts_down_then_removal_offers_a_new_queue(cluster: Cluster) -> None:
    timers = M.Timers(bid_ms=30_000, turn_ms=30_000, start_ms=4_000, grace_ms=10_000,
                      bot_think_ms=0)  # fmt: skip
    app = make_app(cluster, "zhengshangyou1", timers=timers)

    async def scenario() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: app.view is not None)
            await pilot.press("a")  # auto-play to the end
            await until(pilot, lambda: settled(app), timeout=60)
            await until(pilot, lambda: "press n within" in str(
                app.query_one("#settlement").render()))  # fmt: skip
            await until(pilot, lambda: "⚠" in str(app.query_one("#settlement").render()))
            await until(pilot, lambda: app.left == render.REMOVED_TEXT, timeout=30)
            assert "removed" in app.message and "queue again" in app.message
            # Idle after the removal, the snapshot follower sleeps: it wakes on a new event or
            # once a second, not in a loop (it once spun at 60% of a core, woken for good).
            woken = CountingEvent()
            woken.set()  # as a late event left it
            app._dirty = woken
            await pilot.pause(2.0)
            assert woken.waits < 20, woken.waits
            await pilot.press("n")  # no NOT_SEATED: the seat is gone, and the screen says so
            assert "NOT_SEATED" not in app.message
            old = app.session.table_id
            await pilot.press("q")  # queue again: a new table
            await until(pilot, lambda: app.snap is not None and app.session.table_id != old
                        and app.view is not None)  # fmt: skip
            await pilot.press("ctrl+q")

    asyncio.run(scenario())


def test_the_settlement_scrolls_at_100_by_30(cluster: Cluster) -> None:
    app = make_app(cluster, "doudizhu3")

    async def scenario() -> None:
        async with app.run_test(size=(100, 30)) as pilot:
            await until(pilot, lambda: app.view is not None)
            await pilot.press("a")  # auto-play to the end
            await until(pilot, lambda: settled(app), timeout=60)
            await until(pilot, lambda: "Your running total" in str(
                app.query_one("#settlement").render()))  # fmt: skip
            await until(pilot, lambda: "Result:" in screen_text(app.export_screenshot()))
            box = app.query_one("#settlement-box")
            assert box.region.bottom <= 30  # the box is on the screen, its end reachable
            for _ in range(6):
                await pilot.press("pagedown")
            await pilot.pause(0.2)
            text = screen_text(app.export_screenshot())
            assert "Your running total" in text and "n: ready for the next game" in text
            await pilot.press("ctrl+q")

    asyncio.run(scenario())
