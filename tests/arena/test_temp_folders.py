"""The arena's temporary folders: named after their owner, locked while in use, and swept by the
next arena once their owner is gone (``arena/temp_folders.py``). The whole path, a tournament
killed with kill -9 and the next command sweeping its folder, is in test_tournament_robust.py."""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from arena.temp_folders import KINDS, TempFolder, in_use, sweep
from bot_procs import ended_pid

ROOT = Path(__file__).resolve().parents[2]


def test_a_folder_is_named_after_its_owner_locked_while_in_use_and_removed_after(tmp_path,
                                                                                  monkeypatch):
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    with TempFolder("check") as folder:
        assert folder.parent == tmp_path
        assert folder.name.startswith(f"sixtysix-check-{os.getpid()}-")
        (folder / "record.jsonl").write_text("{}\n")
        assert in_use(folder)
    assert not folder.exists()


def test_cleanup_twice_is_harmless_and_lets_go_of_the_lock(tmp_path, monkeypatch):
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    held = TempFolder("preflight")
    held.cleanup()
    held.cleanup()
    assert not held.path.exists()


def test_an_unknown_kind_is_refused():
    with pytest.raises(ValueError, match="unknown kind of temporary folder 'scratch'"):
        TempFolder("scratch")


def test_a_folder_of_a_process_killed_with_kill_9_is_swept(tmp_path):
    script = ("import os, signal\n"
              "from arena.temp_folders import TempFolder\n"
              "held = TempFolder('preflight')\n"
              "(held.path / '0.stderr.log').write_text('a bot wrote this')\n"
              "print(held.path, flush=True)\n"
              "os.kill(os.getpid(), signal.SIGKILL)\n")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          cwd=ROOT, env={**os.environ, "TMPDIR": str(tmp_path)})
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    left = Path(proc.stdout.strip())
    assert left.parent == tmp_path and left.is_dir()
    assert sweep(tmp_path) == [left]
    assert not left.exists()


def test_a_sweep_never_removes_a_folder_in_use_whatever_its_pid_seems(tmp_path):
    """Another PID namespace sharing /tmp, or a PID reused: the lock, not the PID, says in use."""
    folder = tmp_path / f"sixtysix-qualify-{ended_pid()}-abcd1234"
    folder.mkdir()
    hold = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(hold, fcntl.LOCK_SH)
        assert sweep(tmp_path) == []
        assert folder.is_dir()
    finally:
        os.close(hold)
    assert sweep(tmp_path) == [folder]


def test_a_sweep_leaves_what_is_not_a_dead_arenas_temporary_folder(tmp_path):
    gone = ended_pid()
    target = tmp_path / "precious"
    target.mkdir()
    (target / "results.sqlite").write_text("stored")
    keep = [
        tmp_path / f"sixtysix-check-{os.getpid()}-live0000",   # its owner runs (this test)
        tmp_path / f"sixtysix-bot-{gone}-abcd1234",            # a bot's: bot_folders.py sweeps those
        tmp_path / f"sixtysix-somethingelse-{gone}-abcd1234",  # not a kind of ours
        tmp_path / "sixtysix-preflight-he4qbuh3",              # an older version's name: no PID
        tmp_path / "sixtysix-arena-cache-1001",                # the launcher's cache
    ]
    for folder in keep:
        folder.mkdir()
    link = tmp_path / f"sixtysix-serve-{gone}-link0000"
    link.symlink_to(target)                                    # never followed
    plain = tmp_path / f"sixtysix-batch-{gone}-file0000"
    plain.write_text("not a folder")
    assert sweep(tmp_path) == []
    assert all(folder.is_dir() for folder in keep)
    assert link.is_symlink() and (target / "results.sqlite").read_text() == "stored"
    assert plain.is_file()


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a folder to another user needs root")
def test_a_sweep_leaves_another_users_folders(tmp_path):
    folder = tmp_path / f"sixtysix-launcher-{ended_pid()}-abcd1234"
    folder.mkdir()
    os.chown(folder, 1001, 1001)
    assert sweep(tmp_path) == []
    assert folder.is_dir()


def test_every_kind_is_swept(tmp_path):
    gone = ended_pid()
    folders = [tmp_path / f"sixtysix-{kind}-{gone}-abcd1234" for kind in KINDS]
    for folder in folders:
        (folder / "inner").mkdir(parents=True)
    assert sorted(sweep(tmp_path)) == sorted(folders)
    assert list(tmp_path.iterdir()) == []


def test_a_folder_may_live_elsewhere_and_be_moved_into_place(tmp_path):
    """An upload is received in the site's uploads folder, then renamed into place: kept."""
    held = TempFolder("incoming", tmp_path)
    assert held.path.parent == tmp_path
    (held.path / "archive").write_bytes(b"zip")
    held.path.rename(tmp_path / "1")
    held.cleanup()
    assert (tmp_path / "1" / "archive").read_bytes() == b"zip"
    assert [p.name for p in tmp_path.iterdir()] == ["1"]
