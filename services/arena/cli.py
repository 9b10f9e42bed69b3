"""``cardroom arena``: two players over mirrored deals, win rates and scores per role with
95% intervals.  Data on stdout (a table, or JSON with ``--json``), progress on stderr."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from services import rules
from services.common.console import fail

from .match import GameResult, Match
from .stats import mean_interval, wilson

LEVELS = ("easy", "normal", "hard")
CHUNK = 10  # deals a worker plays per task

_worker: Match | None = None


def _init_worker(v_name: str, seed: str, a: str, b: str, bidding: bool) -> None:
    global _worker
    _worker = Match(rules.variant(v_name), seed, a, b, bidding)


def _play_chunk(deals: Sequence[int]) -> list[GameResult]:
    assert _worker is not None
    return _worker.play(deals)


def run(
    v: rules.Variant,
    seed: str,
    a: str,
    b: str,
    deals: int,
    bidding: bool = False,
    workers: int = 1,
    progress: bool = True,
) -> list[GameResult]:
    """Every game of ``deals`` mirrored deals, in deal order."""
    chunks = [list(range(i, min(i + CHUNK, deals))) for i in range(0, deals, CHUNK)]
    results: list[GameResult] = []
    started = time.perf_counter()
    done = 0

    def tick(n: int) -> None:
        nonlocal done
        done += n
        if progress:
            width = 30
            full = width * done // max(deals, 1)
            bar = "#" * full + "." * (width - full)
            secs = time.perf_counter() - started
            sys.stderr.write(f"\r[arena] [{bar}] {done}/{deals} deals, {secs:.0f} s")
            sys.stderr.flush()

    if workers <= 1:
        match = Match(v, seed, a, b, bidding)
        for chunk in chunks:
            results += match.play(chunk)
            tick(len(chunk))
    else:
        with ProcessPoolExecutor(
            workers, initializer=_init_worker, initargs=(v.name, seed, a, b, bidding)
        ) as pool:
            for chunk, part in zip(chunks, pool.map(_play_chunk, chunks), strict=True):
                results += part
                tick(len(chunk))
    if progress:
        sys.stderr.write("\n")
    return results


ROLE_ORDER = ("landlord", "farmers", "farmer", "alone")


def summarize(results: Sequence[GameResult]) -> dict[str, Any]:
    """Per role: games, wins, win rate with its Wilson interval, mean score with its normal
    interval; and overall, with the disbanded games and the refused actions."""
    roles: dict[str, Any] = {}
    finished = [r for r in results if r.status == "finished"]
    names = sorted({r.role for r in finished}, key=ROLE_ORDER.index)
    for role in [*names, "all"]:
        games = [r for r in finished if role in (r.role, "all")]
        wins = sum(r.win for r in games)
        lo, hi = wilson(wins, len(games))
        mean, mlo, mhi = mean_interval([r.score for r in games])
        roles[role] = {
            "games": len(games),
            "wins": wins,
            "win_rate": wins / len(games) if games else 0.0,
            "win_rate_ci": [lo, hi],
            "score": mean,
            "score_ci": [mlo, mhi],
        }
    return {
        "games": len(results),
        "finished": len(finished),
        "disbanded": sum(r.status == "disbanded" for r in results),
        "refused": sum(r.refused for r in results),
        "roles": roles,
    }


def render(summary: dict[str, Any], header: str, parity: str) -> str:
    lines = [header, ""]
    lines.append(
        f"{'role (A)':10} {'games':>6} {'wins':>6} {'win rate':>8}  {'95% CI':>15}  "
        f"{'score':>7}  {'95% CI':>17}"
    )
    for role, r in summary["roles"].items():
        lo, hi = r["win_rate_ci"]
        mlo, mhi = r["score_ci"]
        lines.append(
            f"{role:10} {r['games']:6d} {r['wins']:6d} {r['win_rate']:8.3f}  "
            f"[{lo:.3f}, {hi:.3f}]  {r['score']:7.3f}  [{mlo:7.3f}, {mhi:7.3f}]"
        )
    lines.append("")
    lines.append(
        f"games {summary['games']}, finished {summary['finished']}, disbanded "
        f"{summary['disbanded']}, refused actions of B {summary['refused']}"
    )
    lines.append(parity)
    return "\n".join(lines)


def arena_main(args: argparse.Namespace) -> int:
    try:
        v = rules.variant(args.variant)
    except rules.VariantError as exc:
        return fail("arena", str(exc))
    for side in ("a", "b"):
        name = getattr(args, side)
        known = LEVELS + (("rlcard",) if side == "b" else ())
        if name not in known:
            return fail("arena", f"--{side} must be one of {', '.join(known)}, not {name!r}")
    if args.b == "rlcard":
        if v.name != "doudizhu3":
            return fail("arena", "--b rlcard plays doudizhu3 only (RLCard's Dou Dizhu)")
        if args.bidding:
            return fail("arena", "--b rlcard plays with the landlord fixed: RLCard has no bidding")
        try:
            from .rlcard_agent import load_rlcard

            load_rlcard()
        except ImportError as exc:
            return fail("arena", f"{exc}")
    if args.deals < 1:
        return fail("arena", "--deals must be ≥ 1")
    workers = max(1, args.workers)
    started = time.perf_counter()
    results = run(v, args.seed, args.a, args.b, args.deals, args.bidding, workers)
    seconds = time.perf_counter() - started
    summary = summarize(results)
    summary.update(
        {
            "variant": v.name,
            "a": args.a,
            "b": args.b,
            "deals": args.deals,
            "seed": args.seed,
            "bidding": args.bidding,
            "workers": workers,
            "seconds": round(seconds, 2),
        }
    )
    if args.json:
        print(json.dumps(summary))
        return 0
    how = "real bidding" if args.bidding else "landlord fixed per deal"
    if not v.bidding:
        how = "A alone in each seat in turn"
    header = (
        f"arena {v.name}: A={args.a} vs B={args.b}, {args.deals} mirrored deals"
        f" ({how}), seed {args.seed!r}, {seconds:.1f} s on {workers} worker(s)"
    )
    parity = (
        "parity: win rate 0.25 for one seat of four (first out)"
        if not v.bidding
        else "win rate: A's side won; score: one of A's seats, per game"
    )
    print(render(summary, header, parity))
    return 0
