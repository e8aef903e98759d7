"""What the JSON API (``api``) and the pages (``pages``) both do with a request: the site's parts
(``Site``), an error of one line (``fail``), a body read within a limit (``capped``), the rate
limits, and taking an upload in (``accept_upload``: the name checked, the archive unpacked under
its limits, the manifest read, the upload queued). One place, so that an upload from the form is
held to exactly the rules of one from the API."""

from __future__ import annotations

import math
import shutil
import sqlite3
from dataclasses import dataclass
from typing import Any, MutableMapping

from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException
from starlette.requests import Request

from arena.entrants.bot_specs import bundled_names
from arena.entrants.manifest import ManifestError, check_name, load_manifest
from arena.entrants.registry import Registry, RegistryError, content_hash
from arena.temp_folders import TempFolder
from arena.web.admin import uploads_refused
from arena.web.archive import ArchiveError, bot_folder, unpack
from arena.web.rate_limits import RateLimit
from arena.web.settings import Settings
from arena.web.site_store import QUEUED, RECEIVING, SiteStore, Upload
from arena.web.upload_queue import UNPACKED, UploadQueue, public_text, upload_dir

FORM_OVERHEAD = 64 << 10  # multipart's boundaries and the other fields, beside the archive


@dataclass
class Site:
    settings: Settings
    store: SiteStore
    queue: UploadQueue
    uploads: RateLimit
    logins: RateLimit


class TooLarge(Exception):
    pass


def fail(status: int, message: str, headers: dict[str, str] | None = None) -> HTTPException:
    """An error for the person who sent the request: one line, nothing of the server in it. The
    API answers it as JSON, a page as HTML."""
    return HTTPException(status, message, headers)


def capped(request: Request, limit: int) -> Request:
    """The request, its body read at most ``limit`` bytes: a larger one raises ``TooLarge`` as
    soon as the bytes beyond it arrive, so the rest is never read (nor spooled to disk)."""
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > limit):
        raise TooLarge  # said before reading a byte
    received = 0
    receive = request.receive

    async def counted() -> MutableMapping[str, Any]:
        nonlocal received
        message = await receive()
        if message["type"] == "http.request":
            received += len(message.get("body", b""))
            if received > limit:
                raise TooLarge
        return message

    return Request(request.scope, counted)


def address(request: Request) -> str:
    return request.client.host if request.client else "unknown"


def limit(rate: RateLimit, key: str, what: str) -> None:
    wait = rate.allow(key)
    if wait:
        raise fail(429, f"too many {what}; try again in {math.ceil(wait)} s",
                   {"Retry-After": str(math.ceil(wait))})


def accept_upload(site: Site, author: str, name: str, file: UploadFile) -> Upload:
    """Check the name is the author's to use, unpack, read the manifest, queue. In a thread."""
    settings, store = site.settings, site.store
    if (frozen := uploads_refused(store)) is not None:  # the page's upload and the API's alike
        raise fail(423, frozen)
    try:
        check_name(name, "name")
    except ManifestError as err:
        raise fail(400, str(err)) from None
    if name in bundled_names():
        raise fail(409, f"{name!r} is the name of a bundled bot; choose another name")
    owner = store.owner_of(name)
    if owner is None and registered_elsewhere(settings, name):
        raise fail(403, f"the bot name {name!r} is taken (registered by the organiser)")
    if owner not in (None, author):
        raise fail(403, f"the bot name {name!r} belongs to another author")
    # Named with this process's PID and locked while in use: one that a server killed with kill -9
    # left is removed when the next one starts (temp_folders.py).
    incoming = TempFolder("incoming", settings.uploads_dir)
    staging = incoming.path
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
        with open(staging / "archive", "wb") as kept:  # for its author to download (pages.py)
            shutil.copyfileobj(file.file, kept)
        upload_id = store.add_upload(name, author, version, RECEIVING)
        staging.rename(upload_dir(settings, upload_id))
        store.set_status(upload_id, QUEUED)
    finally:
        incoming.cleanup()  # nothing left to remove once it is in place
    upload = store.upload(upload_id)
    assert upload is not None
    return upload


def registered_elsewhere(settings: Settings, name: str) -> bool:
    """A bot of this name in the registry that no author of the site uploaded (the organiser's,
    with arena submit): not an author's to replace."""
    if not (settings.data_dir / "registry" / "registry.sqlite").is_file():
        return False
    try:
        with Registry.open(settings.data_dir, create=False) as registry:
            return registry.find(name) is not None
    except (RegistryError, sqlite3.Error):
        return True  # unreadable: refuse rather than guess
