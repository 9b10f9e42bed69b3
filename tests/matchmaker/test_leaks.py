"""No seat's stream or snapshot ever holds another seat's hidden card: many bot-filled games
of every variant, each seat's stream and mid-game snapshots checked against the deal (opened
by the seed that game_over reveals).  CARDROOM_MM_LEAK_GAMES sets the games per variant
(default 6; the issue's run is 50 per variant, 200 in all)."""

from __future__ import annotations

import json
import os
from concurrent.futures import ThreadPoolExecutor

from cardroom.v1 import engine_pb2, matchmaker_pb2

from services import rules

from .conftest import Cluster, seated, wait_for
from .test_games import VARIANTS, Stream, act, hidden_leaks

M = matchmaker_pb2
GAMES = int(os.environ.get("CARDROOM_MM_LEAK_GAMES", "6"))
FAST_BOTS = M.Timers(bot_think_ms=0, turn_ms=60_000, bid_ms=60_000, start_ms=60_000)


def one_game(stub: object, variant: str, i: int) -> list[str]:
    player = f"{variant}-{i}"
    s = stub  # type: ignore[assignment]
    ticket = seated(s, s.Enqueue(M.EnqueueRequest(  # type: ignore[attr-defined]
        player_id=player, variant=variant, bot_fill_after_ms=0, timers=FAST_BOTS), timeout=10,
    ).ticket_id)  # fmt: skip
    table_id, seat = ticket.table_id, ticket.seats[0]
    stream = Stream(s, table_id, player)
    ids = {"table_id": table_id, "player_id": player}
    s.Ready(M.ReadyRequest(**ids), timeout=10)  # type: ignore[attr-defined]
    snap = wait_for(lambda: (x := s.GetTable(M.GetTableRequest(**ids), timeout=10)).game_id and x)  # type: ignore[attr-defined]
    snapshots = [snap]
    act(s, table_id, player, engine_pb2.Action(autoplay=True))
    snapshots.append(s.GetTable(M.GetTableRequest(**ids), timeout=10))  # type: ignore[attr-defined]
    wait_for(lambda: any(e.type == "series" for e in stream.events), timeout=60)
    stream.close()
    over = next(e for e in stream.events if e.type == "game" and e.game_event.type == "game_over")
    seed = json.loads(over.game_event.data_json)["seed"]
    leaks = hidden_leaks(stream.events, seat, variant, seed)
    v = rules.variant(variant)
    # A seat's cards: its dealt hand, and the bottom cards should it become the landlord.
    deals = [rules.deal_from_seed(v, rules.redeal_seed(seed, d)) for d in range(v.max_deals)]
    mine = [set(d.hands[seat]) | set(d.bottom) for d in deals]
    for x in snapshots:
        if x.state != M.TABLE_STATE_PLAYING or not x.view.view_json:
            continue
        view = json.loads(x.view.view_json)
        if view["settlement"] is not None:
            continue  # the game is over: everything is public
        hand = tuple(sorted(rules.parse_cards(view["hand"] or "")))
        if not any(set(hand) <= h for h in mine):
            leaks.append(f"snapshot hand of seat {seat} is not its own")
        if view["record"] is not None:
            leaks.append("snapshot holds the record while the game runs")
    return leaks


def test_no_stream_or_snapshot_holds_a_foreign_hidden_card(cluster: Cluster) -> None:
    stub = cluster.mm()
    work = [(v, i) for v in VARIANTS for i in range(GAMES)]
    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(lambda vi: one_game(stub, *vi), work))
    assert [leak for r in results for leak in r] == []
