"""Issue 34, step four: a bot's allow-list keeps each folder's answer (is it an arena folder?) while
the folder is seen unchanged (``arena_folders.holder_of_real``), instead of looking for each layout
name in every parent folder at every start. What must hold whatever is kept: a folder marked after
a bot's first start is seen at its next, and the bot's folder is left out of its root.

Real folders throughout; ``RACY_NS`` is set to 0 where a test needs an answer kept for a folder it
has just made (the rule otherwise keeps nothing changed in the last seconds, which is the case a
test's fresh folder is in).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from arena import arena_folders
from arena.arena_folders import MARKER, private_folder
from arena.isolation.allow_list import allow_list


@pytest.fixture()
def bot(tmp_path: Path) -> Path:
    """A bot's program in tmp/parent/bots/mine/main.py, and nothing marked on the way."""
    folder = tmp_path / "parent" / "bots" / "mine"
    folder.mkdir(parents=True)
    (folder / "main.py").write_text("print('ready')\n")
    return folder


def _argv(bot: Path) -> list[str]:
    return [sys.executable, str(bot / "main.py")]


def _exposed(bot: Path) -> bool:
    return str(bot.resolve()) in allow_list(_argv(bot))


@pytest.mark.parametrize("where", ["bots", "parent"])
def test_a_folder_marked_after_a_bots_first_start_hides_it_at_the_next(bot, monkeypatch, where):
    """Every answer kept (``RACY_NS`` 0): the folder is marked after the first start, by the
    arena's own mark, one or two folders up; the next start leaves the bot's folder out."""
    monkeypatch.setattr(arena_folders, "RACY_NS", 0, raising=False)
    assert _exposed(bot) and _exposed(bot)
    private_folder(bot.parent if where == "bots" else bot.parent.parent, "published")
    assert not _exposed(bot)


@pytest.mark.parametrize("layout", ["results.sqlite", "tournament.lock", "members.sqlite",
                                    "registry.sqlite", "registry/registry.sqlite"])
def test_an_older_layout_made_after_the_first_start_is_seen_at_the_next(bot, monkeypatch, layout):
    """The layouts of folders made before the mark count the same, a registry in its subfolder
    too: there the subfolder is there first (its folder's own mtime does not move when a file is
    made in it)."""
    monkeypatch.setattr(arena_folders, "RACY_NS", 0, raising=False)
    (bot.parent / "registry").mkdir()
    assert _exposed(bot) and _exposed(bot)
    (bot.parent / layout).write_text("")
    assert not _exposed(bot)
    (bot.parent / layout).unlink()
    assert _exposed(bot)  # and unmarked again, seen again


def test_a_folder_marked_within_the_same_timestamp_is_still_seen(bot, monkeypatch):
    """Git's racy-clean rule: a file system may stamp a change with the mtime the folder already
    had (a coarse clock, or seconds). Shown by putting the mtime back and comparing without the
    ctime (which a process cannot set back): a folder changed just before it was looked at is not
    trusted, so the mark made after is found."""
    real_seen = getattr(arena_folders, "_seen", None)
    if real_seen is not None:
        def same_stamps(path: str) -> tuple[int, int, int, int] | None:
            seen = real_seen(path)
            return seen[:3] + (0,) if seen is not None else None
        monkeypatch.setattr(arena_folders, "_seen", same_stamps)
    private_folder(bot.parent, "published")
    os.unlink(bot.parent / MARKER)  # the folder changed just now, unmarked
    assert _exposed(bot)
    stamp = os.stat(bot.parent)
    (bot.parent / MARKER).write_text("")
    os.utime(bot.parent, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    assert os.stat(bot.parent).st_mtime_ns == stamp.st_mtime_ns
    assert not _exposed(bot)


def test_a_bots_next_start_looks_at_far_fewer_paths(bot, monkeypatch):
    """The cut: ~115 ``lstat``s a start for a bundled Python bot, most of them the layout names
    in each parent folder, at 0.4-0.9 ms of the referee's CPU. Once kept, a start looks at each
    parent folder once."""
    monkeypatch.setattr(arena_folders, "RACY_NS", 0, raising=False)
    looked: list[str] = []
    for name in ("lstat", "stat"):
        real = getattr(os, name)
        monkeypatch.setattr(os, name, lambda p, *a, _real=real, **k:
                            looked.append(str(p)) or _real(p, *a, **k))
    allow_list(_argv(bot))
    first = len(looked)
    looked.clear()
    allow_list(_argv(bot))
    assert len(looked) < first / 2, (len(looked), first)
