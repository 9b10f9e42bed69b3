"""``cardroom replay show|verify|import|audit-escape`` and ``cardroom db upgrade``.

These work on the configured database directly (``CARDROOM_DATABASE_URL``, or ``--database``),
through the same operations the gRPC service runs.  Data goes to stdout (JSON, or the text of
``show``); messages and progress go to stderr.  Exit status: 0 done (and, for ``verify``, the
game verified), 1 the game failed verification or an import was refused, 2 bad input (no such
game, an unreadable file, a malformed record, a database that is not migrated).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from typing import Any

from services.common.console import fail, read_text
from services.engine import rules
from services.engine.game_cli import _Progress

from .db import default_url, make_engine
from .events import EventError
from .games import GameRefused, ReplayGames
from .migrate import pending, upgrade
from .store import EventStore, GameNotFound


def _games(args: argparse.Namespace, command: str) -> ReplayGames | None:
    url = args.database or default_url()
    try:
        behind = pending(url)
    except Exception as exc:  # a bad URL or an unreachable server
        fail(command, f"cannot open the database: {exc}")
        return None
    if behind is not None:
        fail(command, f"{behind}; run `cardroom db upgrade` first")
        return None
    return ReplayGames(EventStore(make_engine(url)))


def _print(value: Any) -> None:
    print(json.dumps(value, ensure_ascii=False))


def upgrade_main(args: argparse.Namespace) -> int:
    url = args.database or default_url()
    try:
        upgrade(url)
    except Exception as exc:
        return fail("db upgrade", f"cannot migrate the database: {exc}")
    print("cardroom db upgrade: the database is at the newest revision", file=sys.stderr)
    return 0


def show_main(args: argparse.Namespace) -> int:
    games = _games(args, "replay show")
    if games is None:
        return 2
    try:
        lines = games.show(args.game_id)
    except GameNotFound:
        return fail("replay show", f"no game {args.game_id!r}")
    finally:
        games.store.engine.dispose()
    print("\n".join(lines))
    return 0


def verify_main(args: argparse.Namespace) -> int:
    games = _games(args, "replay verify")
    if games is None:
        return 2
    try:
        result = games.verify(args.game_id)
    except GameNotFound:
        return fail("replay verify", f"no game {args.game_id!r}")
    finally:
        games.store.engine.dispose()
    _print({"game_id": args.game_id, **result.to_dict()})
    return 0 if result.ok else 1


def audit_main(args: argparse.Namespace) -> int:
    games = _games(args, "replay audit-escape")
    if games is None:
        return 2
    try:
        audit = games.audit_escape(args.game_id)
    except GameNotFound:
        return fail("replay audit-escape", f"no game {args.game_id!r}")
    except GameRefused as exc:
        return fail("replay audit-escape", f"{exc.reason}: {exc}")
    finally:
        games.store.engine.dispose()
    _print(audit.to_dict())
    return 0


def _records(text: str) -> Iterator[tuple[int, Any]]:
    """One record (a JSON document), or JSON lines of records: (line number, value)."""
    stripped = text.strip()
    if not stripped:
        return
    try:
        yield 1, json.loads(stripped)
        return
    except json.JSONDecodeError:
        pass
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                yield number, json.loads(line)
            except json.JSONDecodeError as exc:
                yield number, exc


def import_main(args: argparse.Namespace) -> int:
    path = args.file
    try:
        text = read_text(path)
    except OSError as exc:
        return fail("replay import", f"cannot read {path}: {exc.strerror or exc}")
    items = list(_records(text))
    games = _games(args, "replay import")
    if games is None:
        return 2
    bad = refused = 0
    progress = _Progress(len(items), sys.stderr)
    try:
        for done, (line, data) in enumerate(items, 1):
            where = f"{path}:{line}"
            try:
                if isinstance(data, json.JSONDecodeError):
                    raise rules.RecordError(f"not JSON: {data}", "")
                result = games.import_record(data)
            except rules.ReplayError as exc:
                bad += 1
                print(f"{where}: illegal action: {exc}", file=sys.stderr)
            except (rules.RecordError, rules.RulesError, rules.VariantError, EventError) as exc:
                bad += 1
                print(f"{where}: bad record: {exc}", file=sys.stderr)
            except GameRefused as exc:
                refused += 1
                print(f"{where}: refused: {exc.reason}: {exc}", file=sys.stderr)
            else:
                _print(
                    {
                        "game_id": result.game.game_id,
                        "status": result.game.status,
                        "verified": result.verification.ok,
                        "replayed": result.replayed,
                        "head_hash": result.game.head_hash.hex(),
                    }
                )
            progress.update(done)
    finally:
        games.store.engine.dispose()
    if bad:
        return 2
    return 1 if refused else 0
