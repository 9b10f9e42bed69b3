"""``cardroom simulate``'s output pinned by hash: its speed-ups (no views in the loop, the
auto-play move read from the state) must not change one byte of the records or the summary.

The hashes were taken from the simulator before those changes; a deliberate change of the
rules or the auto-play policy (a new rules version) updates them, nothing else should.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from services.cli import main

#: (variant, games) -> sha256 of the records file, then of the summary without its timings.
PINNED = {
    ("ddz3", 40): (
        "bf2a59510d85672f4f38333af621c00455d51bd52e7a4c08233f317a7b09d343",
        "6b69d24fba3213a37921791976c8442cbb3a21c27b226eff1c6de513e8aded85",
    ),
    ("ddz4", 25): (
        "4f9067a5e1ecfd608588e38ced2ef507a31935432b05a1d18fc2e5d5a504d29e",
        "9bc53ceb1d4336026ce2135aa2b61eebf8f7f7f417cfe67dced55a80d28fecb8",
    ),
    ("zsy1", 15): (
        "f019d67c65667768399999036f30a2d3608edaf439807c76984716859ae1033d",
        "c4f2d4c70d604341f97a1e349236d8afd3858507ed4fd580a4d690b6a34883c9",
    ),
    ("zsy2", 15): (
        "91a8eb5706399dd2f1d27ac71cc09d3d3bdac75afe109e0f66b03502cfeaebfe",
        "bc884633a98098079a860b81cd23d05a9caccf8c41206e70fb72aaebc951d855",
    ),
}


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def simulate_hashes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> dict[str, tuple[str, str]]:
    out: dict[str, tuple[str, str]] = {}
    for name, games in PINNED:
        path = tmp_path / f"{name}.jsonl"
        argv = ["simulate", "-v", name, "-n", str(games), "-s", "pin", "--records", str(path)]
        assert main(argv) == 0
        summary = json.loads(capsys.readouterr().out)
        del summary["seconds"], summary["games_per_second"]
        out[name] = (_sha(path.read_bytes()), _sha(json.dumps(summary).encode()))
    return out


def test_simulate_output_is_pinned(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    got = simulate_hashes(tmp_path, capsys)
    assert got == {name: pinned for (name, _), pinned in PINNED.items()}
