"""``cardroom settle`` and ``cardroom simulate``: game records and self-play from the command line.

Data goes to stdout as JSON; errors and progress go to stderr.  Exit status 2 means bad input
(a malformed record, or an illegal action in it).
"""

from __future__ import annotations

import argparse
import json
import secrets
import sys
import time
from typing import Any

from services.common.console import BadInput, Progress, fail, parse_json, read_text
from services.rules import (
    GameState,
    RecordError,
    ReplayError,
    RulesError,
    VariantError,
    autoplay_out,
    new_game,
    replay,
    variant,
    write_record,
)

#: The most games one ``simulate`` plays: beyond, a typo, not a plan (about a day's run).
MAX_GAMES = 10_000_000


def new_seed() -> str:
    """A fresh game seed: 128 random bits as 32 hex digits (RULES.md §4.1)."""
    return secrets.token_hex(16)


def settlement_summary(state: GameState) -> dict[str, Any]:
    """The JSON ``settle`` prints: status, scores, factors, and the whole settlement."""
    s = state.settlement
    assert s is not None
    return {
        "variant": state.variant.name,
        "status": s.status,
        "scores": list(s.scores),
        "winner": s.winner,
        "landlord": s.landlord,
        "escaper": s.escaper,
        "bid": s.bid,
        "factors": [f.to_dict() for f in s.factors],
        "multiplier": s.multiplier,
        "settlement": s.to_dict(),
    }


def settle_main(args: argparse.Namespace) -> int:
    path = args.record
    try:
        data = parse_json(read_text(path))
    except OSError as exc:
        return fail("settle", f"cannot read {path}: {exc.strerror or exc}")
    except BadInput as exc:
        return fail("settle", str(exc))
    try:
        state = replay(data)
    except ReplayError as exc:
        return fail(
            "settle",
            f"illegal action at index {exc.index} (seat {exc.seat}): {exc.reason}: {exc}",
        )
    except (RecordError, VariantError, RulesError) as exc:
        return fail("settle", f"bad record: {exc}")
    except RecursionError:
        return fail("settle", "bad record: nested too deeply")
    if not state.over:
        return fail(
            "settle",
            f"the record ends before the game does (seat {state.turn} to move, "
            f"phase {state.phase.value})",
        )
    print(json.dumps(settlement_summary(state), ensure_ascii=False))
    return 0


def play_out(state: GameState) -> GameState:
    """Auto-bid and auto-play every seat until the game ends (the move each seat's view
    would give, read from the state: nobody reads those views, nor the events, here)."""
    return autoplay_out(state)


def simulate_main(args: argparse.Namespace) -> int:
    try:
        v = variant(args.variant)
    except VariantError as exc:
        return fail("simulate", str(exc))
    games = args.games
    if not 0 <= games <= MAX_GAMES:
        return fail("simulate", f"--games must be 0–{MAX_GAMES:,}")
    seed = args.seed if args.seed else new_seed()
    out = None
    if args.records:
        try:
            out = open(args.records, "w", encoding="utf-8")  # noqa: SIM115
        except ValueError:
            return fail("simulate", f"no file can be named {args.records!r}")
        except OSError as exc:
            return fail("simulate", f"cannot write {args.records}: {exc.strerror or exc}")
    counts = {"finished": 0, "escaped": 0, "disbanded": 0, "redeal": 0}
    sums = [0] * v.players
    landlord_wins = 0
    multipliers = 0
    progress = Progress(games, sys.stderr)
    start = time.perf_counter()
    try:
        for i in range(games):
            state = play_out(new_game(v, seed=f"{seed}/{i}"))
            s = state.settlement
            assert s is not None
            counts[s.status] += 1
            for seat, score in enumerate(s.scores):
                sums[seat] += score
            if s.status == "finished" and s.landlord is not None:
                landlord_wins += s.winner == s.landlord
                multipliers += s.multiplier
            if out is not None:
                out.write(json.dumps(write_record(state), ensure_ascii=False) + "\n")
            progress.update(i + 1)
    finally:
        if out is not None:
            out.close()
    elapsed = time.perf_counter() - start
    finished = counts["finished"]
    summary: dict[str, Any] = {
        "variant": v.name,
        "seed": seed,
        "games": games,
        "seconds": round(elapsed, 3),
        "games_per_second": round(games / elapsed, 1) if elapsed > 0 else None,
        **counts,
        "score_sums": sums,
    }
    if v.bidding:
        summary["landlord_win_rate"] = round(landlord_wins / finished, 4) if finished else None
        summary["mean_multiplier"] = round(multipliers / finished, 4) if finished else None
    print(json.dumps(summary))
    return 0
