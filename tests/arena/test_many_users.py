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
