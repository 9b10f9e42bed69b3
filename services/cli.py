"""The ``cardroom`` command.

Start-up stays light: the parser is built from plain data, and a command's module is
imported only when that command runs.  Commands that print data print only that data on
stdout; messages, logs and progress go to stderr.  Exit status 2 means bad input.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Callable, Sequence
from typing import NoReturn

from services.common.console import fail, one_line

DESCRIPTION = (
    "cardroom: the rules, the engine, replay and matchmaker services, and tools for Dou Dizhu and "
    "Zheng Shangyou.  Data goes to stdout, messages to stderr; bad input exits 2."
)


def _whole(lo: int, hi: int) -> Callable[[str], int]:
    """An argparse type: a whole number from ``lo`` to ``hi``; anything else is refused by
    argparse naming the argument (exit 2), never discovered later as an overflow."""

    def whole(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{one_line(text)!r} is not a whole number") from None
        if not lo <= value <= hi:
            raise argparse.ArgumentTypeError(f"must be {lo}–{hi:,}, not {one_line(text)}")
        return value

    return whole


def _number(lo: float, hi: float) -> Callable[[str], float]:
    """An argparse type: a finite number from ``lo`` to ``hi`` (no nan, no inf)."""

    def number(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{one_line(text)!r} is not a number") from None
        if not lo <= value <= hi:  # NaN fails this too
            raise argparse.ArgumentTypeError(f"must be {lo:g}–{hi:g}, not {one_line(text)}")
        return value

    return number


def _variant_name(text: str) -> str:
    """An argparse type: a variant's name or alias (the rules are imported only to check)."""
    from services.rules import VariantError, variant

    try:
        variant(text)
    except VariantError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


_PORT = _whole(0, 65535)
_COUNT = _whole(1, 10_000_000)
_PROCESSES = _whole(1, 256)
_SECONDS = _number(0, 86_400)

# name -> (handler "module:function", help, arguments as (flags, kwargs))
_Arg = tuple[tuple[str, ...], dict[str, object]]
_VARIANT: _Arg = (
    ("--variant", "-v"),
    {"required": True, "type": _variant_name, "help": "doudizhu3, doudizhu4, …"},
)
_OPTIONAL_VARIANT: _Arg = (
    ("--variant", "-v"),
    {"default": "doudizhu3", "type": _variant_name, "help": "doudizhu3 (default), …"},
)

# Flags of every `cardroom <service> serve`; unset flags keep the CARDROOM_* environment value
# (services/common/settings.py).
_SERVE: list[_Arg] = [
    (("--host",), {"help": "address to listen on (default 127.0.0.1)"}),
    (("--port", "-p"), {"type": _PORT, "help": "port (0 picks a free one)"}),
    (
        ("--workers", "-w"),
        {"type": _whole(0, 256), "help": "worker processes (default 0: one per core)"},
    ),
    (
        ("--grace",),
        {"dest": "grace_s", "type": _number(0, 3600), "help": "shutdown grace in seconds"},
    ),
    (("--tls-cert",), {"help": "PEM certificate file (needs --tls-key)"}),
    (("--tls-key",), {"help": "PEM private key file"}),
    (("--log-level",), {"help": "debug, info, warning or error"}),
    (("--log-format",), {"choices": ["auto", "json", "console"]}),
    (("--metrics-port",), {"type": _PORT, "help": "serve Prometheus metrics on this port"}),
    (
        ("--no-access-log",),
        {"dest": "access_log", "action": "store_const", "const": False, "help": "no line per call"},
    ),
]

_GAME_ID: _Arg = (("game_id",), {"help": "the game's id"})
_DATABASE: _Arg = (
    ("--database",),
    {"help": "database URL (default: CARDROOM_DATABASE_URL, else SQLite under CARDROOM_DATA_DIR)"},
)

# A name with a space ("engine serve") is a command group and its sub-command.
COMMANDS: dict[str, tuple[str, str, list[_Arg]]] = {
    "version": (
        "services.engine.rules_cli:version_main",
        "print the version and which rules core is active (compiled or pure Python)",
        [],
    ),
    "classify": (
        "services.engine.rules_cli:classify_main",
        "print the pattern a set of cards forms, as JSON",
        [
            _VARIANT,
            (("cards",), {"nargs": "+", "help": "cards, spaced or run together: 3s3h3d4c"}),
            (("--as",), {"dest": "reading", "help": "name the reading: KIND:RANK"}),
        ],
    ),
    "moves": (
        "services.engine.rules_cli:moves_main",
        'legal moves for JSON lines {"hand": …, "last": …} read from stdin',
        [_VARIANT],
    ),
    "settle": (
        "services.engine.game_cli:settle_main",
        "replay a game record (JSON) and print its settlement",
        [(("record",), {"help": "a game record file, or - for stdin"})],
    ),
    "simulate": (
        "services.engine.game_cli:simulate_main",
        "play N games with auto-bid and auto-play in every seat",
        [
            _VARIANT,
            (("--games", "-n"), {"type": _COUNT, "default": 1000}),
            (("--seed", "-s"), {"default": "cardroom"}),
            (("--records",), {"help": "write every game as a record (JSON lines) here"}),
        ],
    ),
    "arena": (
        "services.arena.cli:arena_main",
        "two players over mirrored deals: win rate and score per role, 95%% intervals",
        [
            _VARIANT,
            (("--a",), {"default": "hard", "help": "easy, normal or hard"}),
            (("--b",), {"default": "easy", "help": "easy, normal, hard or rlcard"}),
            (("--deals", "-n"), {"type": _whole(1, 1_000_000), "default": 200}),
            (("--seed", "-s"), {"default": "arena"}),
            (("--workers", "-w"), {"type": _PROCESSES, "default": 1}),
            (
                ("--bidding",),
                {"action": "store_true", "help": "real bidding, not a fixed landlord"},
            ),
            (("--json",), {"action": "store_true", "help": "print the summary as JSON"}),
        ],
    ),
    "engine serve": (
        "services.engine.server:serve_main",
        "run the engine gRPC service (health, reflection, one worker per core)",
        _SERVE,
    ),
    "replay serve": (
        "services.replay.server:serve_main",
        "run the replay gRPC service (needs a migrated database: cardroom db upgrade)",
        _SERVE,
    ),
    "matchmaker serve": (
        "services.matchmaker.server:serve_main",
        "run the matchmaker gRPC service (needs a migrated database and the engine and replay)",
        [
            *_SERVE,
            (
                ("--engine",),
                {"help": "engine HOST:PORT (default CARDROOM_ENGINE_ADDR, else :50051)"},
            ),
            (
                ("--replay",),
                {"help": "replay HOST:PORT (default CARDROOM_REPLAY_ADDR, else :50052)"},
            ),
        ],
    ),
    "matchmaker token": (
        "services.matchmaker.cli:token_main",
        "print a player credential (a JWT signed with CARDROOM_MATCHMAKER_JWT_KEY)",
        [
            (("player",), {"help": "the player id the token acts for"}),
            (
                ("--ttl",),
                {
                    "type": _whole(1, 10 * 366 * 86_400),
                    "default": 3600,
                    "help": "seconds it stays valid",
                },
            ),
            (("--key",), {"help": "signing key (default CARDROOM_MATCHMAKER_JWT_KEY)"}),
        ],
    ),
    "matchmaker play": (
        "services.matchmaker.cli:play_main",
        "sit down against bots through a running matchmaker; the seat's stream on stdout",
        [
            (("--target", "-t"), {"default": "127.0.0.1:50053", "help": "matchmaker HOST:PORT"}),
            _OPTIONAL_VARIANT,
            (("--player",), {"help": "your player id (default: a guest id)"}),
            (("--games", "-n"), {"type": _COUNT, "default": 1}),
            (
                ("--think",),
                {"type": _number(0, 3600), "default": 1.0, "help": "bots' think time, seconds"},
            ),
            (("--auto",), {"action": "store_true", "help": "play the engine's hint every turn"}),
        ],
    ),
    "play": (
        "services.client.play:play_main",
        "play at a table against bots through the matchmaker, in the terminal",
        [
            (
                ("--variant", "-v"),
                {
                    "type": _variant_name,
                    "help": "doudizhu3, doudizhu4, zhengshangyou1, zhengshangyou2 (absent: a "
                    "start screen asks for the table)",
                },
            ),
            (
                ("--bot-level",),
                {
                    "choices": ["easy", "normal", "hard", "auto"],
                    "help": "the bots' level; auto: the level nearest the table's people's "
                    "rating (default: the matchmaker's, auto)",
                },
            ),
            (("--stake",), {"type": _whole(1, 1_000_000), "help": "stake per point (default 1)"}),
            (
                ("--private-code",),
                {
                    "help": "sit with the friends who give the same code (no bots unless "
                    "--wait-for-humans says when)"
                },
            ),
            (
                ("--auto-pass",),
                {
                    "action": "store_true",
                    "help": "要不起: pass at once when nothing beats the play (key o toggles)",
                },
            ),
            (
                ("--matchmaker", "-m"),
                {"help": "matchmaker HOST:PORT (default CARDROOM_MATCHMAKER_ADDR, else :50053)"},
            ),
            (("--name",), {"help": "your player id (default: a guest id)"}),
            (
                ("--wait-for-humans",),
                {
                    "type": _number(0, 3600),
                    "default": 0.0,
                    "metavar": "S",
                    "help": "wait S seconds for people before bots fill (default: bots at once)",
                },
            ),
            (
                ("--resume",),
                {"action": "store_true", "help": "rejoin your seat (same --name) after a restart"},
            ),
        ],
    ),
    "call": (
        "services.client.call:call_main",
        "call any RPC of the engine, replay or matchmaker with a JSON body; JSON out",
        [
            (("service",), {"choices": ["engine", "replay", "matchmaker"]}),
            (("method",), {"help": "the RPC, e.g. Classify"}),
            (
                ("json",),
                {"nargs": "?", "default": "{}", "help": "the request as JSON, - for stdin"},
            ),
            (
                ("--target", "-t"),
                {"help": "HOST:PORT (default CARDROOM_<SERVICE>_ADDR, else local)"},
            ),
            (("--token",), {"help": "bearer token (default CARDROOM_CALL_TOKEN)"}),
            (
                ("--timeout",),
                {"type": _SECONDS, "default": 0.0, "help": "seconds (default 30; streams none)"},
            ),
        ],
    ),
    "replay watch": (
        "services.client.watch:watch_main",
        "step through a stored game from the replay service (terminal UI)",
        [
            _GAME_ID,
            (("--seat",), {"type": _whole(0, 3), "help": "show only what this seat saw"}),
            (
                ("--replay", "-r"),
                {"help": "replay HOST:PORT (default CARDROOM_REPLAY_ADDR, else :50052)"},
            ),
        ],
    ),
    "web serve": (
        "services.web.app:serve_main",
        "serve the browser table and the replay viewer (/games/GAME_ID) over HTTP",
        [
            (("--host",), {"help": "address to listen on (default CARDROOM_WEB_HOST, 127.0.0.1)"}),
            (("--port", "-p"), {"type": _PORT, "help": "port (default CARDROOM_WEB_PORT, 8080)"}),
        ],
    ),
    "replay show": (
        "services.replay.cli:show_main",
        "print a stored game trick by trick: hands, plays, passes and the settlement",
        [_GAME_ID, _DATABASE],
    ),
    "replay verify": (
        "services.replay.cli:verify_main",
        "check a stored game's hash chain and re-execute it through the rules (JSON)",
        [_GAME_ID, _DATABASE],
    ),
    "replay import": (
        "services.replay.cli:import_main",
        "store game records (a record, or JSON lines of records) and verify each",
        [
            (("file",), {"help": "a record file or JSON lines of records, or - for stdin"}),
            _DATABASE,
        ],
    ),
    "replay audit-escape": (
        "services.replay.cli:audit_main",
        "every step of an escape penalty recomputed from the log next to the recorded one",
        [_GAME_ID, _DATABASE],
    ),
    "ratings rebuild": (
        "services.ratings.cli:rebuild_main",
        "recompute every rating from the replay log and compare with the stored ones (JSON; "
        "exit 1 when they differ)",
        [_DATABASE],
    ),
    "db upgrade": (
        "services.replay.cli:upgrade_main",
        "migrate the replay database to the newest revision (alembic)",
        [_DATABASE],
    ),
    "health": (
        "services.common.health_cli:health_main",
        "check the services' gRPC health; exit 1 unless every one asked is SERVING",
        [
            (("--engine",), {"help": "engine HOST:PORT (default CARDROOM_ENGINE_ADDR, :50051)"}),
            (("--replay",), {"help": "replay HOST:PORT (default CARDROOM_REPLAY_ADDR, :50052)"}),
            (
                ("--matchmaker",),
                {"help": "matchmaker HOST:PORT (default CARDROOM_MATCHMAKER_ADDR, :50053)"},
            ),
            (
                ("--only",),
                {
                    "action": "append",
                    "choices": ["engine", "replay", "matchmaker"],
                    "help": "check only this service (repeatable; default: all three)",
                },
            ),
            (
                ("--timeout",),
                {"type": _number(0.001, 3600), "default": 3.0, "help": "seconds per service"},
            ),
        ],
    ),
    "soak": (
        "services.soak.crowd:soak_main",
        "drive matchmakers as a crowd of scripted players, then verify every game",
        [
            (
                ("--targets", "-t"),
                {"default": "127.0.0.1:50053", "help": "matchmakers HOST:PORT,…"},
            ),
            (("--replay",), {"default": "127.0.0.1:50052", "help": "replay HOST:PORT"}),
            (
                ("--players", "-n"),
                {"type": _whole(1, 100_000), "default": 20, "help": "simulated humans"},
            ),
            (
                ("--duration", "-d"),
                {"type": _number(0.001, 86_400), "default": 30.0, "help": "seconds"},
            ),
            _OPTIONAL_VARIANT,
            (
                ("--turn-ms",),
                {"type": _whole(1, 86_400_000), "default": 1500, "help": "turn and bid timers"},
            ),
            (("--bot-think-ms",), {"type": _whole(0, 86_400_000), "default": 50}),
            (
                ("--think-ms",),
                {"default": "20-250", "help": "a scripted human's think time, LO-HI ms"},
            ),
            (
                ("--fill-ms",),
                {"type": _whole(0, 86_400_000), "default": 300, "help": "bots fill a seat after"},
            ),
            (("--solo",), {"action": "store_true", "help": "one human per table, bots the rest"}),
            (("--bot-level",), {"default": "easy", "help": "easy, normal or hard"}),
            (("--drain",), {"type": _SECONDS, "default": 60.0, "help": "seconds to finish games"}),
            (("--seed", "-s"), {"default": "soak"}),
            (("--token",), {"help": "matchmaker backend token"}),
            (("--replay-token",), {"help": "replay reader token"}),
            (("--json",), {"action": "store_true", "help": "print the report as JSON"}),
        ],
    ),
    "loadtest": (
        "services.engine.loadtest:loadtest_main",
        "drive an engine server with real game traffic and print req/s and latency",
        [
            (("--target", "-t"), {"default": "127.0.0.1:50051", "help": "HOST:PORT"}),
            (("--rpc",), {"choices": ["apply", "baseline"], "default": "apply"}),
            (
                ("--concurrency", "-c"),
                {"type": _whole(1, 100_000), "default": 32, "help": "calls in flight"},
            ),
            (
                ("--duration", "-d"),
                {"type": _number(0.001, 86_400), "default": 10.0, "help": "seconds"},
            ),
            (("--processes",), {"type": _PROCESSES, "default": 2, "help": "client processes"}),
            _OPTIONAL_VARIANT,
            (
                ("--rate",),
                {
                    "type": _number(0, 10_000_000),
                    "default": 0.0,
                    "help": "total req/s; 0 = flat out",
                },
            ),
            (
                ("--max-error-rate",),
                {
                    "type": _number(0, 1),
                    "default": 0.0,
                    "help": "share of failed calls tolerated before exit 1 (default 0)",
                },
            ),
            (("--json",), {"action": "store_true", "help": "print the result as JSON"}),
            (
                ("--history-delta",),
                {
                    "action": "store_true",
                    "help": "Apply returns only what changed (history_delta), not the history",
                },
            ),
        ],
    ),
}


class _Parser(argparse.ArgumentParser):
    """argparse, but its refusal is one bounded line, whatever the argument held."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {one_line(message)} (see {self.prog} --help)\n")


class _Version(argparse.Action):
    """``--version``: imports the rules only when asked (start-up stays light)."""

    def __call__(self, parser: argparse.ArgumentParser, *args: object, **kw: object) -> NoReturn:
        from services.engine.rules_cli import version_text

        print(version_text())
        parser.exit(0)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="cardroom", description=DESCRIPTION)
    parser.add_argument("--version", action=_Version, nargs=0, help="print the version and exit")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    groups: dict[str, argparse._SubParsersAction[_Parser]] = {}
    for name, (_, help_text, args) in COMMANDS.items():
        group, _sep, leaf = name.rpartition(" ")
        # A help text is %-formatted (``%%`` for a percent sign); a description is printed as
        # written.
        described = help_text.replace("%%", "%")
        if group:
            if group not in groups:
                parent = sub.add_parser(group, help=f"{group} commands")
                groups[group] = parent.add_subparsers(
                    dest=f"{group}_command", required=True, metavar="COMMAND"
                )
            cmd = groups[group].add_parser(leaf, help=help_text, description=described)
        else:
            cmd = sub.add_parser(name, help=help_text, description=described)
        cmd.set_defaults(_target=name, _parser=cmd)
        for flags, kwargs in args:
            cmd.add_argument(*flags, **kwargs)  # type: ignore[arg-type]
    return parser


#: Control characters an argument may hold: a JSON body or a list of cards may span lines.
_ALLOWED_CONTROLS = frozenset("\t\n\r")


def _unusable_text(value: str) -> str | None:
    """Why a command-line text cannot be used, or None: empty, not UTF-8 (Python keeps such
    argv bytes as surrogates), or holding a NUL or another control character."""
    if not value:
        return "is empty"
    if any("\ud800" <= ch <= "\udfff" for ch in value):
        return "is not UTF-8 text"
    if any(not ch.isprintable() and ch not in _ALLOWED_CONTROLS for ch in value):
        return "holds a control character or NUL"
    return None


def unusable_argument(args: argparse.Namespace) -> str | None:
    """Why one of the command's text arguments cannot be used, naming it as argparse does, or
    None.  main() refuses such a command (exit 2) before it opens a file, a database or a
    connection."""
    parser: argparse.ArgumentParser = args._parser
    for action in parser._actions:
        value = getattr(args, action.dest, None)
        for item in value if isinstance(value, list) else [value]:
            why = _unusable_text(item) if isinstance(item, str) else None
            if why:
                return f"argument {'/'.join(action.option_strings) or action.dest}: {why}"
    return None


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exc:  # --help, --version or argparse's refusal: already said
        return exc.code if isinstance(exc.code, int) else 2
    command = args._target
    unusable = unusable_argument(args)
    if unusable:
        return fail(command, unusable)
    target = COMMANDS[command][0]
    module_name, func_name = target.split(":")
    handler: Callable[[argparse.Namespace], int] = getattr(
        importlib.import_module(module_name), func_name
    )
    try:
        return handler(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except (RecursionError, UnicodeError) as exc:
        # Input no handler anticipated, nested too deeply or not encodable: still bad input.
        return fail(command, f"unusable input: {type(exc).__name__}: {exc}")
    except Exception as exc:
        # A bug, not bad input: one line and status 1; CARDROOM_DEBUG=1 shows the traceback.
        if os.environ.get("CARDROOM_DEBUG"):
            raise
        return fail(
            command,
            f"internal error: {type(exc).__name__}: {exc} (CARDROOM_DEBUG=1 shows where)",
            status=1,
        )


if __name__ == "__main__":
    sys.exit(main())
