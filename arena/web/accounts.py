"""Authors' accounts: names checked, passwords hashed with argon2id (argon2-cffi: no hand-written
password code), and API tokens: random, shown once, kept as their SHA-256 only.

A token is 32 random bytes, so a fast hash is enough to keep it (nothing to guess from the
digest); a password is a person's and may be weak, so it gets argon2's slow, memory-hard hash."""

from __future__ import annotations

import hashlib
import re
import secrets

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from arena.web.site_store import SiteStore

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{1,31}")
MIN_PASSWORD = 8
MAX_PASSWORD = 1024  # argon2 takes any length; a megabyte "password" would only cost us time

_hasher = PasswordHasher()  # argon2-cffi's defaults: argon2id, RFC 9106's low-memory profile
# Verified against when the account does not exist, so that an unknown name costs the same time
# as a wrong password and the answer's delay does not tell which names exist.
_DUMMY = _hasher.hash("not anybody's password")


class AccountError(ValueError):
    """A name or password that cannot be taken; the message is for the person who sent it."""


def check_account_name(name: object) -> str:
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise AccountError("a name is 2 to 32 letters, digits, '-' or '_', starting with a letter "
                           "or digit")
    return name


def check_password(password: object) -> str:
    if not isinstance(password, str) or not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise AccountError(f"a password is {MIN_PASSWORD} to {MAX_PASSWORD} characters")
    return password


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def new_token(store: SiteStore, account: str) -> str:
    """A new API token for ``account``; only its digest is stored."""
    token = secrets.token_urlsafe(32)
    store.add_token(token_digest(token), account)
    return token


def create_account(store: SiteStore, name: object, password: object) -> str:
    """Make an account; returns its first API token. ``AccountError`` for a bad or taken name."""
    checked = check_account_name(name)
    if not store.add_account(checked, _hasher.hash(check_password(password))):
        raise AccountError(f"the name {checked!r} is taken")
    return new_token(store, checked)


def check_login(store: SiteStore, name: object, password: object) -> bool:
    """Whether the name and password match an account (a login of the pages: no token made)."""
    if not isinstance(name, str) or not isinstance(password, str) or len(password) > MAX_PASSWORD:
        return False
    stored = store.password_hash(name)
    try:
        _hasher.verify(stored or _DUMMY, password)
    except (VerificationError, InvalidHashError):
        return False
    if stored is None:
        return False
    if _hasher.check_needs_rehash(stored):  # argon2-cffi's parameters grew since it was made
        store.set_password_hash(name, _hasher.hash(password))
    return True


def log_in(store: SiteStore, name: object, password: object) -> str | None:
    """A new API token when the name and password match an account, else None."""
    if not check_login(store, name, password):
        return None
    assert isinstance(name, str)
    return new_token(store, name)


def account_of_token(store: SiteStore, token: str) -> str | None:
    if not token or len(token) > 200:
        return None
    return store.account_of(token_digest(token))
