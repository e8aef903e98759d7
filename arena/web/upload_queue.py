"""The upload queue: one thread takes the uploads in order and submits each through the registry's
own path, ``arena submit`` (entrants/submit.py: the build and the qualifying matches run inside the
sandbox), as a child process of its own, and records its status, its reason and its log.

A child process, not a call in this one: the web server's process never runs a build or a bot
itself, a stop ends the child and every bot under it at once (its process group; the sandbox ends
a bot whose parent died, PR_SET_PDEATHSIG), and the upload it was working on waits again for the
next start (``SiteStore.requeue_running``): nothing an author sent is lost by a stop."""

from __future__ import annotations

import logging
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

from arena.entrants.manifest import ManifestError, load_manifest
from arena.entrants.registry import Registry, RegistryError
from arena.temp_folders import sweep
from arena.web.archive import ArchiveError, bot_folder
from arena.web.child import guarded
from arena.web.settings import Settings
from arena.web.site_store import (
    ACTIVE,
    BUILDING,
    QUALIFYING,
    QUEUED,
    REJECTED,
    SiteStore,
    Upload,
)

log = logging.getLogger("arena.web")

UNPACKED = "unpacked"
# A build may take arena submit's BUILD_TIMEOUT_S (600 s), then qualification plays its matches.
SUBMIT_TIMEOUT_S = 1200.0
STOP_GRACE_S = 2.0       # after SIGTERM, before SIGKILL: the stop must end within 10 s in all
MAX_LOG = 64 << 10       # the end of a long build's output is the part that says what went wrong
POLL_S = 0.2


def upload_dir(settings: Settings, upload: int) -> Path:
    return settings.uploads_dir / str(upload)


class UploadQueue:
    def __init__(self, settings: Settings, store: SiteStore):
        self.settings, self.store = settings, store
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._child: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        requeued = self.store.requeue_running()
        if requeued:
            log.info("%d upload(s) a stop interrupted wait in the queue again", requeued)
        # An upload being received when a server was killed with kill -9 (never acknowledged, so
        # its author sends it again): its folder goes (handling.py names it for temp_folders).
        for left in sweep(self.settings.uploads_dir):
            log.info("removed %s, an upload a killed server was receiving", left.name)
        self._thread = threading.Thread(target=self._run, name="upload-queue", daemon=True)
        self._thread.start()

    def wake(self) -> None:
        """A new upload is queued."""
        self._wake.set()

    def stop(self, timeout: float = STOP_GRACE_S + 3) -> None:
        """End the submission under way (it waits again for the next start) and the thread."""
        self._stopping.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def _run(self) -> None:
        while not self._stopping.is_set():
            try:
                upload = self.store.next_queued()
                if upload is None:
                    self._wake.wait(1.0)
                    self._wake.clear()
                    continue
                self._submit(upload)
            except Exception:  # noqa: BLE001 - the queue must outlive any one upload's trouble
                log.exception("the upload queue failed on an upload; it goes on with the next")
                time.sleep(1.0)

    def _submit(self, upload: Upload) -> None:
        here = upload_dir(self.settings, upload.id)
        try:
            folder = bot_folder(here / UNPACKED)
            manifest = load_manifest(folder)
        except (ArchiveError, ManifestError, OSError) as err:
            self.store.set_status(upload.id, REJECTED, public_text(str(err), self.settings))
            return
        # arena submit builds, then qualifies, in one call; a bot without a build step starts
        # qualifying at once.
        self.store.set_status(upload.id, BUILDING if manifest.build else QUALIFYING)
        command = [sys.executable, "-m", "arena", "submit",
                   str(folder.relative_to(self.settings.folder)), "--name", upload.bot,
                   "--data", str(self.settings.data_dir.relative_to(self.settings.folder)),
                   "--decision-ms", str(self.settings.decision_ms),
                   "--startup-ms", str(self.settings.startup_ms)]
        if self.settings.isolation:
            command += ["--isolation", self.settings.isolation]
        output_path = here / "submit.log"
        # Plain lines for the log: no colours, no wrapping at a made-up terminal's width.
        env = {**os.environ, "NO_COLOR": "1", "TERM": "dumb", "COLUMNS": "200"}
        with open(output_path, "wb") as output:
            # guarded: a server killed with kill -9 takes the submission with it (web/child.py).
            child = subprocess.Popen(guarded(command), cwd=self.settings.folder,
                                     stdin=subprocess.DEVNULL, stdout=output,
                                     stderr=subprocess.STDOUT, env=env, start_new_session=True)
            self._child = child
            try:
                status = self._wait(child)
            finally:
                self._child = None
        if status is None:  # stopped: the upload waits for the next start, its files kept
            self.store.set_status(upload.id, QUEUED)
            return
        # The registry keeps the bot as it was built; the archive stays for its author. Removed
        # before the status is final, so that whoever sees it final sees the folder gone.
        shutil.rmtree(here / UNPACKED, ignore_errors=True)
        text = output_path.read_bytes()[-MAX_LOG:].decode("utf-8", "replace")
        text = public_text(text, self.settings)
        lines = [line for line in text.splitlines() if line.strip()]
        last = lines[-1].strip() if lines else ""
        if status == 0:
            self.store.set_status(upload.id, ACTIVE, last + self._plays(upload), text)
        elif status == -1:
            self.store.set_status(upload.id, REJECTED, f"the submission took more than "
                                  f"{SUBMIT_TIMEOUT_S:.0f} s", text)
        else:
            self.store.set_status(upload.id, REJECTED, last.removeprefix("error: ") or
                                  f"the submission failed (status {status})", text)

    def _plays(self, upload: Upload) -> str:
        """What to add to an active upload's reason when the league will not play it: its
        manifest does not declare the competition's profile (league_members.current_members
        takes only the bots that do)."""
        try:
            with Registry.open(self.settings.data_dir, create=False) as registry:
                bot = registry.find(upload.bot, upload.version)
        except (RegistryError, sqlite3.Error):
            return ""
        if bot is None or self.settings.profile in bot.profiles:
            return ""
        return (f"; but it does not declare {self.settings.profile} (its profiles: "
                f"{', '.join(bot.profiles)}), so the league does not play it")

    def _wait(self, child: subprocess.Popen[bytes]) -> int | None:
        """The child's exit status; -1 when it took too long (ended), None when the queue was
        stopped meanwhile (ended)."""
        deadline = time.monotonic() + SUBMIT_TIMEOUT_S
        while True:
            try:
                return child.wait(POLL_S)
            except subprocess.TimeoutExpired:
                pass
            if self._stopping.is_set() or time.monotonic() > deadline:
                end_group(child)
                return None if self._stopping.is_set() else -1


def end_group(child: subprocess.Popen[bytes]) -> None:
    """SIGTERM to the child's process group, SIGKILL after ``STOP_GRACE_S``."""
    for sig, grace in ((signal.SIGTERM, STOP_GRACE_S), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(child.pid, sig)
        except ProcessLookupError:
            break
        try:
            child.wait(grace)
            break
        except subprocess.TimeoutExpired:
            continue


def public_text(text: str, settings: Settings) -> str:
    """A message or log as an author may see it: the competition's folder on the server is not
    theirs to know."""
    for path in {str(settings.folder.resolve()), str(settings.folder.absolute())}:
        text = text.replace(path + os.sep, "").replace(path, "DIR")
    return text
