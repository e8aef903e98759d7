"""One bot as a child process, spoken to line by line with deadlines (PROTOCOL.md §1, §5, §6).

Line framing lives here; message meanings live in the referee. Nothing a bot does may hang or crash
the referee, so every pipe is non-blocking and every wait has a deadline:

- stdout is read through our own buffer, so a line that never ends, a flood, or bytes that are not
  UTF-8 are seen as such (``line_too_long``, ``malformed``) instead of blocking a ``readline``;
- stdin is written without blocking: a bot that stops reading its input eventually fills the pipe,
  and the write then times out instead of blocking the referee forever;
- stderr is drained whenever we wait, into a log file capped at ``stderr_cap`` bytes, and into
  the lines of the decision under way (``take_debug``: at most ``debug_decision_bytes`` a decision
  and ``debug_match_bytes`` a match, the rest counted), which the referee stores in the record;
- the bot runs in its own session (process group) in a fresh temporary folder, inside the sandbox
  of ``sandbox.py`` (resource limits, no network, its own user id where the machine allows);
  ``close()`` ends the whole group and reaps the child, so no process outlives the match.
"""

from __future__ import annotations

import errno
import os
import select
import selectors
import signal
import subprocess
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, BinaryIO, Sequence

from arena.arena_folders import open_private, private_subfolder
from arena.isolation.launch import Report
from arena.isolation.launcher import minimal_env
from arena.isolation.limits import SandboxLimits
from arena.isolation.sandbox import Sandbox
from arena.isolation.zygote import ZygoteChild
from arena.match import phases
from arena.match.records import DEBUG_DECISION_BYTES, DEBUG_MATCH_BYTES
from arena.types import Fault

DEFAULT_DECISION_MS = 1000
DEFAULT_STARTUP_MS = 10_000
MAX_LINE_BYTES = 1024          # PROTOCOL.md §1, without the "\n"
STDERR_CAP_BYTES = 1 << 20     # PROTOCOL.md §1: the first 1 MiB of stderr is kept
EXIT_GRACE_S = 1.0             # PROTOCOL.md §4.4: after match_end the bot has 1 s to exit
_READ_CHUNK = 65536
_STDOUT_KEPT = 1 << 16         # bytes of unread stdout kept: far more than an answer ever needs


class BotFault(Exception):
    """A bot broke the protocol: ``fault`` says how (PROTOCOL.md §5), ``detail`` in words."""

    def __init__(self, fault: Fault, detail: str, line: bytes | None = None):
        super().__init__(f"{fault}: {detail}")
        self.fault = fault
        self.detail = detail
        self.line = line


@dataclass(frozen=True)
class Limits:
    """A bot's limits in one match (PROTOCOL.md §6). ``bank_ms``: a time bank per bot and match
    that a decision draws on once its own limit is spent (0: none, every decision has exactly its
    limit); ``first_decision_ms``: the limit of a bot's first decision, longer for a runtime that
    compiles as it warms up (0: ``decision_ms``)."""

    decision_ms: int = DEFAULT_DECISION_MS
    startup_ms: int = DEFAULT_STARTUP_MS
    max_line_bytes: int = MAX_LINE_BYTES
    stderr_cap: int = STDERR_CAP_BYTES
    sandbox: SandboxLimits = field(default_factory=SandboxLimits)
    bank_ms: int = 0
    first_decision_ms: int = 0
    debug_decision_bytes: int = DEBUG_DECISION_BYTES
    debug_match_bytes: int = DEBUG_MATCH_BYTES

    @property
    def first_limit_ms(self) -> int:
        """The limit of a bot's first decision."""
        return self.first_decision_ms or self.decision_ms

    @property
    def clocked(self) -> bool:
        """Whether a bank or a first decision's limit is in force (the ``clock`` line says so)."""
        return bool(self.bank_ms or self.first_decision_ms)


def clock_problem(decision_ms: int, first_decision_ms: int) -> str | None:
    """What is wrong with a first decision's limit beside ``decision_ms``, in words; None when
    nothing is. It lengthens the first decision: a shorter one is a mistake, not a setting."""
    if first_decision_ms and first_decision_ms < decision_ms:
        return (f"first_decision_ms ({first_decision_ms}) must be 0 (the first decision has "
                f"decision_ms) or at least decision_ms ({decision_ms})")
    return None


class BotProcess:
    """A running bot. Use ``start()``, then ``send``/``read_line``, and always ``close()``."""

    def __init__(self, argv: Sequence[str], limits: Limits = Limits(),
                 stderr_log: Path | None = None, files: Path | None = None, subdir: str = ".",
                 hide: Sequence[Path] = ()):
        if not argv:
            raise ValueError("a bot command needs at least a program")
        self.argv = list(argv)
        self.limits = limits
        self.stderr_log_path = stderr_log
        self._files = files  # a folder copied in as the bot's working folder (a registered bot)
        self._subdir = subdir
        self._hide = hide  # folders the bot must not see (the match record, the logs)
        self._sandbox: Sandbox | None = None
        self.report: Report | None = None  # what the sandbox saw, once closed
        self._proc: subprocess.Popen[bytes] | ZygoteChild | None = None
        self._buffer = bytearray()
        self._outbox: list[str] = []
        self._eof = False
        self._stderr_file: BinaryIO | None = None
        self._stderr_written = 0
        self.stderr_dropped = 0
        self._debug = bytearray()  # stderr since the last take_debug(), within its caps
        self._debug_dropped = 0    # bytes of it beyond the caps
        self._debug_room = limits.debug_match_bytes  # what the match's cap has left
        self.started_at = 0.0
        self._input_ended: float | None = None  # when end_input() closed its stdin
        # One epoll set for the bot's life, on raw fds: the referee waits on it twice a decision,
        # and selectors' per-call bookkeeping cost more than the system call itself.
        self._poll: select.epoll | None = None
        self._watched: dict[int, str] = {}  # fd -> "out", "err" or "exit"
        self._zygote_cpu_s: float | None = None
        self._zygote_minflt = 0
        # Where its start and end went, in ns (phases.py): read by the benchmark alone.
        self.times: dict[str, int] = {}

    # -- life cycle ------------------------------------------------------------------------------

    def start(self) -> None:
        """Start the process. A program that cannot be started is an ``exit`` fault."""
        if self.stderr_log_path is not None:
            private_subfolder(self.stderr_log_path.parent)
            self._stderr_file = open(open_private(self.stderr_log_path, os.O_WRONLY | os.O_TRUNC),
                                     "wb")
        t0 = time.perf_counter_ns()
        try:
            self._sandbox = Sandbox(self.limits.sandbox, files=self._files, subdir=self._subdir,
                                    hide=self._hide)
            t1 = time.perf_counter_ns()
            self.times[phases.SANDBOX_SETUP] = t1 - t0
            # A Python bot the zygote serves is forked from it, in the same sandbox (zygote.py);
            # anything else, or without a zygote, is started by exec.
            self._proc = self._sandbox.from_zygote(self.argv)
            if self._proc is None:
                argv, sandbox_args = self._sandbox.command(self.argv)
                self._proc = subprocess.Popen(
                    argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                    env=minimal_env(self._sandbox.workdir), start_new_session=True,
                    close_fds=True, **sandbox_args)
                self._sandbox.started()
            self.times[phases.SPAWN] = time.perf_counter_ns() - t1
        except OSError as err:
            raise BotFault(Fault.EXIT, f"cannot start {self.argv[0]!r}: {err.strerror or err}") \
                from err
        self.started_at = time.monotonic()
        stdin, stdout, stderr = _pipes(self._proc)
        for stream in (stdin, stdout, stderr):
            os.set_blocking(stream.fileno(), False)
        self._poll = select.epoll()
        for stream, kind in ((stdout, "out"), (stderr, "err")):
            self._poll.register(stream.fileno(), select.EPOLLIN)
            self._watched[stream.fileno()] = kind

    def exceeded(self) -> str:
        """The caps of the bot's cgroup it has run into so far, in words ("" when none)."""
        return self._sandbox.exceeded() if self._sandbox is not None else ""

    def asked(self, asked: bool) -> None:
        """Say whether the referee now waits for this bot's answer: a bot waiting for the referee
        gets the CPU only where no deciding bot wants it (``cgroups.BotCgroup.asked``)."""
        if self._sandbox is not None:
            self._sandbox.asked(asked)

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc else None

    @property
    def via_zygote(self) -> bool:
        """Whether the bot was forked by the zygote (``zygote.py``) rather than exec'ed."""
        return isinstance(self._proc, ZygoteChild) or self._zygote_cpu_s is not None

    def child_cpu_s(self) -> float:
        """After ``close()``: the CPU time of a zygote child's processes (launcher, PID 1, bot),
        which the zygote reaped; 0 for an exec'ed bot, whose time is this process's children's."""
        return self._zygote_cpu_s or 0.0

    def child_minflt(self) -> int:
        """After ``close()``: a zygote child's minor page faults (launcher, PID 1, bot), as
        ``child_cpu_s``; 0 for an exec'ed bot (the benchmark reads those from its own rusage)."""
        return self._zygote_minflt

    def end_input(self) -> None:
        """Close the bot's stdin: the end of its match (PROTOCOL.md §4.4), after which it has
        ``EXIT_GRACE_S`` to exit, counted from here. The referee ends every bot's input before it
        waits for any: the bots then exit side by side, not one after another (issue 34: each
        exit is a chain of wake-ups, the bot, PID 1 of its namespace, the launcher, the zygote)."""
        if self._proc is not None and self._input_ended is None:
            self._input_ended = time.monotonic()
            try:
                _pipes(self._proc)[0].close()
            except OSError:
                pass

    def close(self, grace_s: float = EXIT_GRACE_S) -> int | None:
        """Close stdin (unless ``end_input`` did), give the bot ``grace_s`` from then to exit,
        then end its whole process group. Returns the exit status (negative: killed by that
        signal)."""
        proc = self._proc
        status = None
        t0 = time.perf_counter_ns()
        if proc is not None:
            stdin, stdout, stderr = _pipes(proc)
            self.end_input()
            assert self._input_ended is not None
            deadline = self._input_ended + grace_s
            exit_fd = self._watch_exit(proc)
            # Without a pidfd nothing wakes us when the bot exits after its output closed: poll.
            step = 0.02 if exit_fd is not None else 0.002
            while proc.poll() is None and time.monotonic() < deadline:
                self._pump(min(step, max(0.0, deadline - time.monotonic())))
            if exit_fd is not None:
                self._unwatch(exit_fd)
                os.close(exit_fd)
            if isinstance(proc, ZygoteChild):
                proc.kill()  # the group while its leader lives; the leader through its pidfd
            else:
                try:
                    os.killpg(proc.pid, signal.SIGKILL)  # the group: what the bot left behind too
                except (ProcessLookupError, PermissionError):
                    pass
            status = proc.wait()
            t1 = time.perf_counter_ns()
            self.times[phases.EXIT] = t1 - t0
            if isinstance(proc, ZygoteChild):
                self._zygote_cpu_s = proc.cpu_s
                self._zygote_minflt = proc.minflt
            if self._sandbox is not None:
                self.report = self._sandbox.finish()
                if self.report.status is not None:
                    status = self.report.status  # the bot's own, not the launcher's
                self.times[phases.FINISH] = time.perf_counter_ns() - t1
            self._pump(0)  # whatever stderr is left
            for stream in (stdout, stderr):
                stream.close()
        if self._poll is not None:
            self._poll.close()
            self._poll = None
            self._watched.clear()
        if self._stderr_file is not None:
            if self.stderr_dropped:
                self._stderr_file.write(f"\n[arena: {self.stderr_dropped} more bytes of stderr "
                                        "discarded]\n".encode())
            self._stderr_file.close()
            self._stderr_file = None
        if self._sandbox is not None:
            t2 = time.perf_counter_ns()
            self._sandbox.close()  # its folder goes, its user id is free again
            self._sandbox = None
            self.times[phases.REMOVE] = time.perf_counter_ns() - t2
        self._proc = None
        return status

    # -- writing ---------------------------------------------------------------------------------

    def queue(self, line: str) -> None:
        """Add a line to what the next ``flush`` writes. Lines meant for the same moment go out in
        one write: each write wakes the bot, and the wake-ups, not the bytes, are what cost."""
        self._outbox.append(line)

    def send(self, line: str, timeout_s: float | None = None) -> None:
        """Write one line now (after anything queued)."""
        self._outbox.append(line)
        self.flush(timeout_s)

    def flush(self, timeout_s: float | None = None) -> None:
        """Write the queued lines. A bot that does not read its input within ``timeout_s``
        (default: the decision limit) times out; a bot that has exited is an ``exit`` fault."""
        if not self._outbox:
            return
        proc = self._require()
        text = ("\n".join(self._outbox) + "\n").encode()
        self._outbox.clear()
        fd = _pipes(proc)[0].fileno()
        try:
            written = os.write(fd, text)  # the usual case: the pipe takes it all at once
        except BlockingIOError:
            written = 0
        except (BrokenPipeError, OSError) as err:
            if isinstance(err, BrokenPipeError) or err.errno == errno.EPIPE:
                raise BotFault(Fault.EXIT, self._exit_detail("its input was closed")) from None
            raise
        if written == len(text):
            return
        data = memoryview(text)[written:]
        deadline = None  # read only if the pipe is full: a write almost always takes it all
        while data:
            try:
                written = os.write(fd, data)
                data = data[written:]
                continue
            except BlockingIOError:
                pass
            except (BrokenPipeError, OSError) as err:
                if isinstance(err, BrokenPipeError) or err.errno == errno.EPIPE:
                    raise BotFault(Fault.EXIT, self._exit_detail("its input was closed")) from None
                raise
            if deadline is None:
                deadline = time.monotonic() + (self.limits.decision_ms / 1000 if timeout_s is None
                                               else timeout_s)
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise BotFault(Fault.TIMEOUT, "did not read its input (the pipe stayed full)")
            with selectors.DefaultSelector() as wsel:
                wsel.register(fd, selectors.EVENT_WRITE)
                wsel.select(min(remaining, 0.05))
            self._pump(0)

    # -- reading ---------------------------------------------------------------------------------

    def unread_output(self) -> bytes:
        """Whatever the bot has written that was not read yet, without waiting (up to 200 bytes).
        Before a request this must be empty: anything there was not an answer (PROTOCOL.md §5)."""
        self._pump(0)
        return bytes(self._buffer[:200]) if self._buffer else b""

    def read_line(self, timeout_s: float, limit: str = "") -> bytes:
        """The next line without its ``\\n``, within ``timeout_s``.

        Raises ``BotFault`` for ``timeout`` (its detail names ``limit``, the limit that ran out,
        when given), ``line_too_long`` or ``exit``."""
        deadline = time.monotonic() + timeout_s
        looked = False  # an answer already in the pipe is on time, however late we look at it
        while True:
            line = self._take_line(final=self._eof) if self._buffer else None
            if line is not None:
                return line
            if self._eof:
                raise BotFault(Fault.EXIT, self._exit_detail("closed its output"))
            remaining = deadline - time.monotonic()
            if remaining <= 0 and looked:
                partial = f" ({len(self._buffer)} bytes of an unfinished line)" if self._buffer else ""
                raise BotFault(Fault.TIMEOUT,
                               f"no answer within {timeout_s * 1000:.0f} ms{partial}{limit}",
                               bytes(self._buffer[:200]) or None)
            # One wait per look: it returns at once when the answer is there (no separate look
            # without waiting first: each is a system call, and the referee reads one per decision).
            self._pump(max(remaining, 0.0))
            looked = True

    def read_ready_line(self) -> bytes:
        """The bot's answer to the greeting, within what is left of its start-up limit (PROTOCOL.md
        §3); a timeout says so in those words. The referee and the pre-flight both read it here."""
        remaining = self.started_at + self.limits.startup_ms / 1000 - time.monotonic()
        try:
            return self.read_line(max(remaining, 0.0))
        except BotFault as err:
            if err.fault != Fault.TIMEOUT:
                raise
            raise BotFault(Fault.TIMEOUT, f"no 'ready' within the start-up limit of "
                                          f"{self.limits.startup_ms} ms", err.line) from None

    def _take_line(self, final: bool) -> bytes | None:
        buf = self._buffer
        end = buf.find(b"\n", 0, self.limits.max_line_bytes + 1)
        if end < 0:
            if len(buf) > self.limits.max_line_bytes or (final and buf):
                if len(buf) > self.limits.max_line_bytes:
                    raise BotFault(Fault.LINE_TOO_LONG, f"wrote more than {self.limits.max_line_bytes} "
                                   "bytes without a newline", bytes(buf[:200]))
                line = bytes(buf)  # the last line of a bot that exited without a newline
                buf.clear()
                return line
            return None
        line = bytes(buf[:end])
        del buf[:end + 1]
        return line

    def _watch_exit(self, proc: subprocess.Popen[bytes] | ZygoteChild) -> int | None:
        """A pidfd for the process in the selector, so that ``_pump`` wakes the moment it
        exits (Linux 5.3+). Waiting by polling cost each match two sleeps of 20 ms at its end. A
        zygote child: its control socket, readable once the zygote has reaped it."""
        if self._poll is None:
            return None
        if isinstance(proc, ZygoteChild):
            fd = proc.exit_fd()
            if fd is None:
                return None
        elif not hasattr(os, "pidfd_open"):
            return None
        else:
            try:
                fd = os.pidfd_open(proc.pid)
            except OSError:  # an old kernel, or the process is already reaped
                return None
        self._poll.register(fd, select.EPOLLIN)
        self._watched[fd] = "exit"
        return fd

    def _pump(self, timeout_s: float) -> None:
        """Wait up to ``timeout_s`` for output; move stdout into the buffer and stderr into the log."""
        poll = self._poll
        if poll is None:
            return
        for fd, _ in poll.poll(timeout_s):
            kind = self._watched.get(fd)
            if kind is None or kind == "exit":
                continue  # the process has exited: the caller's poll() will see it
            try:
                chunk = os.read(fd, _READ_CHUNK)
            except BlockingIOError:
                continue
            except OSError:
                chunk = b""
            if kind == "out":
                if chunk:
                    # A flood is a fault found by _take_line or as unsolicited output, not a memory
                    # problem here: what is beyond any answer's size is dropped unread.
                    room = max(_STDOUT_KEPT, self.limits.max_line_bytes + 1) - len(self._buffer)
                    if room > 0:
                        self._buffer += chunk[:room]
                else:
                    self._eof = True
                    self._unwatch(fd)
            elif chunk:
                self._log_stderr(chunk)
            else:
                self._unwatch(fd)

    def _unwatch(self, fd: int) -> None:
        if self._poll is not None and self._watched.pop(fd, None) is not None:
            self._poll.unregister(fd)

    def _log_stderr(self, chunk: bytes) -> None:
        room = self.limits.stderr_cap - self._stderr_written
        if self._stderr_file is not None and room > 0:
            self._stderr_file.write(chunk[:room])
            self._stderr_file.flush()
        kept = min(max(room, 0), len(chunk))
        self._stderr_written += kept
        self.stderr_dropped += len(chunk) - kept
        room = min(self.limits.debug_decision_bytes - len(self._debug), self._debug_room)
        kept = min(max(room, 0), len(chunk))
        if kept:
            self._debug += chunk[:kept]
            self._debug_room -= kept
        self._debug_dropped += len(chunk) - kept

    def take_debug(self) -> tuple[list[str], int] | None:
        """The stderr the referee has read since the last call, as lines (a line cut by a cap, or
        still being written, is there as far as it came), and how many bytes beyond the caps were
        not kept; None when there was none. The referee calls it when a decision's answer is in,
        so what a bot writes before its answer goes with that decision."""
        if not self._debug and not self._debug_dropped:
            return None
        lines = self._debug.decode("utf-8", "replace").splitlines()
        dropped = self._debug_dropped
        self._debug.clear()
        self._debug_dropped = 0
        return lines, dropped

    def _exit_detail(self, what: str) -> str:
        proc = self._proc
        if proc is not None:
            try:
                status = proc.wait(timeout=0.2)
            except subprocess.TimeoutExpired:
                return what
            report = self._sandbox.finish() if self._sandbox is not None else Report()
            if report.status is None and not report.error:
                # no launcher, or it was killed: what the process itself said (and the cap that
                # the sandbox saw it exceed)
                report = replace(report, status=status)
            return f"{what}; {report.describe(self.limits.sandbox)}"
        return what

    def _require(self) -> subprocess.Popen[bytes] | ZygoteChild:
        if self._proc is None:
            raise BotFault(Fault.EXIT, "the bot process is not running")
        return self._proc


def _pipes(proc: subprocess.Popen[bytes] | ZygoteChild) -> tuple[IO[bytes], IO[bytes], IO[bytes]]:
    """stdin, stdout and stderr of a bot, which ``start()`` always opens as pipes."""
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    return proc.stdin, proc.stdout, proc.stderr


def stderr_tail(path: Path, lines: int, width: int) -> list[str]:
    """The last ``lines`` non-blank lines of a bot's stderr log, each cut to ``width`` characters
    (for error reports: a failed qualification, a bot that did not start)."""
    try:
        data = path.read_bytes()[-4096:]
    except OSError:
        return []
    shown = [line.rstrip()[:width] for line in data.decode("utf-8", "replace").splitlines()
             if line.strip()]
    return shown[-lines:]
