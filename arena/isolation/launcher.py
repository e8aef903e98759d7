"""The sandbox's launcher: the small C program (``sandbox_launch.c``) that builds a bot's root and
enters it, built and trusted once per process, and the environment a bot starts with.

Both ways a bot starts use it: ``launch.py`` puts the launcher before a bot's command, and the
zygote (``zygote.py``) loads the same source built as a library and forks Python bots inside it.
Neither imports the other's module for it: this one is below both.
"""

from __future__ import annotations

import errno
import fcntl
import functools
import hashlib
import logging
import os
import shutil
import stat
import subprocess
import tempfile
from pathlib import Path

from arena.temp_folders import TempFolder

log = logging.getLogger("arena.isolation.launcher")

LAUNCHER_SOURCE = Path(__file__).resolve().with_name("sandbox_launch.c")
BOT_HOME = "/bot"  # the bot's working folder inside its root (sandbox_launch.c: BOT_HOME)
# A bot's PATH, whatever the arena's (issue 29: it showed the host's, a home's folders in it). The
# bot's own program is found on the arena's PATH before it starts (``_Launch.command``).
BOT_PATH = "/usr/local/bin:/usr/bin:/bin"


def minimal_env(workdir: str) -> dict[str, str]:
    """What a bot gets of the environment: enough to run an interpreter, nothing of the arena's."""
    env = {"PATH": BOT_PATH, "HOME": workdir, "TMPDIR": workdir,
           "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "PYTHONUNBUFFERED": "1",
           "PYTHONDONTWRITEBYTECODE": "1"}
    # A bundled Python bot imports the SDK from this installation, wherever the venv is.
    if "VIRTUAL_ENV" in os.environ:
        env["VIRTUAL_ENV"] = os.environ["VIRTUAL_ENV"]
    return env


def cache_folder() -> Path:
    """Where built launcher images are kept: ``$XDG_CACHE_HOME`` or ``~/.cache``, then
    ``sixtysix-arena/``; a folder of our own in the temporary folder when there is no home (a
    service account) or this user cannot write there (a home that belongs to someone else).
    Without that, each process built its own image and every command said twice that it could
    not cache it."""
    try:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    except RuntimeError:
        base = None
    if base is not None and _could_write(base / "sixtysix-arena"):
        return base / "sixtysix-arena"
    return Path(tempfile.gettempdir()) / f"sixtysix-arena-cache-{os.geteuid()}"


def _could_write(folder: Path) -> bool:
    """Whether this user could make ``folder`` or write into it, judged by its nearest existing
    folder (without making anything: this is asked before any image is built, and of paths that
    are only compared)."""
    for path in (folder, *folder.parents):
        if os.path.lexists(path):
            return os.path.isdir(path) and os.access(path, os.W_OK | os.X_OK)
    return False


# What this process runs as the launcher, and the zygote's library: images held in memory (a sealed
# memfd for the launcher), never a file someone may change after the check. See ``launcher()``.
TRUST_ENV = "ARENA_LAUNCHER_SHA256"


@functools.cache
def launcher() -> Path:
    """Where a child of this process finds the launcher to exec: ``/proc/self/fd/N``, a sealed,
    read-only memfd of this process holding its image; the child must be given the descriptor
    (``launcher_fd()`` in ``pass_fds``; the launcher closes it before anything else).

    The image is compiled from ``sandbox_launch.c`` (~0.5 s of CPU) and checked once per process,
    then held: nothing written to disk afterwards, by a bot or anyone, changes what this process
    runs (issue 29: a bot of the ``limits`` level, as a normal user, replaced the cached binary
    and its checksum, and the next ``namespaces`` run executed its wrapper outside any sandbox).
    Where the image may come from (``_trusted_image``):

    - as root, the cache folder (``$XDG_CACHE_HOME`` or ``~/.cache``, then ``sixtysix-arena/``),
      root's own and writable by root alone: no bot ever runs as root, at any level. Its SHA-256
      is written beside it when built and checked against the bytes read; a mismatch is built
      again.
    - as a normal user, whose ``limits`` bots run as that very user and may write anything it
      can, nothing on disk is trusted by itself: the image is this process's own fresh compile
      (into a private temporary folder, read back and removed), or a cached copy whose SHA-256 is
      the one an arena process above this one compiled (``ARENA_LAUNCHER_SHA256`` in the
      environment it passed down to its workers and commands: a bot cannot change a running
      process's environment, and reads none of it). The fresh image is cached for those.

    ``OSError`` says why it cannot be had (no C compiler, say)."""
    return Path(f"/proc/self/fd/{launcher_fd()}")


@functools.cache
def launcher_fd() -> int:
    """The descriptor of the launcher's sealed memfd (see ``launcher()``)."""
    return _sealed(_trusted_image("", ()), "sandbox-launch")


@functools.cache
def launcher_library_bytes() -> bytes:
    """The same source built as a shared library (``sandbox_enter``), for the zygote
    (``zygote.py``), which loads these very bytes from a memfd: trusted exactly as ``launcher()``,
    read once, and no bot's memory map names the cache folder."""
    return _trusted_image(".so", ("-shared", "-fPIC", "-DSANDBOX_LIBRARY"))


def forget_launcher() -> None:
    """Forget the images this process holds (tests: a changed source or cache): the next use
    finds them again."""
    if launcher_fd.cache_info().currsize:
        os.close(launcher_fd())
    for cached in (launcher, launcher_fd, launcher_library_bytes):
        cached.cache_clear()


def _sealed(image: bytes, name: str) -> int:
    """A memfd holding ``image``, sealed against any change and reopened read-only (a descriptor
    open for writing could not be exec'ed everywhere); close-on-exec, so that only a child given
    it in ``pass_fds`` has it."""
    fd = os.memfd_create(name, os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    try:
        view = memoryview(image)
        while view:
            view = view[os.write(fd, view):]
        fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW |
                    fcntl.F_SEAL_WRITE | fcntl.F_SEAL_SEAL)
        return os.open(f"/proc/self/fd/{fd}", os.O_RDONLY | os.O_CLOEXEC)
    finally:
        os.close(fd)


def _trusted_image(suffix: str, flags: tuple[str, ...]) -> bytes:
    """The launcher's image (``suffix`` "") or the library's (".so"), from a source this process
    may trust (``launcher()``), as bytes read once."""
    if os.geteuid() == 0:
        return _cached_image(suffix, flags)
    source = LAUNCHER_SOURCE.read_bytes()
    name = _image_name(source, suffix)
    passed = dict(item.split("=", 1) for item in os.environ.get(TRUST_ENV, "").split(";")
                  if "=" in item)
    if name in passed:
        try:
            image = (cache_folder() / name).read_bytes()
        except OSError:
            image = b""
        if hashlib.sha256(image).hexdigest() == passed[name]:
            return image
        log.warning("the cached sandbox launcher %s is not what this arena built: building it "
                    "again", name)
    image = _compile(source, flags)
    digest = hashlib.sha256(image).hexdigest()
    os.environ[TRUST_ENV] = ";".join(f"{k}={v}" for k, v in {**passed, name: digest}.items())
    try:
        _store(cache_folder(), name, image)
    except OSError as err:  # the cache only spares the workers a compile each
        log.warning("cannot cache the sandbox launcher: %s", err)
    return image


def _image_name(source: bytes, suffix: str) -> str:
    return f"sandbox-launch-{hashlib.sha256(source).hexdigest()[:16]}{suffix}"


def _cached_image(suffix: str, flags: tuple[str, ...]) -> bytes:
    """The image from the cache folder (as root), checked against the SHA-256 written beside it
    when it was built, as read; built again when it is missing or does not match."""
    binary = _build(suffix, flags)
    image = binary.read_bytes()
    expected = binary.with_name(binary.name + ".sha256").read_text().strip()
    if hashlib.sha256(image).hexdigest() == expected:
        return image
    log.warning("the cached sandbox launcher %s changed as it was read: building it again", binary)
    return _compile(LAUNCHER_SOURCE.read_bytes(), flags)


def _build(suffix: str, flags: tuple[str, ...]) -> Path:
    """The cached image's path, built first if missing or not as built (``_tampered``)."""
    source = LAUNCHER_SOURCE.read_bytes()
    cache = cache_folder()
    binary = cache / _image_name(source, suffix)
    _own_cache(cache)
    problem = _tampered(binary, binary.with_name(binary.name + ".sha256"))
    if problem is None:
        return binary
    if problem:
        log.warning("the cached sandbox launcher %s %s: building it again", binary, problem)
    _store(cache, binary.name, _compile(source, flags))
    return binary


def _own_cache(cache: Path) -> None:
    cache.mkdir(mode=0o700, parents=True, exist_ok=True)
    info = cache.lstat()
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid() or info.st_mode & 0o022:
        raise OSError(errno.EPERM, f"{cache} must be a folder that belongs to you and is "
                                   "writable by you alone")


def _store(cache: Path, name: str, image: bytes) -> None:
    """``image`` and its SHA-256 in the cache, each renamed into place once whole, so arenas
    building it at the same moment never read half a file."""
    _own_cache(cache)
    binary = cache / name
    checksum = binary.with_name(name + ".sha256")
    for path, data in ((checksum, (hashlib.sha256(image).hexdigest() + "\n").encode()),
                       (binary, image)):
        partial = cache / f".{path.name}.{os.getpid()}"
        partial.unlink(missing_ok=True)
        fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o700)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(partial, path)


def _compile(source: bytes, flags: tuple[str, ...]) -> bytes:
    """``source`` compiled with the machine's C compiler in a private temporary folder (0700),
    read back and removed."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        raise OSError(errno.ENOENT, "it is C, and there is no C compiler (cc or gcc) on PATH")
    with TempFolder("launcher") as folder:
        src, out = str(folder / "sandbox_launch.c"), str(folder / "out")
        with open(src, "wb") as fh:
            fh.write(source)  # what was read (and hashed for the name) is what is compiled
        proc = subprocess.run([compiler, "-std=gnu99", "-O2", "-Wall", *flags, "-o", out, src],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise OSError(errno.EINVAL, f"{compiler} failed on {LAUNCHER_SOURCE}: "
                                        f"{proc.stderr.strip()[-2000:]}")
        with open(out, "rb") as fh:
            return fh.read()


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _tampered(binary: Path, checksum: Path) -> str | None:
    """None if the cached launcher may be run; "" if there is none; else what is wrong with it."""
    try:
        info = binary.lstat()
    except FileNotFoundError:
        return ""
    if not stat.S_ISREG(info.st_mode):
        return "is not a regular file"
    if info.st_uid != os.geteuid() or info.st_mode & 0o022:
        return "belongs to another user or others may write it"
    try:
        expected = checksum.read_text().strip()
    except OSError:
        return "has no checksum beside it"
    if _sha256(binary) != expected:
        return "does not match the checksum written when it was built (changed since)"
    return None
