"""The JSON API (issue 32's contract for authors' scripts and CI), a Starlette application.

    POST /api/accounts         {name, password[, invitation]} -> 201 {name, token}
    POST /api/tokens           {name, password} -> 201 {token} (a login: a new token)
    POST /api/bots             Bearer token; multipart name, file -> 202 {name, version, status}
    GET  /api/bots/NAME        {name, owner, status, version, reason, active_version, uploads}
    GET  /api/bots/NAME/log    its owner only: the newest upload's build and qualification output
    GET  /api/leaderboard      the league's ladder
    GET  /api/matches?bot=NAME the league's matches, newest first

Every error is ``{"error": "one line"}`` with its status: never a traceback or a path of the
server (those go to the site's log). Blocking work (argon2, unpacking, SQLite, the ladder) runs in
Starlette's thread pool, never on the event loop."""

from __future__ import annotations

import json
import logging
import math
import secrets
import shutil
import sqlite3
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, AsyncIterator, Awaitable, Callable, MutableMapping

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route

from arena.arena_folders import private_folder, private_subfolder
from arena.entrants.bot_specs import bundled_names
from arena.entrants.manifest import ManifestError, check_name, load_manifest
from arena.entrants.registry import Registry, RegistryError, content_hash
from arena.types import ConfigError
from arena.web import accounts, admin
from arena.web.archive import ArchiveError, bot_folder, unpack
from arena.web.ladder_cache import cached_json
from arena.web.rate_limits import RateLimit
from arena.web.settings import Settings
from arena.web.site_store import QUEUED, RECEIVING, SiteStore, Upload
from arena.web.upload_queue import UNPACKED, UploadQueue, public_text, upload_dir

log = logging.getLogger("arena.web")

MAX_JSON = 16 << 10       # an account's or a login's body
FORM_OVERHEAD = 64 << 10  # multipart's boundaries and the name field, beside the archive
MATCHES_SHOWN = 100
MATCHES_MOST = 1000


class _TooLarge(Exception):
    pass


@dataclass
class Site:
    settings: Settings
    store: SiteStore
    queue: UploadQueue
    uploads: RateLimit
    logins: RateLimit


def create_app(settings: Settings) -> Starlette:
    """The site of the competition in ``settings.folder`` (its settings loaded). The upload queue
    runs while the application does (its lifespan)."""
    private_folder(settings.folder, "competition")
    private_subfolder(settings.uploads_dir)
    store = SiteStore(settings.folder)
    site = Site(settings, store, UploadQueue(settings, store),
                uploads=RateLimit(settings.uploads_per_hour, 3600.0),
                logins=RateLimit(settings.logins_per_minute, 60.0))

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        site.queue.start()
        try:
            yield
        finally:
            await run_in_threadpool(site.queue.stop)

    def bind(handler: Callable[[Site, Request], Awaitable[Response]]
             ) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            return await handler(site, request)
        return endpoint

    routes = [
        Route("/api/accounts", bind(create_account), methods=["POST"]),
        Route("/api/tokens", bind(create_token), methods=["POST"]),
        Route("/api/bots", bind(upload_bot), methods=["POST"]),
        Route("/api/bots/{name}", bind(show_bot), methods=["GET"]),
        Route("/api/bots/{name}/log", bind(show_log), methods=["GET"]),
        Route("/api/leaderboard", bind(leaderboard), methods=["GET"]),
        Route("/api/matches", bind(matches), methods=["GET"]),
        Mount("/api/admin", routes=admin.routes(site)),
    ]
    return Starlette(routes=routes, lifespan=lifespan,
                     exception_handlers={HTTPException: _http_error, Exception: _server_error})


# -- errors --------------------------------------------------------------------------------------

def fail(status: int, message: str, headers: dict[str, str] | None = None) -> HTTPException:
    return HTTPException(status, message, headers)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    return JSONResponse({"error": exc.detail}, exc.status_code, headers=exc.headers)


async def _server_error(request: Request, exc: Exception) -> Response:
    # The details stay on the server's log: a traceback names the server's files and code.
    log.error("%s %s failed", request.method, request.url.path, exc_info=exc)
    return JSONResponse({"error": "the server failed on this request; the organiser's log says "
                                  "why"}, 500)


# -- reading a request within limits ---------------------------------------------------------------

def _capped(request: Request, limit: int) -> Request:
    """The request, its body read at most ``limit`` bytes: a larger one raises ``_TooLarge`` as
    soon as the bytes beyond it arrive, so the rest is never read (nor spooled to disk)."""
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > limit):
        raise _TooLarge  # said before reading a byte
    received = 0
    receive = request.receive

    async def counted() -> MutableMapping[str, Any]:
        nonlocal received
        message = await receive()
        if message["type"] == "http.request":
            received += len(message.get("body", b""))
            if received > limit:
                raise _TooLarge
        return message

    return Request(request.scope, counted)


async def _json_body(request: Request) -> dict[str, Any]:
    try:
        body = await _capped(request, MAX_JSON).body()
    except _TooLarge:
        raise fail(413, f"the request's body is larger than {MAX_JSON >> 10} KiB") from None
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise fail(400, "the body is not JSON") from None
    if not isinstance(data, dict):
        raise fail(400, "the body must be a JSON object")
    return data


def _address(request: Request) -> str:
    return request.client.host if request.client else "unknown"


def _limit(limit: RateLimit, key: str, what: str) -> None:
    wait = limit.allow(key)
    if wait:
        raise fail(429, f"too many {what}; try again in {math.ceil(wait)} s",
                   {"Retry-After": str(math.ceil(wait))})


async def _author(site: Site, request: Request) -> str:
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise fail(401, "this needs an API token: Authorization: Bearer TOKEN (POST /api/accounts "
                   "or /api/tokens gives one)", {"WWW-Authenticate": "Bearer"})
    author = await run_in_threadpool(accounts.account_of_token, site.store, token.strip())
    if author is None:
        raise fail(401, "unknown API token", {"WWW-Authenticate": "Bearer"})
    return author


# -- accounts --------------------------------------------------------------------------------------

async def create_account(site: Site, request: Request) -> Response:
    _limit(site.logins, _address(request), "accounts or logins from this address")
    data = await _json_body(request)
    settings = site.settings
    if settings.registration == "invitation":
        code = data.get("invitation")
        if not isinstance(code, str) or not secrets.compare_digest(
                code.encode(), settings.invitation_code.encode()):
            raise fail(403, "registration is by invitation: give the invitation code "
                       "(\"invitation\")")
    try:
        token = await run_in_threadpool(accounts.create_account, site.store, data.get("name"),
                                        data.get("password"))
    except accounts.AccountError as err:
        raise fail(409 if "taken" in str(err) else 400, str(err)) from None
    return JSONResponse({"name": data["name"], "token": token}, 201)


async def create_token(site: Site, request: Request) -> Response:
    _limit(site.logins, _address(request), "accounts or logins from this address")
    data = await _json_body(request)
    token = await run_in_threadpool(accounts.log_in, site.store, data.get("name"),
                                    data.get("password"))
    if token is None:
        raise fail(401, "wrong name or password")
    return JSONResponse({"token": token}, 201)


# -- uploads ---------------------------------------------------------------------------------------

async def upload_bot(site: Site, request: Request) -> Response:
    author = await _author(site, request)  # before a byte of the body is read
    settings = site.settings
    _limit(site.uploads, author, f"uploads (at most {settings.uploads_per_hour} an hour)")
    try:
        form = await _capped(request, settings.upload_bytes + FORM_OVERHEAD).form(
            max_files=1, max_fields=2)
    except _TooLarge:
        raise fail(413, f"the upload is larger than {settings.upload_mb} MiB") from None
    try:
        name, file = form.get("name"), form.get("file")
        if not isinstance(name, str):
            raise fail(400, "give the bot's name (multipart field \"name\")")
        if not isinstance(file, UploadFile):
            raise fail(400, "give the bot's archive (multipart file field \"file\": a zip or "
                       "tar.gz of its folder)")
        if file.size is not None and file.size > settings.upload_bytes:
            raise fail(413, f"the upload is larger than {settings.upload_mb} MiB")
        upload = await run_in_threadpool(_accept, site, author, name, file)
    finally:
        await form.close()
    site.queue.wake()
    return JSONResponse({"name": upload.bot, "version": upload.version, "status": upload.status,
                         "upload": upload.id}, 202)


def _accept(site: Site, author: str, name: str, file: UploadFile) -> Upload:
    """Check the name is the author's to use, unpack, read the manifest, queue. In a thread."""
    settings, store = site.settings, site.store
    if (frozen := admin.uploads_refused(store)) is not None:
        raise fail(423, frozen)
    try:
        check_name(name, "name")
    except ManifestError as err:
        raise fail(400, str(err)) from None
    if name in bundled_names():
        raise fail(409, f"{name!r} is the name of a bundled bot; choose another name")
    owner = store.owner_of(name)
    if owner is None and _registered_elsewhere(settings, name):
        raise fail(403, f"the bot name {name!r} is taken (registered by the organiser)")
    if owner not in (None, author):
        raise fail(403, f"the bot name {name!r} belongs to another author")
    staging = settings.uploads_dir / f".incoming-{secrets.token_hex(8)}"
    staging.mkdir(mode=0o700)
    try:
        try:
            unpack(file.file, staging / UNPACKED, settings.unpacked_files, settings.unpacked_bytes)
            manifest_folder = bot_folder(staging / UNPACKED)
            load_manifest(manifest_folder)
        except (ArchiveError, ManifestError) as err:
            # The manifest's messages name its folder: here one of the server's.
            message = str(err)
            for path in {str((staging / UNPACKED).resolve()), str(staging / UNPACKED)}:
                message = message.replace(path, "the archive")
            raise fail(400, public_text(message, settings)) from None
        version = content_hash(manifest_folder)
        # The name becomes the author's with an upload that is queued, not with a refused one.
        if not store.claim(name, author):
            raise fail(403, f"the bot name {name!r} belongs to another author")
        file.file.seek(0)
        with open(staging / "archive", "wb") as kept:  # for its author to download, later
            shutil.copyfileobj(file.file, kept)
        upload_id = store.add_upload(name, author, version, RECEIVING)
        staging.rename(upload_dir(settings, upload_id))
        store.set_status(upload_id, QUEUED)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    upload = store.upload(upload_id)
    assert upload is not None
    return upload


def _registered_elsewhere(settings: Settings, name: str) -> bool:
    """A bot of this name in the registry that no author of the site uploaded (the organiser's,
    with arena submit): not an author's to replace."""
    if not (settings.data_dir / "registry" / "registry.sqlite").is_file():
        return False
    try:
        with Registry.open(settings.data_dir, create=False) as registry:
            return registry.find(name) is not None
    except (RegistryError, sqlite3.Error):
        return True  # unreadable: refuse rather than guess


# -- bots ------------------------------------------------------------------------------------------

def _active_version(settings: Settings, name: str) -> str | None:
    if not (settings.data_dir / "registry" / "registry.sqlite").is_file():
        return None
    try:
        with Registry.open(settings.data_dir, create=False) as registry:
            found = registry.find(name)
    except (RegistryError, sqlite3.Error):
        return None
    return found.version if found else None


async def show_bot(site: Site, request: Request) -> Response:
    name = request.path_params["name"]

    def read() -> dict[str, Any]:
        owner = site.store.owner_of(name)
        uploads = site.store.uploads_of(name)
        if owner is None:
            raise fail(404, f"no bot named {name!r} on this site")
        newest = next((u for u in uploads if u.status != RECEIVING), None)
        return {
            "name": name, "owner": owner,
            "status": "disabled" if admin.is_disabled(site.store, name) else
            newest.status if newest else "none",
            "version": newest.version if newest else None,
            "reason": newest.reason if newest else "",
            "active_version": _active_version(site.settings, name),
            "uploads": [{"upload": u.id, "version": u.version, "status": u.status,
                         "created": u.created, "finished": u.finished}
                        for u in uploads if u.status != RECEIVING],
        }

    return JSONResponse(await run_in_threadpool(read))


async def show_log(site: Site, request: Request) -> Response:
    author = await _author(site, request)
    name = request.path_params["name"]
    owner = await run_in_threadpool(site.store.owner_of, name)
    if owner is None:
        raise fail(404, f"no bot named {name!r} on this site")
    if owner != author:
        raise fail(403, "a bot's log is its author's only")
    uploads = [u for u in await run_in_threadpool(site.store.uploads_of, name)
               if u.status != RECEIVING]
    if not uploads:
        raise fail(404, f"{name!r} has no upload yet")
    newest = uploads[0]
    return JSONResponse({"name": name, "upload": newest.id, "version": newest.version,
                         "status": newest.status, "reason": newest.reason, "log": newest.log})


# -- the league ------------------------------------------------------------------------------------

def _number(value: float) -> float | None:
    return None if math.isnan(value) else round(value, 3)


async def leaderboard(site: Site, request: Request) -> Response:
    from arena.compete.league_store import read_ladder

    settings = site.settings

    def read() -> dict[str, Any]:
        try:
            rows, counts = read_ladder(settings.league_dir, settings.data_dir)
        except ConfigError:  # the league has not played yet
            return {"league": settings.name, "matches": 0, "pairs": 0, "waiting": 0, "rows": []}
        return {"league": settings.name, **counts, "rows": [
            {"bot": r.family, "name": r.name, "version": r.version, "active": r.active,
             "rating": _number(r.conservative), "mu": _number(r.mu), "sigma": _number(r.sigma),
             "matches": r.matches, "wins": r.wins, "draws": r.draws, "losses": r.losses,
             "score": _number(r.score), "score_low": _number(r.score_low),
             "score_high": _number(r.score_high), "joined": r.joined} for r in rows]}

    return Response(await run_in_threadpool(cached_json, settings.league_dir, settings.data_dir,
                                             read), media_type="application/json")


async def matches(site: Site, request: Request) -> Response:
    bot = request.query_params.get("bot")
    try:
        count = int(request.query_params.get("limit", MATCHES_SHOWN))
    except ValueError:
        raise fail(400, "limit must be a whole number") from None
    if not 1 <= count <= MATCHES_MOST:
        raise fail(400, f"limit must be 1 to {MATCHES_MOST}")
    if bot is not None:
        try:
            check_name(bot, "bot")
        except ManifestError as err:
            raise fail(400, str(err)) from None
    rows = await run_in_threadpool(_read_matches, site.settings, bot, count)
    return JSONResponse({"bot": bot, "matches": rows})


def _read_matches(settings: Settings, bot: str | None, count: int) -> list[dict[str, Any]]:
    """The league's matches (of ``bot``'s versions), newest first, without those whose duplicate
    partner is still to be played: their deals are not to be known yet (report/public.py)."""
    from arena.report.public import waiting_for_partner
    from arena.results.store import DB_NAME, StoreError, connect_read_only

    path = settings.league_dir / DB_NAME
    if not path.is_file():
        return []
    try:
        db = connect_read_only(path)
    except StoreError:
        return []
    try:
        db.execute("BEGIN")  # one read: the held-back set and the rows agree
        held = waiting_for_partner(db)
        query = ("SELECT match_id, seat0, seat1, winner, reason, points0, points1, finished, "
                 "players FROM matches")
        args: tuple[Any, ...] = ()
        if bot is not None:
            # A bot's versions are NAME@VERSION in the league's store (league_members.store_name).
            query += (" WHERE match_id IN (SELECT match_id FROM seats WHERE bot = ?1 "
                      "OR substr(bot, 1, length(?1) + 1) = ?1 || '@') OR seat0 = ?1 OR seat1 = ?1 "
                      "OR substr(seat0, 1, length(?1) + 1) = ?1 || '@' "
                      "OR substr(seat1, 1, length(?1) + 1) = ?1 || '@'")
            args = (bot,)
        query += " ORDER BY sched_order DESC"
        out: list[dict[str, Any]] = []
        for row in db.execute(query, args):
            match_id, seat0, seat1, winner, reason, points0, points1, finished, players = row
            if match_id in held:
                continue
            seats = [seat0, seat1]
            if players > 2:
                seats = [b for (b,) in db.execute("SELECT bot FROM seats WHERE match_id = ? "
                                                  "ORDER BY seat", (match_id,))]
            out.append({"match_id": match_id, "bots": seats, "winner": winner,
                        "winner_bot": seats[winner] if players == 2 and winner is not None
                        else None,
                        "reason": reason, "points": [points0, points1], "finished": finished})
            if len(out) >= count:
                break
        return out
    finally:
        db.close()
