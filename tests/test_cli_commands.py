"""Every ``cardroom`` command, discovered from the parser (a new command is covered without
editing this file): ``--help`` exits 0 and prints help; every argument given garbage (empty,
NUL, not UTF-8, and for numbers nan, inf, negative and past any range) exits 2 with one line
naming it and no traceback, before the command opens a file, a database or a connection."""

from __future__ import annotations

import argparse
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from services import cli
from tests.cli_fuzz import assert_clean, run

#: Garbage for every argument that takes a value.
TEXT_GARBAGE = ["", "\x00", "a\x00b", "\udcff\udcfe", "x\x1by"]
#: More garbage for a number.
NUMBER_GARBAGE = ["nan", "inf", "-inf", "-1", "9" * 30, "-" + "9" * 30, "1e400", "0x10", "1.5e"]


def _leaves(
    parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    """(words, parser) of every command and command group, groups first."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            if path:
                yield path, parser
            for name, sub in action.choices.items():
                yield from _leaves(sub, (*path, name))
            return
    yield path, parser


COMMANDS = [(words, p) for words, p in _leaves(cli.build_parser())]
LEAVES = [(words, p) for words, p in COMMANDS if " ".join(words) in cli.COMMANDS]


def _valid(action: argparse.Action) -> str:
    """A value the argument accepts, so that each case makes exactly one argument bad."""
    if action.choices:
        return str(next(iter(action.choices)))
    if "variant" in action.dest:
        return "doudizhu3"
    return "1" if getattr(action.type, "__name__", "") in ("whole", "number") else "x"


def _base(parser: argparse.ArgumentParser) -> tuple[list[str], list[str]]:
    """The command's positionals and its required options, each with a valid value."""
    positionals: list[str] = []
    options: list[str] = []
    for action in parser._actions:
        if not action.option_strings and action.nargs != 0:
            positionals.append(_valid(action))
        elif action.required:
            options += [action.option_strings[0], _valid(action)]
    return positionals, options


def _cases() -> Iterator[object]:
    for words, parser in LEAVES:
        positionals, options = _base(parser)
        index = 0
        for action in parser._actions:
            if action.nargs == 0 or action.dest == "help":
                continue
            numeric = getattr(action.type, "__name__", "") in ("whole", "number")
            for value in TEXT_GARBAGE + (NUMBER_GARBAGE if numeric else []):
                if action.option_strings:
                    argv = [*words, *positionals, *options, action.option_strings[0], value]
                else:
                    bad = [*positionals[:index], value, *positionals[index + 1 :]]
                    argv = [*words, *bad, *options]
                name = "/".join(action.option_strings) or action.dest
                yield pytest.param(argv, name, id=f"{' '.join(words)}-{action.dest}")
            if not action.option_strings:
                index += 1


CASES = list(_cases())


@pytest.fixture(autouse=True)
def _nowhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No command may reach a real store or service if a check is missing: an empty data
    directory, services on a closed port, and ten seconds before the case counts as a hang."""
    monkeypatch.setenv("CARDROOM_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("CARDROOM_DATABASE_URL", raising=False)
    for service in ("ENGINE", "REPLAY", "MATCHMAKER"):
        monkeypatch.setenv(f"CARDROOM_{service}_ADDR", "127.0.0.1:1")

    def hang(*_: object) -> None:
        raise AssertionError("the command ran for over 10 s on a bad argument")

    previous = signal.signal(signal.SIGALRM, hang)
    signal.alarm(10)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


def test_every_command_is_covered() -> None:
    assert {" ".join(words) for words, _ in LEAVES} == set(cli.COMMANDS)
    assert len(CASES) > 300


@pytest.mark.parametrize("words", [[], *[list(w) for w, _ in COMMANDS]], ids=" ".join)
@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_help_exits_0(
    words: list[str],
    flag: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    status, out, err = run(capsys, monkeypatch, [*words, flag])
    assert status == 0, err
    assert out.startswith("usage: cardroom") and err == ""
    assert "%%" not in out  # a help text's escaped percent sign, printed as written


@pytest.mark.parametrize(("argv", "name"), CASES)
def test_garbage_argument_exits_2_naming_it(
    argv: list[str],
    name: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    status, out, err = run(capsys, monkeypatch, argv)
    assert_clean(status, err, bad=True)
    assert out == "" and len(err.splitlines()) == 1, err
    assert f"argument {name}" in err, err


@pytest.mark.parametrize(
    "argv",
    [
        ["play", "-v", "\udcff\udcfe"],
        ["play", "-v", "nosuchgame"],
        ["matchmaker", "play", "--think", "99999999999999999999999"],
        ["call", "engine", "ListVariants", "--timeout", "nan"],
        ["call", "engine", "ListVariants", "--timeout", "-1"],
        ["arena", "-v", "ddz3", "-n", str(10**26)],
        ["simulate", "-v", "ddz3", "-n", "-5"],
        ["engine", "serve", "--workers", str(10**23)],
    ],
    ids=" ".join,
)
def test_the_probes_arguments_exit_2(
    argv: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    status, _, err = run(capsys, monkeypatch, argv)
    assert_clean(status, err, bad=True)
    assert len(err.splitlines()) == 1, err


def test_a_tls_file_that_is_not_pem_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert.write_text("not a certificate\n")
    key.write_text("not a key\n")
    argv = ["engine", "serve", "--port", "0", "--tls-cert", str(cert), "--tls-key", str(key)]
    status, _, err = run(capsys, monkeypatch, argv)
    assert_clean(status, err, bad=True)
    assert str(cert) in err and "PEM" in err
