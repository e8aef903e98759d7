"""The organiser's actions (issue 32, organisers): an admin account made from the command line
(``arena serve DIR --add-admin NAME``), and what it may do, as plain functions (the pages call
them too) and as JSON endpoints under ``/api/admin`` authorised by the admin's Bearer token:

    POST   /api/admin/freeze                     {reason?} -> uploads refused (423) until unfrozen
    POST   /api/admin/unfreeze
    POST   /api/admin/bots/NAME/disable          the bot leaves the ladder; its status: disabled
    POST   /api/admin/bots/NAME/enable           it comes back as it was before
    DELETE /api/admin/bots/NAME/versions/VERSION a registered version removed (the registry's own
                                                 remove); the league plays the newest one left
    POST   /api/admin/ratings/reset              the ladder's ratings start again from the league's
                                                 next pair on (league_members.request_rating_reset)
    GET    /api/admin/queue                      the uploads waiting or being built, and the last
    GET    /api/admin/league                     the league's progress: matches, its workers and
                                                 the pairs playing on them now

Anyone else gets 401 (no token) or 403 (not an admin) on each, before anything is read or done.

The league is another process that owns its store; the site changes it only the way ``arena
league add|remove`` does, through the league's ``members.sqlite``, which the league reads between
pairs. The site's own state (admins, the freeze, the disabled bots) lives in ``site.sqlite``, in
tables this module makes."""

from __future__ import annotations

import json
import logging
import os
import sqlite3
from typing import Any, Awaitable, Callable, Protocol

from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from arena.arena_folders import private_folder
from arena.types import ConfigError
from arena.web import accounts
from arena.web.settings import Settings
from arena.web.site_store import ACTIVE, QUEUED, REJECTED, RUNNING, SiteStore, utc_now

log = logging.getLogger("arena.web")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS admins (
    name TEXT PRIMARY KEY REFERENCES accounts(name),  -- made with arena serve DIR --add-admin
    created TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS frozen (
    id INTEGER PRIMARY KEY CHECK (id = 1),  -- a row while submissions are frozen
    reason TEXT NOT NULL,
    since TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS disabled_bots (
    name TEXT PRIMARY KEY,
    -- the league's membership row before it was disabled (members.sqlite), put back on enable;
    -- NULL: there was none (the bot played by default: registered, or a house bot)
    previous_text TEXT,
    previous_state TEXT,
    since TEXT NOT NULL
);
"""
MAX_REASON = 200
QUEUE_SHOWN = 50
PLAYING_SHOWN = 100  # more pairs than that are never in flight: one a worker, and a few waiting
MAX_BODY = 4096  # a reason's JSON


class AdminError(ValueError):
    """An action that cannot be done; ``status`` is its HTTP status, the message one line."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


def _broken(what: str, err: Exception) -> AdminError:
    """A 500 whose details (they name the server's files) go to the site's log only."""
    log.error("%s: %s", what, err)
    return AdminError(500, f"{what}; the site's log says why")


class SiteParts(Protocol):
    """What the actions need of the site (api.Site): its settings and its store."""

    settings: Settings
    store: SiteStore


def _tables(store: SiteStore) -> None:
    with store.connect() as db:
        db.executescript(_SCHEMA)


# -- the admin account -------------------------------------------------------------------------------

def add_admin(store: SiteStore, name: object, password: object) -> None:
    """A new account that is an admin. ``AccountError`` for a bad or taken name, a bad password."""
    _tables(store)
    accounts.create_account(store, name, password)  # its token is not shown: log in for one
    with store.connect() as db:
        db.execute("INSERT OR IGNORE INTO admins VALUES (?, ?)", (name, utc_now()))


def is_admin(store: SiteStore, name: str) -> bool:
    _tables(store)
    with store.connect() as db:
        return db.execute("SELECT 1 FROM admins WHERE name = ?", (name,)).fetchone() is not None


# -- freezing submissions -----------------------------------------------------------------------------

def freeze(store: SiteStore, reason: str = "") -> None:
    _tables(store)
    reason = " ".join(reason.split())[:MAX_REASON]
    with store.connect() as db:
        db.execute("INSERT OR REPLACE INTO frozen VALUES (1, ?, ?)", (reason, utc_now()))


def unfreeze(store: SiteStore) -> None:
    _tables(store)
    with store.connect() as db:
        db.execute("DELETE FROM frozen")


def uploads_refused(store: SiteStore) -> str | None:
    """Why an upload is refused now (submissions are frozen), or None: the upload's path asks
    before it takes one in (a 423)."""
    _tables(store)
    with store.connect() as db:
        row = db.execute("SELECT reason, since FROM frozen").fetchone()
    if row is None:
        return None
    return (f"submissions are frozen by the organiser since {row[1]}" +
            (f": {row[0]}" if row[0] else "") + "; try again when they reopen")


# -- disabling a bot ---------------------------------------------------------------------------------

def _known(settings: Settings, store: SiteStore, name: str) -> None:
    from arena.entrants.bot_specs import bundled_names

    if store.owner_of(name) is None and name not in settings.house_bots \
            and name not in bundled_names() and _registered(settings, name) is None:
        raise AdminError(404, f"no bot named {name!r} in this competition")


def _registered(settings: Settings, name: str) -> list[str] | None:
    """The registered versions of ``name`` (newest first), None when it has none."""
    from arena.entrants.registry import Registry, RegistryError

    if not (settings.data_dir / "registry" / "registry.sqlite").is_file():
        return None
    try:
        with Registry.open(settings.data_dir, create=False) as registry:
            versions = [b.version for b in registry.versions(name)]
    except (RegistryError, sqlite3.Error) as err:
        raise _broken("the registry cannot be read", err) from None
    return versions or None


def is_disabled(store: SiteStore, name: str) -> bool:
    _tables(store)
    with store.connect() as db:
        return db.execute("SELECT 1 FROM disabled_bots WHERE name = ?", (name,)).fetchone() \
            is not None


def disable_bot(settings: Settings, store: SiteStore, name: str) -> None:
    """Take every version of ``name`` out of the league's ladder (as ``arena league remove``: the
    running league lets it go before its next pair; its results stay) and mark it disabled."""
    from arena.compete.league_members import membership, set_membership

    _known(settings, store, name)
    if is_disabled(store, name):
        return
    try:
        private_folder(settings.league_dir, "league")
        before = membership(settings.league_dir).get(name)
        with store.connect() as db:
            db.execute("INSERT INTO disabled_bots VALUES (?, ?, ?, ?)",
                       (name, *(before or (None, None)), utc_now()))
        set_membership(settings.league_dir, name, before[0] if before else name, "out")
    except (ConfigError, OSError) as err:
        raise _broken("the league's members cannot be changed", err) from None


def enable_bot(settings: Settings, store: SiteStore, name: str) -> None:
    """Undo ``disable_bot``: the league's membership of ``name`` is put back as it was."""
    from arena.compete.league_members import clear_membership, set_membership

    _tables(store)
    with store.connect() as db:
        row = db.execute("SELECT previous_text, previous_state FROM disabled_bots WHERE name = ?",
                         (name,)).fetchone()
    if row is None:
        raise AdminError(409, f"{name!r} is not disabled")
    try:
        if row[0] is None:
            clear_membership(settings.league_dir, name)
        else:
            set_membership(settings.league_dir, name, row[0], row[1])
    except ConfigError as err:
        raise _broken("the league's members cannot be changed", err) from None
    with store.connect() as db:
        db.execute("DELETE FROM disabled_bots WHERE name = ?", (name,))


# -- removing a version --------------------------------------------------------------------------------

def remove_version(settings: Settings, store: SiteStore, name: str, version: str) -> str:
    """Remove one registered version of ``name`` (its first hex digits suffice, as in ``arena
    bots remove``); the league plays the newest version left, or lets the bot go. Its uploads read
    ``rejected``, the reason saying so. Returns the full version removed."""
    from arena.entrants.registry import Registry, RegistryError

    if not version.isalnum() or len(version) < 4:
        raise AdminError(400, "give a version's first 4 hex digits or more")
    versions = _registered(settings, name) or []
    matching = [v for v in versions if v.startswith(version)]
    if not matching:
        raise AdminError(404, f"{name!r} has no registered version {version!r}")
    if len(matching) > 1:
        raise AdminError(400, f"version {version!r} of {name!r} is ambiguous")
    try:
        with Registry.open(settings.data_dir, create=False) as registry:
            registry.remove(name, matching[0])
    except (RegistryError, sqlite3.Error, OSError) as err:
        raise _broken("the registry cannot be changed", err) from None
    for upload in store.uploads_of(name):
        if upload.version == matching[0] and upload.status == ACTIVE:
            store.set_status(upload.id, REJECTED, f"version {matching[0][:8]} was removed by "
                             "the organiser")
    return matching[0]


# -- the league's ratings ------------------------------------------------------------------------------

def reset_ratings(settings: Settings) -> int:
    """Ask the league to start its ratings again from its next pair on (a final); the matches
    before stay in the history. Returns the request's number."""
    from arena.compete.league_members import request_rating_reset

    try:
        private_folder(settings.league_dir, "league")
        return request_rating_reset(settings.league_dir)
    except (ConfigError, OSError) as err:
        raise _broken("the reset cannot be asked of the league", err) from None


# -- seeing the queue and the league -------------------------------------------------------------------

def queue_view(store: SiteStore) -> dict[str, Any]:
    """The uploads waiting or being built (oldest first), and the last ones finished."""
    with store.connect() as db:
        waiting = db.execute("SELECT id, bot, owner, version, status, created FROM uploads WHERE "
                             "status IN (?, ?, ?) ORDER BY id", (QUEUED, *RUNNING)).fetchall()
        done = db.execute("SELECT id, bot, owner, version, status, created, finished, reason "
                          "FROM uploads WHERE status IN (?, ?) ORDER BY id DESC LIMIT ?",
                          (ACTIVE, REJECTED, QUEUE_SHOWN)).fetchall()
    keys = ("upload", "bot", "owner", "version", "status", "created")
    return {"waiting": [dict(zip(keys, row)) for row in waiting],
            "finished": [dict(zip(keys + ("finished", "reason"), row)) for row in done]}


def league_view(settings: Settings) -> dict[str, Any]:
    """The league's progress from its store (read only, while it plays): matches stored, pairs
    started and in flight on its workers (``playing``: each pair's bots, when it started, how
    many of its two matches are stored), the last match's end, its ratings' reset."""
    from arena.results.league_ladder import rating_start, waiting_pairs
    from arena.results.store import DB_NAME, StoreError, connect_read_only

    workers = settings.workers or os.cpu_count() or 1
    out: dict[str, Any] = {"league": settings.name, "workers": workers, "matches": 0, "pairs": 0,
                           "in_flight": 0, "playing": [], "last_match": None,
                           "ratings_from_order": 0}
    path = settings.league_dir / DB_NAME
    if not path.is_file():
        return out
    try:
        db = connect_read_only(path, scan=False)
    except StoreError as err:
        raise _broken("the league's store cannot be read", err) from None
    try:
        db.execute("BEGIN")
        out["matches"], out["last_match"] = db.execute(
            "SELECT COUNT(*), MAX(finished) FROM matches").fetchone()
        out["pairs"], out["in_flight"] = waiting_pairs(db)
        out["playing"] = _playing(db)
        out["ratings_from_order"] = rating_start(db)
    except sqlite3.Error as err:
        raise _broken("the league's store cannot be read", err) from None
    finally:
        db.close()
    return out


def _playing(db: sqlite3.Connection) -> list[dict[str, Any]]:
    """The pairs started whose two matches are not both stored: on the league's workers now, or
    next (newest last). Pair p plays schedule orders 2p and 2p + 1 (league_store.pair_matches)."""
    if db.execute("SELECT 1 FROM sqlite_master WHERE name = 'league_pairs'").fetchone() is None:
        return []
    # Only the newest pairs can be unfinished: a pair is sent out after every older one.
    rows = db.execute(
        "SELECT pair_no, a, b, started, (SELECT COUNT(*) FROM matches WHERE sched_order "
        "IN (2 * pair_no, 2 * pair_no + 1)) AS stored FROM (SELECT * FROM league_pairs "
        "ORDER BY pair_no DESC LIMIT ?) WHERE stored < 2 ORDER BY pair_no",
        (PLAYING_SHOWN,)).fetchall()
    return [{"pair": no, "bots": [a, b], "started": started, "stored": stored}
            for no, a, b, started, stored in rows]


# -- the JSON endpoints --------------------------------------------------------------------------------

def _admin(site: SiteParts, request: Request) -> str:
    """The admin the request's Bearer token belongs to: 401 without a valid token, 403 for an
    account that is not an admin. In a thread."""
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise HTTPException(401, "this needs an admin's API token: Authorization: Bearer TOKEN",
                            {"WWW-Authenticate": "Bearer"})
    account = accounts.account_of_token(site.store, token.strip())
    if account is None:
        raise HTTPException(401, "unknown API token", {"WWW-Authenticate": "Bearer"})
    if not is_admin(site.store, account):
        raise HTTPException(403, "this is for the competition's organisers only")
    return account


def _action(site: SiteParts, work: Callable[[Request], dict[str, Any]]
            ) -> Callable[[Request], Awaitable[Response]]:
    async def endpoint(request: Request) -> Response:
        await run_in_threadpool(_admin, site, request)  # before a byte of the body is read
        body = b""
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_BODY:
                raise HTTPException(413, f"the request's body is larger than {MAX_BODY} bytes")
        request.state.body = body

        def run() -> dict[str, Any]:
            try:
                return work(request)
            except AdminError as err:
                raise HTTPException(err.status, str(err)) from None

        return JSONResponse(await run_in_threadpool(run))
    return endpoint


def _reason(request: Request) -> str:
    body = getattr(request.state, "body", b"")
    if not body.strip():
        return ""
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise AdminError(400, "the body is not JSON") from None
    reason = data.get("reason", "") if isinstance(data, dict) else None
    if not isinstance(reason, str):
        raise AdminError(400, "reason must be a string")
    return reason


def routes(site: SiteParts) -> list[BaseRoute]:
    """The admin's endpoints, for ``Mount("/api/admin", routes=admin.routes(site))``."""
    settings, store = site.settings, site.store

    def do_freeze(request: Request) -> dict[str, Any]:
        freeze(store, _reason(request))
        return {"frozen": True, "message": uploads_refused(store)}

    def do_unfreeze(request: Request) -> dict[str, Any]:
        unfreeze(store)
        return {"frozen": False}

    def do_disable(request: Request) -> dict[str, Any]:
        name = request.path_params["name"]
        disable_bot(settings, store, name)
        return {"name": name, "status": "disabled"}

    def do_enable(request: Request) -> dict[str, Any]:
        name = request.path_params["name"]
        enable_bot(settings, store, name)
        return {"name": name, "disabled": False}

    def do_remove(request: Request) -> dict[str, Any]:
        name = request.path_params["name"]
        removed = remove_version(settings, store, name, request.path_params["version"])
        return {"name": name, "removed": removed}

    def do_reset(request: Request) -> dict[str, Any]:
        return {"request": reset_ratings(settings), "status": "requested: the league starts "
                "its ratings again before its next pair"}

    def show_queue(request: Request) -> dict[str, Any]:
        return {"frozen": uploads_refused(store) is not None, **queue_view(store)}

    def show_league(request: Request) -> dict[str, Any]:
        return league_view(settings)

    return [
        Route("/freeze", _action(site, do_freeze), methods=["POST"]),
        Route("/unfreeze", _action(site, do_unfreeze), methods=["POST"]),
        Route("/bots/{name}/disable", _action(site, do_disable), methods=["POST"]),
        Route("/bots/{name}/enable", _action(site, do_enable), methods=["POST"]),
        Route("/bots/{name}/versions/{version}", _action(site, do_remove), methods=["DELETE"]),
        Route("/ratings/reset", _action(site, do_reset), methods=["POST"]),
        Route("/queue", _action(site, show_queue), methods=["GET"]),
        Route("/league", _action(site, show_league), methods=["GET"]),
    ]
