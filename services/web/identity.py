"""Who a browser is: a signed cookie holding the browser's own id and its player name.

The cookie is signed (HMAC-SHA256) with a key kept in the data directory (made once, mode
0600) or given by ``CARDROOM_WEB_COOKIE_KEY``; it is no credential for the matchmaker — only
this back end, holding the back-end token, acts for the player it names.  A chosen name
belongs to the browser that first took it: a claim row (name → browser id, a unique key) in
a small SQLite file beside the key, so several web processes on one machine agree, and a
second browser asking for the name is refused.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import hmac
import json
import os
import re
import secrets
import sqlite3
from dataclasses import dataclass
from pathlib import Path

COOKIE = "cardroom_id"
#: A chosen name: what the matchmaker accepts as a player id, without the prefixes the
#: system gives bots and guests.
NAME = re.compile(r"^[A-Za-z0-9\u4e00-\u9fff][A-Za-z0-9_.\-\u4e00-\u9fff]{1,23}$")
RESERVED = ("bot", "guest")


def data_dir() -> Path:
    from services.common.settings import DEFAULT_DATA_DIR

    return Path(os.environ.get("CARDROOM_DATA_DIR", DEFAULT_DATA_DIR))


def cookie_key(directory: Path) -> bytes:
    """``CARDROOM_WEB_COOKIE_KEY``, else the key file in ``directory``, made on first use."""
    given = os.environ.get("CARDROOM_WEB_COOKIE_KEY", "")
    if given:
        return given.encode()
    path = directory / "web.key"
    directory.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(FileExistsError):
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(secrets.token_hex(32))
    return path.read_text().strip().encode()


@dataclass(frozen=True)
class Identity:
    browser: str  # this browser's random id: it owns the names it claimed
    player: str  # the player id it plays as


class Identities:
    """Signing and checking cookies, and the claims on chosen names."""

    def __init__(self, directory: Path) -> None:
        self.key = cookie_key(directory)
        self.db_path = directory / "web-names.sqlite3"
        with self._db() as db:
            db.execute(
                "CREATE TABLE IF NOT EXISTS names (name TEXT PRIMARY KEY, browser TEXT NOT NULL)"
            )

    def _db(self) -> sqlite3.Connection:
        return sqlite3.connect(self.db_path, timeout=5.0, isolation_level=None)

    # ------------------------------------------------------------------ cookies
    def _sign(self, body: str) -> str:
        mac = hmac.new(self.key, body.encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(mac).decode().rstrip("=")

    def dump(self, who: Identity) -> str:
        data = json.dumps({"b": who.browser, "p": who.player}).encode()
        body = base64.urlsafe_b64encode(data).decode().rstrip("=")  # no quoting in a cookie
        return f"{body}.{self._sign(body)}"

    def load(self, cookie: str | None) -> Identity | None:
        """The cookie's identity, or None when it is missing, malformed or not ours."""
        if not cookie or "." not in cookie:
            return None
        body, _, sig = cookie.rpartition(".")
        if not hmac.compare_digest(sig, self._sign(body)):
            return None
        try:
            data = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
            return Identity(str(data["b"]), str(data["p"]))
        except (ValueError, KeyError, TypeError):
            return None

    @staticmethod
    def guest() -> Identity:
        browser = secrets.token_hex(12)
        return Identity(browser, f"guest-{browser[:8]}")

    # ------------------------------------------------------------------ chosen names
    def claim(self, who: Identity, name: str) -> str | None:
        """Play as ``name`` from now on: None when granted (new, or already this browser's),
        else why not, in words."""
        if not NAME.match(name) or name.lower().startswith(RESERVED):
            return "a name is 2–24 letters, digits, Chinese characters, '.', '_' or '-'"
        with self._db() as db:
            with contextlib.suppress(sqlite3.IntegrityError):
                db.execute("INSERT INTO names (name, browser) VALUES (?, ?)", (name, who.browser))
            row = db.execute("SELECT browser FROM names WHERE name = ?", (name,)).fetchone()
        if row is None or row[0] != who.browser:
            return f"the name {name} is taken by another browser"
        return None
