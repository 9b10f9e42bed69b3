"""Issue 8: ``cardroom replay import`` stores the good lines of a file with bad ones, reports
each bad one and its counts, and is idempotent; every replay command answers bad input with
exit 2 and one line, on both backends."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from services.cli import main
from services.common.db import make_engine
from services.common.migrate import upgrade
from services.replay.games import content_game_id
from services.replay.store import EventStore
from tests.cli_fuzz import EDGE_BYTES, EDGES, assert_clean, run

from .helpers import PLAYERS, record


def summary(err: str) -> str:
    return [line for line in err.splitlines() if line.startswith("cardroom replay import:")][-1]


def stored_games(db_url: str) -> int:
    engine = make_engine(db_url)
    try:
        return len(EventStore(engine).list_games(limit=1000))
    finally:
        engine.dispose()


def test_import_keeps_the_good_lines_and_is_idempotent(
    db_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    upgrade(db_url)
    good = [record(seed=f"imp/{i}", players=PLAYERS) for i in range(3)]  # no game_id
    lines = [
        json.dumps(good[0]).encode(),
        b"\xff\xfe{}",  # not UTF-8
        b"[" * 100_000,  # nested too deeply
        json.dumps(good[1]).encode(),
        b"9" * 5000,
        json.dumps(good[2]).encode(),
    ]
    path = tmp_path / "mixed.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    argv = ["replay", "import", str(path), "--database", db_url]

    status, out, err = run_main(capsys, argv)
    assert status == 2 and "Traceback" not in err
    ids = [json.loads(line)["game_id"] for line in out.splitlines()]
    assert len(ids) == 3 and all(i.startswith("rec-") for i in ids)
    assert f"{path}:2: bad record: not UTF-8" in err and f"{path}:3: " in err
    assert summary(err) == "cardroom replay import: 3 imported, 0 already present, 3 refused"

    status, out, err = run_main(capsys, argv)  # again: nothing new
    assert [json.loads(line)["game_id"] for line in out.splitlines()] == ids
    assert summary(err) == "cardroom replay import: 0 imported, 3 already present, 3 refused"

    # The same games written differently (spacing of the cards) are the same games.
    respaced = tmp_path / "respaced.jsonl"
    respaced.write_text("".join(json.dumps(respace(r)) + "\n" for r in good), encoding="utf-8")
    status, out, err = run_main(capsys, ["replay", "import", str(respaced), "--database", db_url])
    assert status == 0, err
    assert summary(err) == "cardroom replay import: 0 imported, 3 already present, 0 refused"
    assert stored_games(db_url) == 3


def respace(r: dict[str, Any]) -> dict[str, Any]:
    actions = [
        {**a, "play": " ".join(a["play"][i : i + 2] for i in range(0, len(a["play"]), 2))}
        if "play" in a
        else a
        for a in r["actions"]
    ]
    return {**r, "actions": actions}


def test_the_derived_id_is_the_hash_of_the_canonical_record() -> None:
    fields = {"variant": "doudizhu3", "rules_version": 1, "deal": {"seed": "x"}, "actions": []}
    gid = content_game_id(fields)
    assert gid == content_game_id(dict(reversed(fields.items())))  # key order is not content
    assert gid != content_game_id({**fields, "deal": {"seed": "y"}})
    assert len(gid) == 36 and gid.startswith("rec-")


def test_a_record_with_its_game_id_imports_once(
    db_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    upgrade(db_url)
    path = tmp_path / "one.json"
    path.write_text(json.dumps(record(seed="imp/one", game_id="one"), indent=2))
    argv = ["replay", "import", str(path), "--database", db_url]
    assert run_main(capsys, argv)[0] == 0
    status, out, err = run_main(capsys, argv)
    assert status == 0 and json.loads(out)["replayed"] is True
    assert summary(err) == "cardroom replay import: 0 imported, 1 already present, 0 refused"
    other = tmp_path / "other.json"
    other.write_text(json.dumps(record(seed="imp/other", game_id="one")))
    status, _, err = run_main(capsys, ["replay", "import", str(other), "--database", db_url])
    assert status == 1 and "GAME_EXISTS" in err
    assert summary(err) == "cardroom replay import: 0 imported, 0 already present, 1 refused"


@pytest.mark.parametrize("data", EDGE_BYTES, ids=range(len(EDGE_BYTES)))
def test_import_on_edge_input(
    data: bytes,
    db_url: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    upgrade(db_url)
    path = tmp_path / "in"
    path.write_bytes(data)
    for source in (str(path), "-"):
        status, out, err = run(
            capsys, monkeypatch, ["replay", "import", source, "--database", db_url], data
        )
        assert_clean(status, err)
        assert out == ""  # nothing here is a game


def test_every_replay_command_on_edge_arguments(
    db_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    upgrade(db_url)
    for value in EDGES:
        for command in ("show", "verify", "audit-escape"):
            status, out, err = run(
                capsys, monkeypatch, ["replay", command, value, "--database", db_url]
            )
            assert_clean(status, err, bad=True)
            assert out == ""
        for argv in (
            ["replay", "import", value, "--database", db_url],
            ["replay", "verify", "g", "--database", value or "nope://"],
            ["db", "upgrade", "--database", value or "nope://"],
        ):
            status, out, err = run(capsys, monkeypatch, argv)
            assert_clean(status, err, bad=True)


def run_main(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str, str]:
    status = main(argv)
    out = capsys.readouterr()
    return status, out.out, out.err


@pytest.mark.parametrize("command", ["show", "verify", "audit-escape"])
def test_a_read_only_command_creates_nothing(
    command: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`replay show X --database sqlite:///nowhere/sub/x.db` made the directories and an
    empty database, then said "run db upgrade"."""
    where = tmp_path / "nowhere" / "sub" / "x.db"
    argv = ["replay", command, "g1", "--database", f"sqlite:///{where}"]
    status, out, err = run(capsys, monkeypatch, argv)
    assert status == 2 and out == ""
    assert f"there is no database at {where}" in err and "db upgrade" in err
    assert not (tmp_path / "nowhere").exists()
