"""What every section shares: the run's settings, timing, progress and table output."""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Context:
    """Settings of one ``python -m bench`` run, and a memo the sections may share."""

    positions: int = 3000  # positions per variant
    card_sets: int = 20000  # card sets classified per variant (a fixed sample)
    reps: int = 5  # repetitions of each timed measurement; the best one is reported
    seed: int = 20260101
    quick: bool = False
    memo: dict[Any, Any] = field(default_factory=dict)

    def cached(self, key: Any, make: Callable[[], Any]) -> Any:
        """``make()`` once per key per run (position sets are shared between sections)."""
        if key not in self.memo:
            self.memo[key] = make()
        return self.memo[key]


@dataclass
class Table:
    """A titled table of text cells, with notes printed under it."""

    title: str
    columns: Sequence[str]
    rows: list[list[str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def render(self) -> str:
        widths = [len(c) for c in self.columns]
        for row in self.rows:
            for i, cell in enumerate(row):
                widths[i] = max(widths[i], len(cell))

        def line(cells: Sequence[str]) -> str:
            # First column left-aligned (a label), the others right-aligned (figures).
            parts = [
                cell.ljust(widths[i]) if i == 0 else cell.rjust(widths[i])
                for i, cell in enumerate(cells)
            ]
            return "  ".join(parts).rstrip()

        out = [self.title, "=" * len(self.title), line(self.columns)]
        out.append("  ".join("-" * w for w in widths))
        out.extend(line(row) for row in self.rows)
        if self.notes:
            out.append("")
            out.extend(self.notes)
        return "\n".join(out)


def progress(message: str) -> None:
    """A progress line on stderr (stdout carries only the tables)."""
    print(f"[bench] {message}", file=sys.stderr, flush=True)


@dataclass(frozen=True)
class Timing:
    """Wall-clock seconds of each repetition of one measurement."""

    runs: tuple[float, ...]

    @property
    def best(self) -> float:
        return min(self.runs)

    @property
    def median(self) -> float:
        return statistics.median(self.runs)


def timed(fn: Callable[[], object]) -> float:
    """Seconds one call of ``fn`` takes (time.perf_counter)."""
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def time_reps(fns: Sequence[Callable[[], object]], reps: int) -> list[Timing]:
    """Time each function ``reps`` times, interleaved (f1 f2 … f1 f2 …) so that drift in the
    machine's speed hits every function alike."""
    runs: list[list[float]] = [[] for _ in fns]
    for _ in range(reps):
        for i, fn in enumerate(fns):
            runs[i].append(timed(fn))
    return [Timing(tuple(r)) for r in runs]


def rate(count: int, seconds: float) -> float:
    return count / seconds if seconds > 0 else float("inf")


def fmt_int(n: float) -> str:
    return f"{n:,.0f}"


def fmt_rate(r: float) -> str:
    """A rate per second, three significant figures or whole numbers."""
    if r >= 100:
        return f"{r:,.0f}"
    return f"{r:.3g}"


def fmt_ratio(r: float) -> str:
    return f"{r:.2f}×"
