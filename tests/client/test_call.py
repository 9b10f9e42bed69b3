"""`cardroom call`: any RPC with a JSON body through the generated stubs, JSON out; a refusal
names its ErrorInfo reason and exits 2, as do bad JSON and an unknown method."""

from __future__ import annotations

import json
import socket

import pytest

from services.cli import main
from services.client.call import default_target
from tests.cli_fuzz import EDGE_BYTES, EDGES, assert_clean, run
from tests.matchmaker.conftest import Cluster


def test_an_engine_call_prints_the_answer_as_json(
    engine_target: str, capsys: pytest.CaptureFixture[str]
) -> None:
    body = '{"variant": "ddz3", "cards": "3s3h3d4c"}'
    assert main(["call", "engine", "Classify", body, "--target", engine_target]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["pattern"]["reading"] == "triple_single:3"


def test_a_refusal_prints_its_reason_and_exits_2(
    engine_target: str, capsys: pytest.CaptureFixture[str]
) -> None:
    body = '{"variant": "ddz3", "cards": "3s4h"}'
    assert main(["call", "engine", "Classify", body, "-t", engine_target]) == 2
    out = capsys.readouterr()
    assert out.out == ""
    assert "INVALID_ARGUMENT NOT_A_PATTERN" in out.err and len(out.err.splitlines()) == 1


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["call", "engine", "Classify", "{not json"], "not a ClassifyRequest"),
        (["call", "engine", "Classify", '{"no_such_field": 1}'], "no_such_field"),
        (["call", "engine", "NoSuchMethod", "{}"], "has no method"),
    ],
)
def test_bad_input_exits_2_with_one_line(
    argv: list[str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*argv, "--target", "127.0.0.1:1"]) == 2
    err = capsys.readouterr().err
    assert words in err and len(err.splitlines()) == 1


def test_an_unreachable_service_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # bound, not listening: nobody answers
        code = main(["call", "engine", "ListVariants", "{}", "-t", f"127.0.0.1:{port}",
                     "--timeout", "2"])  # fmt: skip
    assert code == 1
    assert "UNAVAILABLE" in capsys.readouterr().err


def test_the_target_defaults_to_the_environment_then_the_local_port() -> None:
    assert default_target("replay", {}) == "127.0.0.1:50052"
    assert default_target("matchmaker", {"CARDROOM_MATCHMAKER_ADDR": "h:1"}) == "h:1"


@pytest.mark.parametrize("edge", EDGES)
def test_edge_bodies_are_clean_refusals(
    edge: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    argv = ["call", "engine", "Classify", edge, "-t", "127.0.0.1:1", "--timeout", "1"]
    status, _out, err = run(capsys, monkeypatch, argv)
    assert_clean(status, err)


@pytest.mark.parametrize("data", EDGE_BYTES)
def test_edge_stdin_is_a_clean_refusal(
    data: bytes, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    argv = ["call", "engine", "Classify", "-", "-t", "127.0.0.1:1", "--timeout", "1"]
    status, _out, err = run(capsys, monkeypatch, argv, data)
    assert_clean(status, err)


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["play", "--name", ""], "--name"),
        (["play", "--wait-for-humans", "-1"], "--wait-for-humans"),
        (["replay", "watch", "no-such-game", "-r", "127.0.0.1:1"], "UNAVAILABLE"),
    ],
)
def test_play_and_watch_refuse_bad_input_in_one_line(
    argv: list[str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) in (1, 2)
    err = capsys.readouterr().err
    assert words in err and len(err.splitlines()) == 1


def test_watch_names_a_game_that_is_not_there(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    target = f"127.0.0.1:{cluster.replay_port}"
    assert main(["replay", "watch", "no-such-game", "--replay", target]) == 2
    err = capsys.readouterr().err
    assert "NOT_FOUND GAME_NOT_FOUND" in err and len(err.splitlines()) == 1
