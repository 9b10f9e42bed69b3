"""The matchmaker stays readable: the runner under 600 lines, no function over 60 (issue 24).
A change that needs more splits the work into the modules beside it (table.py for a table's
rules, commands.py for a person's commands, schedule.py, outbox.py, waker.py, priority.py)."""

from __future__ import annotations

import ast
from pathlib import Path

import services.matchmaker

PACKAGE = Path(services.matchmaker.__file__).parent
MAX_RUNNER_LINES = 600
MAX_FUNCTION_LINES = 60


def test_the_runner_is_under_600_lines() -> None:
    lines = len((PACKAGE / "runner.py").read_text().splitlines())
    assert lines < MAX_RUNNER_LINES, lines


def test_no_function_in_the_matchmaker_is_over_60_lines() -> None:
    long = []
    for path in sorted(PACKAGE.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    long.append(f"{path.name}:{node.lineno} {node.name} ({length} lines)")
    assert not long, long
