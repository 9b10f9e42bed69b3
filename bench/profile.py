"""``python -m bench.profile [VARIANT] [--what leads|follows|classify] [--top N]``: cProfile
the rules core on the benchmark's position set and print the top functions by own time
(a tool for whoever speeds the core up; not part of ``python -m bench``)."""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
from collections.abc import Sequence

from .common import Context
from .positions import position_set
from .rules_bench import VARIANT_NAMES, classify_runner, legal_moves_runner


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.profile", description=__doc__)
    parser.add_argument("variant", nargs="?", default="doudizhu3", choices=VARIANT_NAMES)
    parser.add_argument("--what", choices=("leads", "follows", "classify"), default="leads")
    parser.add_argument("--positions", type=int, default=Context.positions)
    parser.add_argument("--top", type=int, default=20)
    parser.add_argument("--sort", default="tottime", help="pstats sort key (default tottime)")
    args = parser.parse_args(argv)

    ctx = Context(positions=args.positions, card_sets=10 * args.positions)
    ps = position_set(ctx, args.variant)
    if args.what == "classify":
        run = classify_runner(ps.variant, ps.card_sets)
    else:
        run = legal_moves_runner(ps.variant, ps.leads if args.what == "leads" else ps.follows)
    profiler = cProfile.Profile()
    profiler.runcall(run)
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats(args.sort).print_stats(args.top)
    print(out.getvalue())
    return 0


if __name__ == "__main__":
    sys.exit(main())
