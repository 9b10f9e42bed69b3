"""cardroom settle and cardroom simulate."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from services.cli import main


def test_simulate_then_settle_every_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("ddz3", "ddz4", "zsy1", "zsy2"):
        out = tmp_path / f"{name}.jsonl"
        assert main(["simulate", "-v", name, "-n", "20", "-s", "t", "--records", str(out)]) == 0
        captured = capsys.readouterr()
        summary = json.loads(captured.out)
        assert summary["games"] == 20 and summary["finished"] + summary["disbanded"] == 20
        assert "games_per_second" in summary and "20/20" in captured.err
        lines = out.read_text().splitlines()
        assert len(lines) == 20
        one = tmp_path / "one.json"
        one.write_text(lines[0])
        assert main(["settle", str(one)]) == 0
        result = json.loads(capsys.readouterr().out)
        assert result["status"] == "finished" and len(result["scores"]) in (3, 4)
        assert "factors" in result


def test_settle_illegal_action_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rec = {
        "variant": "doudizhu4",
        "deal": {"hands": ["3s", "BJ BJ RJ RJ 4s", "5s", "6s"], "bottom": "7s"},
        "first_bidder": 0,
        "actions": [{"seat": 0, "pass": True}, {"seat": 1, "pass": True}],
    }
    path = tmp_path / "r.json"
    path.write_text(json.dumps(rec))
    assert main(["settle", str(path)]) == 2
    err = capsys.readouterr().err
    assert "index 1" in err and "seat 1" in err and "MUST_BID" in err


def test_settle_malformed_and_unfinished(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "r.json"
    path.write_text("{not json")
    assert main(["settle", str(path)]) == 2
    path.write_text(json.dumps({"variant": "ddz3", "deal": {"seed": "x"}, "actions": [{}]}))
    assert main(["settle", str(path)]) == 2
    assert "actions[0]" in capsys.readouterr().err
    path.write_text(json.dumps({"variant": "ddz3", "deal": {"seed": "x"}}))
    assert main(["settle", str(path)]) == 2
    rec = {"variant": "ddz3", "deal": {"seed": "x"}, "actions": [{"seat": 0, "leave": True}]}
    path.write_text(json.dumps(rec))
    assert main(["settle", str(path)]) == 0
    assert json.loads(capsys.readouterr().out)["scores"] == [-3, 0, 0]
