"""Archives for the website's tests (test_web_*.py): a bot's folder zipped or tarred as an author
would, and the hostile ones an adversary would send instead."""

from __future__ import annotations

import io
import stat
import tarfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "bots" / "example"
MANIFEST = (EXAMPLE / "bot.toml").read_bytes()


def zip_folder(folder: Path = EXAMPLE, top: str = "example", extra: dict[str, bytes] | None = None
               ) -> bytes:
    """``folder`` zipped as ``zip -r`` makes it (under ``top/``; "" for its files at the top)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for path in sorted(folder.rglob("*")):
            if "__pycache__" in path.parts or not path.is_file():
                continue
            rel = path.relative_to(folder).as_posix()
            zf.write(path, f"{top}/{rel}" if top else rel)
        for name, data in (extra or {}).items():
            zf.writestr(name, data)
    return out.getvalue()


def tar_folder(folder: Path = EXAMPLE, top: str = "example") -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tf:
        tf.add(folder, arcname=top, filter=lambda i: None if "__pycache__" in i.name else i)
    return out.getvalue()


def zip_with(members: list[tuple[zipfile.ZipInfo | str, bytes]]) -> bytes:
    """A zip of bot.toml and ``members`` as given (names not cleaned)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("bot.toml", MANIFEST)
        for info, data in members:
            zf.writestr(info, data)
    return out.getvalue()


def zip_symlink(name: str = "link", target: str = "/etc/passwd") -> bytes:
    info = zipfile.ZipInfo(name)
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    return zip_with([(info, target.encode())])


def tar_with(members: list[tuple[tarfile.TarInfo, bytes]]) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tf:
        manifest = tarfile.TarInfo("bot.toml")
        manifest.size = len(MANIFEST)
        tf.addfile(manifest, io.BytesIO(MANIFEST))
        for info, data in members:
            info.mtime = int(time.time())
            if info.isreg():
                info.size = len(data)
                tf.addfile(info, io.BytesIO(data))
            else:
                tf.addfile(info)
    return out.getvalue()


def tar_link(kind: bytes, name: str = "link", target: str = "/etc/passwd") -> bytes:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = target
    return tar_with([(info, b"")])


def tar_device() -> bytes:
    info = tarfile.TarInfo("null")
    info.type = tarfile.CHRTYPE
    info.devmajor, info.devminor = 1, 3
    return tar_with([(info, b"")])


def zip_bomb(mib: int) -> bytes:
    """One member of ``mib`` MiB of zeros: about a thousandth of that compressed."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        zf.writestr("bot.toml", MANIFEST)
        with zf.open("zeros.bin", "w", force_zip64=True) as member:
            block = bytes(1 << 20)
            for _ in range(mib):
                member.write(block)
    return out.getvalue()


def tar_bomb(mib: int) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz", compresslevel=9) as tf:
        info = tarfile.TarInfo("zeros.bin")
        info.size = mib << 20
        tf.addfile(info, _Zeros(info.size))
    return out.getvalue()


class _Zeros(io.RawIOBase):
    def __init__(self, size: int):
        self.left = size

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        size = self.left if size < 0 else min(size, self.left)
        self.left -= size
        return bytes(size)


def many_files(count: int) -> bytes:
    return zip_with([(f"f{i}.txt", b"x") for i in range(count)])
