"""``cardroom ratings rebuild``: recompute every rating from the replay log and compare.

Prints one JSON object (games looked at, games rated, players, whether the stored ratings are
exactly the recomputed ones, and the first differences).  Exit status: 0 equal, 1 different,
2 bad input (a database that cannot be opened or is not migrated).
"""

from __future__ import annotations

import argparse
import json
import sys

from services.common.console import fail
from services.common.db import default_url, make_engine
from services.common.migrate import pending

from .rebuild import rebuild

COMMAND = "ratings rebuild"


def rebuild_main(args: argparse.Namespace) -> int:
    url = args.database or default_url()
    try:
        behind = pending(url)
    except Exception as exc:  # a bad URL or an unreachable server
        return fail(COMMAND, f"cannot open the database: {exc}")
    if behind is not None:
        return fail(COMMAND, f"{behind}; run `cardroom db upgrade` first")
    engine = make_engine(url)
    try:
        found = rebuild(engine, lambda m: print(f"{COMMAND}: {m}", file=sys.stderr, flush=True))
    finally:
        engine.dispose()
    print(json.dumps(found.summary(), ensure_ascii=False))
    if not found.equal:
        print(f"{COMMAND}: {len(found.differences)} differences", file=sys.stderr)
    return 0 if found.equal else 1
