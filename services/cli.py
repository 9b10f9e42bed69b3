"""The ``cardroom`` command.

Start-up stays light: the parser is built from plain data, and a command's module is
imported only when that command runs.  Commands that print data print only that data on
stdout; messages, logs and progress go to stderr.  Exit status 2 means bad input.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence

# name -> (handler "module:function", help, arguments as (flags, kwargs))
_Arg = tuple[tuple[str, ...], dict[str, object]]
_VARIANT: _Arg = (("--variant", "-v"), {"required": True, "help": "doudizhu3, doudizhu4, …"})

COMMANDS: dict[str, tuple[str, str, list[_Arg]]] = {
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
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cardroom", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (_, help_text, args) in COMMANDS.items():
        cmd = sub.add_parser(name, help=help_text, description=help_text)
        for flags, kwargs in args:
            cmd.add_argument(*flags, **kwargs)  # type: ignore[arg-type]
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    target = COMMANDS[args.command][0]
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


if __name__ == "__main__":
    sys.exit(main())
