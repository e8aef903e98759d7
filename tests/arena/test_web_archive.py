"""Unpacking an uploaded bot (arena/web/archive.py): an author's zip or tar.gz unpacks whole; each
trick of a hostile archive is refused, nothing of it is left, and nothing lands outside the folder."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

import web_archives as archives
from arena.web.archive import ArchiveError, bot_folder, unpack

MiB = 1 << 20


def _unpack(data: bytes, target: Path, files: int = 1000, size: int = 100 * MiB):
    return unpack(io.BytesIO(data), target, files, size)


@pytest.mark.parametrize("data", [archives.zip_folder(), archives.tar_folder(),
                                  archives.zip_folder(top="")], ids=["zip", "tar.gz", "zip-flat"])
def test_an_authors_archive_unpacks_whole(tmp_path, data):
    done = _unpack(data, tmp_path / "out")
    folder = bot_folder(tmp_path / "out")
    assert (folder / "bot.toml").read_bytes() == archives.MANIFEST
    assert (folder / "bot.py").read_bytes() == (archives.EXAMPLE / "bot.py").read_bytes()
    assert done.bytes == sum(p.stat().st_size for p in (tmp_path / "out").rglob("*")
                             if p.is_file())


HOSTILE = {
    "zip-dotdot": (archives.zip_with([("../escaped.txt", b"x")]), "leaves its folder"),
    "zip-dotdot-deep": (archives.zip_with([("a/../../escaped.txt", b"x")]), "leaves its folder"),
    "zip-absolute": (archives.zip_with([("/tmp/escaped.txt", b"x")]), "absolute path"),
    "zip-backslash": (archives.zip_with([("..\\escaped.txt", b"x")]), "bad name"),
    "zip-symlink": (archives.zip_symlink(), "a link"),
    "tar-symlink": (archives.tar_link(tarfile.SYMTYPE), "a link"),
    "tar-hardlink": (archives.tar_link(tarfile.LNKTYPE, target="bot.toml"), "a link"),
    "tar-device": (archives.tar_device(), "device"),
    "tar-dotdot": (archives.tar_with([(tarfile.TarInfo("../escaped.txt"), b"x")]),
                   "leaves its folder"),
    "zip-twice": (archives.zip_with([("a.txt", b"1"), ("./a.txt", b"2")]), "twice"),
    "zip-1001-files": (archives.many_files(1000), "more than 1000 files"),
    "not-an-archive": (b"#!/bin/sh\necho hello\n", "neither a zip nor a tar.gz"),
    "zip-damaged": (archives.zip_folder()[:200], "cannot be read"),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_hostile_archive_is_refused_and_nothing_of_it_stays(tmp_path, name):
    data, said = HOSTILE[name]
    with pytest.raises(ArchiveError, match=said):
        _unpack(data, tmp_path / "out")
    assert not (tmp_path / "out").exists()
    assert not (tmp_path / "escaped.txt").exists() and not Path("/tmp/escaped.txt").exists()
    assert not (tmp_path / "link").exists()


def test_exactly_the_file_limit_is_allowed(tmp_path):
    _unpack(archives.many_files(999), tmp_path / "out")  # and bot.toml: 1,000
    assert len(list((tmp_path / "out").iterdir())) == 1000


def test_the_folders_a_deep_path_makes_count_as_files(tmp_path):
    # Ten members each 200 folders deep would make 2,000 folders from ten "files".
    deep = [("/".join(f"d{i}" for i in range(200)) + f"/f{k}.txt", b"x") for k in range(10)]
    deep = [(f"top{k}/" + name, data) for k, (name, data) in enumerate(deep)]
    with pytest.raises(ArchiveError, match="more than 1000 files"):
        _unpack(archives.zip_with(deep), tmp_path / "out")


# A bomb is refused having written at most the limit: unpacked in a child process whose file size
# limit (RLIMIT_FSIZE) is just above it, so that writing first and counting afterwards would end
# in EFBIG there instead of in the refusal.
_BOMB_CHILD = """
import io, resource, sys
from pathlib import Path
from arena.web.archive import ArchiveError, unpack
resource.setrlimit(resource.RLIMIT_FSIZE, (3 << 20, 3 << 20))
data = sys.stdin.buffer.read()
try:
    unpack(io.BytesIO(data), Path(sys.argv[1]), 1000, 2 << 20)
except ArchiveError as err:
    print("refused:", err)
"""


@pytest.mark.parametrize("kind", ["zip", "tar.gz"])
def test_a_bomb_is_refused_before_more_than_the_limit_is_written(tmp_path, kind):
    bomb = archives.zip_bomb(64) if kind == "zip" else archives.tar_bomb(64)
    assert len(bomb) < 1 * MiB
    env = {**os.environ, "PYTHONPATH": str(archives.ROOT)}
    done = subprocess.run([sys.executable, "-c", _BOMB_CHILD, str(tmp_path / "out")], input=bomb,
                          capture_output=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    assert done.stdout.decode().startswith("refused: the archive unpacks to more than 2 MiB")
    assert not (tmp_path / "out").exists()


def test_a_tar_header_announcing_gigabytes_is_refused_before_it_is_read_into_memory(tmp_path):
    # A pax header is read whole into memory by tarfile: the stream under it is counted too.
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz", format=tarfile.PAX_FORMAT) as tf:
        info = tarfile.TarInfo("bot.toml")
        info.pax_headers = {"comment": "x" * (8 * MiB)}
        info.size = len(archives.MANIFEST)
        tf.addfile(info, io.BytesIO(archives.MANIFEST))
    with pytest.raises(ArchiveError, match="more than 2 MiB"):
        _unpack(out.getvalue(), tmp_path / "out", size=2 * MiB)


def test_an_archive_without_a_manifest_says_where_it_looked(tmp_path):
    _unpack(archives.zip_with([]), tmp_path / "flat")
    bot_folder(tmp_path / "flat")
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        zf.writestr("a/bot.toml", archives.MANIFEST)
        zf.writestr("b/x.txt", b"x")
    _unpack(out.getvalue(), tmp_path / "two")
    with pytest.raises(ArchiveError, match="no bot.toml"):
        bot_folder(tmp_path / "two")
