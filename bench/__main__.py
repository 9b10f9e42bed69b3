"""``python -m bench [SECTION ...] [--quick]``: print the benchmark tables on stdout."""

from __future__ import annotations

import argparse
import platform
import sys
import time
from collections.abc import Sequence

from .common import Context, progress
from .sections import SECTIONS


def _parser() -> argparse.ArgumentParser:
    names = ", ".join(s.name for s in SECTIONS)
    parser = argparse.ArgumentParser(
        prog="python -m bench",
        description="cardroom's benchmark: prints tables on stdout, progress on stderr.",
        epilog="sections: "
        + "; ".join(f"{s.name}: {s.help}" for s in SECTIONS)
        + ".  Default: all of them.",
    )
    parser.add_argument("sections", nargs="*", metavar="SECTION", help=f"any of: {names}")
    parser.add_argument(
        "--quick",
        action="store_true",
        help="a smoke run: 200 positions, 2 runs each; a tenth of the self-play games",
    )
    parser.add_argument("--positions", type=int, help="positions per variant (default 3000)")
    parser.add_argument("--reps", type=int, help="runs of each measurement (default 5)")
    parser.add_argument("--seed", type=int, default=Context.seed, help="position-set seed")
    parser.add_argument("--list", action="store_true", help="list the sections and exit")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.list:
        for s in SECTIONS:
            print(f"{s.name:10} {s.help}")
        return 0
    by_name = {s.name: s for s in SECTIONS}
    unknown = [n for n in args.sections if n not in by_name]
    if unknown:
        parser.error(f"unknown section(s) {', '.join(unknown)}; known: {', '.join(by_name)}")
    chosen = [by_name[n] for n in args.sections] if args.sections else list(SECTIONS)

    ctx = Context(seed=args.seed, quick=args.quick)
    if args.quick:
        ctx.positions, ctx.card_sets, ctx.reps = 200, 2000, 2
    if args.positions is not None:
        ctx.positions = max(1, args.positions)
        ctx.card_sets = max(1, 10 * ctx.positions)
    if args.reps is not None:
        ctx.reps = max(1, args.reps)

    print(
        f"cardroom bench — Python {platform.python_version()} ({platform.python_implementation()})"
        f" on {platform.machine()}; seed {ctx.seed}; {ctx.positions:,} positions per variant;"
        f" best of {ctx.reps} runs{' (quick)' if ctx.quick else ''}"
    )
    started = time.perf_counter()
    for section in chosen:
        progress(f"section {section.name}")
        for table in section.run(ctx):
            print()
            print(table.render(), flush=True)
    progress(f"done in {time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
