"""Bearer tokens for every cardroom service: who is calling, and in which role.

A caller sends ``authorization: Bearer <token>`` in the call metadata.  Each service declares
its roles as data — a :class:`RoleSource` per role: the environment variable listing its
tokens and what each token names, if anything (``alice:tok``, a player id) — and gets an
:class:`AccessPolicy` that maps a token to a :class:`Principal` (role and subject).  What a
role may do is the service's business (``services/replay/access.py``, the engine's
``services/engine/server.py``); a new service or role (the matchmaker's backend and player)
is a new list of sources, not new code here.

With no token configured at all a policy is *open*: every call is allowed, as the role
:data:`ANYONE`, and the service logs a warning at start.  Tokens are at least
:data:`MIN_TOKEN` characters and are looked up by their SHA-256, so the table holds no secret
and a lookup's timing says nothing about how much of a guessed token was right.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import os
from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import grpc

from services.common.reasons import ServiceReason

from .grpc_errors import ServiceError, to_status
from .settings import SettingsError

MIN_TOKEN = 16  # characters: shorter tokens are guessable
#: The role of every caller when no token is configured.
ANYONE = "anyone"


@dataclass(frozen=True)
class Principal:
    """Who is calling: a role, and for roles whose tokens name someone, whom (a player id)."""

    role: str
    subject: str = ""

    @property
    def player_id(self) -> str:
        return self.subject


@dataclass(frozen=True)
class RoleSource:
    """Where a role's tokens are configured: ``env`` holds a comma-separated list of tokens,
    or, when ``subject`` names what each token stands for (``"player_id"``), of
    ``<subject>:token`` pairs."""

    role: str
    env: str
    subject: str = ""


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


def bearer_token(metadata: Sequence[tuple[str, str | bytes]] | None) -> str:
    """The token of the call's ``authorization: Bearer <token>`` header; UNAUTHENTICATED
    without one."""
    header = ""
    for key, value in metadata or ():
        if key == "authorization":
            header = value.decode(errors="replace") if isinstance(value, bytes) else value
            break
    scheme, _sep, token = header.strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise unauthenticated("a bearer token is required (authorization: Bearer …)")
    return token.strip()


def unauthenticated(message: str) -> ServiceError:
    return ServiceError(grpc.StatusCode.UNAUTHENTICATED, ServiceReason.UNAUTHENTICATED, message)


def denied(message: str) -> ServiceError:
    return ServiceError(grpc.StatusCode.PERMISSION_DENIED, ServiceReason.PERMISSION_DENIED, message)


@dataclass(frozen=True)
class AccessPolicy:
    """Tokens (by digest) to principals; open (everything allowed) when empty."""

    tokens: Mapping[bytes, Principal] = field(default_factory=dict)

    @property
    def open(self) -> bool:
        return not self.tokens

    @classmethod
    def from_entries(
        cls, entries: Iterable[tuple[str, Principal]], service: str = "cardroom"
    ) -> AccessPolicy:
        """A policy from (token, principal) pairs; SettingsError for a short or repeated
        token."""
        table: dict[bytes, Principal] = {}
        for token, who in entries:
            if len(token) < MIN_TOKEN:
                raise SettingsError(f"{service} tokens must be at least {MIN_TOKEN} characters")
            if _digest(token) in table:
                raise SettingsError(f"a {service} token is configured twice")
            table[_digest(token)] = who
        return cls(table)

    @classmethod
    def from_env(
        cls,
        sources: Sequence[RoleSource],
        environ: Mapping[str, str] | None = None,
        service: str = "cardroom",
    ) -> AccessPolicy:
        """A policy from the environment variables ``sources`` name."""
        env = os.environ if environ is None else environ
        entries: list[tuple[str, Principal]] = []
        for source in sources:
            for item in (x.strip() for x in env.get(source.env, "").split(",")):
                if not item:
                    continue
                if not source.subject:
                    entries.append((item, Principal(source.role)))
                    continue
                subject, sep, token = item.rpartition(":")
                if not sep or not subject or not token:
                    raise SettingsError(
                        f"{source.env} holds {source.subject}:token pairs, not {item!r}"
                    )
                entries.append((token, Principal(source.role, subject)))
        return cls.from_entries(entries, service)

    # ------------------------------------------------------------------ checks
    def principal(self, metadata: Sequence[tuple[str, str | bytes]] | None) -> Principal:
        """Who is calling, from the call's metadata; UNAUTHENTICATED without a valid token."""
        if self.open:
            return Principal(ANYONE)
        who = self.tokens.get(_digest(bearer_token(metadata)))
        if who is None:
            raise unauthenticated("the bearer token is not valid")
        return who


def require(who: Principal, roles: Iterable[str]) -> None:
    """PERMISSION_DENIED unless ``who`` has one of ``roles`` (or the policy is open)."""
    if who.role != ANYONE and who.role not in set(roles):
        raise denied(f"a {who.role} may not do this")


# --------------------------------------------------------------------------- servicers
class Guarded:
    """A servicer whose every RPC handler first checks the caller's token (and role, when
    ``roles`` is given) and ends the call with UNAUTHENTICATED / PERMISSION_DENIED before the
    handler runs.  Register it in place of the servicer::

        add_EngineServiceServicer_to_server(Guarded(servicer, policy), server)
    """

    def __init__(
        self, servicer: Any, policy: AccessPolicy, roles: Iterable[str] | None = None
    ) -> None:
        self._servicer = servicer
        self._policy = policy
        self._roles = None if roles is None else frozenset(roles)

    async def _check(self, context: grpc.aio.ServicerContext[Any, Any]) -> None:
        try:
            who = self._policy.principal(context.invocation_metadata())
            if self._roles is not None:
                require(who, self._roles)
        except ServiceError as err:
            await context.abort_with_status(to_status(err))

    def __getattr__(self, name: str) -> Any:
        inner = getattr(self._servicer, name)
        if name.startswith("_") or not callable(inner):
            return inner
        if inspect.isasyncgenfunction(inner):

            @functools.wraps(inner)
            async def stream(request: Any, context: Any) -> AsyncIterator[Any]:
                await self._check(context)
                async for item in inner(request, context):
                    yield item

            return stream

        @functools.wraps(inner)
        async def unary(request: Any, context: Any) -> Any:
            await self._check(context)
            result = inner(request, context)
            return await result if inspect.isawaitable(result) else result

        return unary
