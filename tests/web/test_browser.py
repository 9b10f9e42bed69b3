"""The web table in a real browser (headless chromium): whole games played with the mouse,
the gestures of seed 001 §4.10, a refused play, the hint, auto-play, a reload that resumes,
an escape, the viewer, and that no WebSocket message shows a seat another seat's cards."""

from __future__ import annotations

import json
import re
from typing import Any

import grpc
import pytest

from services import rules
from services.common.wire import replay_pb2
from tests.matchmaker.conftest import Cluster, wait_for

from .conftest import SHOTS, Player, WebServer, median, record_figure

CARD = re.compile(r"^(?:[2-9TJQKA][shcd]|BJ|RJ)$")


def cards_in(value: Any) -> set[str]:
    """Every card string anywhere in a JSON value."""
    if isinstance(value, str):
        return {value} if CARD.match(value) else set()
    if isinstance(value, dict):
        return set().union(*(cards_in(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(cards_in(v) for v in value)) if value else set()
    return set()


def deal_of(cluster: Cluster, game_id: str) -> rules.GameState:
    stub = cluster.replay()
    record = wait_for(
        lambda: stub.ExportGame(replay_pb2.ExportGameRequest(game_id=game_id)).record_json
    )
    return rules.initial_state(rules.load_record(json.loads(record)))


def assert_no_leak(frames: list[dict[str, Any]], state: rules.GameState, seat: int) -> int:
    """Replay the frames a seat received in order: until its game ended, no frame holds a
    card of another seat's hand that had not been played yet (one deck: every card is one
    string).  Returns the frames checked."""
    hidden = {
        rules.format_cards((c,)) for s, hand in enumerate(state.hands) if s != seat for c in hand
    }
    if state.variant.bottom_public is False:
        hidden |= {rules.format_cards((c,)) for c in state.bottom}
    checked = 0
    for frame in frames:
        if frame.get("t") == "event" and frame.get("type") == "game":
            g = frame["game"]
            if g["type"] in ("play", "show_hand"):
                hidden -= set(g["data"].get("cards") or g["data"].get("hand") or [])
            if g["type"] == "bottom" and g["data"].get("seat") == seat:
                hidden -= set(g["data"].get("cards") or g["data"].get("bottom") or [])
            if g["type"] == "game_over":
                return checked
        leaked = cards_in(frame) & hidden
        assert not leaked, f"frame shows another seat's cards {leaked}: {frame}"
        checked += 1
    return checked


@pytest.fixture
def player(browser: Any, web: WebServer) -> Any:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    p = Player(context, web.url)
    p.open()
    yield p
    context.close()


def first_play_turn_checks(p: Player) -> None:
    """On the seat's first turn in play: a refused play keeps the hand, a double-click on the
    table returns the selection, the hint selects its cards, a right-click plays them."""
    hand = p.hand()
    order = "3456789TJQKA2"
    ranks = sorted({c[:-1] for c in hand if c not in ("BJ", "RJ")}, key=order.index)
    assert len(ranks) >= 2
    two = [next(c for c in hand if c[:-1] == ranks[0]), next(c for c in hand if c[:-1] == ranks[1])]
    for card in two:  # two singles of different ranks are no pattern in any variant
        p.page.locator(f"[data-testid=card][data-card='{card}']").first.click()
    assert sorted(p.selected()) == sorted(two)
    p.testid("play").click()
    p.idle()
    assert p.page.locator("#message.refusal").is_visible()
    assert "NOT_A_PATTERN" in p.page.locator("#message").inner_text()
    assert p.hand() == hand and sorted(p.selected()) == sorted(two)  # the hand is kept
    p.page.locator("#center").dblclick()  # on the table, outside the cards and controls
    assert p.selected() == []
    low = hand[-1]  # the terminal client's keys: a rank selects its next card, Esc clears
    if low[0] in "3456789":
        p.page.keyboard.press(low[0])
        assert p.selected() and all(c[0] == low[0] for c in p.selected())
        p.page.keyboard.press("Escape")
        assert p.selected() == []
    p.page.locator("#sort").click()  # 数目排序: the ranks held most first
    counted = p.hand()
    counts = [sum(1 for c in counted if c[:-1] == card[:-1]) for card in counted]
    assert counts == sorted(counts, reverse=True)
    p.page.locator("#sort").click()
    assert p.hand() == hand
    p.testid("hint").click()
    p.idle()
    hinted = p.selected()
    p.testid("hint").click()  # the same hint again
    p.idle()
    assert p.selected() == hinted
    seq = int(p.state("S.snap.seq"))
    if hinted:
        p.page.locator("#center").click(button="right")  # right-click plays the selection
    else:
        p.testid("pass").click()
    p.after_move(seq)
    if hinted:
        assert len(p.hand()) == len(hand) - len(hinted)


def test_a_whole_doudizhu3_game_with_the_mouse(player: Player, cluster: Cluster) -> None:
    p = player
    p.start("doudizhu3")
    assert p.testid("seat").count() == 3
    # The bots by the names every client shows (render.player_label), not their ids.
    p.page.wait_for_function(
        "() => [...document.querySelectorAll('[data-testid=seat] .name')]"
        ".filter(e => /^Bot \\d \\((easy|normal|hard)\\)$/.test(e.textContent)).length === 2"
    )
    done: set[str] = set()
    while not p.settled():
        p.wait_turn_or_end()
        if p.settled():
            break
        if p.phase() == "play" and "gestures" not in done:
            first_play_turn_checks(p)
            done.add("gestures")
            p.page.screenshot(path=str(SHOTS / "table-mid-game.png"))
        elif p.phase() == "play" and "autoplay" not in done:
            p.testid("autoplay").click()
            p.page.wait_for_function(
                "() => document.querySelector('[data-testid=autoplay]').dataset.on === 'true'"
                " || !document.querySelector('[data-testid=settlement]').hidden"
            )
            if not p.settled():
                p.testid("autoplay").click()
                p.page.wait_for_function(
                    "() => document.querySelector('[data-testid=autoplay]').dataset.on !== 'true'"
                    " || !document.querySelector('[data-testid=settlement]').hidden"
                )
            done.add("autoplay")
        else:
            p.take_turn()
    assert "gestures" in done, "the seat never had a turn in play"
    box = p.testid("settlement")
    game_id = box.get_attribute("data-game-id")
    assert game_id
    text = box.inner_text()
    # Chinese by default: the result, every step and the scores (RULES.md's numbers).
    assert "结果：" in text and "计算：" in text and "得分：" in text, text
    p.page.wait_for_function("() => (window.__cardroom.playerLines.zh || []).length > 0")
    assert "累计（斗地主）" in box.inner_text()
    # This game's rating change, once replay has rated it ("计算中" until then).
    p.page.wait_for_function(
        "() => /等级分：\\d+（[+-]\\d+/.test(document.querySelector('#player-lines').innerText)",
        timeout=30_000,
    )
    p.page.locator("#lang").click()  # the same settlement in English
    p.page.wait_for_function(
        "() => document.querySelector('[data-testid=settlement]').innerText.includes('steps:')"
    )
    assert "Result:" in box.inner_text() and "Your running total (doudizhu)" in box.inner_text()
    p.page.locator("#lang").click()
    p.page.wait_for_function(
        "() => document.querySelector('[data-testid=settlement]').innerText.includes('计算：')"
    )
    assert "称号" not in box.inner_text()  # Dou Dizhu totals carry no title (RULES.md §5.4)
    p.page.wait_for_selector(".end-hand")
    assert box.locator(".end-hand").count() == 3  # every seat's cards left, face up
    assert box.locator(".end-hand .card").count() >= 2  # the losers hold cards
    p.page.screenshot(path=str(SHOTS / "settlement.png"), full_page=True)
    state = deal_of(cluster, game_id)
    seat = int(p.state("S.snap.seat"))
    assert assert_no_leak(p.frames, state, seat) > 20
    moves = p.moves()
    assert moves  # the round trips were measured
    record_figure("ddz3_move_round_trip_ms_median", round(median(moves), 1))
    record_figure("ddz3_move_round_trips", len(moves))
    # The next game: ready, and a new deal arrives.
    p.testid("next-game").click()
    p.page.wait_for_function(
        "(old) => window.__cardroom.snap?.state === 'playing'"
        " && window.__cardroom.snap.game_id !== old",
        arg=game_id,
    )
    # The new game is on: "ready — waiting for the others" is gone (it stood through the
    # bidding until the first play).
    assert "已准备" not in p.message(), p.message()
    p.wait_turn_or_end()
    assert "已准备" not in p.message(), p.message()
    assert not p.errors, p.errors


def test_a_reload_mid_game_resumes_and_an_escape_names_its_penalty_first(
    player: Player, cluster: Cluster
) -> None:
    p = player
    p.start("doudizhu3")
    p.wait_turn_or_end()
    if p.my_turn() and not p.settled():
        p.take_turn()
    # A dropped connection: the page reconnects by itself and resumes after the last event
    # it saw — no event twice, none missed.
    p.page.evaluate("() => window.__cardroom.ws.close()")
    p.page.wait_for_function("() => !window.__cardroom.connected")
    p.page.wait_for_function("() => window.__cardroom.connected", timeout=15_000)
    p.page.wait_for_timeout(500)
    lines = p.page.evaluate(
        "() => [...document.querySelectorAll('#log li')].map(e => e.textContent)"
    )
    seqs = [int(t.split()[0][1:]) for t in lines]
    assert len(seqs) > 5 and seqs == sorted(set(seqs), reverse=True)  # none twice, in order
    hand = p.hand()
    table_id = p.state("S.snap.table_id")
    p.page.reload()  # the page comes back to the same seat, its log replayed
    p.page.wait_for_function("() => window.__cardroom.snap?.view?.hand?.length > 0")
    assert p.state("S.snap.table_id") == table_id
    assert sorted(p.hand()) == sorted(hand)  # the same cards, the same seat
    assert p.page.locator("#log li").count() > 5  # the game's events came again
    p.page.wait_for_function("() => window.__cardroom.snap.state === 'playing'")
    seat = p.state("S.snap.seat")
    p.testid("leave").click()
    confirm = p.page.locator("#confirm")
    confirm.wait_for()
    text = p.page.locator("#confirm-text").inner_text()
    penalty = int(p.state("S.snap.escape.penalty"))
    assert penalty > 0 and str(penalty) in text and text.index(str(penalty)) < 40
    assert "逃跑" in text  # Chinese by default
    assert p.page.locator("#confirm-steps li").count() >= 2
    # The price shown is the price now: a snapshot while the question is open (a bid or a
    # bomb meanwhile) refills it.  Played here as a frame the server would send: the same
    # snapshot with a dearer escape, then the real one again.
    dearer = p.page.evaluate(
        """() => {
            const S = window.__cardroom;
            const real = JSON.stringify(S.snap);
            const m = JSON.parse(real);
            m.escape.penalty += 1000;
            m.escape.steps[S.lang] = ["penalty = " + m.escape.penalty];
            S.ws.onmessage({ data: JSON.stringify(m) });
            const shown = document.querySelector("#confirm-text").textContent;
            S.ws.onmessage({ data: real });
            return shown;
        }"""
    )
    assert str(penalty + 1000) in dearer, dearer
    assert p.page.locator("#confirm-text").inner_text() == text
    p.page.locator("#confirm-yes").click()
    p.page.wait_for_selector("#gone:not([hidden])")
    frames = [f for f in p.frames if f.get("t") == "event" and f.get("type") == "game"]
    assert any(f["game"]["type"] == "leave" for f in frames)
    over = [f for f in p.frames if f.get("t") == "event" and f.get("type") == "game_over"]
    game_id = over[-1]["data"]["game_id"]
    escaper = over[-1]["data"]["settlement"]["escaper"]
    assert escaper == seat
    assert over[-1]["data"]["scores"][escaper] == -penalty  # the named penalty was paid
    stub = cluster.replay()

    def stored() -> Any:  # the outbox delivers the game's end to replay shortly after
        game = stub.GetGame(replay_pb2.GetGameRequest(game_id=game_id)).game
        return game if game.status != replay_pb2.REPLAY_GAME_STATUS_RUNNING else None

    assert wait_for(stored).status == replay_pb2.REPLAY_GAME_STATUS_ESCAPED
    box = p.testid("settlement")  # the escape's settlement stays in view
    box.wait_for()
    assert box.get_attribute("data-game-id") == game_id and "逃跑者：" in box.inner_text()
    p.page.screenshot(path=str(SHOTS / "escape.png"), full_page=True)
    assert not p.errors, p.errors


def autoplayed_game(p: Player, variant: str = "doudizhu3") -> str:
    """A whole game with auto-play 托管 on from the first turn: its game id."""
    p.start(variant)
    p.page.wait_for_function("() => window.__cardroom.snap?.state === 'playing'")
    p.testid("autoplay").click()
    p.testid("settlement").wait_for(timeout=120_000)
    return str(p.testid("settlement").get_attribute("data-game-id"))


def known(cluster: Cluster, game_id: str) -> None:
    """Wait until replay has the game's first events: before, it is NOT_FOUND there."""
    stub = cluster.replay()

    def found() -> bool:
        try:
            stub.GetGame(replay_pb2.GetGameRequest(game_id=game_id), timeout=10)
        except grpc.RpcError as exc:
            if exc.code() != grpc.StatusCode.NOT_FOUND:
                raise
            return False
        return True

    wait_for(found)


def stored(cluster: Cluster, game_id: str) -> None:
    """Wait until replay has the game's end (the outbox delivers it shortly after)."""
    stub = cluster.replay()
    wait_for(
        lambda: (
            stub.GetGame(replay_pb2.GetGameRequest(game_id=game_id)).game.status
            != replay_pb2.REPLAY_GAME_STATUS_RUNNING
        )
    )


def test_the_replay_viewer_steps_through_games_verifies_and_audits_an_escape(
    browser: Any, web: WebServer, cluster: Cluster
) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    p = Player(context, web.url)
    p.open()
    p.start("doudizhu3")
    p.page.wait_for_function("() => window.__cardroom.snap?.state === 'playing'")
    running = p.state("S.snap.game_id")
    known(cluster, running)  # replay has its first events (the outbox gathers them 200 ms)
    viewer = Player(context, web.url)
    viewer.page.goto(f"{web.url}games/{running}")  # a game still running is refused
    viewer.page.wait_for_selector("#error:not([hidden])")
    assert "running game" in viewer.page.locator("#error").inner_text()
    p.testid("leave").click()
    p.page.locator("#confirm-yes").click()
    p.page.wait_for_selector("#gone:not([hidden])")
    p.testid("settlement").wait_for()
    escaped = p.testid("settlement").get_attribute("data-game-id")
    assert escaped == running
    stored(cluster, escaped)

    # A visitor without a cookie opens the link: verified, stepped with buttons and keys.
    visitor = browser.new_context(viewport={"width": 1280, "height": 900})
    v = Player(visitor, web.url)
    v.page.goto(f"{web.url}games/{escaped}")
    verify = v.testid("verify")
    verify.wait_for()
    assert verify.get_attribute("data-ok") == "true"
    event = v.testid("event")
    first = event.inner_text()
    assert "game_header" in first or "event 1" in first
    v.testid("step-next").click()
    assert event.get_attribute("data-seq") == "2"
    v.page.keyboard.press("ArrowRight")
    assert event.get_attribute("data-seq") == "3"
    v.page.keyboard.press("ArrowLeft")
    v.testid("step-prev").click()
    assert event.get_attribute("data-seq") == "1"
    v.page.keyboard.press("End")
    assert v.page.locator("#settlement-panel").is_visible()
    audit = v.page.locator("#audit-panel")
    assert audit.is_visible()
    assert "recomputed" in audit.inner_text() and "consistent" in audit.inner_text()
    assert "escaped" in v.page.locator("#settlement-panel").inner_text()
    # Every hand face up once ended: each seat's row holds its cards.
    assert v.page.locator("#step-seats .cards").count() >= 3
    v.page.screenshot(path=str(SHOTS / "viewer-escape.png"), full_page=True)
    # One seat's view: only its own cards until it saw the game end.
    v.page.goto(f"{web.url}games/{escaped}?seat=1")
    v.testid("verify").wait_for()
    v.testid("step-next").click()
    v.testid("step-next").click()
    assert v.page.locator("#step-seats .cards").count() <= 2  # its hand (and the bottom)

    # A finished game, played out by auto-play.
    finished = autoplayed_game(p, "doudizhu3")
    stored(cluster, finished)
    v.page.goto(f"{web.url}games/{finished}")
    v.testid("verify").wait_for()
    assert v.testid("verify").get_attribute("data-ok") == "true"
    steps = int(v.page.evaluate("() => window.__viewer.game.steps.length"))
    for _ in range(steps):
        v.page.keyboard.press("ArrowRight")
    assert v.testid("event").get_attribute("data-type") == "game_over"
    assert "Result:" in v.page.locator("#settlement-panel").inner_text()
    assert not v.page.locator("#audit-panel").is_visible()
    v.page.screenshot(path=str(SHOTS / "viewer-finished.png"), full_page=True)
    for who in (p, viewer, v):
        assert not [e for e in who.errors if "409" not in e], who.errors
    context.close()
    visitor.close()


@pytest.mark.parametrize(
    ("variant", "viewport"),
    [
        ("doudizhu4", {"width": 1280, "height": 900}),
        ("zhengshangyou1", {"width": 1280, "height": 900}),
        ("zhengshangyou2", {"width": 390, "height": 844}),  # a phone
    ],
)
def test_a_whole_game_of_each_variant_with_the_mouse(
    browser: Any, web: WebServer, cluster: Cluster, variant: str, viewport: dict[str, int]
) -> None:
    context = browser.new_context(viewport=viewport, has_touch=viewport["width"] < 500)
    p = Player(context, web.url)
    p.open()
    p.page.locator("#lang").click()  # English, then back to Chinese
    p.page.wait_for_function(
        "() => document.querySelector('[data-testid=play]').textContent === 'Play'"
    )
    p.page.locator("#lang").click()
    p.page.wait_for_function(
        "() => document.querySelector('[data-testid=play]').textContent === '出牌'"
    )
    p.start(variant)
    seats = rules.variant(variant).players
    assert p.testid("seat").count() == seats
    if viewport["width"] < 500:  # nothing wider than the phone's screen
        width = p.page.evaluate("() => document.documentElement.scrollWidth")
        assert width <= viewport["width"], width
        p.wait_turn_or_end()
        p.page.screenshot(path=str(SHOTS / f"phone-{variant}.png"), full_page=True)
    # Every hint to pass taken with Play and nothing chosen (the terminal's Enter does the
    # same): a refusal ("select cards first") would leave the turn to run out.
    turns = p.play_to_the_end(pass_by_play=True)
    assert turns > 0
    game_id = str(p.testid("settlement").get_attribute("data-game-id"))
    text = p.testid("settlement").inner_text()
    assert "结果：" in text and "得分：" in text, text
    p.page.wait_for_selector(".end-hand")
    assert p.page.locator(".end-hand").count() == seats
    if rules.variant(variant).family == "zhengshangyou":
        p.page.wait_for_function("() => !!(window.__cardroom.title || {}).zh")
        assert "称号：" in p.testid("settlement").inner_text()  # the Zheng Shangyou title
    if rules.variant(variant).decks == 1:  # one deck: every card is one string
        assert assert_no_leak(p.frames, deal_of(cluster, game_id), int(p.state("S.snap.seat")))
    p.page.screenshot(path=str(SHOTS / f"settlement-{variant}.png"), full_page=True)
    record_figure(f"{variant}_move_round_trip_ms_median", round(median(p.moves()), 1))
    assert not p.errors, p.errors
    context.close()
