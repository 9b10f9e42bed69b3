"""Who may call the matchmaker, and for whom.

* A **backend** credential (``CARDROOM_MATCHMAKER_BACKEND_TOKENS="tok1,tok2"``, each at least
  16 characters) acts for any player id: a game client's back end.
* A **player** credential is a signed, expiring JWT (HS256 with the shared key
  ``CARDROOM_MATCHMAKER_JWT_KEY``, claims ``sub`` = the player id and ``exp``) that a back end
  mints for its player; it acts, subscribes and reads only for that player.  ``cardroom
  matchmaker token PLAYER`` mints one for local use.  Adding a player needs no restart.
* With neither configured, every call is allowed (and the server warns once at start).

Operator calls (ListTables, GetStatus) need a backend credential.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import jwt

from services.common import auth
from services.common.grpc_errors import ServiceError
from services.common.settings import SettingsError

BACKEND = "backend"
PLAYER = "player"
BACKEND_ENV = "CARDROOM_MATCHMAKER_BACKEND_TOKENS"
JWT_KEY_ENV = "CARDROOM_MATCHMAKER_JWT_KEY"
ALGORITHM = "HS256"
MIN_KEY = 32


@dataclass(frozen=True)
class Access:
    backends: auth.AccessPolicy
    jwt_key: str = ""

    @property
    def open(self) -> bool:
        return self.backends.open and not self.jwt_key

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Access:
        env = os.environ if environ is None else environ
        backends = auth.AccessPolicy.from_env(
            (auth.RoleSource(BACKEND, BACKEND_ENV),), env, "matchmaker"
        )
        key = env.get(JWT_KEY_ENV, "").strip()
        if key and len(key) < MIN_KEY:
            raise SettingsError(f"{JWT_KEY_ENV} must be at least {MIN_KEY} characters")
        return cls(backends, key)

    def who(self, metadata: Sequence[tuple[str, str | bytes]] | None) -> auth.Principal:
        if self.open:
            return auth.Principal(auth.ANYONE)
        token = auth.bearer_token(metadata)
        if not self.backends.open:
            try:
                return self.backends.principal(metadata)
            except ServiceError:
                pass
        if self.jwt_key:
            try:
                claims = jwt.decode(
                    token, self.jwt_key, algorithms=[ALGORITHM],
                    options={"require": ["exp", "sub"]},
                )  # fmt: skip
            except jwt.PyJWTError as exc:
                raise auth.unauthenticated(f"the player token is not valid: {exc}") from None
            subject = claims.get("sub")
            if isinstance(subject, str) and subject:
                return auth.Principal(PLAYER, subject)
        raise auth.unauthenticated("the bearer token is not valid")


def may_act(who: auth.Principal, player_id: str) -> None:
    """PERMISSION_DENIED unless ``who`` may act for ``player_id``."""
    if who.role == PLAYER and who.subject != player_id:
        raise auth.denied(f"a player credential acts only for {who.subject!r}")


def may_act_for_one_of(who: auth.Principal, player_ids: Sequence[str]) -> None:
    """PERMISSION_DENIED unless ``who`` may act for one of ``player_ids`` (a ticket's party:
    each of them may cancel what holds them)."""
    if who.role == PLAYER and who.subject not in player_ids:
        raise auth.denied(f"a player credential acts only for {who.subject!r}")


def operator(who: auth.Principal) -> None:
    if who.role == PLAYER:
        raise auth.denied("this call needs a backend credential")


def mint(player_id: str, key: str, ttl_s: int = 3600) -> str:
    """A player token for ``player_id``, valid ``ttl_s`` seconds."""
    now = int(time.time())
    return jwt.encode({"sub": player_id, "iat": now, "exp": now + ttl_s}, key, ALGORITHM)
