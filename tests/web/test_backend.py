"""The web back end without a browser: the cookie, the names, and every WebSocket message —
fuzzed — answered with a reason, never a crash or a dropped socket."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from services.web.identity import Identities, Identity

from .conftest import Cluster, WebServer, cluster  # noqa: F401

#: The codes a bad or ill-timed message may get; ALREADY_EXISTS is a second start while the
#: first one's ticket or seat is held (ALREADY_QUEUED, ALREADY_SEATED).
ALLOWED = {"INVALID_ARGUMENT", "FAILED_PRECONDITION", "NOT_FOUND", "ABORTED", "PERMISSION_DENIED",
           "ALREADY_EXISTS"}  # fmt: skip


@given(browser=st.text(min_size=1, max_size=30), player=st.text(min_size=1, max_size=30))
@settings(max_examples=50, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_a_cookie_names_its_player_and_an_edited_one_names_nobody(
    tmp_path: Path, browser: str, player: str
) -> None:
    ids = Identities(tmp_path)
    cookie = ids.dump(Identity(browser, player))
    assert ids.load(cookie) == Identity(browser, player)
    body, _, sig = cookie.rpartition(".")
    assert ids.load(f"{body}x.{sig}") is None
    assert ids.load(f"{body}.{sig[:-1]}") is None
    assert Identities(tmp_path / "other").load(cookie) is None  # another site's key
    assert ids.load(None) is None and ids.load("") is None and ids.load("...") is None


def test_the_key_is_made_once_and_kept_private(tmp_path: Path) -> None:
    first = Identities(tmp_path)
    assert (tmp_path / "web.key").stat().st_mode & 0o077 == 0
    assert Identities(tmp_path).key == first.key


def test_a_chosen_name_belongs_to_the_first_browser(tmp_path: Path) -> None:
    ids = Identities(tmp_path)
    a, b = Identities.guest(), Identities.guest()
    assert ids.claim(a, "alice") is None
    assert ids.claim(a, "alice") is None  # still hers
    assert "taken" in str(ids.claim(b, "alice"))
    assert ids.claim(b, "bob") is None
    for bad in ("", "a", "x" * 40, "bot:easy", "guest-1", "a b", "<script>"):
        assert ids.claim(b, bad) is not None, bad
    assert ids.claim(b, "小明") is None


async def _session(url: str) -> aiohttp.ClientSession:
    s = aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))
    async with s.get(url) as r:
        assert r.status == 200
    return s


def test_names_over_http_and_no_socket_without_a_cookie(web: WebServer) -> None:
    async def go() -> None:
        a, b = await _session(web.url), await _session(web.url)
        async with a, b:
            async with a.post(f"{web.url}api/name", json={"name": "alice"}) as r:
                assert r.status == 200
            async with a.get(f"{web.url}api/me") as r:
                assert (await r.json())["player"] == "alice"
            async with b.post(f"{web.url}api/name", json={"name": "alice"}) as r:
                assert r.status == 409 and (await r.json())["reason"] == "NAME_TAKEN"
            async with b.get(f"{web.url}api/me") as r:
                assert (await r.json())["player"].startswith("guest-")
            for body in (b"not json", b"[]", b'{"name": 5}', b"{}"):
                async with b.post(f"{web.url}api/name", data=body) as r:
                    assert r.status == 400
            async with aiohttp.ClientSession() as nobody:
                with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                    await nobody.ws_connect(f"{web.url}ws")
                assert refused.value.status == 401
                forged = {"cardroom_id": "eyJiIjogIngiLCAicCI6ICJhbGljZSJ9.AAAA"}
                async with aiohttp.ClientSession(cookies=forged) as forger:
                    with pytest.raises(aiohttp.WSServerHandshakeError):
                        await forger.ws_connect(f"{web.url}ws")
            async with a.get(f"{web.url}words/xx.json") as r:
                assert r.status == 404
            async with a.get(f"{web.url}api/games/x?seat=9") as r:
                assert r.status == 400

    asyncio.run(go())


OPS = ["hello", "start", "play", "pass", "bid", "show_hand", "autoplay", "hint", "ready",
       "leave", "ping", "nope", "", None, 3]  # fmt: skip
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=8,
)
COMMAND = st.fixed_dictionaries(
    {"op": st.sampled_from(OPS)},
    optional={
        k: VALUES
        for k in (
            "id",
            "after_seq",
            "variant",
            "bot_level",
            "stake",
            "private_code",
            "wait_s",
            "cards",
            "reading",
            "bid",
            "on",
        )
    },
)
MESSAGE = st.one_of(
    COMMAND.map(json.dumps), st.text(max_size=40), VALUES.map(json.dumps), st.just("{")
)


@given(messages=st.lists(MESSAGE, min_size=1, max_size=12))
@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_every_socket_message_is_answered_and_the_socket_stays(
    web: WebServer, messages: list[str]
) -> None:
    async def go() -> None:
        async with await _session(web.url) as s, s.ws_connect(f"{web.url}ws") as ws:
            for text in messages:
                await ws.send_str(text)
                while True:  # the answer comes; stream items may come before it
                    msg = await asyncio.wait_for(ws.receive(), 20)
                    assert msg.type == aiohttp.WSMsgType.TEXT, msg
                    data: dict[str, Any] = json.loads(msg.data)
                    if data["t"] == "answer":
                        break
                assert isinstance(data["ok"], bool)
                if not data["ok"]:
                    assert data["code"] in ALLOWED | {"UNAVAILABLE"}, data
                    assert data["say"]["zh"] and data["say"]["en"]
            await ws.send_str(json.dumps({"op": "ping", "id": "last"}))
            while True:
                data = json.loads((await asyncio.wait_for(ws.receive(), 20)).data)
                if data["t"] == "answer":
                    break
            assert data["ok"] and data["id"] == "last"
            await ws.send_str(json.dumps({"op": "leave"}))  # free the player for the next

    asyncio.run(go())


def test_the_page_loads_under_200_kb_from_this_server_alone(web: WebServer) -> None:
    """The first load is the page, its modules, its style and its words — nothing from
    another host (no CDN: the page runs offline) — under 200 KB."""
    import re

    async def go() -> int:
        async with await _session(web.url) as s:
            async with s.get(web.url) as r:
                html = await r.text()
            assert not re.search(r"""(src|href)=["']?(https?:)?//""", html)
            total = len(html.encode())
            for path in ("static/table.js", "static/cards.js", "static/style.css",
                         "words/zh.json"):  # fmt: skip
                async with s.get(web.url + path) as r:
                    assert r.status == 200, path
                    body = await r.read()
                    assert b"http://" not in body and b"https://" not in body, path
                    total += len(body)
            return total

    total = asyncio.run(go())
    assert total < 200 * 1024, total


@pytest.mark.parametrize("variant", ["doudizhu3", "zhengshangyou1"])
def test_the_escape_preview_reads_in_the_pages_language(variant: str) -> None:
    """Leaving mid-game names the penalty, then every step of it — in Chinese on a Chinese
    page (the rules write a step's formula in English), line for line the English ones."""
    from services import rules
    from services.web.convert import escape_json

    state = rules.new_game(rules.variant(variant), seed="escape-words")
    if state.phase is rules.Phase.BIDDING:  # a bid of 2 raises the penalty
        state, _ = rules.apply(state, rules.Bid(state.turn, 2))
    preview = escape_json(rules.seat_view(state, state.turn))
    assert preview is not None and preview["penalty"] > 0
    zh, en = preview["steps"]["zh"], preview["steps"]["en"]
    assert len(zh) == len(en) > 0
    assert any(line.startswith("penalty = ") for line in en)
    assert any(line.startswith("罚分 = ") for line in zh)
    english = ("bomb factor", "highest bid", "scores", "none", "stake", "cards left", "escaper")
    assert not [line for line in zh if any(word in line for word in english)], zh


def test_the_rating_line_is_this_games_change_or_nothing() -> None:
    """GetPlayer's last rating change is shown only when it is this game's: a change of the
    game before (replay has not rated this one yet) is never shown as this game's."""
    from services.common.wire import matchmaker_pb2 as M
    from services.web.convert import player_json, rating_json

    info = M.PlayerInfo(player_id="ann")
    info.last_rating_change.game_id = "t1.2"
    info.last_rating_change.variant = "doudizhu3"
    info.last_rating_change.display, info.last_rating_change.display_before = 540, 600
    info.ratings.add(variant="doudizhu3", provisional=True)
    assert rating_json(info, "t1.3") is None  # the game before's change
    assert rating_json(M.PlayerInfo(player_id="ann"), "t1.2") is None  # never rated
    line = rating_json(info, "t1.2")
    assert line == {"zh": "等级分：540（-60，定级中）", "en": "Rating: 540 (-60, provisional)"}
    assert player_json(info, "doudizhu", line)["rating"] == line


def test_a_follower_cancelled_as_news_arrives_stops(cluster: Cluster) -> None:  # noqa: F811
    """A relay's follower is cancelled (the socket closed, or the seat moved to another
    table) at the moment news wakes it: it stops.  With Python 3.11's ``wait_for`` it went
    on for ever, and ``detach``, which waits for it, never returned: that socket answered
    nothing more and the server could not shut down (a hang in CI)."""
    from services.web.relay import Backend, SeatRelay

    assert cluster.mm_server is not None

    async def go() -> None:
        async def send(msg: dict[str, Any]) -> None:
            pass

        backend = Backend(cluster.mm_server.target, f"127.0.0.1:{cluster.replay_port}")
        relay = SeatRelay(backend, "ann", send)
        for _ in range(5):
            follower = asyncio.create_task(relay.follow())
            await asyncio.sleep(0.05)  # waiting for news
            relay.dirty.set()
            follower.cancel()
            done, _ = await asyncio.wait({follower}, timeout=5)
            assert follower in done and follower.cancelled(), "the follower went on"
        await backend.mm_channel.close()
        await backend.rp_channel.close()

    asyncio.run(go())


def test_a_stopping_server_closes_its_sockets_going_away(web: WebServer) -> None:
    """Ctrl-C on ``cardroom web serve`` with pages open: each socket is closed "going away"
    (1001, the page reconnects to whatever serves next), not left open until aiohttp's
    shutdown timeout (60 s here; 5 s in ``cardroom web serve``) cuts it."""

    async def go() -> None:
        async with await _session(web.url) as s, s.ws_connect(f"{web.url}ws") as ws:
            await ws.send_str(json.dumps({"op": "ping", "id": 1}))
            async with asyncio.timeout(20):
                while json.loads((await ws.receive()).data)["t"] != "answer":
                    pass
            stopping = asyncio.create_task(asyncio.to_thread(web.stop))
            async with asyncio.timeout(20):
                msg = await ws.receive()
            assert msg.type == aiohttp.WSMsgType.CLOSE and ws.close_code == 1001, msg
            await stopping  # and the stop ends (its own bound: 30 s)

    asyncio.run(go())
