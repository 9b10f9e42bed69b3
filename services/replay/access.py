"""Who may read and write what in the replay service (issue 5 item 4), on the shared token
machinery of ``services/common/auth.py``.

Credentials are bearer tokens in the call metadata (``authorization: Bearer <token>``), of three
roles, configured by the environment:

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
from collections.abc import Mapping, Sequence

from services.common import auth
from services.common.auth import Principal, denied, unauthenticated

__all__ = [
    "AUDITOR_ENV",
    "PLAYER_ENV",
    "ROLES",
    "WRITER_ENV",
    "AccessPolicy",
    "Principal",
    "Role",
    "denied",
    "reads_everything",
    "require_reader",
    "require_writer",
    "unauthenticated",
]

WRITER_ENV = "CARDROOM_REPLAY_WRITER_TOKENS"
AUDITOR_ENV = "CARDROOM_REPLAY_AUDITOR_TOKENS"
PLAYER_ENV = "CARDROOM_REPLAY_PLAYER_TOKENS"


class Role(enum.StrEnum):
    ANYONE = auth.ANYONE  # no tokens configured: everything is allowed
    WRITER = "writer"
    AUDITOR = "auditor"
    PLAYER = "player"


#: The replay service's roles and where their tokens are configured.
ROLES = (
    auth.RoleSource(Role.WRITER, WRITER_ENV),
    auth.RoleSource(Role.AUDITOR, AUDITOR_ENV),
    auth.RoleSource(Role.PLAYER, PLAYER_ENV, subject="player_id"),
)


class AccessPolicy(auth.AccessPolicy):
    """The shared policy, built from the replay service's roles."""

    @classmethod
    def from_lists(
        cls,
        writers: Sequence[str] = (),
        auditors: Sequence[str] = (),
        players: Mapping[str, str] | None = None,
    ) -> AccessPolicy:
        """``players`` maps player id to token."""
        entries = [(t, Principal(Role.WRITER)) for t in writers]
        entries += [(t, Principal(Role.AUDITOR)) for t in auditors]
        entries += [(t, Principal(Role.PLAYER, p)) for p, t in (players or {}).items()]
        return cls(auth.AccessPolicy.from_entries(entries, "replay").tokens)

    @classmethod
    def from_env(  # type: ignore[override]  # the replay roles are fixed
        cls, environ: Mapping[str, str] | None = None
    ) -> AccessPolicy:
        return cls(auth.AccessPolicy.from_env(ROLES, environ, "replay").tokens)


def reads_everything(who: Principal) -> bool:
    return who.role != Role.PLAYER


def require_writer(who: Principal, auditors_too: bool = False) -> None:
    auth.require(who, {Role.WRITER} | ({Role.AUDITOR} if auditors_too else set()))


def require_reader(who: Principal, status: str, players: Sequence[str]) -> None:
    """A game's log: writers and auditors always; its players once it has ended."""
    if reads_everything(who):
        return
    if status == "running":
        raise denied("a running game can be read only by its writer and auditors")
    if who.player_id not in players:
        raise denied("only the game's players and auditors can read it")
