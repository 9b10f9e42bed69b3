"""``cardroom classify`` and ``cardroom moves``: through a real subprocess (what a user or a
script runs) and in-process through services.cli.main (fast, and shows the exit codes)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from services import cli, rules

ROOT = Path(__file__).resolve().parents[2]


def run(*argv: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "services", *argv],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )


def run_in_process(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    *argv: str,
    stdin: str = "",
) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def canon(answer: dict[str, Any]) -> dict[str, Any]:
    """A moves answer with the plays sorted: their order is not part of the contract, but
    the pass, when offered, comes first."""
    if "moves" not in answer:
        return answer
    found: list[str] = answer["moves"]
    assert "" not in found[1:], "the pass comes first"
    head = found[:1] if found[:1] == [""] else []
    return {"moves": head + sorted(found[len(head) :])}


# ------------------------------------------------------------------------------- classify


def test_classify_prints_the_pattern_as_json() -> None:
    proc = run("classify", "--variant", "doudizhu3", "3s3h3d4c")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == {
        "cards": "3s3h3d4c",
        "kind": "triple_single",
        "rank": "3",
        "length": 1,
        "size": 4,
        "low": False,
        "wings": "cards",
        "reading": "triple_single:3",
    }
    assert proc.stdout.count("\n") == 1  # only the data on stdout


@pytest.mark.parametrize(
    ("argv", "reading"),
    [
        (["--variant", "ddz3", "3s3h3d", "4s4h4d", "5s5h5d", "6s6h6d"], "triple_chain:6"),
        (["-v", "ddz3", "3s3h3d4s4h4d5s5h5d6s6h6d", "--as", "plane_single:5"], "plane_single:5"),
        (["--variant", "zhengshangyou2", "As2s3h4s5s"], "straight:5"),
        (["--variant", "zsy1", "3h", "4h", "5h", "6h", "7h"], "straight_flush:7"),
        (["--variant", "ddz4", "BJ", "BJ", "RJ", "RJ"], "rocket:RJ"),
        (["--variant", "zsy1", "10s 10h 10c"], "triple:T"),
    ],
)
def test_classify_in_process(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    argv: list[str],
    reading: str,
) -> None:
    code, out, err = run_in_process(capsys, monkeypatch, "classify", *argv)
    assert (code, err) == (0, "")
    assert json.loads(out)["reading"] == reading


@pytest.mark.parametrize(
    ("argv", "names"),
    [
        (["--variant", "ddz3", "3s3x4d"], ["'3x4d'", "position 2"]),  # bad card
        (["--variant", "chess", "3s"], ["'chess'", "doudizhu3"]),  # bad variant
        (["--variant", "ddz3", "3s4h"], ["not a pattern", "doudizhu3"]),  # not a pattern
        (["--variant", "ddz3", "BJ", "BJ"], ["BJ"]),  # cards the deck lacks
        (["--variant", "zsy1", "RJ"], ["RJ"]),
        (["--variant", "ddz3", "3s3h3d4s4h4d5s5h5d6s6h6d", "--as", "bomb:3"], ["bomb:3"]),
        (["--variant", "ddz3", "3s", "--as", "single"], ["single"]),  # malformed reading
    ],
)
def test_classify_bad_input_exits_2_naming_the_problem(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    argv: list[str],
    names: list[str],
) -> None:
    code, out, err = run_in_process(capsys, monkeypatch, "classify", *argv)
    assert code == 2
    assert out == ""  # nothing that a script could mistake for data
    assert err.startswith("cardroom classify: error:")
    for name in names:
        assert name in err


def test_classify_subprocess_bad_cards_exit_2() -> None:
    proc = run("classify", "--variant", "ddz3", "3s", "Zz")
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert "'Zz'" in proc.stderr and "position 3" in proc.stderr


def test_classify_subprocess_bad_variant_exit_2() -> None:
    proc = run("classify", "--variant", "doudizhu9", "3s")
    assert proc.returncode == 2
    assert "doudizhu9" in proc.stderr and proc.stdout == ""


# ---------------------------------------------------------------------------------- moves

REQUESTS = [
    {"hand": "3s 4h 4d BJ RJ", "last": "3d"},
    {"hand": "3s4h"},
    {"hand": "3s 3h 3c 3d", "last": ""},
    {"hand": "3s", "last": "2d"},
]


def test_moves_answers_one_json_line_per_request() -> None:
    stdin = "".join(json.dumps(r) + "\n" for r in REQUESTS)
    proc = run("moves", "--variant", "doudizhu3", stdin=stdin)
    assert proc.returncode == 0, proc.stderr
    answers = [canon(json.loads(line)) for line in proc.stdout.splitlines()]
    expected = [
        {"moves": ["", "4h", "BJ", "RJ", "BJRJ"]},  # pass first: there is a play to answer
        {"moves": ["3s", "4h"]},  # a lead: no pass
        {"moves": ["3s", "3s3h", "3s3h3c", "3s3h3c3d"]},  # empty "last" is a lead too
        {"moves": [""]},  # nothing beats 2d: passing is all there is
    ]
    assert answers == [canon(e) for e in expected]


def test_moves_bad_lines_get_an_error_and_the_rest_go_on(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = [
        '{"hand": "3s4h"}',
        "not json",
        '{"hand": "3x"}',  # bad card
        '{"hand": "3s", "last": "3h4d"}',  # last is not a pattern
        '{"hand": "BJ BJ"}',  # ddz3 has one black joker
        "[1, 2]",  # not an object
        '{"hand": 3}',  # not a string
        '{"last": "3s"}',  # no hand
        '{"hand": "5s", "last": "4s"}',
    ]
    code, out, _ = run_in_process(
        capsys, monkeypatch, "moves", "--variant", "ddz3", stdin="\n".join(lines) + "\n"
    )
    assert code == 0
    answers = [canon(json.loads(line)) for line in out.splitlines()]
    assert len(answers) == len(lines)
    assert answers[0] == {"moves": ["3s", "4h"]}
    assert answers[-1] == {"moves": ["", "5s"]}
    for bad, answer in zip(lines[1:-1], answers[1:-1], strict=True):
        assert list(answer) == ["error"], bad
        assert answer["error"], bad
    assert "'3x'" in answers[2]["error"]
    assert "not a pattern" in answers[3]["error"]
    assert "BJ" in answers[4]["error"]


def test_moves_lists_each_set_of_cards_once_and_every_move_classifies(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A lead with rival readings (333444555666) lists the cards once on the CLI.
    hand = "3s3h3d 4s4h4d 5s5h5d 6s6h6d 7c"
    code, out, _ = run_in_process(
        capsys, monkeypatch, "moves", "--variant", "ddz3", stdin=json.dumps({"hand": hand})
    )
    assert code == 0
    (line,) = out.splitlines()
    found = json.loads(line)["moves"]
    assert len(found) == len(set(found))
    assert "" not in found
    v = rules.variant("ddz3")
    for move in found:
        rules.classify(v, rules.parse_cards(move))  # every move is a pattern


def test_moves_bad_variant_exits_2(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, err = run_in_process(
        capsys, monkeypatch, "moves", "--variant", "nope", stdin='{"hand": "3s"}\n'
    )
    assert code == 2 and out == ""
    assert "'nope'" in err


def test_moves_two_deck_game() -> None:
    proc = run("moves", "--variant", "zsy2", stdin='{"hand": "BJ BJ RJ RJ", "last": "2s 2s"}\n')
    assert proc.returncode == 0
    assert canon(json.loads(proc.stdout)) == canon({"moves": ["", "BJBJ", "RJRJ", "BJBJRJRJ"]})


def test_version_names_the_active_rules_core() -> None:
    core = "compiled (Cython)" if rules.CORE == "native" else "pure Python"
    for argv in (("version",), ("--version",)):
        done = run(*argv)
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith("cardroom ") and f"rules core: {core}" in done.stdout
    # The switch turns the compiled core off in a fresh process.
    pure = subprocess.run(
        [sys.executable, "-m", "services", "version"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        env={**os.environ, "CARDROOM_PURE": "1"},
    )
    assert pure.returncode == 0 and "rules core: pure Python" in pure.stdout
