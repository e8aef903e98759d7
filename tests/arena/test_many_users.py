"""Many users, one machine (issue 14): what root's arena leaves in the shared temporary folder never
stops another user's arena.

Each test runs the arena's own code as a real other user (``nobody``, with ``setpriv``) after root
has used it; they need root to do that and skip, saying so, otherwise.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Iterator

import pytest

from arena.entrants.bot_specs import resolve_bot
from arena.isolation.bot_folders import UID_LOCKS, UidLease
from arena.isolation.probe import support
from other_users import needs_others_to_read

NOBODY = 65534
SYSTEM_PYTHON = "/usr/bin/python3"
CHECKOUT = Path(__file__).resolve().parents[2]


@pytest.fixture
def shared_tmp() -> Iterator[Path]:
    """A temporary folder shared by every user, as /tmp is (mode 1777), for the other user's
    TMPDIR; under the system's temporary folder, which every user may enter."""
    if os.geteuid() != 0:
        pytest.skip("needs root: root makes the files, another user then runs the arena")
    if shutil.which("setpriv") is None:
        pytest.skip("needs setpriv (util-linux) to run as another user")
    path = Path(tempfile.mkdtemp(prefix="test-shared-tmp-", dir="/tmp"))
    path.chmod(0o1777)
    yield path
    shutil.rmtree(path)


def as_nobody(script: str, tmp: Path) -> subprocess.CompletedProcess[str]:
    """Run ``script`` with the arena's Python as ``nobody``, with ``tmp`` as its TMPDIR and its
    launcher cache."""
    return subprocess.run(
        ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups",
         sys.executable, "-c", script], capture_output=True, text=True, cwd="/", timeout=120,
        # A normal user cannot have the isolated level (it fails closed): ask for namespaces.
        env={**os.environ, "ARENA_ISOLATION": "namespaces", "TMPDIR": str(tmp),
             "XDG_CACHE_HOME": str(tmp / "nobody-cache"), "HOME": str(tmp)})


@needs_others_to_read
def test_a_user_builds_bundled_bots_on_a_worker_after_root_did(shared_tmp):
    # What root's cluster worker left before: a lock file of a fixed name, root's, mode 0644.
    # Opening it for writing as another user was "Permission denied".
    lock = shared_tmp / "sixtysix-arena-bot-build.lock"
    lock.write_text("")
    lock.chmod(0o644)
    resolve_bot("c-counter")  # built, by root
    proc = as_nobody("from arena.compete.cluster import _bundled_here\n"
                     "print(_bundled_here('c-counter', 'c-counter').argv[0])", shared_tmp)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().endswith("/build/sixtysix-c")


@needs_others_to_read
def test_a_user_plays_a_match_after_root_leased_sandbox_user_ids(shared_tmp):
    """Root's lease folder (``UID_LOCKS``, 0700) is never touched by another user's arena: that
    user's bots run as that user (or with limits only), never with a leased id."""
    if support().mode == "isolated":
        lease = UidLease()  # the lease folder exists, root's, and one id is held
        assert UID_LOCKS.stat().st_uid == 0
    else:
        lease = None
    try:
        proc = as_nobody(
            "from arena.entrants.bot_specs import resolve_bot\n"
            "from arena.match.referee import MatchConfig, run_match\n"
            "from arena.game import profile\n"
            "from arena.isolation.probe import describe\n"
            "r = run_match([resolve_bot('c-counter'), resolve_bot('c-counter')],\n"
            "              MatchConfig(rules=profile('sixty_six'), seed=4, match_id='u'))\n"
            "print(r.reason, r.fault, r.detail)\n"
            "print(describe())\n", shared_tmp)
    finally:
        if lease is not None:
            lease.release()
    assert proc.returncode == 0, proc.stderr
    result, described = proc.stdout.splitlines()[:2]
    assert result.startswith("target None"), result
    assert "as your user" in described  # not isolated: no leased user id wanted


@needs_others_to_read
@pytest.mark.skipif(not os.path.exists(SYSTEM_PYTHON), reason=f"needs {SYSTEM_PYTHON}")
def test_a_user_whose_home_is_not_theirs_caches_the_launcher_in_the_temporary_folder(shared_tmp):
    """A user who cannot write in their home (here ``nobody``, whose home is one of root's) had
    every arena command say twice that the launcher could not be cached, and each worker built
    it again. The cache is then their own folder in the temporary folder: the first process
    caches it, and a process it starts reads it back, without a word."""
    home = shared_tmp / "roots-home"
    home.mkdir()
    home.chmod(0o755)  # root's: nobody may enter it, not write in it
    env = {key: value for key, value in os.environ.items() if key != "XDG_CACHE_HOME"}
    env.update({"HOME": str(home), "TMPDIR": str(shared_tmp), "ARENA_ISOLATION": "namespaces",
                "PYTHONPATH": str(CHECKOUT)})
    # The system's Python: the arena's may be a link into root's home, which nobody may not enter.
    script = ("import logging, os, subprocess, sys\n"
              "logging.basicConfig(level=logging.WARNING)\n"
              "from arena.isolation import launcher\n"
              "launcher.launcher()\n"
              "print(launcher.cache_folder(), flush=True)\n"
              "child = 'from arena.isolation import launcher; launcher.launcher()'\n"
              "sys.exit(subprocess.run([sys.executable, '-c', child]).returncode)\n")
    proc = subprocess.run(["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups",
                           SYSTEM_PYTHON, "-c", script], capture_output=True, text=True,
                          cwd="/", timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr
    cache = Path(proc.stdout.strip())
    assert cache == shared_tmp / f"sixtysix-arena-cache-{NOBODY}"
    assert cache.stat().st_uid == NOBODY and any(cache.glob("sandbox-launch-*"))
    assert "launcher" not in proc.stderr, proc.stderr  # neither "cannot cache" nor "building again"
