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

from sqlalchemy.exc import SQLAlchemyError

from services import rules
from services.common.console import (
    BadInput,
    Progress,
    fail,
    lines_of,
    one_line,
    parse_json,
    read_bytes,
)
from services.common.db import default_url, make_engine
from services.common.migrate import pending, upgrade

from .events import EventError
from .games import GameRefused, ReplayGames
from .store import EventStore, GameNotFound, StoreError


def _bad_game_id(game_id: str) -> str | None:
    """Why ``game_id`` cannot name a stored game, checked before any database work (a NUL
    byte would otherwise reach PostgreSQL); None when it can."""
    if not 0 < len(game_id) <= 64:
        return "a game id is 1–64 characters"
    if not game_id.isprintable():
        return "a game id holds no control characters"
    return None


def _games(args: argparse.Namespace, command: str) -> ReplayGames | None:
    reason = _bad_game_id(args.game_id) if hasattr(args, "game_id") else None
    if reason is not None:
        fail(command, f"{reason}: {args.game_id!r}")
        return None
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


def _records(data: bytes) -> Iterator[tuple[int, Any]]:
    """One record (a JSON document), or JSON lines of records: (line number, value), the
    value a BadInput for a line that is not UTF-8 or not usable JSON.  A bad line spoils
    only itself."""
    if not data.strip():
        return
    try:
        yield 1, parse_json(data)
        return
    except BadInput:
        pass
    for number, line in lines_of(data.splitlines()):
        try:
            yield number, parse_json(line)
        except BadInput as exc:
            yield number, exc


def _import_one(games: ReplayGames, data: Any) -> tuple[str, Any]:
    """("imported" | "present", the result) or ("bad" | "refused", a one-line reason)."""
    try:
        if isinstance(data, BadInput):
            return "bad", f"bad record: {data}"
        result = games.import_record(data)
    except rules.ReplayError as exc:
        return "bad", f"illegal action: {exc}"
    except (rules.RecordError, rules.RulesError, rules.VariantError, EventError) as exc:
        return "bad", f"bad record: {exc}"
    except RecursionError:
        return "bad", "bad record: nested too deeply"
    except GameRefused as exc:
        return "refused", f"refused: {exc.reason}: {exc}"
    except StoreError as exc:
        return "refused", f"refused: {exc}"
    except SQLAlchemyError as exc:  # a value the database cannot hold
        return "refused", f"refused by the database: {type(getattr(exc, 'orig', exc)).__name__}"
    return ("present" if result.replayed else "imported"), result


def import_main(args: argparse.Namespace) -> int:
    """Store every record of the file.  Idempotent: a record with a game_id is stored under
    it, one without under an id derived from its content (games.content_game_id), so a
    second run finds every game already present and stores nothing.  Exit status: 0 all
    imported or present, 1 some refused (another game under that id, a result that does not
    match its actions), 2 some not records at all; the good ones are stored either way."""
    path = args.file
    try:
        data = read_bytes(path)
    except OSError as exc:
        return fail("replay import", f"cannot read {path}: {exc.strerror or exc}")
    except BadInput as exc:
        return fail("replay import", str(exc))
    items = list(_records(data))
    games = _games(args, "replay import")
    if games is None:
        return 2
    counts = {"imported": 0, "present": 0, "refused": 0, "bad": 0}
    progress = Progress(len(items), sys.stderr)
    try:
        for done, (line, record) in enumerate(items, 1):
            outcome, value = _import_one(games, record)
            counts[outcome] += 1
            if outcome in ("bad", "refused"):
                print(one_line(f"{path}:{line}: {value}"), file=sys.stderr)
            else:
                _print(
                    {
                        "game_id": value.game.game_id,
                        "status": value.game.status,
                        "verified": value.verification.ok,
                        "replayed": value.replayed,
                        "head_hash": value.game.head_hash.hex(),
                    }
                )
            progress.update(done)
    finally:
        games.store.engine.dispose()
    print(
        f"cardroom replay import: {counts['imported']} imported, {counts['present']} already "
        f"present, {counts['refused'] + counts['bad']} refused",
        file=sys.stderr,
    )
    if counts["bad"]:
        return 2
    return 1 if counts["refused"] else 0
