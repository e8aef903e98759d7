"""A pre-imported interpreter that forks one child per Python bot (issue 18: bot start-up).

A bundled Python bot started by exec spends ~50 ms of CPU before it can answer the greeting: the
interpreter, ``site``, and the SDK's and engine's modules. The zygote pays that once per referee
process: it is a fresh interpreter, started by exec (never a fork of the referee or a pool worker,
whose memory holds the deal key), that imports only the arena's own SDK, engine and bundled bots,
then forks a child for each bot start. The fork and everything up to the bot's own process are
the launcher's C code (``sandbox_launch.c`` built as a library: ``sandbox_fork_enter``), so the
child gets exactly what the exec path gives: namespaces and the allow-list root, the leased uid,
the cgroup (joined before the fork of PID 1), the rlimits, a fresh working folder, no capability;
then, as the bot's user inside its root, it runs the bot's code in that same process.

Where a forked start's CPU goes (``scripts/bench_startup.py`` prints the split): copying the
zygote's page tables (at its fork, and at PID 1's fork of the bot), the new network namespace,
the root's mounts, and copy-on-write faults: every page of the zygote's that a child writes is
copied. So no Python runs in the outer process and PID 1 (the fork is C's, not ``os.fork``,
whose after-fork work alone was ~250 faults), and before its first fork the zygote runs what
every start runs (``_warm_up``: caches filled, code specialised) and imports what ``runpy``
would import in each child.

What the zygote is given, and what it is not:

- per start, over its socket (a ``socketpair``: no name any bot could connect to, in its root or
  its network namespace): five descriptors, the bot's three pipe ends, the launcher's status pipe
  and a control socket of that start. No argument passes through the zygote's memory: the child
  (its C code) reads its own launcher arguments from the control socket after the fork, straight
  into C memory that the bot's process wipes, so no child ever holds
  another bot's command, folder or uid; the zygote holds none at all, nor any match data.
- back: the child's PID and a pidfd for it (the referee did not fork it: the pidfd lets it signal
  that very process, never a reused PID); on the control socket, once the zygote has reaped the
  child with ``wait4``, its exit status and CPU time (the launcher, PID 1 and the bot).

In the child, before the bot's code runs: descriptors 0-2 are the bot's pipes and nothing else is
open (the status pipe is closed by ``sandbox_enter`` in the bot's process, the zygote's socket
before); the environment is the sandbox's minimal one (the zygote was started with it); Python's
random state is reseeded, inside the sandbox (the fork is C's: no at-fork callback runs, and
none is needed, the zygote having one thread and holding no lock when it forks);
SIGPIPE and SIGXFSZ are ignored as a fresh interpreter does; standard streams are new objects on
the pipes. Memory: fork copies on write, and the zygote maps nothing shared (``MAP_SHARED``), so
no child shares writable memory with it or with another child.

Which bots: bundled Python bots (``python -I -S bots/start.py MODULE ...``) and ``python bot.py``
commands run with this very interpreter (submitted SDK bots): such a script is read and run only
in the child, inside its sandbox, after the switch to the bot's user. Anything else (C bots, other
interpreters, flags) starts by exec. The ``limits`` level and sandboxed builds always exec.

Fail closed: if the zygote cannot be had (no library, no pidfd, it does not start or answer), bots
start by the ordinary exec path, with the same sandbox, and the log says why once.
``ARENA_ZYGOTE=0`` asks for the exec path (benchmarks' baseline; the tests run both).
"""

from __future__ import annotations

import logging
import os
import select
import signal
import socket
import sys
import threading
from typing import IO, TYPE_CHECKING, Any, Sequence

if TYPE_CHECKING:
    pass

log = logging.getLogger("arena.isolation.zygote")

ENV = "ARENA_ZYGOTE"            # "0": every bot starts by exec
START_TIMEOUT_S = 20.0          # the zygote's imports, on a loaded machine
REPLY_TIMEOUT_S = 10.0          # one fork
_MAX_FDS = 5                    # stdin, stdout, stderr, status, control
_PREIMPORT = ("protocol", "arena.game", "runpy", "pkgutil", "traceback", "random", "fcntl",
              "importlib")  # pkgutil: runpy.run_path imports it (~300 faults in each child)
# The bundled Python bots' modules (bots.BUNDLED_PYTHON), pre-imported too unless the zygote is
# told which bots it will start (``get(bots)``): bots.strong alone is ~10 ms of its start's CPU.
_ALL_BOTS = "*"
# The last argument of the zygote: room in its arguments area, which each child overwrites with
# its bot's command line (sandbox_launch.c: show_arguments), so that `ps` and the tests' process
# checks see a forked bot's whole command as they see an exec'ed one's.
_CMDLINE_ROOM = " " * 4096
_WARM_RUNS = 16  # more than the calls after which 3.11 specialises a function's code
# Packages of the arena that a submitted bot's own folder may shadow (exec would import the bot's)
_OWN_PACKAGES = ("protocol", "arena", "bots")


def enabled() -> bool:
    return os.environ.get(ENV, "1") != "0"


def serves(argv: Sequence[str]) -> bool:
    """Whether a bot with this command can be a zygote child: a bundled Python bot, or a
    ``python bot.py ...`` of this interpreter (no interpreter options)."""
    return _kind(argv) is not None


def _kind(argv: Sequence[str]) -> str | None:
    if len(argv) < 2 or argv[0] != sys.executable:
        return None
    from bots import BUNDLED_PYTHON, START

    if list(argv[1:4]) == ["-I", "-S", START] and len(argv) >= 5 and \
            argv[4] in BUNDLED_PYTHON.values():
        return "module"
    if argv[1].endswith(".py") and not argv[1].startswith("-"):
        return "script"
    return None


class ZygoteChild:
    """A bot started by the zygote, as ``BotProcess`` uses a ``subprocess.Popen``: ``pid``, the
    three pipes, ``poll``, ``wait``, ``returncode``; and ``kill`` through its pidfd."""

    def __init__(self, argv: Sequence[str], pid: int, pidfd: int, control: socket.socket,
                 stdin: IO[bytes], stdout: IO[bytes], stderr: IO[bytes]):
        self.args = list(argv)
        self.pid = pid
        self.stdin, self.stdout, self.stderr = stdin, stdout, stderr
        self.returncode: int | None = None
        self.cpu_s = 0.0  # the whole start and run: launcher, PID 1, bot (the zygote's wait4)
        self.minflt = 0  # their minor page faults (the benchmark: copy-on-write after the fork)
        self._pidfd = pidfd
        self._control = control
        self._said = b""

    def exit_fd(self) -> int | None:
        """A descriptor that becomes readable when ``poll()`` has the exit status (a copy: the
        caller closes it); None once the status is known."""
        if self.poll() is not None:
            return None
        return os.dup(self._control.fileno())

    def poll(self) -> int | None:
        if self.returncode is None:
            self._read(0)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None:
            self._read(timeout)
        if self.returncode is None:
            import subprocess  # not at the top: the zygote process does without it (~600 KB)

            raise subprocess.TimeoutExpired(self.args, timeout or 0)
        return self.returncode

    def kill(self) -> None:
        """SIGKILL the launcher's outer process (and its process group while it lives): PID 1 of
        the bot's namespace dies with it (PR_SET_PDEATHSIG), and the kernel ends the namespace."""
        if self.poll() is not None:
            return
        try:
            os.killpg(self.pid, signal.SIGKILL)  # its leader is alive: the group is still its own
        except (ProcessLookupError, PermissionError):
            pass
        try:
            signal.pidfd_send_signal(self._pidfd, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def _read(self, timeout: float | None) -> None:
        global _zygote_cpu_s, _children_cpu_s
        watch = select.poll()  # not select(): a busy referee may hold descriptors past 1024
        watch.register(self._control.fileno(), select.POLLIN)
        while self.returncode is None:
            if not watch.poll(None if timeout is None else timeout * 1000):
                return
            try:
                chunk = self._control.recv(256)
            except BlockingIOError:
                continue
            except OSError:
                chunk = b""
            if not chunk:
                # The zygote died before it could reap the child, which died with it (its
                # PR_SET_PDEATHSIG): killed.
                self.returncode = -signal.SIGKILL
                break
            self._said += chunk
            if self._said.endswith(b"\n"):
                code, cpu, zygote_cpu, minflt = self._said.split()
                self.returncode, self.cpu_s, self.minflt = int(code), float(cpu), int(minflt)
                _zygote_cpu_s = float(zygote_cpu)
                _children_cpu_s += self.cpu_s
        self._close()

    def _close(self) -> None:
        if self._pidfd >= 0:
            os.close(self._pidfd)
            self._pidfd = -1
        self._control.close()


class Zygote:
    """The referee's side: starts the zygote process and asks it for children."""

    def __init__(self, library: bytes, env: dict[str, str], bot_modules: str = _ALL_BOTS):
        import subprocess

        # The launcher's library travels as a memfd: a bot's /proc/self/maps then names no path
        # of the machine (the launcher's cache is hidden from bots), and what is loaded is what
        # was checked.
        code = os.memfd_create("sandbox-launch", os.MFD_CLOEXEC)
        written = 0
        while written < len(library):
            written += os.write(code, library[written:])
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self._sock = ours
        self._lock = threading.Lock()
        self._broken = False
        try:
            # PR_SET_PDEATHSIG follows the thread that started a process, not the process: asked
            # from any other thread (a Dask worker's), the zygote would die when that thread ends.
            # It always ends when its socket does, i.e. with this process.
            with_thread = "1" if threading.current_thread() is threading.main_thread() else "0"
            self.proc = subprocess.Popen(
                [sys.executable, "-I", os.path.abspath(__file__), str(theirs.fileno()),
                 str(os.getpid()), str(code), with_thread, bot_modules, _CMDLINE_ROOM],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, env=env, close_fds=True,
                pass_fds=(theirs.fileno(), code), start_new_session=True, cwd="/")
        finally:
            theirs.close()
            os.close(code)
        ours.settimeout(START_TIMEOUT_S)
        try:
            said = ours.recv(64)
        except OSError as err:
            self.close()
            raise OSError(f"the zygote did not start: {err}") from None
        if said != b"ready":
            self.close()
            raise OSError(f"the zygote did not start (said {said!r}; its stderr has why)")
        ours.settimeout(REPLY_TIMEOUT_S)

    def spawn(self, launch: Sequence[str], argv: Sequence[str], status_w: int) -> ZygoteChild:
        """A child running ``argv`` in the sandbox that ``launch`` (the launcher's arguments, as
        for the exec path) describes. ``OSError`` if the zygote is gone or does not answer."""
        pipes = [os.pipe() for _ in range(3)]
        control, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        child_ends = [pipes[0][0], pipes[1][1], pipes[2][1], status_w, theirs.fileno()]
        try:
            # The launcher's arguments as the child's C code reads them (sandbox_enter): one
            # NUL after each, their size first; then the bot's own command, which Python runs.
            args = []
            for arg in launch:
                if arg.startswith("--status-fd="):
                    arg = "--status-fd=3"  # where the child puts it
                elif arg.startswith("--parent="):
                    arg = f"--parent={self.proc.pid}"  # PR_SET_PDEATHSIG: dies with the zygote
                args.append(arg.encode() + b"\0")
            blob = b"".join(args)
            # The bot's own request: its kind and command, NUL-separated (no parser in the
            # child: json's cost there ~70 copy-on-write faults), its size first.
            bot = b"\0".join([(_kind(argv) or "").encode(), *map(os.fsencode, argv)])
            control.sendall(b"%016x" % len(blob) + blob + b"%016x" % len(bot) + bot)
            with self._lock:
                if self._broken:
                    raise OSError("the zygote stopped answering")
                try:
                    socket.send_fds(self._sock, [b"spawn"], child_ends)
                    msg, fds, _, _ = socket.recv_fds(self._sock, 64, 1)
                except OSError:
                    # A late answer would be taken for the next start's: never ask it again.
                    self._broken = True
                    raise
            if not msg or len(fds) != 1:
                for fd in fds:
                    os.close(fd)
                self._broken = True
                raise OSError("the zygote did not answer")
            pid = int(msg)
        except BaseException:
            for r, w in pipes:
                os.close(r)
                os.close(w)
            control.close()
            raise
        finally:
            theirs.close()
        for fd in child_ends[:3]:
            os.close(fd)
        return ZygoteChild(argv, pid, fds[0], control, os.fdopen(pipes[0][1], "wb"),
                           os.fdopen(pipes[1][0], "rb"), os.fdopen(pipes[2][0], "rb"))

    def alive(self) -> bool:
        return not self._broken and self.proc.poll() is None

    def close(self) -> None:
        import subprocess

        self._sock.close()  # EOF: the zygote exits
        if self._broken:
            self.proc.kill()
        try:
            self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


_zygote: Zygote | None = None
_zygote_pid = 0
_failed: str | None = None
_start_lock = threading.Lock()


def get(bots: Sequence[Sequence[str]] | None = None) -> Zygote | None:
    """This process's zygote, started on first use; None when bots must start by exec (asked
    for with ``ARENA_ZYGOTE=0``, or the zygote cannot be had here: logged once, with why).
    ``bots``, the commands of every bot this process will start, when known (a tournament's
    worker): a zygote started by this call pre-imports only the bundled bots among them; a
    bundled bot it did not pre-import imports itself in its child, as under exec."""
    global _zygote, _zygote_pid, _failed
    import subprocess

    if not enabled():
        return None
    with _start_lock:
        if _zygote is not None and (_zygote_pid != os.getpid() or not _zygote.alive()):
            if _zygote_pid == os.getpid():
                log.warning("the zygote (PID %d) exited or stopped answering: starting another",
                            _zygote.proc.pid)
                _zygote.close()  # its children die with it
            _zygote = None  # a forked process never uses its parent's zygote
        if _zygote is None and _failed is None:
            try:
                _zygote = _start(_ALL_BOTS if bots is None else _bot_modules(bots))
                _zygote_pid = os.getpid()
            except (OSError, ValueError, subprocess.SubprocessError) as err:
                _failed = str(err)
                log.warning("bots start by exec, not from a pre-imported interpreter: %s "
                            "(the sandbox is the same; each start costs more CPU)", _failed)
        return _zygote


def failure() -> str | None:
    """Why this process has no zygote (None: it has one, or has not tried)."""
    return _failed


def _start(bot_modules: str) -> Zygote:
    from arena.isolation import launcher

    if not hasattr(os, "pidfd_open") or not hasattr(signal, "pidfd_send_signal"):
        raise OSError("this system has no pidfd (Linux 5.3+ is needed)")
    return Zygote(launcher.launcher_library_bytes(), launcher.minimal_env(launcher.BOT_HOME),
                  bot_modules)


def _bot_modules(bots: Sequence[Sequence[str]]) -> str:
    """The modules of the bundled Python bots among these commands, for the zygote's argument."""
    return ",".join(sorted({argv[4] for argv in bots if _kind(argv) == "module"}))


def stop() -> None:
    """End this process's zygote (its children die with it)."""
    global _zygote, _failed
    with _start_lock:
        if _zygote is not None and _zygote_pid == os.getpid():
            _zygote.close()
        _zygote = None
        _failed = None


_zygote_cpu_s = 0.0
_children_cpu_s = 0.0


def children_cpu_s() -> float:
    """CPU time of every zygote child of this process reaped so far (the benchmark: what exec'ed
    bots' time is to ``RUSAGE_CHILDREN``)."""
    return _children_cpu_s


def own_cpu_s() -> float:
    """CPU time the zygote itself had used when it last reaped a child of this process (its own
    rusage, sent with the child's status), for the benchmark: its share of each start."""
    return _zygote_cpu_s


# -- the zygote process ---------------------------------------------------------------------------

def _serve(sock: socket.socket, lib: Any) -> dict[str, Any]:
    """Fork a child per request; return only in a child (the bot's process, inside its sandbox:
    ``sandbox_fork_enter`` forks and builds the sandbox in C), with the bot's command."""
    import ctypes
    import resource

    # poll, not a selector: no descriptor of its own to leave behind in a child, and no
    # system call to watch or forget one
    watch = select.poll()
    watch.register(sock.fileno(), select.POLLIN)
    children: dict[int, tuple[int, int]] = {}  # pidfd: (PID, control socket)
    while True:
        for fd, _ in watch.poll():
            if fd in children:  # a child exited: reap it, tell its referee
                pid, control = children.pop(fd)
                watch.unregister(fd)
                os.close(fd)
                _, status, usage = os.wait4(pid, 0)
                own = resource.getrusage(resource.RUSAGE_SELF)
                said = f"{os.waitstatus_to_exitcode(status)} " \
                       f"{usage.ru_utime + usage.ru_stime:.6f} " \
                       f"{own.ru_utime + own.ru_stime:.6f} {usage.ru_minflt}\n"
                try:
                    os.write(control, said.encode())
                except OSError:
                    pass  # the referee has gone
                os.close(control)
                continue
            try:
                msg, fds, _, _ = socket.recv_fds(sock, 64, _MAX_FDS)
            except OSError:
                msg, fds = b"", []
            if not msg:
                sys.exit(0)  # the referee closed its end, or died: our children die with us
            if msg != b"spawn" or len(fds) != _MAX_FDS:
                for fd in fds:
                    os.close(fd)
                continue
            pid = lib.sandbox_fork_enter((ctypes.c_int * _MAX_FDS)(*fds))
            if pid == 0:
                return _bot_side(sock, lib)
            for fd in fds[:4]:
                os.close(fd)
            if pid < 0:  # no fork: the referee is told (no pidfd: it starts this bot by exec)
                os.close(fds[4])
                try:
                    sock.send(b"fork failed")
                except OSError:
                    sys.exit(0)
                continue
            pidfd = os.pidfd_open(pid)
            watch.register(pidfd, select.POLLIN)
            children[pidfd] = (pid, fds[4])
            try:
                socket.send_fds(sock, [str(pid).encode()], [pidfd])
            except OSError:
                sys.exit(0)


def _bot_side(sock: socket.socket, lib: Any) -> dict[str, Any]:
    """In the bot's process, inside its sandbox, back from ``sandbox_fork_enter``: the launcher's
    C code read this start's request from the control socket after the fork (the launcher's
    arguments straight into C memory, never a Python string: they name the bot's host folder,
    cgroups and uid, and it wipes them), made the pipes 0-2, closed every other descriptor and
    built the sandbox.

    Not run here: what ``os.fork`` adds in a child (``PyOS_AfterFork_Child``: locks another
    thread may have held at the fork, the ``threading`` and ``logging`` bookkeeping of other
    threads, ``random``'s reseeding), ~0.7 ms and ~250 copy-on-write faults per start. The zygote
    has one thread (``_main`` checks it) that forks from its serve loop, holding no lock, so there
    is nothing to repair; the random state is reseeded in ``_run_bot``."""
    import ctypes

    # The zygote's socket is closed (C closed every descriptor): forget it without closing a
    # number the bot may have reused by the time the object goes.
    sock.detach()
    return _request(ctypes.string_at(lib.sandbox_request(), lib.sandbox_request_size()))


def _request(raw: bytes) -> dict[str, Any]:
    """The bot's request as ``Zygote.spawn`` sent it: its kind, then its command."""
    kind, *argv = raw.split(b"\0")
    return {"kind": kind.decode(), "argv": [os.fsdecode(arg) for arg in argv]}


def _streams() -> dict[str, Any]:
    """The standard streams of a fresh interpreter, on descriptors 0-2."""
    import io

    return {
        "stdin": io.TextIOWrapper(io.open(0, "rb", closefd=False), encoding="utf-8"),
        # unbuffered, as PYTHONUNBUFFERED=1 (minimal_env) makes an exec'ed bot's
        "stdout": io.TextIOWrapper(io.open(1, "wb", buffering=0, closefd=False),
                                   encoding="utf-8", write_through=True),
        "stderr": io.TextIOWrapper(io.open(2, "wb", buffering=0, closefd=False),
                                   encoding="utf-8", errors="backslashreplace", write_through=True),
    }


def _run_bot(request: dict[str, Any]) -> None:
    """In the bot's process, inside its sandbox: run the bot as ``python`` would have."""
    import random

    # What a fresh interpreter does: a broken pipe is an exception, a too large file an error.
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    random.seed()  # fresh, from the bot's own /dev/urandom (the fork, in C, did not reseed)
    for name, stream in _streams().items():
        setattr(sys, name, stream)
        setattr(sys, f"__{name}__", stream)
    argv = request["argv"]
    if request["kind"] == "module":  # as bots/start.py
        import importlib

        sys.argv = list(argv[4:])
        module = importlib.import_module(sys.argv[0])
        if not hasattr(module, "main"):
            module = importlib.import_module(sys.argv[0] + ".__main__")
        module.main()
        return
    import runpy

    script = os.path.abspath(argv[1])
    folder = os.path.dirname(script)
    for name in _OWN_PACKAGES:
        # The bot's own module of that name wins, as under exec: forget the pre-imported one.
        if os.path.exists(os.path.join(folder, name + ".py")) or \
                os.path.isdir(os.path.join(folder, name)):
            for loaded in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
                del sys.modules[loaded]
    try:
        with open(script, "rb"):
            pass
    except OSError as err:  # what `python missing.py` says, and its status
        print(f"{argv[0]}: can't open file {argv[1]!r}: [Errno {err.errno}] {err.strerror}",
              file=sys.stderr)
        raise SystemExit(2) from None
    sys.argv = [argv[1], *argv[2:]]
    sys.path.insert(0, folder)
    runpy.run_path(script, run_name="__main__")


def _own_tree_first(root: str) -> None:
    """Import the arena, its SDK and its bots from ``root``, the tree this file is in, as the exec
    path's bots/start.py does: after the standard library (nothing in the tree may shadow a
    standard module) but before site-packages. There an installation may name another tree (an
    editable install's ``.pth`` its checkout): a second checkout run with the first one's venv
    (an A/B benchmark's baseline, ``bench_tournament.py --baseline``) would otherwise fork its
    Python bots with the first tree's bots, SDK and engine, while it exec'ed them with its own."""
    import site

    sites = {os.path.realpath(p) for p in site.getsitepackages()}
    at = next((i for i, p in enumerate(sys.path) if os.path.realpath(p) in sites), len(sys.path))
    sys.path.insert(at, root)


def _main() -> None:
    """The zygote: ``python -I zygote.py SOCKET_FD PARENT_PID LIBRARY_FD PDEATHSIG BOTS ROOM``
    (BOTS: the bundled bots' modules to pre-import, comma-separated, or ``*`` for all)."""
    import ctypes
    import gc
    import importlib

    fd, parent, code, die_with_parent = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), \
        sys.argv[4] == "1"
    sock = socket.socket(fileno=fd)
    libc = ctypes.CDLL(None, use_errno=True)
    if die_with_parent and libc.prctl(1, signal.SIGKILL, 0, 0, 0) != 0:  # PR_SET_PDEATHSIG
        sys.exit(1)
    if os.getppid() != parent:
        sys.exit(1)  # the referee died before we could ask to die with it
    _own_tree_first(os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__)))))
    sys.dont_write_bytecode = True
    lib = ctypes.CDLL(f"/proc/self/fd/{code}")  # loaded (and checked to load) once
    lib.sandbox_request.restype = ctypes.c_void_p
    lib.sandbox_request_size.restype = ctypes.c_size_t
    lib.sandbox_fork_enter.restype = ctypes.c_int
    os.close(code)  # the mapping stays; no child inherits the descriptor
    wanted = sys.argv[5]
    if wanted == _ALL_BOTS:
        from bots import BUNDLED_PYTHON

        wanted = ",".join(BUNDLED_PYTHON.values())
    for name in _PREIMPORT:
        importlib.import_module(name)
    for name in filter(None, wanted.split(",")):
        module = importlib.import_module(name)
        if not hasattr(module, "main"):  # a package: what _run_bot runs is its __main__
            importlib.import_module(name + ".__main__")
    _warm_up()
    # The SDK's hot path run once here, not in every child: each child would otherwise copy the
    # pages that running it for the first time writes (protocol.sdk.warm_up; issue 18).
    importlib.import_module("protocol.sdk").warm_up()
    # A fork copies only the thread that forks (_bot_side: no after-fork repairs are needed)
    if threading.active_count() != 1:
        sys.exit(1)
    # Every object so far is the zygote's: the children's collector leaves them alone, so it
    # does not touch (and copy) every page of them (gc.freeze is for exactly this).
    gc.freeze()
    try:
        sock.send(b"ready")
    except OSError:  # the worker that asked for it is gone (a stop while it started): no traceback
        os._exit(0)
    bot = _serve(sock, lib)
    outcome: object = 0
    try:
        _run_bot(bot)
    except SystemExit as end:
        outcome = end.code
    except BaseException as err:
        import traceback

        # The bot's own frames, as an exec'ed interpreter shows them: not the zygote's or runpy's.
        tb = err.__traceback__
        while tb is not None and _ours(tb.tb_frame.f_code.co_filename):
            tb = tb.tb_next
        traceback.print_exception(type(err), err, tb)
        outcome = 1
    _exit(outcome)


def _warm_up() -> None:
    """Run, a few times before the first fork, what every bot start runs (issue 18): a child
    writes to every page of the zygote's that its code changes, each write a copy-on-write fault.
    Done here, the interpreter's caches are filled (the type attribute cache, interned names,
    the codecs') and the code is specialised (3.11 quickens a function after a few
    calls, in place), so the children find them done. No bot code and no match data: the
    request's decoding, the standard streams, a compile, the SDK's greeting on in-memory
    streams."""
    import io
    import pkgutil

    from protocol import Bot, run

    class Warm(Bot):
        name = "warm"

        def decide(self, view: Any, legal: Any) -> Any:
            return legal[0]

    request = b"\0".join([b"script", os.fsencode(sys.executable), os.fsencode(__file__)])
    for _ in range(_WARM_RUNS):
        _request(request)
        _streams()
        pkgutil.get_importer(__file__)  # runpy.run_path's first step
        compile("from protocol import Bot, run\n\nclass B(Bot):\n    name = 'b'\n\n"
                "    def decide(self, view, legal):\n        return legal[-1]\n\n\n"
                "if __name__ == '__main__':\n    run(B())\n", "<warm>", "exec")
        run(Warm(), io.BytesIO(b"sixtysix 1\n"), io.StringIO())


def _ours(filename: str) -> bool:
    return filename in (__file__, os.path.abspath(__file__)) or \
        os.path.basename(filename) in ("runpy.py", "<frozen runpy>")


def _exit(code: object) -> None:
    """End the bot as the interpreter would (threads joined, output flushed, the status of
    ``sys.exit``) but without tearing down the zygote's modules object by object, which cost a
    forked bot ~40 ms of CPU."""
    import threading

    if code is None:
        status = 0
    elif isinstance(code, int):
        status = code & 0xFF
    else:
        print(code, file=sys.stderr)
        status = 1
    for thread in threading.enumerate():  # non-daemon threads: the interpreter waits for them
        if thread is not threading.current_thread() and not thread.daemon:
            thread.join()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(status)


if __name__ == "__main__":
    _main()
