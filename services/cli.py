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

# name -> (handler "module:function", help, arguments as (flags, kwargs))
_Arg = tuple[tuple[str, ...], dict[str, object]]
_VARIANT: _Arg = (("--variant", "-v"), {"required": True, "help": "doudizhu3, doudizhu4, …"})

# Flags of every `cardroom <service> serve`; unset flags keep the CARDROOM_* environment value
# (services/common/settings.py).
_SERVE: list[_Arg] = [
    (("--host",), {"help": "address to listen on (default 127.0.0.1)"}),
    (("--port", "-p"), {"type": int, "help": "port (0 picks a free one)"}),
    (("--workers", "-w"), {"type": int, "help": "worker processes (default: one per core)"}),
    (("--grace",), {"dest": "grace_s", "type": float, "help": "shutdown grace in seconds"}),
    (("--tls-cert",), {"help": "PEM certificate file (needs --tls-key)"}),
    (("--tls-key",), {"help": "PEM private key file"}),
    (("--log-level",), {"help": "debug, info, warning or error"}),
    (("--log-format",), {"choices": ["auto", "json", "console"]}),
    (("--metrics-port",), {"type": int, "help": "serve Prometheus metrics on this port"}),
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
            (("--games", "-n"), {"type": int, "default": 1000}),
            (("--seed", "-s"), {"default": "cardroom"}),
            (("--records",), {"help": "write every game as a record (JSON lines) here"}),
        ],
    ),
    "arena": (
        "services.arena.cli:arena_main",
        "two players over mirrored deals: win rate and score per role, 95% intervals",
        [
            _VARIANT,
            (("--a",), {"default": "hard", "help": "easy, normal or hard"}),
            (("--b",), {"default": "easy", "help": "easy, normal, hard or rlcard"}),
            (("--deals", "-n"), {"type": int, "default": 200}),
            (("--seed", "-s"), {"default": "arena"}),
            (("--workers", "-w"), {"type": int, "default": 1}),
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
            (("--ttl",), {"type": int, "default": 3600, "help": "seconds it stays valid"}),
            (("--key",), {"help": "signing key (default CARDROOM_MATCHMAKER_JWT_KEY)"}),
        ],
    ),
    "matchmaker play": (
        "services.matchmaker.cli:play_main",
        "sit down against bots through a running matchmaker; the seat's stream on stdout",
        [
            (("--target", "-t"), {"default": "127.0.0.1:50053", "help": "matchmaker HOST:PORT"}),
            (("--variant", "-v"), {"default": "doudizhu3"}),
            (("--player",), {"help": "your player id (default: a guest id)"}),
            (("--games", "-n"), {"type": int, "default": 1}),
            (("--think",), {"type": float, "default": 1.0, "help": "bots' think time, seconds"}),
            (("--auto",), {"action": "store_true", "help": "play the engine's hint every turn"}),
        ],
    ),
    "play": (
        "services.client.play:play_main",
        "play at a table against bots through the matchmaker, in the terminal",
        [
            (("--variant", "-v"), {"default": "doudizhu3", "help": "doudizhu3 (default), …"}),
            (
                ("--matchmaker", "-m"),
                {"help": "matchmaker HOST:PORT (default CARDROOM_MATCHMAKER_ADDR, else :50053)"},
            ),
            (("--name",), {"help": "your player id (default: a guest id)"}),
            (
                ("--wait-for-humans",),
                {
                    "type": float,
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
                {"type": float, "default": 0.0, "help": "seconds (default 30; streams none)"},
            ),
        ],
    ),
    "replay watch": (
        "services.client.watch:watch_main",
        "step through a stored game from the replay service (terminal UI)",
        [
            _GAME_ID,
            (("--seat",), {"type": int, "help": "show only what this seat saw"}),
            (
                ("--replay", "-r"),
                {"help": "replay HOST:PORT (default CARDROOM_REPLAY_ADDR, else :50052)"},
            ),
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
            (("--timeout",), {"type": float, "default": 3.0, "help": "seconds per service"}),
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
            (("--players", "-n"), {"type": int, "default": 20, "help": "simulated humans"}),
            (("--duration", "-d"), {"type": float, "default": 30.0, "help": "seconds"}),
            (("--variant", "-v"), {"default": "doudizhu3"}),
            (("--turn-ms",), {"type": int, "default": 1500, "help": "turn and bid timers"}),
            (("--bot-think-ms",), {"type": int, "default": 50}),
            (
                ("--think-ms",),
                {"default": "20-250", "help": "a scripted human's think time, LO-HI ms"},
            ),
            (("--fill-ms",), {"type": int, "default": 300, "help": "bots fill a seat after"}),
            (("--solo",), {"action": "store_true", "help": "one human per table, bots the rest"}),
            (("--bot-level",), {"default": "easy", "help": "easy, normal or hard"}),
            (("--drain",), {"type": float, "default": 60.0, "help": "seconds to finish games"}),
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
            (("--concurrency", "-c"), {"type": int, "default": 32, "help": "calls in flight"}),
            (("--duration", "-d"), {"type": float, "default": 10.0, "help": "seconds"}),
            (("--processes",), {"type": int, "default": 2, "help": "client processes"}),
            (("--variant", "-v"), {"default": "doudizhu3"}),
            (("--rate",), {"type": float, "default": 0.0, "help": "total req/s; 0 = flat out"}),
            (
                ("--max-error-rate",),
                {
                    "type": float,
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
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {one_line(message)}\n")


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
        if group:
            if group not in groups:
                parent = sub.add_parser(group, help=f"{group} commands")
                groups[group] = parent.add_subparsers(
                    dest=f"{group}_command", required=True, metavar="COMMAND"
                )
            cmd = groups[group].add_parser(leaf, help=help_text, description=help_text)
        else:
            cmd = sub.add_parser(name, help=help_text, description=help_text)
        cmd.set_defaults(_target=name)
        for flags, kwargs in args:
            cmd.add_argument(*flags, **kwargs)  # type: ignore[arg-type]
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    target = COMMANDS[args._target][0]
    module_name, func_name = target.split(":")
    handler: Callable[[argparse.Namespace], int] = getattr(
        importlib.import_module(module_name), func_name
    )
    command = args._target
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
