"""The sandbox launcher: starts one bot inside fresh Linux namespaces (run by ``arena.sandbox``).

Usage: ``python -I -S sandbox_launch.py SPEC_JSON -- ARGV...``. Standard library only, and run
with ``-S``: it starts for every bot, so it must start fast, and it must not import the arena.

It runs as two processes, because a new PID namespace only applies to the children of the process
that creates it:

- the *outer* process (the one the referee started, in its own session) unshares the network,
  mount, PID, IPC and UTS namespaces (and a user namespace when not root), forks the inner process
  and exits with it;
- the *inner* process is PID 1 of the new PID namespace. It mounts a fresh ``/proc`` (the bot sees
  only its own processes, never the referee's pipes or the other bot), gives the bot private
  ``/tmp``-like folders, makes runtime folders that only root may enter reachable read-only,
  hides the arena's data folders, forks the bot, applies the resource limits, drops to the
  bot's user id and execs it. Then it reaps, and when the bot exits it reports on the status pipe:
  the exit status, CPU time, peak memory and how many processes the bot left running. When PID 1 of
  a namespace exits, the kernel kills every process still in it: nothing a bot starts, not even a
  ``setsid`` daemon, outlives it.

Both processes ask the kernel to kill them when their parent dies (``PR_SET_PDEATHSIG``), so a
referee killed with ``kill -9`` takes its bots with it.
"""

from __future__ import annotations

import ctypes
import json
import os
import resource
import select
import signal
import sys
import time

CLONE_NEWNS = 0x00020000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_NOEXEC = 8
MS_REMOUNT = 32
MS_BIND = 4096
MS_MOVE = 8192
MS_REC = 16384
MS_PRIVATE = 1 << 18
PR_SET_PDEATHSIG = 1
PR_SET_NO_NEW_PRIVS = 38
SYS_OPEN_TREE = 428           # the same number on every architecture (the new mount API)
SYS_MOVE_MOUNT = 429
OPEN_TREE_CLONE = 1
AT_RECURSIVE = 0x8000
AT_FDCWD = -100
MOVE_MOUNT_F_EMPTY_PATH = 4
SCRATCH = ("/tmp", "/var/tmp", "/dev/shm", "/run/lock")  # writable by anyone on most systems

# After the bot exits, processes it started get this long to exit too before they count as left
# behind (and are killed with the namespace).
STRAGGLER_GRACE_S = 0.1

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long

_LIMITS = {  # spec key -> (resource, scale to the kernel's unit)
    "cpu_s": (resource.RLIMIT_CPU, 1),
    "memory_mb": (resource.RLIMIT_AS, 1 << 20),
    "processes": (resource.RLIMIT_NPROC, 1),
    "file_mb": (resource.RLIMIT_FSIZE, 1 << 20),
    "open_files": (resource.RLIMIT_NOFILE, 1),
}


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def _mount(source: str | None, target: str, fstype: str | None, flags: int,
           data: str | None = None) -> None:
    _check(_libc.mount(source and source.encode(), target.encode(), fstype and fstype.encode(),
                       ctypes.c_ulong(flags), data and data.encode()), f"mount {target}")


def _prctl(option: int, value: int) -> None:
    _check(_libc.prctl(option, ctypes.c_ulong(value), 0, 0, 0), "prctl")


def apply_limits(limits: dict[str, int]) -> None:
    """Resource limits for the calling process and its children (0: leave unlimited)."""
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # a crashing bot writes no core file
    for key, (which, scale) in _LIMITS.items():
        value = int(limits.get(key, 0))
        if value > 0:
            # CPU: SIGXCPU at the soft limit, SIGKILL one second later for a bot that catches it.
            hard = value + 1 if key == "cpu_s" else value
            resource.setrlimit(which, (value * scale, hard * scale))


def _untraversable_root(path: str) -> str | None:
    """The outermost folder on ``path`` that others may not enter, if any."""
    current = "/"
    for part in path.strip("/").split("/"):
        current = os.path.join(current, part)
        try:
            mode = os.stat(current).st_mode
        except OSError:
            return None
        if not mode & 0o001:
            return current
    return None


def _inside(path: str, root: str) -> bool:
    return path.startswith(root.rstrip("/") + "/")


def _cover(root: str, keep: list[str], options: str, read_only: bool) -> None:
    """Mount an empty tmpfs over ``root`` and put back each of ``keep`` (paths inside it) as it
    was. The kept trees are cloned before the tmpfs hides them (``open_tree``, Linux 5.2)."""
    trees = []
    for path in keep:
        fd = _libc.syscall(SYS_OPEN_TREE, AT_FDCWD, path.encode(),
                           OPEN_TREE_CLONE | AT_RECURSIVE | os.O_CLOEXEC)
        _check(0 if fd >= 0 else -1, f"open_tree {path}")
        trees.append((path, fd))
    _mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, options)
    for path, fd in trees:
        os.makedirs(path, mode=0o755, exist_ok=True)
        _check(_libc.syscall(SYS_MOVE_MOUNT, fd, b"", AT_FDCWD, path.encode(),
                             MOVE_MOUNT_F_EMPTY_PATH), f"move_mount {path}")
        os.close(fd)
        if read_only:
            _mount(None, path, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID)
    if read_only:
        _mount(None, root, None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, options)


def _private_scratch(keep: list[str], size_mb: int) -> None:
    """The folders anyone may write to become an empty tmpfs of the bot's own: nothing it leaves
    there outlives it, reaches another bot, or fills the machine's disk. Its own folder, under
    /tmp, is put back."""
    size = f",size={size_mb}m" if size_mb > 0 else ""
    for root in sorted({os.path.realpath(p) for p in SCRATCH if os.path.isdir(p)}):
        _cover(root, [p for p in keep if _inside(p, root)], "mode=1777" + size, read_only=False)


def _expose(paths: list[str]) -> None:
    """Make each of ``paths`` reachable read-only by an unprivileged bot.

    A folder such as ``/root`` (mode 0700) may hold the Python the bot needs. In the bot's private
    mount namespace, an empty tmpfs is mounted over that folder (hiding the rest of it) and only the
    needed paths are put back inside it, read-only. Nothing changes outside the namespace."""
    plans: dict[str, list[str]] = {}
    for path in sorted(set(paths)):
        root = _untraversable_root(path) if os.path.exists(path) else None
        if root is not None and root != path:
            plans.setdefault(root, []).append(path)
    for root, inner_paths in plans.items():
        _cover(root, inner_paths, "mode=0755,size=1m", read_only=True)


def _count_others() -> int:
    """Processes in this PID namespace besides PID 1 (the fresh /proc shows only ours)."""
    return sum(1 for name in os.listdir("/proc") if name.isdigit() and name != "1")


def _report(fd: int, **fields: object) -> None:
    try:
        os.write(fd, (json.dumps(fields) + "\n").encode())
    except OSError:
        pass  # the referee is gone; nobody is left to tell


def _inner(spec: dict, argv: list[str], status_fd: int, lifeline: int) -> None:
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    # Our parent is outside this PID namespace, so getppid() says 0 whether it lives or not; the
    # lifeline pipe, whose writing end only the outer process holds, reads end-of-file once it died.
    if select.select([lifeline], [], [], 0)[0]:
        os._exit(1)  # it died before we could ask to die with it
    os.close(lifeline)
    _mount(None, "/", None, MS_REC | MS_PRIVATE)  # nothing mounted here propagates outside
    _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    uid = spec.get("uid")
    _private_scratch([spec["base"], *spec.get("expose", [])],
                     int(spec.get("limits", {}).get("file_mb", 0)))
    if uid is not None:
        _expose(spec.get("expose", []))
    for path in spec.get("hide", []):
        if os.path.isdir(path):  # the arena's records and data: an empty, read-only folder here
            _mount("tmpfs", path, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
                   "size=4k,mode=0555")
    bot = os.fork()
    if bot == 0:
        try:
            # Python ignores these, and ignored signals survive exec: a bot gets the defaults back
            # (as subprocess's restore_signals does), so a file too large kills it with SIGXFSZ.
            for sig in (signal.SIGPIPE, signal.SIGXFSZ):
                signal.signal(sig, signal.SIG_DFL)
            apply_limits(spec.get("limits", {}))
            if uid is not None:
                os.setgroups([])
                os.setgid(uid)
                os.setuid(uid)
            _prctl(PR_SET_NO_NEW_PRIVS, 1)  # setuid programs gain nothing
            os.chdir(spec["cwd"])
            os.execvp(argv[0], argv)
        except OSError as err:
            _report(status_fd, error=f"cannot start {argv[0]!r}: {err.strerror or err}")
        os._exit(127)
    for fd in (0, 1, 2):
        os.close(fd)  # the pipes belong to the bot: the referee sees end of file when it exits
    status, usage = 0, None
    while True:
        try:
            pid, status, usage = os.wait4(-1, 0)
        except ChildProcessError:
            break
        if pid == bot:
            break
    deadline = time.monotonic() + STRAGGLER_GRACE_S
    left = _count_others()
    while left and time.monotonic() < deadline:
        try:
            os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            pass
        time.sleep(0.01)
        left = _count_others()
    _report(status_fd, status=os.waitstatus_to_exitcode(status), left=left,
            cpu_s=round(usage.ru_utime + usage.ru_stime, 3) if usage else None,
            max_rss_mb=round(usage.ru_maxrss / 1024, 1) if usage else None)
    os._exit(0)  # PID 1 exits: the kernel kills whatever the bot left behind


def main() -> None:
    spec = json.loads(sys.argv[1])
    argv = sys.argv[3:]
    status_fd = int(spec["status_fd"])
    os.set_inheritable(status_fd, False)  # the bot must not inherit it (closed at its exec)
    try:
        _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != spec["parent"]:
            os._exit(1)  # the referee died before we could ask to die with it
        flags = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWNET
        if spec.get("userns"):
            outer_uid, outer_gid = os.getuid(), os.getgid()
            _check(_libc.unshare(CLONE_NEWUSER | flags), "unshare")
            with open("/proc/self/setgroups", "w") as fh:
                fh.write("deny")
            with open("/proc/self/uid_map", "w") as fh:
                fh.write(f"0 {outer_uid} 1")
            with open("/proc/self/gid_map", "w") as fh:
                fh.write(f"0 {outer_gid} 1")
        else:
            _check(_libc.unshare(flags), "unshare")
        lifeline, keep = os.pipe()
        inner = os.fork()
    except OSError as err:
        _report(status_fd, error=f"sandbox: {err.strerror or err}")
        os._exit(126)
    if inner == 0:
        try:
            os.close(keep)
            _inner(spec, argv, status_fd, lifeline)
        except OSError as err:
            _report(status_fd, error=f"sandbox: {err.strerror or err}")
        os._exit(126)
    # The referee waits for PID 1 to be gone: only then has the kernel ended the whole namespace.
    _report(status_fd, inner=inner)
    for fd in (0, 1, 2, status_fd, lifeline):
        os.close(fd)
    _, status = os.waitpid(inner, 0)
    os._exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 126)


if __name__ == "__main__":
    main()
