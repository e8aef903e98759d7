"""Unpacking an uploaded bot (a zip or a tar.gz) under the competition's limits, refusing what an
adversary could do with an archive: a path outside the folder (absolute, ``..``), a link (symbolic
or hard: either may point at the server's files), a device or pipe, more files than allowed, or more
bytes unpacked than allowed, counted as they are written, so that a zip bomb is refused after at
most the limit was written, never after filling the disk.

Our own loop over the members rather than ``zipfile.extractall`` or ``tarfile``'s ``data`` filter:
those sanitise names and drop links, but neither counts what is written against a budget, and
``extractall`` would write first and let us check afterwards. Every member is read through the
libraries (no hand-written archive parsing); only the decision what to write is ours. Nothing is
ever run from the unpacked folder here: building and playing happen in the sandbox
(``arena submit``)."""

from __future__ import annotations

import gzip
import io
import os
import shutil
import stat
import tarfile
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO, BinaryIO, Iterator

CHUNK = 1 << 16
ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")  # a zip with members; an empty zip
GZIP_MAGIC = b"\x1f\x8b"
# Tar's own headers and padding, read beside the members' bytes: at most this much per member.
_TAR_OVERHEAD = 3 * 512
MAX_NAME = 1024
# The unpacked folder lies in the competition's private folder (0700), so inside it the usual
# modes do: the registry copies them, and the sandbox gives each match its own copy.
FOLDER_MODE, FILE_MODE, EXEC_MODE = 0o755, 0o644, 0o755


class ArchiveError(ValueError):
    """An archive refused; the message says why, naming the member as the archive names it."""


@dataclass(frozen=True)
class Unpacked:
    files: int
    bytes: int


@dataclass(frozen=True)
class _Member:
    name: str
    kind: str           # "file" or "folder"
    executable: bool


def unpack(archive: BinaryIO, target: Path, max_files: int, max_bytes: int) -> Unpacked:
    """Unpack ``archive`` (zip or tar.gz, told by its first bytes, not its name) into the new
    folder ``target``. ``ArchiveError`` when it is neither, is damaged, or breaks a rule; the
    folder is then removed again."""
    head = archive.read(4)
    archive.seek(0)
    target.mkdir(mode=FOLDER_MODE)
    try:
        if head in ZIP_MAGIC:
            return _unpack_zip(archive, target, max_files, max_bytes)
        if head[:2] == GZIP_MAGIC:
            return _unpack_tar(archive, target, max_files, max_bytes)
        raise ArchiveError("the upload is neither a zip nor a tar.gz archive")
    except BaseException:
        shutil.rmtree(target, ignore_errors=True)
        raise


class _Budget:
    def __init__(self, max_files: int, max_bytes: int):
        self.max_files, self.max_bytes = max_files, max_bytes
        self.files = self.bytes = 0
        self.seen: set[str] = set()

    def member(self, name: str) -> None:
        if name in self.seen:
            raise ArchiveError(f"the archive holds {name!r} twice")
        self.seen.add(name)
        self.count()

    def count(self) -> None:
        """One more file or folder on disk: a folder made for a member's path counts too, or
        a thousand deep paths would make a million folders."""
        self.files += 1
        if self.files > self.max_files:
            raise ArchiveError(f"the archive holds more than {self.max_files} files and folders")

    def spend(self, count: int) -> None:
        self.bytes += count
        if self.bytes > self.max_bytes:
            raise ArchiveError(f"the archive unpacks to more than {self.max_bytes >> 20} MiB")


def safe_name(raw: str) -> str:
    """The member's path inside the folder, or ``ArchiveError``: no absolute path, no ``..``,
    no backslash (a Windows separator some tools turn into a folder), no NUL or control
    character, nothing empty."""
    shown = repr(raw[:200])
    if not raw or len(raw) > MAX_NAME or any(ord(c) < 32 for c in raw) or "\\" in raw:
        raise ArchiveError(f"the archive holds a member with a bad name: {shown}")
    if raw.startswith("/") or (len(raw) > 1 and raw[1] == ":"):
        raise ArchiveError(f"the archive holds an absolute path: {shown}")
    parts = [p for p in PurePosixPath(raw).parts if p not in ("", ".")]
    if ".." in parts:
        raise ArchiveError(f"the archive holds a path that leaves its folder ('..'): {shown}")
    if not parts:
        raise ArchiveError(f"the archive holds a member with a bad name: {shown}")
    return "/".join(parts)


def _write(target: Path, member: _Member, source: IO[bytes] | None, budget: _Budget) -> None:
    path = target.joinpath(*member.name.split("/"))
    # Parents are made here, never followed: no member can be a link (refused above), so every
    # folder on the way is one this function made inside ``target``.
    for parent in reversed(path.relative_to(target).parents[:-1]):
        folder = target / parent
        if not folder.is_dir() or folder.is_symlink():
            if folder.exists() or folder.is_symlink():
                raise ArchiveError(f"the archive holds {member.name!r} below a file")
            budget.count()
            folder.mkdir(mode=FOLDER_MODE)
    if member.kind == "folder":
        if path.is_symlink() or (path.exists() and not path.is_dir()):
            raise ArchiveError(f"the archive holds {member.name!r} as a file and a folder")
        path.mkdir(mode=FOLDER_MODE, exist_ok=True)
        return
    assert source is not None
    # O_EXCL and O_NOFOLLOW: never writes through anything already there.
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                     EXEC_MODE if member.executable else FILE_MODE)
    except (FileExistsError, IsADirectoryError):
        raise ArchiveError(f"the archive holds {member.name!r} as a file and a folder") from None
    with os.fdopen(fd, "wb") as out:
        while True:
            block = source.read(CHUNK)
            if not block:
                break
            budget.spend(len(block))  # before writing: the limit is never exceeded on disk
            out.write(block)


def _unpack_zip(archive: BinaryIO, target: Path, max_files: int, max_bytes: int) -> Unpacked:
    budget = _Budget(max_files, max_bytes)
    try:
        with zipfile.ZipFile(archive) as zf:
            for info in zf.infolist():
                member = _zip_member(info)
                budget.member(member.name)
                if member.kind == "folder":
                    _write(target, member, None, budget)
                    continue
                with zf.open(info) as source:
                    _write(target, member, source, budget)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, NotImplementedError, zlib.error,
            RuntimeError) as err:  # RuntimeError: an encrypted member
        raise ArchiveError(f"the zip archive cannot be read: {err}") from None
    return Unpacked(budget.files, budget.bytes)


def _zip_member(info: zipfile.ZipInfo) -> _Member:
    name = safe_name(info.filename)
    mode = info.external_attr >> 16  # the Unix mode, when the zip was made on Unix
    kind = stat.S_IFMT(mode)
    if kind == stat.S_IFLNK:
        raise ArchiveError(f"the archive holds a link: {name!r}")
    if kind not in (0, stat.S_IFREG, stat.S_IFDIR):
        raise ArchiveError(f"the archive holds a device, pipe or socket: {name!r}")
    folder = info.is_dir() or kind == stat.S_IFDIR
    return _Member(name, "folder" if folder else "file", bool(mode & 0o100))


class _Counted(io.RawIOBase):
    """The gzip stream under tar, decompressed at most ``limit`` bytes: tar's own headers (a pax
    header may announce gigabytes, which tarfile reads into memory) are counted here as well as
    the members' bytes."""

    def __init__(self, inner: gzip.GzipFile, limit: int, shown: int):
        super().__init__()
        self.inner, self.limit, self.shown, self.read_bytes = inner, limit, shown, 0

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        left = self.limit - self.read_bytes
        if size < 0 or size > left + 1:
            size = left + 1
        block = self.inner.read(size)
        self.read_bytes += len(block)
        if self.read_bytes > self.limit:
            raise ArchiveError(f"the archive unpacks to more than {self.shown >> 20} MiB")
        return block


def _unpack_tar(archive: BinaryIO, target: Path, max_files: int, max_bytes: int) -> Unpacked:
    budget = _Budget(max_files, max_bytes)
    stream = _Counted(gzip.GzipFile(fileobj=archive, mode="rb"),
                      max_bytes + (max_files + 2) * _TAR_OVERHEAD, max_bytes)
    try:
        # "r|": a stream, read once from the start; members come in order, nothing seeks back.
        with tarfile.open(fileobj=stream, mode="r|") as tf:
            for info in _tar_members(tf):
                member = _tar_member(info)
                budget.member(member.name)
                source = tf.extractfile(info) if member.kind == "file" else None
                _write(target, member, source, budget)
    except (tarfile.TarError, EOFError, gzip.BadGzipFile, zlib.error) as err:
        raise ArchiveError(f"the tar.gz archive cannot be read: {err}") from None
    return Unpacked(budget.files, budget.bytes)


def _tar_members(tf: tarfile.TarFile) -> Iterator[tarfile.TarInfo]:
    while True:
        info = tf.next()
        if info is None:
            return
        yield info


def _tar_member(info: tarfile.TarInfo) -> _Member:
    name = safe_name(info.name)
    if info.issym() or info.islnk():
        raise ArchiveError(f"the archive holds a link: {name!r}")
    if info.isdir():
        return _Member(name, "folder", False)
    if not info.isreg():
        raise ArchiveError(f"the archive holds a device, pipe or socket: {name!r}")
    return _Member(name, "file", bool(info.mode & 0o100))


def bot_folder(unpacked: Path) -> Path:
    """The folder holding ``bot.toml``: the archive's top, or its only folder (an archive of a
    folder, as ``zip -r bot.zip mybot/`` makes it)."""
    if (unpacked / "bot.toml").is_file():
        return unpacked
    entries = [p for p in unpacked.iterdir() if not p.name.startswith(("__MACOSX", "."))]
    if len(entries) == 1 and entries[0].is_dir() and not entries[0].is_symlink() \
            and (entries[0] / "bot.toml").is_file():
        return entries[0]
    raise ArchiveError("the archive holds no bot.toml, at its top or in its only folder "
                       "(docs/authors/submitting.md)")
