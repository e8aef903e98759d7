#!/usr/bin/env python3
"""Does any process of a tournament outlive it? ``kill -9`` at random moments, then count.

Each kill starts a real tournament (``arena tournament``, Python bots from the zygote and a C bot
by exec, two workers) in a session and process group of its own, waits a random time (start-up,
workers spawning, the pre-flight, matches under way) and kills with ``SIGKILL`` either the
coordinator alone or its whole process group. Then it watches what the tournament started: a
survivor is a process still alive (not a zombie) 1 s (and 2 s) after the kill.

What the tournament started is known exactly, without scanning the machine (another arena may
run beside it): this script is a child subreaper (``PR_SET_CHILD_SUBREAPER``), so every process
the tournament started, down to a bot in its PID namespace, stays its descendant, and an orphan
is handed to it rather than to init. A survivor is any live descendant; it is printed with what
it waits in (``wchan``) and its CPU cgroup, then killed, so that each kill starts clean.

Usage: scripts/bench_orphans.py [-n KILLS] [--max-delay S] [--mode coordinator|group|both]
                                [--anchor start|play|both] [--seed N] [--json]
                                [-- TOURNAMENT OPTIONS...]
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PR_SET_CHILD_SUBREAPER = 36  # <linux/prctl.h>
CHECKS_S = (1.0, 2.0)        # when survivors are counted, after the kill
POLL_S = 0.01
START_S = 60.0               # at most this long for a tournament's first match to be recorded
DEFAULT_TOURNAMENT = ["-b", "random", "-b", "greedy", "-b", "c-counter", "-n", "5000", "-w", "2"]


def become_subreaper() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER)")


def _stat(pid: int) -> list[str] | None:
    """The fields of /proc/PID/stat after the command's ")" (state first); None: gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[1].decode().split()
    except (OSError, IndexError):
        return None


def _children(pid: int) -> list[int]:
    found: list[int] = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as fh:
                found += [int(p) for p in fh.read().split()]
    except OSError:
        pass
    return found


def reap() -> None:
    """Reap every child of ours that has exited (orphans come to us as our children)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


_LOAD: set[int] = set()  # our own busy processes (--load): not the tournament's


def descendants() -> list[int]:
    """Every live (not zombie) process below this one, but our own busy ones."""
    found: list[int] = []
    todo = [pid for pid in _children(os.getpid()) if pid not in _LOAD]
    while todo:
        pid = todo.pop()
        fields = _stat(pid)
        if fields is None:
            continue
        if fields[0] not in ("Z", "X"):
            found.append(pid)
        todo += _children(pid)
    return sorted(found)


def describe(pid: int) -> str:
    fields = _stat(pid)
    if fields is None:
        return f"{pid}: gone"

    def read(name: str) -> str:
        try:
            return Path(f"/proc/{pid}/{name}").read_bytes().replace(b"\0", b" ").decode(
                errors="replace").strip()
        except OSError:
            return "?"

    return (f"{pid} (parent {fields[1]}) state {fields[0]} wchan {read('wchan')} "
            f"{cpu_cgroup(read('cgroup'))}: {read('cmdline')[:90]}")


def cpu_cgroup(text: str) -> str:
    """The process's CPU cgroup and its weight, from its /proc/PID/cgroup."""
    from arena.isolation import cgroups

    own = {}
    for line in text.split():
        _, controllers, path = line.split(":", 2)
        for controller in controllers.split(",") if controllers else [""]:
            own[controller] = path
    controller = "cpu" if "cpu" in own else ""
    path = own.get(controller, "?")
    mount = cgroups._mounts().get(controller)
    folder = cgroups._folder(mount, path) if mount else None
    for name in ("cpu.shares", "cpu.weight"):
        if folder is not None and (folder / name).exists():
            return f"cpu cgroup {path} ({name} {(folder / name).read_text().strip()})"
    return f"cpu cgroup {path}"


def kill_all_below(timeout_s: float = 10.0) -> None:
    deadline = time.monotonic() + timeout_s
    while (left := descendants()) and time.monotonic() < deadline:
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        time.sleep(POLL_S)
        reap()


def one_kill(n: int, mode: str, anchor: str, delay_s: float, tournament: list[str],
             folder: Path, verbose: bool) -> dict[str, Any]:
    out = folder / f"run{n}"
    env = {**os.environ, "ARENA_DATA": str(folder / "data")}
    proc = subprocess.Popen([sys.executable, "-m", "arena.cli.main", "tournament", "--no-report",
                             *tournament, "-o", str(out)], cwd=ROOT, env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    started = time.monotonic()
    seen: set[int] = set()  # for the report: how many processes it had started by the kill
    records = out / "records"
    while anchor == "play" and proc.poll() is None and time.monotonic() - started < START_S:
        if records.is_dir() and any(records.iterdir()):  # matches are under way
            break
        seen.update(descendants())
        time.sleep(POLL_S * 5)
    anchored = time.monotonic()
    while time.monotonic() - anchored < delay_s and proc.poll() is None:
        seen.update(descendants())
        time.sleep(POLL_S * 5)
    if mode == "group":
        os.killpg(proc.pid, signal.SIGKILL)
    else:
        os.kill(proc.pid, signal.SIGKILL)
    killed = time.monotonic()
    proc.wait()
    survivors: dict[float, list[str]] = {}
    gone_after: float | None = None
    while time.monotonic() - killed < max(CHECKS_S):
        reap()
        left = descendants()
        if not left and gone_after is None:
            gone_after = time.monotonic() - killed
        for check in CHECKS_S:
            if check not in survivors and time.monotonic() - killed >= check:
                survivors[check] = [describe(pid) for pid in left]
        if gone_after is not None and len(survivors) == len(CHECKS_S):
            break
        time.sleep(POLL_S)
    for check in CHECKS_S:
        survivors.setdefault(check, [])
    if gone_after is None:
        kill_all_below()
    result = {"kill": n, "mode": mode, "anchor": anchor, "delay_s": round(delay_s, 2),
              "processes": len(seen),
              "gone_after_s": None if gone_after is None else round(gone_after, 3),
              **{f"survivors_{check:g}s": survivors[check] for check in CHECKS_S}}
    if verbose:
        print(f"kill {n}: {mode}, {delay_s:.2f} s after its {anchor} "
              f"({len(seen)} processes seen): "
              + (f"all gone after {gone_after:.3f} s" if gone_after is not None else
                 f"{len(survivors[max(CHECKS_S)])} still alive at {max(CHECKS_S):g} s"),
              flush=True)
        for check in CHECKS_S:
            for line in survivors[check]:
                print(f"    at {check:g} s: {line}", flush=True)
    shutil.rmtree(out, ignore_errors=True)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", "--kills", type=int, default=10)
    parser.add_argument("--max-delay", type=float, default=4.0,
                        help="kill at a moment drawn uniformly from 0..S seconds after the anchor")
    parser.add_argument("--mode", choices=("coordinator", "group", "both"), default="both",
                        help="kill the coordinator alone, its process group, or each in turn")
    parser.add_argument("--anchor", choices=("start", "play", "both"), default="both",
                        help="count the delay from the tournament's start (its start-up: workers "
                             "spawning, zygotes, the pre-flight), from its first recorded match, "
                             "or each in turn")
    parser.add_argument("--load", type=int, default=0,
                        help="run N busy processes beside the tournament, as a loaded machine has "
                             "(other arenas, other users)")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--json", action="store_true", help="one JSON object per kill, no text")
    parser.add_argument("tournament", nargs="*", help=f"after --: the tournament's options "
                                                      f"(default: {' '.join(DEFAULT_TOURNAMENT)})")
    args = parser.parse_args()
    become_subreaper()
    rng = random.Random(args.seed)
    tournament = args.tournament or DEFAULT_TOURNAMENT
    results: list[dict[str, Any]] = []
    load = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.load)]
    _LOAD.update(p.pid for p in load)
    try:
        run(args, tournament, rng, results)
    finally:
        for busy in load:
            busy.kill()
            busy.wait()
    if not args.json:
        for check in CHECKS_S:
            hit = [r for r in results if r[f"survivors_{check:g}s"]]
            count = sum(len(r[f"survivors_{check:g}s"]) for r in results)
            print(f"survivors at {check:g} s: {len(hit)} of {len(results)} kills "
                  f"({count} processes)")
    return 0


def run(args: argparse.Namespace, tournament: list[str], rng: random.Random,
        results: list[dict[str, Any]]) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-orphans-") as tmp:
        folder = Path(tmp)
        # The C bots are built once before the kills, not by the first tournament.
        subprocess.run([sys.executable, "-m", "arena.cli.main", "play", "c-counter", "random"],
                       cwd=ROOT, env={**os.environ, "ARENA_DATA": str(folder / "data")},
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        for n in range(args.kills):
            mode = args.mode if args.mode != "both" else ("coordinator", "group")[n % 2]
            anchor = args.anchor if args.anchor != "both" else ("start", "play")[n // 2 % 2]
            result = one_kill(n, mode, anchor, rng.uniform(0, args.max_delay), tournament, folder,
                              verbose=not args.json)
            results.append(result)
            if args.json:
                print(json.dumps(result), flush=True)


if __name__ == "__main__":
    sys.exit(main())
