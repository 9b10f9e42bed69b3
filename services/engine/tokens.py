"""Sealed state tokens: the engine's way of being stateless without trusting its callers.

A game state leaves the engine only as a token that is compressed, then encrypted and
authenticated with an AEAD (AES-256-GCM):

    token = VERSION (1 byte) | len(kid) (1 byte) | kid | nonce (12 bytes) | ciphertext+tag

* **Encrypted**, so a token that leaks (logs, a client's memory) reveals no hidden card.
* **Authenticated**, so a token the engine did not make, or one with a single bit changed,
  is refused (:class:`TokenInvalid`, reason ``STATE_TOKEN_INVALID``).
* **Bound to the game id and sequence number** that travel in the clear beside it (they are
  the AEAD's associated data, with the header), so a caller can refuse a stale or foreign token
  without opening it, and cannot pair a token with another game's id or an older seq.
* **Key ids** let keys rotate: ``CARDROOM_ENGINE_KEYS="kid1:<base64>,kid0:<base64>"`` — the
  first key seals, every listed key opens, so tokens sealed with an older key stay valid for as
  long as the operator keeps that key listed (the grace period).
"""

from __future__ import annotations

import base64
import binascii
import os
import secrets
import zlib
from collections.abc import Mapping

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from services.common.reasons import ServiceReason

ENV_VAR = "CARDROOM_ENGINE_KEYS"
VERSION = 1
NONCE_BYTES = 12
KEY_BYTES = 32
#: Tokens above this size are refused before any work is done on them.
MAX_TOKEN_BYTES = 256 * 1024
#: Bound on the decompressed payload, so a forged... (it cannot be forged: the tag is checked
#: first) — so a *valid* token can never make a worker allocate without limit.
MAX_PAYLOAD_BYTES = 4 * 1024 * 1024
_MEM_LEVEL = 4


class TokenInvalid(ValueError):
    """A token that is malformed, unknown, forged, altered or bound to other clear values."""

    reason = ServiceReason.STATE_TOKEN_INVALID


class KeyConfigError(ValueError):
    """CARDROOM_ENGINE_KEYS cannot be parsed."""


def new_key() -> bytes:
    return secrets.token_bytes(KEY_BYTES)


def format_keys(keys: Mapping[str, bytes]) -> str:
    """The CARDROOM_ENGINE_KEYS form of ``keys`` (first = sealing key)."""
    return ",".join(f"{kid}:{base64.b64encode(k).decode()}" for kid, k in keys.items())


def parse_keys(text: str) -> dict[str, bytes]:
    """``"kid1:base64,kid0:base64"`` → ordered {kid: key}; the first entry seals."""
    keys: dict[str, bytes] = {}
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        kid, sep, b64 = item.partition(":")
        kid = kid.strip()
        if not sep or not kid or len(kid.encode()) > 255:
            raise KeyConfigError(f"{ENV_VAR}: expected KID:BASE64KEY, got {item[:20]!r}…")
        try:
            key = base64.b64decode(b64.strip(), validate=True)
        except (binascii.Error, ValueError):
            raise KeyConfigError(f"{ENV_VAR}: key {kid!r} is not base64") from None
        if len(key) not in (16, 24, 32):
            raise KeyConfigError(f"{ENV_VAR}: key {kid!r} must be 16, 24 or 32 bytes")
        if kid in keys:
            raise KeyConfigError(f"{ENV_VAR}: key id {kid!r} is listed twice")
        keys[kid] = key
    return keys


class Sealer:
    """Seals and opens state payloads with a key ring (first key seals, all open)."""

    def __init__(self, keys: Mapping[str, bytes]) -> None:
        if not keys:
            raise KeyConfigError("at least one key is needed")
        self._aead = {kid: AESGCM(key) for kid, key in keys.items()}
        self._kid = next(iter(keys))
        self._header = bytes([VERSION, len(self._kid.encode())]) + self._kid.encode()

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Sealer:
        env = os.environ if environ is None else environ
        keys = parse_keys(env.get(ENV_VAR, ""))
        if not keys:
            raise KeyConfigError(f"{ENV_VAR} is not set")
        return cls(keys)

    @property
    def key_id(self) -> str:
        return self._kid

    @staticmethod
    def _aad(header: bytes, game_id: str, seq: int) -> bytes:
        return b"%s\x00%s\x00%d" % (header, game_id.encode(), seq)

    def seal(self, payload: bytes, game_id: str, seq: int) -> bytes:
        nonce = secrets.token_bytes(NONCE_BYTES)
        # Level 1: states are small and repetitive, and the token is made on every call.  A
        # small hash table (memLevel 4, not 8): for a few KB it compresses as well, and
        # zlib clears the table on every call (a third of the cost at the default size).
        # Any zlib stream opens below, so tokens of either setting open in every engine.
        deflater = zlib.compressobj(1, zlib.DEFLATED, zlib.MAX_WBITS, _MEM_LEVEL)
        body = deflater.compress(payload) + deflater.flush()
        sealed = self._aead[self._kid].encrypt(nonce, body, self._aad(self._header, game_id, seq))
        return self._header + nonce + sealed

    def open(self, token: bytes, game_id: str, seq: int) -> bytes:
        if len(token) > MAX_TOKEN_BYTES:
            raise TokenInvalid("state token is too large")
        if len(token) < 2 or token[0] != VERSION:
            raise TokenInvalid("state token is malformed (unknown version)")
        kid_len = token[1]
        header_len = 2 + kid_len
        if len(token) < header_len + NONCE_BYTES + 16:
            raise TokenInvalid("state token is malformed (too short)")
        kid = token[2:header_len].decode(errors="replace")
        aead = self._aead.get(kid)
        if aead is None:
            raise TokenInvalid(f"state token was sealed with a key this engine lacks ({kid!r})")
        nonce = token[header_len : header_len + NONCE_BYTES]
        try:
            body = aead.decrypt(
                nonce,
                token[header_len + NONCE_BYTES :],
                self._aad(token[:header_len], game_id, seq),
            )
        except InvalidTag:
            raise TokenInvalid(
                "state token was not made by this engine, was altered, "
                "or does not belong to this game id and seq"
            ) from None
        try:
            inflater = zlib.decompressobj()
            payload = inflater.decompress(body, MAX_PAYLOAD_BYTES)
        except zlib.error:
            raise TokenInvalid("state token payload is corrupt") from None
        if inflater.unconsumed_tail:
            raise TokenInvalid("state token payload is too large")
        return payload
