"""``cardroom db upgrade`` and ``cardroom replay show|verify|import|audit-escape|serve``: data on
stdout only, exit status 2 on bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import update

from services import rules
from services.cli import main
from services.common.db import make_engine
from services.replay.models import events as events_table

from .helpers import PLAYERS, escape_record, record


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out = capsys.readouterr()
    return status, out.out, out.err


def test_the_replay_commands(
    db_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = ["--database", db_url]
    status, out, err = run(capsys, "replay", "verify", "g", *db)
    assert status == 2 and out == "" and "cardroom db upgrade" in err
    status, out, _ = run(capsys, "db", "upgrade", *db)
    assert status == 0 and out == ""

    records = [record(seed=f"cli/{i}", players=PLAYERS, game_id=f"cli{i}") for i in range(5)]
    records.append(escape_record({"escape_multiplier": 8}) | {"game_id": "esc"})
    path = tmp_path / "games.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    status, out, err = run(capsys, "replay", "import", str(path), *db)
    assert status == 0, err
    lines = [json.loads(line) for line in out.splitlines()]
    assert [x["game_id"] for x in lines] == [*(f"cli{i}" for i in range(5)), "esc"]
    assert all(x["verified"] for x in lines) and "games" in err  # progress on stderr

    one = tmp_path / "one.json"
    one.write_text(json.dumps(record(seed="cli/one", game_id="one"), indent=2))
    status, out, _ = run(capsys, "replay", "import", str(one), *db)
    assert status == 0 and json.loads(out)["game_id"] == "one"

    status, out, _ = run(capsys, "replay", "verify", "cli0", *db)
    assert status == 0 and json.loads(out)["ok"] is True

    status, out, _ = run(capsys, "replay", "show", "cli1", *db)
    assert status == 0
    assert "Trick 1" in out and "hand of seat 0 (alice)" in out and "Result: " in out
    assert "plays" in out and "passes" in out and "step " in out

    status, out, _ = run(capsys, "replay", "audit-escape", "esc", *db)
    audit = json.loads(out)
    state = rules.replay(records[-1])
    assert status == 0 and audit["consistent"] and audit["escaper"] == state.escaper
    assert audit["escape_multiplier"] == 8
    status, out, err = run(capsys, "replay", "audit-escape", "cli0", *db)
    assert status == 2 and out == "" and "NOT_ESCAPED" in err

    engine = make_engine(db_url)
    with engine.begin() as conn:
        conn.execute(
            update(events_table)
            .where((events_table.c.game_id == "cli2") & (events_table.c.seq == 5))
            .values(payload=b"forged")
        )
    engine.dispose()
    status, out, _ = run(capsys, "replay", "verify", "cli2", *db)
    result = json.loads(out)
    assert status == 1 and result["first_bad_seq"] == 5 and result["reason"] == "CHAIN_BROKEN"

    for argv in (["replay", "show", "nope"], ["replay", "verify", "nope"]):
        status, out, err = run(capsys, *argv, *db)
        assert status == 2 and out == "" and "no game" in err
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        '{"variant": "ddz3", "deal": {"seed": "x"}, "actions": [{"seat": 9}]}\nnot json\n'
    )
    status, out, err = run(capsys, "replay", "import", str(bad), *db)
    assert status == 2 and out == "" and "bad.jsonl:1" in err and "bad.jsonl:2" in err
    status, _, err = run(capsys, "replay", "import", str(tmp_path / "missing"), *db)
    assert status == 2 and "cannot read" in err


def test_serve_refuses_a_database_that_is_not_migrated(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CARDROOM_DATABASE_URL", f"sqlite:///{tmp_path / 'fresh.sqlite3'}")
    status, out, err = run(capsys, "replay", "serve", "--port", "0")
    assert status == 2 and out == "" and "cardroom db upgrade" in err
    monkeypatch.setenv("CARDROOM_REPLAY_PLAYER_TOKENS", "no-colon")
    status, _, err = run(capsys, "replay", "serve", "--port", "0")
    assert status == 2 and "player_id:token" in err
