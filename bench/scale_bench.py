"""Scale benchmark (PostgreSQL only): the soak tool's crowd against one matchmaker instance
and against two on the same database, same load, same run; and one instance under many
tables with a streaming human seat each (issue 12's goal: ≥ 300 tables, Act p99 < 100 ms).

Engine and replay run as their own one-worker processes, the matchmakers as one-worker
processes, the crowd (``cardroom soak``) as a process of its own: all on this machine.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

from services.common.migrate import upgrade

from .common import Context, fmt_ratio, progress
from .common import Table as BenchTable
from .engine_bench import _free_port, _wait_healthy
from .matchmaker_bench import services
from .replay_bench import backends

#: The human-paced mix of the many-tables run: people think seconds, the bots take the room's
#: default think time (services/matchmaker/service.py: bot_think_ms 1000) and the turn timer
#: is the room's 30 s (RULES.md §6).  The crowd runs keep the fast mix (20–250 ms, bots
#: 50 ms): a throughput test, not the concurrency of issue 12's goal.
HUMAN_THINK_MS = "1000-4000"
ROOM_BOT_THINK_MS = "1000"
ROOM_TURN_MS = "30000"


@contextlib.contextmanager
def matchmakers(db_url: str, engine: str, replay: str, n: int) -> Iterator[list[str]]:
    env = dict(os.environ)
    env.update(CARDROOM_DATABASE_URL=db_url, CARDROOM_ENGINE_ADDR=engine,
               CARDROOM_REPLAY_ADDR=replay, CARDROOM_LOG_LEVEL="warning")  # fmt: skip
    procs, targets = [], []
    try:
        for _ in range(n):
            port = _free_port()
            cmd = [sys.executable, "-m", "services", "matchmaker", "serve", "--port", str(port),
                   "--no-access-log"]  # fmt: skip
            procs.append(subprocess.Popen(cmd, env=env, stderr=subprocess.DEVNULL))
            targets.append(f"127.0.0.1:{port}")
            _wait_healthy(targets[-1], procs[-1])
        yield targets
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            p.wait(20)


def soak(targets: list[str], replay: str, players: int, duration: float, *extra: str) -> Any:
    cmd = [sys.executable, "-m", "services", "soak", "--targets", ",".join(targets),
           "--replay", replay, "--players", str(players), "--duration", str(duration),
           "--json", *extra]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=duration + 900)
    if not done.stdout.strip():
        raise RuntimeError(f"soak failed: {done.stderr[-500:]}")
    return json.loads(done.stdout)


def scale_section(ctx: Context) -> list[BenchTable]:
    duration = 15.0 if ctx.quick else 30.0
    # Human pace: a game takes a minute or more, so the run is long enough for the tables'
    # steady state to outweigh the opening rush (300 enqueues and streams at once).
    paced = 30.0 if ctx.quick else 90.0
    crowd = 30 if ctx.quick else 60
    many = 100 if ctx.quick else 300
    table = BenchTable(
        "Scale: one matchmaker vs two on one PostgreSQL (same crowd), and many streaming tables",
        ["run", "instances", "tables", "games/min", "actions/s", "Act p50 ms", "Act p99 ms",
         "errors", "ok"],
    )  # fmt: skip
    with backends() as found:
        pg = [b for b in found if b.name != "SQLite"]
        if not pg:
            table.notes.append("skipped: needs PostgreSQL (CARDROOM_TEST_PG_URL)")
            return [table]
        url = pg[0].url
        upgrade(url)
        results = []
        with services(url) as (engine, replay):
            for n in (1, 2):
                progress(f"scale: {crowd} players against {n} matchmaker(s), {duration:g} s")
                with matchmakers(url, engine, replay, n) as targets:
                    results.append((f"crowd {crowd}", n, soak(targets, replay, crowd, duration)))
            progress(f"scale: {many} solo tables at human pace against one matchmaker, "
                     f"{paced:g} s")  # fmt: skip
            with matchmakers(url, engine, replay, 1) as targets:
                results.append((f"{many} solo, human pace", 1, soak(
                    targets, replay, many, paced, "--solo", "--think-ms", HUMAN_THINK_MS,
                    "--bot-think-ms", ROOM_BOT_THINK_MS, "--turn-ms", ROOM_TURN_MS,
                    "--fill-ms", "0", "--drain", "240")))  # fmt: skip
    for name, n, r in results:
        table.rows.append([
            name, str(n), str(r["tables"]), str(r["games_per_min"]), str(r["actions_per_s"]),
            str(r["act_p50_ms"]), str(r["act_p99_ms"]), str(sum(r["errors"].values())),
            "yes" if r["ok"] else "NO",
        ])  # fmt: skip
        if not r["ok"]:
            first = (r["faults"] or [str(r["errors"])])[0]
            table.notes.append(f"{name}: {len(r['faults'])} faults, e.g. {first[:160]}")
    one, two = results[0][2], results[1][2]
    if one["games_per_min"]:
        table.notes.append(
            f"two instances / one, same crowd: games/min "
            f"{fmt_ratio(two['games_per_min'] / one['games_per_min'])}, actions/s "
            f"{fmt_ratio(two['actions_per_s'] / max(one['actions_per_s'], 1e-9))}"
        )
    table.notes.append(
        "Crowd (a throughput test): scripted humans think 20–250 ms (some time-outs, "
        "reconnects, auto-play, leaves), bots think 50 ms and fill after 0.3 s; actions/s and "
        "Act latency are the humans' own Acts.  "
        f"Solo, human pace (issue 12's goal): {many} humans each at a private table with two "
        f"easy bots, each holding a seat stream; the humans think {HUMAN_THINK_MS} ms, the "
        f"bots the room's default {ROOM_BOT_THINK_MS} ms, the turn timer is the room's "
        f"{int(ROOM_TURN_MS) // 1000} s (5% of turns let it run out).  "
        "Goal (issue 12): ≥ 300 such tables on one instance with Act p99 < 100 ms.  "
        "Everything (engine, replay, PostgreSQL, matchmakers, the crowd) shares this machine.  "
        "What limits one instance: it is one Python process (one worker; its loops and streams "
        "are per process), and every human Act is a table lock, a load, an engine Apply over "
        "gRPC, one conditional write (events, outbox, NOTIFY) and a read per open stream of "
        "the table, on one event loop; people's calls, seat streams and the bots' moves have "
        "database threads of their own and at most 16 bot steps run at once, so bots slow "
        "down before people do; past that, database round trips and the one process's CPU "
        "(2.5–5 ms per action) are the limit.  On two cores a second instance "
        "competes for the same cores (expect ≤ 1×); it pays off on more cores or machines."
    )
    return [table]
