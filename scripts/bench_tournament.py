#!/usr/bin/env python3
"""Tournament throughput, measured side by side in one run (targets: speed-up >= 1.85 on 2 cores;
scheduler overhead below 5% of the bare referee's time for the same matches; with ``--baseline``,
greedy vs random at least 2x the matches/s of the previous code).

1. The bare referee: the schedule's matches played one after another with ``run_match`` in this
   process, writing the same records, without pool, store or progress.
2. The same tournament through ``run_tournament`` with 1 worker, then with 2 workers, each placed
   as a run places them by default (kept to a core of its own) and free to use any core.

Overhead per match = (1-worker tournament time - bare time) / matches, both free to use any core;
speed-up = 2-worker matches/s over 1-worker matches/s. Interleaved rounds, medians (these machines
are shared and noisy). The CPU time of each run (this process and every process it waited for:
workers, referees, bots) is printed too: the CPU overhead does not depend on what else the machine
is doing, the wall-clock one does; and the coordinator's own CPU, the scheduler's cost measured
within one run. "Cores busy" says how much of the machine each run used: a match is three
processes, and a free worker's bots start on any core, so one free worker may use more than one
core, which bounds what a second free worker can add on 2 cores.
By default the tournament is the demo's (the bundled bots, the strong one at a 25 ms budget); bots
that think little, like ``--bots greedy,c-counter,random``, spend most of a match starting up.

The speed-up is measured like for like, in the same rounds: 2 workers over 1 as a run places them
by default, each kept to a core of its own (``affinity = "auto"``, worker_cores.py: on a machine
where no other arena holds a core, which the header line checks), and both free to use any core
(``--no-affinity``). Each run prints the split that explains the speed-up: the seconds to the
first result (pre-flight, the workers' start, their first match: fixed, a second worker cannot
shorten them), then a match's wall in a worker (the time between results times the workers), with
the referee's play time in it; and the speed-up after the first result, which leaves that fixed
start out (what a long tournament tends to).

``--baseline REV`` (issue 18) compares this tree with an earlier one instead, in the same run:
REV's files are taken with ``git archive`` into a temporary folder, and each round runs the same
tournament (default: greedy vs random, 2 workers) once with REV's code and once with this tree's,
each in a fresh Python process that imports only its own tree (the order alternates between
rounds). Default REV: c82bbf8, main before issue 34 (issue 18's was afb33c8). Both use this
tree's virtual environment. The figure is the whole run's matches/s (``run_tournament`` from call
to return); the time from the first progress report is printed beside it, but no longer measures
the same thing in both trees: the workers now start before that report, beside the pre-flight.
Issue 34's split follows, for each tree: a match's wall in a worker (from the first progress
report, times the workers) and the referee's play in it (``MatchResult.play_ms``), their ratio
against the target (>= 0.5); then this tree's phases of a match (``arena/match/phases.py``:
sandbox set-up, bot spawn, waiting for ready, play, teardown, the coordinator's store), mean ms.
Issue 34's run: ``--baseline c82bbf8 --bots greedy,c-counter,random --workers 1``.

Usage: scripts/bench_tournament.py [--matches-per-pairing N] [--rounds R] [--bots a,b,c]
       scripts/bench_tournament.py --baseline [REV] [--bots greedy,random] [--workers 2]
       scripts/bench_tournament.py --baseline c82bbf8 --bots greedy,c-counter,random --workers 1
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.match import phases  # noqa: E402
from arena.match.bot_process import Limits  # noqa: E402
from arena.compete.demo import DEMO_BOTS  # noqa: E402
from arena.match.deal_keys import deal_secret, key_from_seed  # noqa: E402
from arena.match.referee import MatchConfig, run_match  # noqa: E402
from arena.compete.schedule import round_robin  # noqa: E402
from arena.compete.tournament import load_config, resolve_bots, rules_of, run_tournament  # noqa: E402
from arena.isolation.worker_cores import CLAIMS_ENV, claimed, usable_cores  # noqa: E402


class _CpuGroup:
    """CPU time of this process and of every process it starts, whoever reaps them: a cgroup of
    v1's ``cpuacct`` hierarchy of its own (root, where the machine has one), else rusage.

    rusage (this process and the children it waited for) misses the Python bots: the zygote that
    forks them reaps them, and it is never waited for (it dies with its worker), so their CPU
    never reached this process, and "cores busy" read ~0.5 of a core where the matches used more.
    A cgroup counts them wherever they run (bots join only ``memory`` and ``pids`` cgroups of
    their own, so they stay in this one)."""

    ROOT = Path("/sys/fs/cgroup/cpuacct")

    def __init__(self) -> None:
        self.path: Path | None = None
        try:
            path = self.ROOT / f"sixtysix-bench-{os.getpid()}"
            path.mkdir()
            self.path = path
            (path / "cgroup.procs").write_text(f"{os.getpid()}\n")
        except OSError:
            self.close()

    @property
    def what(self) -> str:
        return ("a cpuacct cgroup: every process started, Python bots included" if self.path
                else "rusage: this process and the children it reaped (zygote-forked bots missed)")

    def seconds(self) -> float:
        if self.path is not None:
            return int((self.path / "cpuacct.usage").read_text()) / 1e9
        return own_cpu_seconds() + _cpu(resource.getrusage(resource.RUSAGE_CHILDREN))

    def close(self) -> None:
        """Every process still in the group (this one, its zygote, multiprocessing's resource
        tracker) goes back to the hierarchy's root, and the group is removed."""
        if self.path is None:
            return
        try:
            for pid in (self.path / "cgroup.procs").read_text().split():
                try:
                    (self.ROOT / "cgroup.procs").write_text(pid + "\n")
                except OSError:
                    pass  # it has exited meanwhile
            self.path.rmdir()
        except OSError:
            pass
        self.path = None


_cpu_group: _CpuGroup | None = None


def cpu_seconds() -> float:
    """CPU used so far by this process and every process it started (see ``_CpuGroup``)."""
    return _cpu_group.seconds() if _cpu_group is not None else \
        own_cpu_seconds() + _cpu(resource.getrusage(resource.RUSAGE_CHILDREN))


def own_cpu_seconds() -> float:
    """CPU used so far by this process alone: in a tournament, the coordinator (pool, store)."""
    return _cpu(resource.getrusage(resource.RUSAGE_SELF))


def _cpu(usage: resource.struct_rusage) -> float:
    return usage.ru_utime + usage.ru_stime


def bare(config, folder: Path) -> float:  # noqa: ANN001
    """Seconds to play the schedule's matches one by one through the referee alone."""
    rules = rules_of(config)
    specs = {s.name: s for s in resolve_bots(config)}
    schedule = round_robin(config.name, list(specs), config.matches_per_pairing // 2)
    key = key_from_seed(config.seed)  # the same deals as the tournaments it is compared with
    limits = Limits(decision_ms=config.decision_ms, startup_ms=config.startup_ms)
    start = time.perf_counter()
    for m in schedule:
        run_match((specs[m.seat0], specs[m.seat1]),
                  MatchConfig(rules=rules, seed=deal_secret(key, m.deal_set), first_dealer=m.first_dealer,
                              match_id=m.match_id, limits=limits, max_deals=config.max_deals),
                  record_path=folder / "records" / f"{m.match_id}.jsonl", log_dir=folder / "logs")
    return time.perf_counter() - start


def tournament(config, folder: Path, workers: int, affinity: bool | str = "auto") -> dict[str, float]:  # noqa: ANN001
    """One tournament, its workers placed as ``affinity`` says (a run's setting). Returns its wall
    time and where it went: until the first result (pre-flight, the workers' start, their first
    match), the time between results after that (times the workers: a match's wall in a worker),
    and per match the referee's play time and the bots' answer time in it."""
    cfg = load_config(None, {**config.to_dict(), "workers": workers, "output": str(folder),
                             "affinity": affinity})
    stamps: list[float] = []
    play_ms: list[float] = []
    answer_ms: list[float] = []

    def note(progress) -> None:  # noqa: ANN001
        stamps.append(time.perf_counter())
        if progress.last is not None:
            play_ms.append(progress.last.play_ms)
            # The store's seats rows (progress.last is the match as the store's rows): each
            # seat's decisions times its median answer time.
            answer_ms.append(sum(seat[6] * (seat[7] or 0.0) for seat in progress.last.seats))

    start = time.perf_counter()
    run_tournament(cfg, on_progress=note)
    end = time.perf_counter()
    results = stamps[1:]  # the first report comes before any match (after the pre-flight)
    return {"wall": end - start, "to first result": results[0] - start,
            "after first": (len(results) - 1) / max(end - results[0], 1e-9),
            "match wall ms": 1000 * workers * (results[-1] - results[0]) / max(len(results) - 1, 1),
            "play ms": statistics.median(play_ms), "answers ms": statistics.median(answer_ms)}


ROOT = Path(__file__).resolve().parent.parent
DEFAULT_BASELINE = "c82bbf8"  # main before issue 34 (a cheap match); issue 18's was afb33c8
BASELINE_TARGET = 2.0
PLAY_TARGET = 0.5  # issue 34: the referee's play at least half of a worker's time per match

# Run in a fresh interpreter with one tree first on the path: one tournament, as JSON on the last
# line: the whole run's wall time, and the wall and coordinator CPU time from the first progress
# report (the pre-flight, which starts every bot once, is over) to the last match.
_RUNNER = """
import json, resource, sys, time
tree, settings = sys.argv[1], json.loads(sys.argv[2])
sys.path.insert(0, tree)
try:
    from arena.compete.tournament import load_config, run_tournament
except ModuleNotFoundError:  # a tree from before arena/ was split into packages (issue 31)
    from arena.tournament import load_config, run_tournament

def cpu():
    # The coordinator's own: its workers are still running at the last match (not yet reaped),
    # so RUSAGE_CHILDREN would not hold them.
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime

if __name__ == "__main__":
    config = load_config(None, settings)
    marks = []  # from the first progress report (after the pre-flight) to the last match stored
    play = []  # the referee's play of each match, ms (MatchResult.play_ms, in both trees)

    def note(progress):
        marks[1 if marks else 0:] = [(time.perf_counter(), cpu())]
        if progress.last is not None:
            play.append(progress.last.play_ms)

    start = time.perf_counter()
    run_tournament(config, on_progress=note)
    end = time.perf_counter()
    (t0, c0), (t1, c1) = marks
    print(json.dumps({"wall": t1 - t0, "cpu": c1 - c0, "whole": end - start,
                      "play": sum(play) / max(len(play), 1)}))
"""


def baseline_tree(rev: str, folder: Path) -> str:
    """REV's files in ``folder`` (``git archive``); returns the commit's short name."""
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", rev],
                            capture_output=True, text=True)
    if commit.returncode != 0:
        raise SystemExit(f"--baseline {rev}: not a revision of {ROOT}: {commit.stderr.strip()}")
    folder.mkdir(parents=True)
    archive = subprocess.Popen(["git", "-C", str(ROOT), "archive", rev], stdout=subprocess.PIPE)
    subprocess.run(["tar", "-x", "-C", str(folder)], stdin=archive.stdout, check=True)
    if archive.wait() != 0:
        raise SystemExit(f"git archive {rev} failed")
    # Compiled once here, as this checkout's modules are from earlier runs: bots and zygotes
    # run with -I and never write bytecode, and each would compile the baseline's code again.
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(folder)], check=True,
                   stdout=subprocess.DEVNULL)
    return commit.stdout.strip()


def baseline_python(folder: Path) -> str:
    """An interpreter for the baseline tree: a venv in ``folder`` that sees this venv's installed
    libraries but not its editable install of this checkout. Through that install an older tree's
    zygote (before a25397c) imported its Python bots, the SDK and the engine from this checkout,
    not its own, so the baseline's forked bots were this tree's. Each site-packages folder is
    named in a ``.pth`` line, which adds the folder without running the ``.pth`` files in it."""
    import site
    import venv

    venv.EnvBuilder(with_pip=False, symlinks=True).create(folder)
    python = folder / "bin" / "python"
    ours = subprocess.run([str(python), "-c", "import site; print(site.getsitepackages()[0])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    Path(ours, "bench-baseline-libraries.pth").write_text(
        "".join(f"{path}\n" for path in site.getsitepackages()))
    return str(python)


def run_in(tree: Path, settings: dict, phase_log: Path | None = None,  # noqa: ANN001
           python: str = sys.executable) -> dict:
    """One tournament in a fresh interpreter on ``tree``'s code; with ``phase_log``, each match's
    phases are appended there (``arena/match/phases.py``: trees before issue 34 ignore it)."""
    env = {**os.environ, phases.ENV: str(phase_log)} if phase_log else \
        {k: v for k, v in os.environ.items() if k != phases.ENV}
    proc = subprocess.run([python, "-c", _RUNNER, str(tree), json.dumps(settings)],
                          capture_output=True, text=True, cwd=tree, env=env)
    if proc.returncode != 0:
        raise SystemExit(f"the tournament with the code in {tree} failed:\n{proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def compare_with_baseline(args: argparse.Namespace) -> None:
    bots = args.bots.split(",") if args.bots else ["greedy", "random"]
    settings = {"name": "bench", "bots": bots, "matches_per_pairing": args.matches_per_pairing,
                "seed": 11, "workers": args.workers}
    pairings = len(bots) * (len(bots) - 1) // 2
    n = pairings * args.matches_per_pairing
    with tempfile.TemporaryDirectory(prefix="bench-baseline-") as tmp:
        old_tree = Path(tmp) / "baseline"
        name = baseline_tree(args.baseline, old_tree)
        print(f"# python {sys.version.split()[0]}, {os.cpu_count()} cores; bots {','.join(bots)}; "
              f"{n} matches per run, {args.workers} workers; {args.rounds} rounds, each running "
              f"{name} (baseline) and this tree in turn; medians")
        trees = {f"baseline {name}": old_tree, "this tree": ROOT}
        pythons = {old_tree: baseline_python(Path(tmp) / "venv"), ROOT: sys.executable}
        rates: dict[str, list[float]] = {label: [] for label in trees}
        whole: dict[str, list[float]] = {label: [] for label in trees}
        cpus: dict[str, list[float]] = {label: [] for label in trees}
        # A match's wall in a worker (from the first progress report, times the workers) and
        # the referee's play in it, as each tree's MatchResult.play_ms says (issue 34's ratio).
        per_match: dict[str, list[float]] = {label: [] for label in trees}
        play: dict[str, list[float]] = {label: [] for label in trees}
        phase_log = Path(tmp) / "phases.jsonl"
        for r in range(args.rounds):
            order = list(trees.items()) if r % 2 == 0 else list(trees.items())[::-1]
            for label, tree in order:
                out = Path(tmp) / f"{r}-{label.split()[0]}"
                result = run_in(tree, {**settings, "output": str(out)},
                                phase_log if tree == ROOT else None, pythons[tree])
                shutil.rmtree(out, ignore_errors=True)
                rates[label].append(n / result["wall"])
                whole[label].append(n / result["whole"])
                cpus[label].append(result["cpu"] / n * 1000)
                # The first report comes before any match (after the pre-flight, beside which
                # the workers start), so the window holds all n matches.
                per_match[label].append(1000 * args.workers * result["wall"] / n)
                play[label].append(result["play"])
        # The whole run is the figure: since issue 18 the workers start beside the pre-flight,
        # before the first progress report, so "from the first report" leaves their start out
        # of this tree's time and not out of older trees'.
        ratios = [new / old for old, new in zip(*whole.values())]
        window = [new / old for old, new in zip(*rates.values())]
        for label in trees:
            print(f"{label}: {statistics.median(whole[label]):.2f} matches/s, the whole run "
                  f"(rounds: {', '.join(f'{v:.2f}' for v in whole[label])}); from the first "
                  f"progress report: {statistics.median(rates[label]):.2f} (rounds: "
                  f"{', '.join(f'{v:.2f}' for v in rates[label])}); coordinator CPU "
                  f"{statistics.median(cpus[label]):.2f} ms per match")
        ratio = statistics.median(ratios)
        print(f"throughput, this tree / baseline, whole run: {ratio:.2f}x (target >= "
              f"{BASELINE_TARGET:g}x: {'met' if ratio >= BASELINE_TARGET else 'NOT met'})  "
              f"(rounds: {', '.join(f'{v:.2f}' for v in ratios)}); from the first progress "
              f"report: {statistics.median(window):.2f}x")
        for label in trees:
            wall, p = statistics.median(per_match[label]), statistics.median(play[label])
            print(f"{label}: {wall:.1f} ms per match in a worker, {p:.1f} ms of it play: play / "
                  f"per-match {p / wall:.2f} (target >= {PLAY_TARGET:g}: "
                  f"{'met' if p / wall >= PLAY_TARGET else 'NOT met'})")
        # The phases are means over every round's matches: so is the wall they are parts of.
        print_phases(phase_log, statistics.mean(per_match["this tree"]), args.workers)
        old, new = (statistics.median(v) for v in whole.values())
        print(f"| `--baseline {name} --bots {','.join(bots)} --workers {args.workers}` | "
              f"{old:.2f} matches/s | {new:.2f} matches/s | {ratio:.2f}x |")


def print_phases(path: Path, per_match_ms: float, workers: int) -> None:
    """This tree's phases, mean ms per match over every round's matches (phases.py), and what
    is left of a worker's time per match: the job's trip, the record, waiting for the pool."""
    lines = phases.read(str(path))
    matches = [line for line in lines if phases.PLAY in line]
    commits = [line for line in lines if phases.STORE in line]
    if not matches:
        print("phases: none written (is ARENA_PHASES read by this tree?)")
        return
    order = (phases.SANDBOX_SETUP, phases.SPAWN, phases.READY, phases.PLAY, phases.TEARDOWN)
    mean = {k: sum(line.get(k, 0.0) for line in matches) / len(matches)
            for k in (*order, phases.EXIT, phases.FINISH, phases.REMOVE)}
    stored = sum(line["matches"] for line in commits)
    store = sum(line[phases.STORE] for line in commits) / max(stored, 1)
    print(f"phases of a match in a worker, this tree ({len(matches)} matches, mean ms; a bot's "
          f"own summed over its seats; {workers} worker(s)):")
    for k in order:
        print(f"  {k}: {mean[k]:.2f} ({100 * mean[k] / per_match_ms:.0f}%)")
        if k == phases.TEARDOWN:
            for sub in (phases.EXIT, phases.FINISH, phases.REMOVE):
                print(f"    {sub}: {mean[sub]:.2f}")
    rest = per_match_ms - sum(mean[k] for k in order)
    print(f"  store (the coordinator's commit, beside the worker): {store:.2f}")
    print(f"  the rest (record header, the job's trip, the pool): {rest:.2f} "
          f"({100 * rest / per_match_ms:.0f}%) of {per_match_ms:.1f} ms per match (the rounds' "
          "mean)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches-per-pairing", type=int, default=None,
                        help="default 4; 20 with --baseline")
    parser.add_argument("--rounds", type=int, default=None, help="default 5; 3 with --baseline")
    parser.add_argument("--bots", default=None,
                        help="comma-separated (default: the demo's bots; greedy,random with "
                             "--baseline)")
    parser.add_argument("--baseline", nargs="?", const=DEFAULT_BASELINE, default=None,
                        metavar="REV", help="compare this tree's throughput with REV's "
                        f"(default {DEFAULT_BASELINE})")
    parser.add_argument("--workers", type=int, default=2, help="with --baseline (default 2)")
    args = parser.parse_args()
    if args.baseline is not None:
        args.matches_per_pairing = args.matches_per_pairing or 20
        args.rounds = args.rounds or 3
        compare_with_baseline(args)
        return
    args.matches_per_pairing = args.matches_per_pairing or 4
    args.rounds = args.rounds or 5
    args.bots = args.bots or ",".join(DEMO_BOTS)
    config = load_config(None, {"name": "bench", "bots": args.bots.split(","),
                                "matches_per_pairing": args.matches_per_pairing, "seed": 11})
    n = len(round_robin("bench", [b.name for b in resolve_bots(config)],
                        config.matches_per_pairing // 2))
    global _cpu_group
    _cpu_group = _CpuGroup()
    held = claimed(usable_cores())
    print(f"# python {sys.version.split()[0]}, {os.cpu_count()} cores; bots {args.bots}; {n} matches "
          f"per run; {args.rounds} interleaved rounds, medians; CPU time from {_cpu_group.what}")
    if held:  # the default runs would then not be what they measure
        print(f"# WARNING: cores {held} are claimed by another arena ({CLAIMS_ENV} or "
              "/tmp/sixtysix-arena-cores): the default runs may play free, not kept to a core")
    rows: dict[str, list[float]] = {}
    runs_of: dict[str, tuple[int, bool | str]] = {"1 worker": (1, "auto"), "2 workers": (2, "auto"),
               "1 worker free": (1, False), "2 workers free": (2, False)}
    with tempfile.TemporaryDirectory() as tmp, contextlib.closing(_cpu_group):
        for r in range(args.rounds):
            base = Path(tmp) / str(r)
            c0 = cpu_seconds()
            t_bare = bare(config, base / "bare")
            c1 = cpu_seconds()
            rows.setdefault("bare referee: matches/s", []).append(n / t_bare)
            rows.setdefault("CPU per match, bare referee (ms)", []).append((c1 - c0) / n * 1000)
            # The four runs in the same round, in turn reversed (a machine's state drifts).
            runs = {}
            for label in (list(runs_of) if r % 2 == 0 else list(reversed(runs_of))):
                workers, affinity = runs_of[label]
                c_before, own_before = cpu_seconds(), own_cpu_seconds()
                runs[label] = tournament(config, base / label.replace(" ", "-"), workers, affinity)
                runs[label]["cpu"] = cpu_seconds() - c_before
                runs[label]["own"] = own_cpu_seconds() - own_before
            shutil.rmtree(base)
            for label in runs_of:
                rows.setdefault(f"tournament, {label}: matches/s", []).append(n / runs[label]["wall"])
            for kind, one, two in (("the default, each kept to a core", "1 worker", "2 workers"),
                                   ("both free to use any core", "1 worker free",
                                    "2 workers free")):
                rows.setdefault(f"speed-up, 2 workers / 1 worker, {kind}", []).append(
                    runs[one]["wall"] / runs[two]["wall"])
                # The same ratio after each run's first result: the fixed start (a worker's
                # interpreter and imports, its zygote, the pre-flight, the first match) left out.
                rows.setdefault(f"speed-up after the first result, {kind}", []).append(
                    runs[two]["after first"] / runs[one]["after first"])
            # The bare referee runs free in this process: its like is the 1-worker run kept free.
            t1 = runs["1 worker free"]["wall"]
            rows.setdefault("scheduler overhead per match (ms)", []).append((t1 - t_bare) / n * 1000)
            rows.setdefault("scheduler overhead, % of bare referee time", []).append(
                100 * (t1 - t_bare) / t_bare)
            # The coordinator's own work (pool, result transfer, store, ratings of the progress
            # line) runs beside the worker: its CPU is the scheduler's cost, free of the noise
            # that two separately timed runs carry on a shared machine.
            own = runs["1 worker free"]["own"]
            rows.setdefault("coordinator CPU per match (ms)", []).append(own / n * 1000)
            rows.setdefault("coordinator CPU, % of bare referee time", []).append(100 * own / t_bare)
            rows.setdefault("scheduler CPU overhead, % of bare referee CPU", []).append(
                100 * (runs["1 worker free"]["cpu"] - (c1 - c0)) / (c1 - c0))
            for label in runs_of:
                run = runs[label]
                rows.setdefault(f"CPU per match, {label} (ms)", []).append(run["cpu"] / n * 1000)
                # What a second worker can add is bounded by what the first leaves idle.
                rows.setdefault(f"cores busy (CPU time / wall time), {label}", []).append(
                    run["cpu"] / run["wall"])
            # The split that explains the speed-up: a fixed start that a second worker cannot
            # shorten, and a match's wall in a worker (with its play and the bots' answers as
            # the referee timed them), which waits longer when the other worker's match runs
            # beside it.
            for label in runs_of:
                run = runs[label]
                rows.setdefault(f"split, {label}: s to the first result (pre-flight, workers' "
                                "start, first match)", []).append(run["to first result"])
                rows.setdefault(f"split, {label}: ms per match in a worker, then", []).append(
                    run["match wall ms"])
                rows.setdefault(f"split, {label}: ms of play per match (median)", []).append(
                    run["play ms"])
                rows.setdefault(f"split, {label}: ms of bots' answers per match "
                                "(decisions x median answer; median)",
                                []).append(run["answers ms"])
    for key, values in rows.items():
        print(f"{key}: {statistics.median(values):.2f}  (rounds: "
              f"{', '.join(f'{v:.2f}' for v in values)})")
    m = {key: statistics.median(values) for key, values in rows.items()}
    speed_up = m["speed-up, 2 workers / 1 worker, the default, each kept to a core"]
    free = m["speed-up, 2 workers / 1 worker, both free to use any core"]
    print(f"speed-up target >= 1.85 (whole runs of {n} matches, like for like): "
          f"{'met' if speed_up >= 1.85 else 'NOT met'} by default, each worker kept to a core "
          f"({speed_up:.2f}); free to use any core (--no-affinity) {free:.2f}; after the first "
          f"result {m['speed-up after the first result, the default, each kept to a core']:.2f} "
          f"by default, {m['speed-up after the first result, both free to use any core']:.2f} free")
    split = {label: (m[f"split, {label}: s to the first result (pre-flight, workers' start, "
                       "first match)"], m[f"split, {label}: ms per match in a worker, then"],
                     m[f"split, {label}: ms of play per match (median)"])
             for label in runs_of}
    print("why: " + "; ".join(f"{label}: {first:.2f} s to the first result, then {wall:.0f} ms "
                              f"per match in a worker ({play:.0f} ms of play)"
                              for label, (first, wall, play) in split.items()))
    print(f"| `--bots {args.bots} --matches-per-pairing {args.matches_per_pairing}` | "
          f"{m['tournament, 1 worker: matches/s']:.2f} matches/s | "
          f"{m['tournament, 2 workers: matches/s']:.2f} matches/s | {speed_up:.2f} | "
          f"{m['cores busy (CPU time / wall time), 1 worker']:.2f} | "
          f"{m['scheduler overhead, % of bare referee time']:.1f}% wall, "
          f"{m['coordinator CPU, % of bare referee time']:.1f}% coordinator CPU |")
    print(f"| `bench_tournament.py` | 2 workers / 1 worker, {args.bots.replace(',', ', ')}, "
          f"{n} matches | {m['tournament, 2 workers: matches/s']:.2f} / "
          f"{m['tournament, 1 worker: matches/s']:.2f} matches/s = {speed_up:.2f} (the default, "
          f"each kept to a core) | {free:.2f} (--no-affinity) | >= 1.85 | "
          f"{'met' if speed_up >= 1.85 else 'not met'} |")

if __name__ == "__main__":
    main()
