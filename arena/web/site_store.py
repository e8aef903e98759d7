"""The site's own tables in ``DIR/site.sqlite``: accounts (argon2 hashes), API tokens and login
sessions (their SHA-256 only: a copy of the file gives no one a working token or session), which
author owns which bot name, and the uploads with their status and log. The registry (the bots
that qualified) and the league's store stay where ``arena submit`` and ``arena league`` keep
them; this file holds only what the site adds to them.

One connection per use (a request's thread, the queue's thread): SQLite's own locking, in WAL
mode so that readers never wait for the queue's writes."""

from __future__ import annotations

import sqlite3
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from arena.arena_folders import private_file, tighten

SITE_DB = "site.sqlite"

# Upload states, in the order an upload passes them (issue 32's API names).
QUEUED, BUILDING, QUALIFYING, ACTIVE, REJECTED = "queued", "building", "qualifying", "active", \
    "rejected"
RUNNING = (BUILDING, QUALIFYING)
RECEIVING = "receiving"  # the site's own: its files are not in place yet (never shown)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS accounts (
    name TEXT PRIMARY KEY,
    password TEXT NOT NULL,          -- argon2id hash (argon2-cffi's encoded form)
    created TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS tokens (
    digest TEXT PRIMARY KEY,         -- SHA-256 of the token, hex; the token itself is not kept
    account TEXT NOT NULL REFERENCES accounts(name),
    created TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS sessions (
    digest TEXT PRIMARY KEY,         -- SHA-256 of a login's session id (in the signed cookie), hex
    account TEXT NOT NULL REFERENCES accounts(name),
    created TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS bots (
    name TEXT PRIMARY KEY,           -- a bot name belongs to the author who uploaded it first
    owner TEXT NOT NULL REFERENCES accounts(name),
    created TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS uploads (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    bot TEXT NOT NULL REFERENCES bots(name),
    owner TEXT NOT NULL REFERENCES accounts(name),
    version TEXT NOT NULL,           -- the registry's version: the content hash of the folder
    status TEXT NOT NULL,            -- queued | building | qualifying | active | rejected
    reason TEXT NOT NULL DEFAULT '', -- one line: why rejected, or what was registered
    log TEXT NOT NULL DEFAULT '',    -- the submission's output (build and qualification)
    created TEXT NOT NULL,
    finished TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS uploads_bot ON uploads (bot, id);
"""


def utc_now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


@dataclass(frozen=True)
class Upload:
    id: int
    bot: str
    owner: str
    version: str
    status: str
    reason: str
    log: str
    created: str
    finished: str


class SiteStore:
    """The site's tables; ``connect()`` gives a connection for one use."""

    def __init__(self, folder: Path):
        self.path = folder / SITE_DB
        private_file(self.path)  # 0600 before SQLite makes it 0644 (arena_folders.py)
        tighten(self.path, ("-wal", "-shm", "-journal"))
        with self.connect() as db:
            db.execute("PRAGMA journal_mode=WAL")
            db.executescript(_SCHEMA)

    @contextmanager
    def connect(self) -> Iterator[sqlite3.Connection]:
        """A connection in autocommit mode; ``with db:`` inside makes a transaction."""
        db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        try:
            db.execute("PRAGMA foreign_keys=ON")
            yield db
        finally:
            db.close()

    # -- accounts and tokens --

    def add_account(self, name: str, password_hash: str) -> bool:
        """False when the name is taken."""
        with self.connect() as db:
            try:
                db.execute("INSERT INTO accounts VALUES (?, ?, ?)", (name, password_hash, utc_now()))
            except sqlite3.IntegrityError:
                return False
        return True

    def password_hash(self, name: str) -> str | None:
        with self.connect() as db:
            row = db.execute("SELECT password FROM accounts WHERE name = ?", (name,)).fetchone()
        return row[0] if row else None

    def set_password_hash(self, name: str, password_hash: str) -> None:
        with self.connect() as db:
            db.execute("UPDATE accounts SET password = ? WHERE name = ?", (password_hash, name))

    def add_token(self, digest: str, account: str) -> None:
        with self.connect() as db:
            db.execute("INSERT INTO tokens VALUES (?, ?, ?)", (digest, account, utc_now()))

    def account_of(self, digest: str) -> str | None:
        with self.connect() as db:
            row = db.execute("SELECT account FROM tokens WHERE digest = ?", (digest,)).fetchone()
        return row[0] if row else None

    # -- login sessions (sessions.py) --

    def add_session(self, digest: str, account: str) -> None:
        with self.connect() as db:
            db.execute("INSERT INTO sessions VALUES (?, ?, ?)", (digest, account, utc_now()))

    def session_account(self, digest: str, since: str) -> str | None:
        """The account of a session begun at ``since`` (UTC, as ``utc_now``) or later."""
        with self.connect() as db:
            row = db.execute("SELECT account FROM sessions WHERE digest = ? AND created >= ?",
                             (digest, since)).fetchone()
        return row[0] if row else None

    def end_session(self, digest: str) -> None:
        with self.connect() as db:
            db.execute("DELETE FROM sessions WHERE digest = ?", (digest,))

    def end_sessions_before(self, since: str) -> None:
        with self.connect() as db:
            db.execute("DELETE FROM sessions WHERE created < ?", (since,))

    # -- bots and uploads --

    def owner_of(self, bot: str) -> str | None:
        with self.connect() as db:
            row = db.execute("SELECT owner FROM bots WHERE name = ?", (bot,)).fetchone()
        return row[0] if row else None

    def claim(self, bot: str, owner: str) -> bool:
        """Make ``owner`` the owner of the name ``bot`` if nobody is; whether ``owner`` owns it
        now (one statement: two authors claiming the same new name at once get one winner)."""
        with self.connect() as db:
            db.execute("INSERT OR IGNORE INTO bots VALUES (?, ?, ?)", (bot, owner, utc_now()))
            row = db.execute("SELECT owner FROM bots WHERE name = ?", (bot,)).fetchone()
        return bool(row and row[0] == owner)

    def add_upload(self, bot: str, owner: str, version: str, status: str = QUEUED) -> int:
        """A new upload's row; ``RECEIVING`` while its files are moved into place, so that the
        queue does not take it before they are there."""
        with self.connect() as db:
            cursor = db.execute("INSERT INTO uploads (bot, owner, version, status, created) "
                                "VALUES (?, ?, ?, ?, ?)", (bot, owner, version, status, utc_now()))
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    def set_status(self, upload: int, status: str, reason: str = "", log: str | None = None) -> None:
        finished = utc_now() if status in (ACTIVE, REJECTED) else ""
        with self.connect() as db:
            if log is None:
                db.execute("UPDATE uploads SET status = ?, reason = ?, finished = ? WHERE id = ?",
                           (status, reason, finished, upload))
            else:
                db.execute("UPDATE uploads SET status = ?, reason = ?, log = ?, finished = ? "
                           "WHERE id = ?", (status, reason, log, finished, upload))

    def requeue_running(self) -> int:
        """Uploads a stopped server left building or qualifying wait again (their turn comes
        first): nothing an author sent is lost by a stop. Returns how many."""
        with self.connect() as db:
            cursor = db.execute("UPDATE uploads SET status = ? WHERE status IN (?, ?)",
                                (QUEUED, *RUNNING))
        return cursor.rowcount

    def next_queued(self) -> Upload | None:
        with self.connect() as db:
            row = db.execute("SELECT * FROM uploads WHERE status = ? ORDER BY id LIMIT 1",
                             (QUEUED,)).fetchone()
        return Upload(*row) if row else None

    def upload(self, upload: int) -> Upload | None:
        with self.connect() as db:
            row = db.execute("SELECT * FROM uploads WHERE id = ?", (upload,)).fetchone()
        return Upload(*row) if row else None

    def bots_of(self, owner: str) -> list[str]:
        """The bot names ``owner`` owns, by name."""
        with self.connect() as db:
            rows = db.execute("SELECT name FROM bots WHERE owner = ? ORDER BY name",
                              (owner,)).fetchall()
        return [name for (name,) in rows]

    def uploads_of(self, bot: str) -> list[Upload]:
        """A bot's uploads, newest first."""
        with self.connect() as db:
            rows = db.execute("SELECT * FROM uploads WHERE bot = ? ORDER BY id DESC",
                              (bot,)).fetchall()
        return [Upload(*r) for r in rows]
