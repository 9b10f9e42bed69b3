"""The web table in a real browser (headless chromium): whole games played with the mouse,
the gestures of seed 001 §4.10, a refused play, the hint, auto-play, a reload that resumes,
an escape, the viewer, and that no WebSocket message shows a seat another seat's cards."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from services import rules
from services.common.wire import replay_pb2
from tests.matchmaker.conftest import Cluster

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
    record = cluster.replay().ExportGame(replay_pb2.ExportGameRequest(game_id=game_id)).record_json
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
    assert "Result:" in text and "steps:" in text and "scores:" in text
    p.page.wait_for_function("() => window.__cardroom.playerLines.length > 0")
    assert "running total" in box.inner_text()
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
    assert not p.errors, p.errors
