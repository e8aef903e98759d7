"""The site's HTML pages (issue 32), on the same Starlette application as the JSON API, rendered
with Jinja2 from ``templates/`` in the report's own style (``report.css.j2``, which the report's pages
include too), with no script, font or style from elsewhere: the site works offline.

For everyone: the leaderboard (``/``, kept live by ``static/site.js``, which polls
``/api/leaderboard``), a bot's page (``/bots/NAME``), the match list (``/matches?bot=NAME``) and a
match's replay (``/matches/ID``: report/replay.py's page of the record made public as a publish
makes it, report/public.py). For an author, logged in (sessions.py): their bots and the upload
form (``/account``), an upload's status and build log (``/uploads/N``), its archive as sent
(``/uploads/N/archive``), the stderr of their bots in a match (``/matches/ID/stderr``, and their
own seats' stderr in the replay), and new API tokens. Another author's uploads are 404 (their
numbers tell nothing), a match's stderr 403 to anyone whose bot did not play it.

Every form posts a CSRF token (sessions.py) that is checked before the form is acted on
(``_form``; the upload form's in ``upload``, after the same limits as ``POST /api/bots``). Errors are
pages of our own (``error_page``): one line, never a traceback or a path of the server."""

from __future__ import annotations

import math
import os
import secrets
from typing import Any, Awaitable, Callable, Mapping

import jinja2
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import FormData, UploadFile
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from arena import __version__
from arena.entrants.manifest import ManifestError, check_name
from arena.match.records import RecordError
from arena.web import accounts, sessions
from arena.web.archive import GZIP_MAGIC, ZIP_MAGIC
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
from arena.web.league_view import (
    active_version,
    family,
    find_match,
    read_matches,
    record_path,
    replay_html,
    stderr_logs,
)
from arena.web.site_store import ACTIVE, REJECTED, RECEIVING, Upload
from arena.web.upload_queue import public_text, upload_dir

MAX_FORM = 16 << 10        # a login's or a registration's form
MATCHES_ON_BOT_PAGE = 20
MATCH_LIMITS = (50, 100, 500)
PENDING_REFRESH_S = 3      # an upload's page reloads itself this often until it is done
LIVE_POLL_S = 10           # the leaderboard's (static/site.js)

_ENV = jinja2.Environment(
    loader=jinja2.ChoiceLoader([jinja2.PackageLoader("arena.web", "templates"),
                                jinja2.PackageLoader("arena.report", "templates")]),
    autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)

# Every page: not to be framed by another site (a form clicked through a frame), not sniffed as
# anything but what it says, not kept by a shared cache (a page may show who is logged in).
_HEADERS = {"X-Frame-Options": "DENY", "X-Content-Type-Options": "nosniff",
            "Referrer-Policy": "same-origin", "Cache-Control": "no-store"}
# A small icon of our own: without one every browser asks for /favicon.ico and logs its 404.
_ICON = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" '
         'rx="3" fill="#1f5fa8"/><text x="8" y="12" font-size="9" text-anchor="middle" '
         'fill="#fff" font-family="sans-serif">66</text></svg>')


def routes(site: Site) -> list[BaseRoute]:
    def bind(handler: Callable[[Site, Request], Awaitable[Response]]
             ) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            return await handler(site, request)
        return endpoint

    def form(handler: Callable[[Site, Request, FormData], Awaitable[Response]]
             ) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            return await _form(site, request, handler)
        return endpoint

    return [
        Route("/", bind(home), methods=["GET"]),
        Route("/bots/{name}", bind(bot_page), methods=["GET"]),
        Route("/matches", bind(match_list), methods=["GET"]),
        Route("/matches/{match_id}", bind(replay), methods=["GET"]),
        Route("/matches/{match_id}/stderr", bind(match_stderr), methods=["GET"]),
        Route("/register", bind(register_form), methods=["GET"]),
        Route("/register", form(register), methods=["POST"]),
        Route("/login", bind(login_form), methods=["GET"]),
        Route("/login", form(login), methods=["POST"]),
        Route("/logout", form(logout), methods=["POST"]),
        Route("/account", bind(account_page), methods=["GET"]),
        Route("/account/token", form(new_token), methods=["POST"]),
        Route("/upload", bind(upload), methods=["POST"]),
        Route("/uploads/{upload:int}", bind(upload_page), methods=["GET"]),
        Route("/uploads/{upload:int}/archive", bind(upload_archive), methods=["GET"]),
        Route("/favicon.ico", icon, methods=["GET"]),
        Mount("/static", StaticFiles(packages=[("arena.web", "static")]), name="static"),
        # The statistics pages: the league's newest publish as it is (a folder a static host
        # would serve). Each request resolves the switched link again, and nothing outside it is
        # served (StaticFiles compares real paths); none yet: 404.
        Mount("/stats", _Statistics(directory=site.settings.stats_dir, html=True,
                                    check_dir=False), name="stats"),
    ]


class _Statistics(StaticFiles):
    """The league's publish, or a 404 page while there is none (StaticFiles raises a server
    error for a missing folder, and checks only once: this checks until the first publish)."""

    async def check_config(self) -> None:
        if self.directory is None or not os.path.isdir(self.directory):
            raise HTTPException(404, "No statistics yet: the league publishes them every "
                                     "publish_every seconds (competition.toml)")
        await super().check_config()


# -- rendering -------------------------------------------------------------------------------------

def _render(request: Request, template: str, account: str | None, status: int = 200,
            **context: Any) -> HTMLResponse:
    text = _ENV.get_template(template).render(
        competition=request.app.state.competition, version=__version__, account=account,
        stats=request.app.state.stats_dir.is_dir(),
        csrf=sessions.csrf_token(request) if account or context.pop("form", False) else "",
        **context)
    return HTMLResponse(text, status, headers=_HEADERS)


async def _page(site: Site, request: Request, template: str, status: int = 200,
                **context: Any) -> HTMLResponse:
    account = await run_in_threadpool(sessions.account_of, site.store, request)
    return _render(request, template, account, status, **context)


def error_page(request: Request, status: int, message: str,
               headers: Mapping[str, str] | None = None) -> Response:
    """The HTML page of an error (api.py's handlers answer every request outside ``/api/`` with
    it). No database is read: a page about a failure must not fail the same way."""
    text = _ENV.get_template("site_error.html.j2").render(
        competition=getattr(request.app.state, "competition", "competition"),
        version=__version__, account=None, csrf="", stats=False, status=status, message=message)
    return HTMLResponse(text, status, headers={**_HEADERS, **(headers or {})})


def _see(location: str) -> RedirectResponse:
    return RedirectResponse(location, 303, headers=_HEADERS)


def _login_first(request: Request) -> RedirectResponse:
    return _see(f"/login?next={request.url.path}")


def _safe_next(value: object) -> str:
    """Where to go after a login: a path of this site only (never ``//host`` or ``\\host``,
    which a browser takes for another site)."""
    if isinstance(value, str) and value.startswith("/") and not value.startswith(("//", "/\\")) \
            and "\\" not in value and all(32 < ord(c) < 127 for c in value) and len(value) < 300:
        return value
    return "/account"


async def icon(request: Request) -> Response:
    return Response(_ICON, media_type="image/svg+xml",
                    headers={"Cache-Control": "public, max-age=86400"})


# -- forms -----------------------------------------------------------------------------------------

async def _form(site: Site, request: Request,
                handler: Callable[[Site, Request, FormData], Awaitable[Response]]) -> Response:
    """A page form's POST: its body read within ``MAX_FORM``, its CSRF token checked, then the
    handler."""
    try:
        data = await capped(request, MAX_FORM).form(max_files=0, max_fields=8)
    except TooLarge:
        raise fail(413, f"the form is larger than {MAX_FORM >> 10} KiB") from None
    try:
        sessions.check_csrf(request, data.get(sessions.CSRF_FIELD))
        return await handler(site, request, data)
    finally:
        await data.close()


def _text(data: FormData, key: str) -> str:
    value = data.get(key)
    return value if isinstance(value, str) else ""


# -- accounts --------------------------------------------------------------------------------------

async def register_form(site: Site, request: Request) -> Response:
    return await _page(site, request, "site_register.html.j2", form=True, error="", name="",
                       invitation=site.settings.registration == "invitation")


async def register(site: Site, request: Request, data: FormData) -> Response:
    name, password = _text(data, "name"), _text(data, "password")
    invitation = site.settings.registration == "invitation"

    def again(status: int, error: str) -> HTMLResponse:
        return _render(request, "site_register.html.j2", None, status, form=True, error=error,
                       name=name, invitation=invitation)

    try:
        limit(site.logins, address(request), "accounts or logins from this address")
    except HTTPException as err:
        return again(err.status_code, err.detail)
    if invitation and not secrets.compare_digest(
            _text(data, "invitation").encode("utf-8", "surrogatepass"),
            site.settings.invitation_code.encode()):
        return again(403, "registration is by invitation: give the invitation code")
    if password != _text(data, "repeat"):
        return again(400, "the two passwords differ")
    try:
        await run_in_threadpool(accounts.create_account, site.store, name, password)
    except accounts.AccountError as err:
        return again(409 if "taken" in str(err) else 400, str(err))
    await run_in_threadpool(sessions.start, site.store, request, name)
    return _see("/account")


async def login_form(site: Site, request: Request) -> Response:
    return await _page(site, request, "site_login.html.j2", form=True, error="", name="",
                       next=_safe_next(request.query_params.get("next")))


async def login(site: Site, request: Request, data: FormData) -> Response:
    name, target = _text(data, "name"), _safe_next(data.get("next"))

    def again(status: int, error: str) -> HTMLResponse:
        return _render(request, "site_login.html.j2", None, status, form=True, error=error,
                       name=name, next=target)

    try:
        limit(site.logins, address(request), "accounts or logins from this address")
    except HTTPException as err:
        return again(err.status_code, err.detail)
    if not await run_in_threadpool(accounts.check_login, site.store, name,
                                   _text(data, "password")):
        return again(401, "wrong name or password")
    await run_in_threadpool(sessions.start, site.store, request, name)
    return _see(target)


async def logout(site: Site, request: Request, data: FormData) -> Response:
    await run_in_threadpool(sessions.end, site.store, request)
    return _see("/")


async def new_token(site: Site, request: Request, data: FormData) -> Response:
    account = await run_in_threadpool(sessions.account_of, site.store, request)
    if account is None:
        return _login_first(request)
    token = await run_in_threadpool(accounts.new_token, site.store, account)
    return await _account(site, request, account, token=token)


# -- an author's bots ------------------------------------------------------------------------------

async def account_page(site: Site, request: Request) -> Response:
    account = await run_in_threadpool(sessions.account_of, site.store, request)
    if account is None:
        return _login_first(request)
    return await _account(site, request, account)


async def _account(site: Site, request: Request, account: str, status: int = 200,
                   error: str = "", token: str = "", name: str = "") -> Response:
    def read() -> list[tuple[str, Upload | None]]:
        mine = []
        for bot in site.store.bots_of(account):
            uploads = [u for u in site.store.uploads_of(bot) if u.status != RECEIVING]
            mine.append((bot, uploads[0] if uploads else None))
        return mine

    return _render(request, "site_account.html.j2", account, status, bots=await run_in_threadpool(
        read), error=error, token=token, name=name, upload_mb=site.settings.upload_mb,
        uploads_per_hour=site.settings.uploads_per_hour)


async def upload(site: Site, request: Request) -> Response:
    """The upload form: held to ``POST /api/bots``'s rules (api.py): the login checked before a
    byte of the body is read, the author's upload budget, the body's cap; then the form's CSRF
    token, before the archive is looked at."""
    account = await run_in_threadpool(sessions.account_of, site.store, request)
    if account is None:
        raise fail(403, "log in to upload a bot")
    settings = site.settings
    limit(site.uploads, account, f"uploads (at most {settings.uploads_per_hour} an hour)")
    try:
        data = await capped(request, settings.upload_bytes + FORM_OVERHEAD).form(
            max_files=1, max_fields=3)
    except TooLarge:
        raise fail(413, f"the upload is larger than {settings.upload_mb} MiB") from None
    try:
        sessions.check_csrf(request, data.get(sessions.CSRF_FIELD))
        name, file = _text(data, "name"), data.get("file")
        if not isinstance(file, UploadFile) or not file.filename:
            return await _account(site, request, account, 400, "choose the bot's archive (a zip "
                                  "or tar.gz of its folder)", name=name)
        if file.size is not None and file.size > settings.upload_bytes:
            raise fail(413, f"the upload is larger than {settings.upload_mb} MiB")
        try:
            sent = await run_in_threadpool(accept_upload, site, account, name, file)
        except HTTPException as err:
            return await _account(site, request, account, err.status_code, err.detail,
                                  name=name)
    finally:
        await data.close()
    site.queue.wake()
    return _see(f"/uploads/{sent.id}")


async def _own_upload(site: Site, request: Request) -> tuple[str, Upload] | Response:
    account = await run_in_threadpool(sessions.account_of, site.store, request)
    if account is None:
        return _login_first(request)
    found = await run_in_threadpool(site.store.upload, request.path_params["upload"])
    if found is None or found.owner != account or found.status == RECEIVING:
        raise fail(404, "you have no upload of that number")  # another's: nothing to tell
    return account, found


async def upload_page(site: Site, request: Request) -> Response:
    own = await _own_upload(site, request)
    if isinstance(own, Response):
        return own
    account, found = own
    done = found.status in (ACTIVE, REJECTED)
    return _render(request, "site_upload.html.j2", account, upload=found, done=done,
                   refresh=0 if done else PENDING_REFRESH_S,
                   has_archive=(upload_dir(site.settings, found.id) / "archive").is_file())


async def upload_archive(site: Site, request: Request) -> Response:
    own = await _own_upload(site, request)
    if isinstance(own, Response):
        return own
    _, found = own
    path = upload_dir(site.settings, found.id) / "archive"
    if path.is_symlink() or not path.is_file():
        raise fail(404, "that upload's archive is not kept")
    with open(path, "rb") as fh:
        head = fh.read(4)
    suffix = ".zip" if head.startswith(ZIP_MAGIC) else ".tar.gz" \
        if head.startswith(GZIP_MAGIC) else ""
    return FileResponse(path, media_type="application/octet-stream",
                        filename=f"{found.bot}-{found.version}{suffix}",
                        headers={"X-Content-Type-Options": "nosniff", "Cache-Control": "no-store"})


# -- the league ------------------------------------------------------------------------------------

async def home(site: Site, request: Request) -> Response:
    ladder = kept_ladder(site.settings)
    if ladder is None:
        ladder = await run_in_threadpool(cached_ladder, site.settings)
    context: dict[str, Any] = {"board": ladder.board, "fmt": _fmt, "poll_s": LIVE_POLL_S,
                               "settings": site.settings}
    if not request.session.get("sid"):
        # Nobody logged in: the same page for every visitor until the ladder changes, rendered
        # once with it. Rendered per request, the template was most of the page's time
        # (scripts/bench_web.py).
        page = ladder.pages.get("home")
        if page is None:
            page = ladder.pages.setdefault(
                "home", bytes(_render(request, "site_home.html.j2", None, **context).body))
        return HTMLResponse(page, headers=_HEADERS)
    return await _page(site, request, "site_home.html.j2", **context)


def _fmt(value: float | None, digits: int = 1) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return f"{value:.{digits}f}"


async def bot_page(site: Site, request: Request) -> Response:
    try:
        name = check_name(request.path_params["name"], "bot")
    except ManifestError:
        raise fail(404, "no bot of that name") from None
    account = await run_in_threadpool(sessions.account_of, site.store, request)

    def read() -> dict[str, Any]:
        owner = site.store.owner_of(name)
        uploads = [u for u in site.store.uploads_of(name) if u.status != RECEIVING]
        rows = [r for r in cached_ladder(site.settings).board["rows"] if r["bot"] == name]
        recent = read_matches(site.settings, name, MATCHES_ON_BOT_PAGE)
        if owner is None and not rows and not recent:
            raise fail(404, f"no bot named {name!r} in this competition")
        return {"owner": owner, "uploads": uploads, "rows": rows, "recent": recent,
                "active": active_version(site.settings, name)}

    seen = await run_in_threadpool(read)
    return _render(request, "site_bot.html.j2", account, name=name, mine=seen["owner"] == account
                   and account is not None, family=family, fmt=_fmt, **seen)


async def match_list(site: Site, request: Request) -> Response:
    bot = request.query_params.get("bot") or None
    error = ""
    if bot is not None:
        try:
            check_name(bot, "bot")
        except ManifestError:
            error, bot = f"{bot!r} is not a bot's name", None
    try:
        count = int(request.query_params.get("limit", MATCH_LIMITS[1]))
    except ValueError:
        count = MATCH_LIMITS[1]
    count = min(max(count, 1), MATCH_LIMITS[-1])
    account = await run_in_threadpool(sessions.account_of, site.store, request)

    def read() -> tuple[list[dict[str, Any]], list[str], set[str]]:
        rows = read_matches(site.settings, bot, count)
        names = sorted({r["bot"] for r in cached_ladder(site.settings).board["rows"]})
        mine = set(site.store.bots_of(account)) if account else set()
        return rows, names, mine

    rows, names, mine = await run_in_threadpool(read)
    return _render(request, "site_matches.html.j2", account, 400 if error else 200, rows=rows,
                   bot=bot or "", names=names, mine=mine, family=family, count=count,
                   limits=MATCH_LIMITS, error=error)


async def _match(site: Site, request: Request) -> tuple[str | None, dict[str, Any], frozenset[int]]:
    """The match of the path (404 when there is none, or its partner is still to be played), the
    reader's account and the seats of the match that the reader's bots played."""
    match_id = request.path_params["match_id"]
    account = await run_in_threadpool(sessions.account_of, site.store, request)

    def read() -> tuple[dict[str, Any] | None, frozenset[int]]:
        match = find_match(site.settings, match_id)
        if match is None or account is None:
            return match, frozenset()
        mine = set(site.store.bots_of(account))
        return match, frozenset(s for s, b in enumerate(match["bots"]) if family(b) in mine)

    match, seats = await run_in_threadpool(read)
    if match is None:
        raise fail(404, "no match of that name is shown (yet: a match is shown once its "
                   "duplicate partner is played too)")
    return account, match, seats


async def replay(site: Site, request: Request) -> Response:
    _, match, seats = await _match(site, request)

    def page() -> str:
        try:
            return replay_html(record_path(site.settings, match["record"]), seats, back="/")
        except RecordError:
            raise fail(404, "this match's record cannot be shown") from None

    return HTMLResponse(await run_in_threadpool(page), headers=_HEADERS)


async def match_stderr(site: Site, request: Request) -> Response:
    account, match, seats = await _match(site, request)
    if account is None:
        return _login_first(request)
    if not seats:
        raise fail(403, "a match's stderr is for the authors of the bots that played it")
    logs = await run_in_threadpool(stderr_logs, site.settings, match["match_id"], seats)
    shown = {seat: None if text is None else public_text(text, site.settings)
             for seat, text in logs.items()}
    return _render(request, "site_stderr.html.j2", account, match=match, logs=shown)
