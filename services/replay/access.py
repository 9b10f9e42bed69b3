"""Who may read and write what in the replay service (issue 5 item 4).

Credentials are bearer tokens in the call metadata (``authorization: Bearer <token>``), of three
kinds, configured by the environment:

* ``CARDROOM_REPLAY_WRITER_TOKENS="tok1,tok2"`` — writers (the matchmaker): append, import,
  and read every game;
* ``CARDROOM_REPLAY_AUDITOR_TOKENS="tok3"`` — auditors: read every game, import;
* ``CARDROOM_REPLAY_PLAYER_TOKENS="alice:tok4,bob:tok5"`` — players: read the games they sat
  in once those have ended, and their own totals.

While a game runs only writers and auditors read it (a player could otherwise read the other
hands from the deal); after it ends, its players too.  With no token configured at all the
service allows everything (a local try-out) and the server logs a warning at start.
"""

from __future__ import annotations

import enum
import hashlib
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import grpc

from services.common.grpc_errors import ServiceError
from services.common.settings import SettingsError

WRITER_ENV = "CARDROOM_REPLAY_WRITER_TOKENS"
AUDITOR_ENV = "CARDROOM_REPLAY_AUDITOR_TOKENS"
PLAYER_ENV = "CARDROOM_REPLAY_PLAYER_TOKENS"
MIN_TOKEN = 16  # characters: shorter tokens are guessable


class Role(enum.Enum):
    ANYONE = "anyone"  # no tokens configured: everything is allowed
    WRITER = "writer"
    AUDITOR = "auditor"
    PLAYER = "player"


@dataclass(frozen=True)
class Principal:
    role: Role
    player_id: str = ""

    @property
    def reads_everything(self) -> bool:
        return self.role is not Role.PLAYER


def _digest(token: str) -> bytes:
    # Tokens are looked up by their hash, so the table holds no secret and a lookup's timing
    # says nothing about how much of a guessed token was right.
    return hashlib.sha256(token.encode()).digest()


@dataclass(frozen=True)
class AccessPolicy:
    tokens: Mapping[bytes, Principal] = field(default_factory=dict)

    @property
    def open(self) -> bool:
        return not self.tokens

    @classmethod
    def from_lists(
        cls,
        writers: Sequence[str] = (),
        auditors: Sequence[str] = (),
        players: Mapping[str, str] | None = None,
    ) -> AccessPolicy:
        """``players`` maps player id to token."""
        table: dict[bytes, Principal] = {}
        entries = [(t, Principal(Role.WRITER)) for t in writers]
        entries += [(t, Principal(Role.AUDITOR)) for t in auditors]
        entries += [(t, Principal(Role.PLAYER, p)) for p, t in (players or {}).items()]
        for token, who in entries:
            if len(token) < MIN_TOKEN:
                raise SettingsError(f"replay tokens must be at least {MIN_TOKEN} characters")
            if _digest(token) in table:
                raise SettingsError("a replay token is configured twice")
            table[_digest(token)] = who
        return cls(table)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> AccessPolicy:
        env = os.environ if environ is None else environ

        def items(name: str) -> list[str]:
            return [x.strip() for x in env.get(name, "").split(",") if x.strip()]

        players: dict[str, str] = {}
        for item in items(PLAYER_ENV):
            player, sep, token = item.rpartition(":")
            if not sep or not player or not token:
                raise SettingsError(f"{PLAYER_ENV} holds player_id:token pairs, not {item!r}")
            players[player] = token
        return cls.from_lists(items(WRITER_ENV), items(AUDITOR_ENV), players)

    # ------------------------------------------------------------------ checks
    def principal(self, metadata: Sequence[tuple[str, str | bytes]] | None) -> Principal:
        """Who is calling, from the call's metadata; UNAUTHENTICATED without a valid token."""
        if self.open:
            return Principal(Role.ANYONE)
        header = ""
        for key, value in metadata or ():
            if key == "authorization":
                header = value.decode() if isinstance(value, bytes) else value
                break
        scheme, _sep, token = header.strip().partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise unauthenticated("a bearer token is required (authorization: Bearer …)")
        who = self.tokens.get(_digest(token.strip()))
        if who is None:
            raise unauthenticated("the bearer token is not valid")
        return who


def unauthenticated(message: str) -> ServiceError:
    return ServiceError(grpc.StatusCode.UNAUTHENTICATED, "UNAUTHENTICATED", message)


def denied(message: str) -> ServiceError:
    return ServiceError(grpc.StatusCode.PERMISSION_DENIED, "PERMISSION_DENIED", message)


def require_writer(who: Principal, auditors_too: bool = False) -> None:
    allowed = {Role.ANYONE, Role.WRITER} | ({Role.AUDITOR} if auditors_too else set())
    if who.role not in allowed:
        raise denied(f"a {who.role.value} may not do this")


def require_reader(who: Principal, status: str, players: Sequence[str]) -> None:
    """A game's log: writers and auditors always; its players once it has ended."""
    if who.reads_everything:
        return
    if status == "running":
        raise denied("a running game can be read only by its writer and auditors")
    if who.player_id not in players:
        raise denied("only the game's players and auditors can read it")
