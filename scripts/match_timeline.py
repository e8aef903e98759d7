#!/usr/bin/env python3
"""Where a match's wall time goes in a tournament worker: a per-match timeline (issue 18).

Runs one tournament (``--workers 1``, then ``--workers 2``, or what ``--workers`` lists) with the
worker's steps timed: each step's start and end on the machine's monotonic clock (shared by every
process) and the worker process's CPU clock, so that each step's wall time splits into the
worker's own CPU and its wait (for a bot, the zygote, the kernel, the coordinator). Prints, per
worker count, the median of each step per match and the wait between a match's result and the
next job, and writes every event (``--events DIR``) for a closer look.

Nothing in the arena changes for it: the steps are wrapped in this process and, because workers
are spawned and re-run this file's top level as ``__mp_main__`` (the pool's job function is this
file's ``_timed_play``), in every worker too. With
``ARENA_TIMELINE`` unset (a plain import) nothing is wrapped.

Usage: scripts/match_timeline.py [--bots greedy,c-counter,random] [--matches-per-pairing 20]
                                 [--workers 1,2] [--pin=-,-] [--events DIR]
(``--pin=0,1`` with the ``=``: a value may start with ``-``.)

What it found (issue 18): no lock and no serial step. Between a job's result and the next job
~2 ms, a bot's exit and its sandbox's removal ~5 ms, alike with 1 and 2 workers; what grew with a
second worker was every step that waits for a bot (start, ``ready``, each answer) at the same CPU:
the referee and its bots woke each other across the two cores, each behind the other match's
processes. ``--workers 2,2 --pin=0,1`` shows it; each worker now keeps to a core (worker_cores.py).
And a fixed ~0.5 s before the first match (a worker's interpreter and imports, then its zygote's
boot at its first match), which a second worker cannot shorten: workers now start beside the
pre-flight and boot their zygote as they start ("first job to its play" fell from ~0.2-0.5 s to
~0.03 s).
"""

from __future__ import annotations

import argparse
import functools
import os
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import arena.compete.match_job as match_job  # noqa: E402
import arena.compete.pool as pool  # noqa: E402
import arena.compete.tournament as tournament  # noqa: E402
import arena.isolation.launch as launch  # noqa: E402
import arena.isolation.zygote as zygote  # noqa: E402
import arena.match.bot_process as bot_process  # noqa: E402
import arena.match.referee as referee  # noqa: E402

_out: Any = None  # this process's event file
_out_folder = ""


def _event(name: str, phase: str, detail: str = "") -> None:
    global _out, _out_folder
    if _out is None or _out_folder != os.environ["ARENA_TIMELINE"]:  # a new run, a new folder
        _out_folder = os.environ["ARENA_TIMELINE"]
        _out = open(Path(_out_folder) / f"{os.getpid()}.tsv", "a", buffering=1)
    _out.write(f"{time.monotonic_ns()}\t{time.process_time_ns()}\t{name}\t{phase}\t{detail}\n")


def _wrap(owner: Any, attr: str, name: str, detail: Callable[..., str] | None = None) -> None:
    inner = getattr(owner, attr)

    @functools.wraps(inner)
    def timed(*args: Any, **kwargs: Any) -> Any:
        d = detail(*args) if detail else ""
        _event(name, "b", d)
        try:
            return inner(*args, **kwargs)
        finally:
            _event(name, "e", d)
    timed._timeline = True  # type: ignore[attr-defined]
    setattr(owner, attr, timed)


def _bot(proc: Any) -> str:
    return os.path.basename(proc.argv[-1])


def _timed_play(job: Any) -> Any:
    """The pool's job function while a timeline is taken. Defined here, in ``__main__``, so that
    the pool lets its workers import this file (it leaves ``__main__`` out of a worker whose
    functions all live elsewhere: pool.main_left_out), and they wrap their steps too."""
    return match_job.play_for_store(job)


def _install() -> None:
    """Wrap the steps of a match in this process (coordinator or worker)."""
    _wrap(match_job, "play_for_store", "job", lambda job: job.entry.match_id)
    tournament.play_for_store = _timed_play
    _wrap(referee._Match, "_start_and_greet", "greet")
    _wrap(referee._Match, "_play", "play")
    _wrap(bot_process.BotProcess, "start", "bot.start", _bot)
    _wrap(bot_process.BotProcess, "read_ready_line", "bot.ready", _bot)
    _wrap(bot_process.BotProcess, "close", "bot.close", _bot)
    _wrap(launch.Launch, "__init__", "sandbox.make")
    _wrap(launch.Launch, "finish", "sandbox.report")
    _wrap(launch.Launch, "wait_empty", "sandbox.wait_empty")
    _wrap(launch.Launch, "cleanup", "sandbox.cleanup")
    _wrap(zygote.Zygote, "spawn", "zygote.spawn")
    _wrap(zygote.ZygoteChild, "wait", "bot.wait")
    # In the coordinator: a result taken from a worker, the next job handed out.
    _wrap(pool.Pool, "_receive", "pool.receive")
    _wrap(pool.Pool, "_give", "pool.give")
    _wrap(tournament, "_preflight_on", "preflight")  # on the workers, through their zygotes
    _wrap(pool.Pool, "__enter__", "pool.start")
    _wrap(pool.Pool, "close", "pool.close")
    _wrap(zygote, "_start", "zygote.boot")
    _wrap(pool, "_worker_main", "worker")


if os.environ.get("ARENA_TIMELINE"):
    _install()
    if __name__ == "__mp_main__":  # a spawned worker: its interpreter started and imported
        _event("worker.imported", "b")


# -- the analysis -----------------------------------------------------------------------------------

Event = tuple[int, int, str, str, str]  # wall ns, CPU ns, name, b/e, detail


def _read(folder: Path) -> dict[int, list[Event]]:
    events: dict[int, list[Event]] = {}
    for path in folder.glob("*.tsv"):
        rows = []
        for line in path.read_text().splitlines():
            wall, cpu, name, phase, detail = line.split("\t")
            rows.append((int(wall), int(cpu), name, phase, detail))
        events[int(path.stem)] = rows
    return events


def _spans(rows: list[Event]) -> list[tuple[str, str, int, int, int, int]]:
    """(name, detail, wall begin, wall end, CPU begin, CPU end) of each step, in order of begin."""
    open_: dict[tuple[str, str], list[tuple[int, int]]] = defaultdict(list)
    spans = []
    for wall, cpu, name, phase, detail in rows:
        if phase == "b":
            open_[name, detail].append((wall, cpu))
        elif open_[name, detail]:
            w0, c0 = open_[name, detail].pop()
            spans.append((name, detail, w0, wall, c0, cpu))
    return sorted(spans, key=lambda s: s[2])


def analyse(folder: Path) -> dict[str, tuple[float, float]]:
    """Median per match of each step's wall and worker-CPU milliseconds (sums over a match's
    several spans of one step), and of the gap between a job's end and the next job's start."""
    per_step: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for pid, rows in _read(folder).items():
        spans = _spans(rows)
        jobs = [s for s in spans if s[0] == "job"]
        if not jobs:
            continue  # the coordinator, or a pre-flight's process
        for i, job in enumerate(jobs):
            _, _, w0, w1, c0, c1 = job
            inside: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
            for name, _, a, b, ca, cb in spans:
                if name != "job" and w0 <= a and b <= w1:
                    inside[name][0] += (b - a) / 1e6
                    inside[name][1] += (cb - ca) / 1e6
            inside["job"] = [(w1 - w0) / 1e6, (c1 - c0) / 1e6]
            if i + 1 < len(jobs):  # result sent, stored, next job handed out and received
                nxt = jobs[i + 1]
                inside["between jobs"] = [(nxt[2] - w1) / 1e6, (nxt[4] - c1) / 1e6]
            for name, (wall, cpu) in inside.items():
                per_step[name].append((wall, cpu))
    return {name: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v))
            for name, v in per_step.items()}


ORDER = ["job", "greet", "bot.start", "sandbox.make", "zygote.spawn", "bot.ready", "play",
         "bot.close", "bot.wait", "sandbox.report", "sandbox.wait_empty", "sandbox.cleanup",
         "between jobs"]


def phases(folder: Path, run: tuple[int, int]) -> dict[str, float]:
    """Seconds of the whole run, in order: the pre-flight; until the pool starts; the workers'
    start (spawned interpreter, imports) until the first is ready; its first match until its
    play begins (the zygote's boot, the first sandbox); every match (first job's start to the
    last one's end, in any worker); after them (the pool's close: workers exit)."""
    jobs: list[int] = []
    ends: list[int] = []
    firsts: list[int] = []  # each worker's first play
    marks: dict[str, int] = {}
    for rows in _read(folder).values():
        worker_jobs: list[int] = []
        first_play = None
        for name, _, w0, w1, _, _ in _spans(rows):
            if name in ("preflight", "pool.start", "pool.close"):
                marks[name + ".b"], marks[name + ".e"] = w0, w1
            elif name == "job":
                worker_jobs.append(w0)
                ends.append(w1)
            elif name == "play" and first_play is None:
                first_play = w0
                firsts.append(w0)
        for w, _, name, _, _ in rows:
            if name == "worker.imported":
                marks["imported"] = min(marks.get("imported", w), w)
        jobs += worker_jobs[:1]
    s = 1e9
    return {"pre-flight s": (marks["preflight.e"] - marks["preflight.b"]) / s,
            "run start to pool start s": (marks["pool.start.b"] - run[0]) / s,
            "pool start to a worker ready s": (marks["imported"] - marks["pool.start.b"]) / s,
            "first job to its play s": (min(firsts) - min(jobs)) / s if firsts else 0.0,
            "matches s": (max(ends) - min(jobs)) / s,
            "last match to run end s": (run[1] - max(ends)) / s}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", default="greedy,c-counter,random")
    parser.add_argument("--matches-per-pairing", type=int, default=20)
    parser.add_argument("--workers", default="1,2", help="comma-separated worker counts")
    parser.add_argument("--pin", default="",
                        help="comma-separated, one per run: its affinity (0: workers never "
                             "keep to a core, 1: always; -: the default, where they can claim one)")
    parser.add_argument("--events", type=Path, default=None,
                        help="keep every event here (one file per process, tab-separated)")
    args = parser.parse_args()
    results: dict[tuple[int, int], tuple[dict[str, tuple[float, float]], float]] = {}
    runs: dict[tuple[int, int], dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="timeline-") as tmp:
        for run, workers in enumerate(map(int, args.workers.split(","))):
            folder = (args.events or Path(tmp)) / f"{run}-w{workers}"
            folder.mkdir(parents=True, exist_ok=True)
            os.environ["ARENA_TIMELINE"] = str(folder)  # the workers wrap their steps too
            pins = args.pin.split(",") if args.pin else []
            affinity = {"0": False, "1": True}.get(pins[run] if run < len(pins) else "", "auto")
            _uninstall()
            _install()
            config = tournament.load_config(None, {
                "name": "timeline", "bots": args.bots.split(","), "seed": 11, "workers": workers,
                "matches_per_pairing": args.matches_per_pairing, "output": str(Path(tmp) / f"t{run}"),
                "affinity": affinity})
            start = time.monotonic_ns()
            tournament.run_tournament(config)
            end = time.monotonic_ns()
            results[run, workers] = (analyse(folder), (end - start) / 1e9)
            runs[run, workers] = phases(folder, (start, end))
            _uninstall()
    counts = list(results)
    print(f"# per match, medians: wall ms / the worker's own CPU ms; bots {args.bots}, "
          f"{args.matches_per_pairing} matches per pairing")
    pins = args.pin.split(",") if args.pin else []
    print(f"{'step':22}" + "".join(
        f"{f'{w[1]} worker(s)' + {'0': ' free', '1': ' pinned'}.get(pins[w[0]] if w[0] < len(pins) else '', ''):>22}"
        for w in counts))
    names = [n for n in ORDER if any(n in r for r, _ in results.values())]
    names += sorted({n for r, _ in results.values() for n in r} - set(names))
    for name in names:
        cells = []
        for w in counts:
            step = results[w][0].get(name)
            cells.append(f"{step[0]:9.2f} / {step[1]:6.2f}" if step else "")
        print(f"{name:22}" + "".join(f"{c:>22}" for c in cells))
    print(f"{'tournament wall s':22}" + "".join(f"{results[w][1]:>22.2f}" for w in counts))
    for key in runs[counts[0]]:
        print(f"{key:22}" + "".join(f"{runs[w][key]:>22.2f}" for w in counts))


_originals: dict[tuple[Any, str], Any] = {}


def _uninstall() -> None:
    """Undo _install (wrappers nest otherwise): reload the wrapped attributes' originals."""
    for owner in (tournament, match_job, zygote, pool, referee._Match, bot_process.BotProcess, launch.Launch, zygote.Zygote,
                  zygote.ZygoteChild, pool.Pool):
        for attr, value in list(vars(owner).items()):
            inner = getattr(value, "__wrapped__", None)
            if getattr(value, "_timeline", False):
                setattr(owner, attr, inner)
    tournament.play_for_store = match_job.play_for_store


if __name__ == "__main__":
    main()
