"""The JSON API (issue 32's contract for authors' scripts and CI), a Starlette application.

    POST /api/accounts         {name, password[, invitation]} -> 201 {name, token}
    POST /api/tokens           {name, password} -> 201 {token} (a login: a new token)
    POST /api/bots             Bearer token; multipart name, file -> 202 {name, version, status}
    GET  /api/bots/NAME        {name, owner, status, version, reason, active_version, uploads}
    GET  /api/bots/NAME/log    its owner only: the newest upload's build and qualification output
    GET  /api/leaderboard      the league's ladder
    GET  /api/matches?bot=NAME the league's matches, newest first

Every error is ``{"error": "one line"}`` with its status: never a traceback or a path of the
server (those go to the site's log); outside ``/api/`` it is a page of the site's own (the HTML
pages, pages.py, are served by this application too, with their login cookie: sessions.py; the
API reads no cookie, only its Bearer token). Blocking work (argon2, unpacking, SQLite, the
ladder) runs in Starlette's thread pool, never on the event loop."""

from __future__ import annotations

import json
import logging
import secrets
from contextlib import asynccontextmanager
from typing import Any, AsyncIterator, Awaitable, Callable

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route

from arena.arena_folders import private_folder, private_subfolder
from arena.entrants.manifest import ManifestError, check_name
from arena.web import accounts, admin, pages, sessions
from arena.web.handling import (
    FORM_OVERHEAD,
    Site,
    TooLarge,
    accept_upload,
    address,
    capped,
    fail,
    limit,
)
from arena.web.ladder_cache import cached_ladder, kept_ladder
from arena.web.league_view import active_version, read_matches
from arena.web.rate_limits import RateLimit
from arena.web.settings import Settings
from arena.web.site_store import RECEIVING, SiteStore
from arena.web.upload_queue import UploadQueue

log = logging.getLogger("arena.web")

MAX_JSON = 16 << 10       # an account's or a login's body
MATCHES_SHOWN = 100
MATCHES_MOST = 1000


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
    # The pages (pages.py) after the API; the session cookie is theirs (the API reads no cookie).
    app = Starlette(routes=[*routes, *pages.routes(site)], lifespan=lifespan,
                    middleware=[sessions.middleware(settings)],
                    exception_handlers={HTTPException: _http_error, Exception: _server_error})
    app.state.competition = settings.name
    app.state.stats_dir = settings.stats_dir  # the pages link the statistics once there are some
    return app


# -- errors --------------------------------------------------------------------------------------

# Starlette's own words for a path or method it has no route for, as a page says them.
_PLAIN = {"Not Found": "there is no such page here",
          "Method Not Allowed": "this page is not sent that way"}


def _is_api(request: Request) -> bool:
    return request.url.path.startswith("/api/")


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    if not _is_api(request):  # a person's browser: a page of ours
        return pages.error_page(request, exc.status_code, _PLAIN.get(exc.detail, exc.detail),
                                exc.headers)
    return JSONResponse({"error": exc.detail}, exc.status_code, headers=exc.headers)


async def _server_error(request: Request, exc: Exception) -> Response:
    # The details stay on the server's log: a traceback names the server's files and code.
    log.error("%s %s failed", request.method, request.url.path, exc_info=exc)
    message = "the server failed on this request; the organiser's log says why"
    if not _is_api(request):
        return pages.error_page(request, 500, message)
    return JSONResponse({"error": message}, 500)


# -- reading a request within limits ---------------------------------------------------------------

async def _json_body(request: Request) -> dict[str, Any]:
    try:
        body = await capped(request, MAX_JSON).body()
    except TooLarge:
        raise fail(413, f"the request's body is larger than {MAX_JSON >> 10} KiB") from None
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise fail(400, "the body is not JSON") from None
    if not isinstance(data, dict):
        raise fail(400, "the body must be a JSON object")
    return data


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
    limit(site.logins, address(request), "accounts or logins from this address")
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
    limit(site.logins, address(request), "accounts or logins from this address")
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
    limit(site.uploads, author, f"uploads (at most {settings.uploads_per_hour} an hour)")
    try:
        form = await capped(request, settings.upload_bytes + FORM_OVERHEAD).form(
            max_files=1, max_fields=2)
    except TooLarge:
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
        upload = await run_in_threadpool(accept_upload, site, author, name, file)
    finally:
        await form.close()
    site.queue.wake()
    return JSONResponse({"name": upload.bot, "version": upload.version, "status": upload.status,
                         "upload": upload.id}, 202)


# -- bots ------------------------------------------------------------------------------------------

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
            "active_version": active_version(site.settings, name),
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

async def leaderboard(site: Site, request: Request) -> Response:
    board = kept_ladder(site.settings)
    if board is None:
        board = await run_in_threadpool(cached_ladder, site.settings)
    return Response(board.body, media_type="application/json")


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
    rows = await run_in_threadpool(read_matches, site.settings, bot, count)
    return JSONResponse({"bot": bot, "matches": rows})
