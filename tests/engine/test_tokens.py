"""Sealed state tokens: round trip, key rotation, and every way a token can be refused."""

from __future__ import annotations

import pytest

from services.engine import tokens
from services.engine.tokens import Sealer, TokenInvalid

OLD = {"k0": bytes(32)}
NEW = {"k1": bytes(range(32))}
PAYLOAD = b'{"hands": [[1, 2, 3]], "phase": "play"}' * 10


def test_round_trip_and_compression() -> None:
    s = Sealer(NEW)
    token = s.seal(PAYLOAD, "g1", 7)
    assert s.open(token, "g1", 7) == PAYLOAD
    assert len(token) < len(PAYLOAD)  # compressed before sealing
    assert b"hands" not in token  # encrypted: nothing readable leaks


def test_older_keys_open_and_the_first_key_seals() -> None:
    old_token = Sealer(OLD).seal(PAYLOAD, "g", 1)
    rotated = Sealer({**NEW, **OLD})
    assert rotated.open(old_token, "g", 1) == PAYLOAD
    assert rotated.key_id == "k1"
    assert Sealer(NEW).open(rotated.seal(PAYLOAD, "g", 1), "g", 1) == PAYLOAD
    with pytest.raises(TokenInvalid, match="lacks"):
        Sealer(NEW).open(old_token, "g", 1)


def test_bound_to_game_id_and_seq() -> None:
    s = Sealer(NEW)
    token = s.seal(PAYLOAD, "g1", 7)
    for game_id, seq in (("g2", 7), ("g1", 6), ("g1", 8)):
        with pytest.raises(TokenInvalid):
            s.open(token, game_id, seq)


def test_every_flipped_bit_is_refused() -> None:
    s = Sealer(NEW)
    token = s.seal(b"x" * 40, "g", 1)
    for i in range(len(token)):
        for bit in (0x01, 0x80):
            bad = bytearray(token)
            bad[i] ^= bit
            with pytest.raises(TokenInvalid):
                s.open(bytes(bad), "g", 1)


@pytest.mark.parametrize(
    "token", [b"", b"\x01", b"\x02abc", b"\x01\x05k1", b"\x01\x02k1" + bytes(40)]
)
def test_malformed(token: bytes) -> None:
    with pytest.raises(TokenInvalid):
        Sealer(NEW).open(token, "g", 1)


def test_key_parsing() -> None:
    text = tokens.format_keys({**NEW, **OLD})
    assert tokens.parse_keys(text) == {**NEW, **OLD}
    assert tokens.parse_keys("") == {}
    for bad in ("nokey", "k:!!!", "k:AAAA", f"{text},{text}"):
        with pytest.raises(tokens.KeyConfigError):
            tokens.parse_keys(bad)
