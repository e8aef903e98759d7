"""Logins of the pages: a session cookie and a CSRF token on every form.

The cookie is Starlette's ``SessionMiddleware``: a JSON dict signed with itsdangerous (HMAC and a
timestamp; no hand-written cookie crypto) under a secret kept in the competition's folder
(``DIR/session.key``, 0600, made on the first start: a restart keeps everyone logged in, and a
copy of the site's database alone signs nothing). The cookie is HttpOnly and SameSite=Lax always,
and Secure when ``https = true`` in competition.toml: the organiser says the site is behind HTTPS
(uvicorn would also take ``X-Forwarded-Proto`` from a proxy on the same machine, but a setting
is one thing to check rather than a proxy's headers to trust).

What the cookie holds: ``csrf``, the form token of this browser, and after a login ``sid``, a
random session id whose SHA-256 the site's database keeps with the account (site_store
``sessions``). A cookie alone proves nothing: the session must also be in the database, so a log
out, or a session older than ``SESSION_DAYS``, ends it on the server and not only in the browser.
A login always starts a new session (a new ``sid`` and a new ``csrf``, the old ones dropped): a
cookie that somebody else planted before the login is worth nothing after it.

CSRF: every page form carries ``csrf`` in a hidden field, compared with the session's by
``secrets.compare_digest``; a POST without it, or with another, is refused (403) before anything
is done. The JSON API is not concerned: it reads no cookie, only its ``Authorization: Bearer``
header, which a browser never sends by itself to another site."""

from __future__ import annotations

import hashlib
import os
import secrets
import time

from starlette.middleware import Middleware
from starlette.middleware.sessions import SessionMiddleware
from starlette.requests import Request

from arena.arena_folders import open_private
from arena.types import ConfigError
from arena.web.handling import fail
from arena.web.settings import Settings
from arena.web.site_store import SiteStore

SECRET_FILE = "session.key"
COOKIE = "arena_session"
SESSION_DAYS = 14
CSRF_FIELD = "csrf"
_SECRET_BYTES = 32


def session_secret(settings: Settings) -> str:
    """The competition's cookie secret, made (private) on the first start. A file that does not
    hold one (emptied, cut short) is made again: it only signs cookies, so a new one logs
    everybody out and loses nothing else."""
    path = settings.folder / SECRET_FILE
    try:
        with open(path, encoding="ascii", errors="replace") as fh:
            secret = fh.read().strip()
        if len(secret) >= 2 * _SECRET_BYTES:
            return secret
    except FileNotFoundError:
        pass
    except OSError as err:
        raise ConfigError(f"cannot read {path}: {err.strerror or err}") from None
    secret = secrets.token_hex(_SECRET_BYTES)
    partial = path.with_name(f".{SECRET_FILE}.partial")
    try:
        fd = open_private(partial, os.O_WRONLY | os.O_TRUNC)
        with os.fdopen(fd, "w", encoding="ascii") as out:
            out.write(secret + "\n")
        os.replace(partial, path)
    except OSError as err:
        raise ConfigError(f"cannot write {path}: {err.strerror or err}") from None
    return secret


def middleware(settings: Settings) -> Middleware:
    return Middleware(SessionMiddleware, secret_key=session_secret(settings),
                      session_cookie=COOKIE, max_age=SESSION_DAYS * 86400, same_site="lax",
                      https_only=settings.https)


def _digest(sid: str) -> str:
    return hashlib.sha256(sid.encode("utf-8", "surrogatepass")).hexdigest()


def _oldest_valid() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - SESSION_DAYS * 86400))


def account_of(store: SiteStore, request: Request) -> str | None:
    """The account logged in with this request's cookie, or None. In a thread (SQLite)."""
    sid = request.session.get("sid")
    if not isinstance(sid, str) or not sid or len(sid) > 200:
        return None
    return store.session_account(_digest(sid), _oldest_valid())


def start(store: SiteStore, request: Request, account: str) -> None:
    """Log ``account`` in: the request's old session (if any) ends, a new one begins with a new
    id and a new form token. In a thread."""
    end(store, request)
    store.end_sessions_before(_oldest_valid())
    sid = secrets.token_urlsafe(32)
    store.add_session(_digest(sid), account)
    request.session.update({"sid": sid, CSRF_FIELD: secrets.token_urlsafe(32)})


def end(store: SiteStore, request: Request) -> None:
    """Log out: the session is forgotten on the server and the cookie emptied. In a thread."""
    sid = request.session.get("sid")
    if isinstance(sid, str) and sid:
        store.end_session(_digest(sid))
    request.session.clear()


def csrf_token(request: Request) -> str:
    """This browser's form token (made now if it has none): the hidden field of every form."""
    token = request.session.get(CSRF_FIELD)
    if not isinstance(token, str) or len(token) < 32:
        token = secrets.token_urlsafe(32)
        request.session[CSRF_FIELD] = token
    return token


def check_csrf(request: Request, sent: object) -> None:
    """Refuse (403) a form whose token is missing or is not this browser's."""
    mine = request.session.get(CSRF_FIELD)
    if not isinstance(sent, str) or not isinstance(mine, str) or not mine or \
            not secrets.compare_digest(sent.encode("utf-8", "surrogatepass"),
                                       mine.encode("utf-8", "surrogatepass")):
        raise fail(403, "this form has expired or did not come from this site: load the page "
                   "again and send it from there")
