#!/usr/bin/env python3
"""What it costs to start a bot, per bot and per launch path, side by side in one run (issue 18).

A start is: start the bot in the sandbox, send the greeting, read its ``ready``, close it and reap
it. Two figures per start:

- CPU: user + system time of every process of the start, from the kernel's rusage as each is
  reaped (wait4): the launcher, PID 1 of the bot's namespace and the bot, plus the referee's own
  time in ``start``/``close`` (cgroup, folder, uid lease). With the zygote, the bot's processes are
  the zygote's children: it reaps them with wait4 and hands their rusage over with the exit status,
  and the zygote's own CPU over the run (read from /proc) is shared out over its starts. CPU time
  does not swing with the machine's load the way wall time does.
- wall: from ``start()`` to the ``ready`` line (what a match waits for), in milliseconds.

Bots: ``minimal`` (bots/minimal/first_legal.py: stdlib only), ``sdk`` (bots/example/bot.py, the
smallest SDK bot, started as a submitted ``python3 bot.py``), ``random`` and ``greedy`` (bundled,
SDK and engine), ``c`` (first-legal-c). Launch paths: ``exec`` (a fresh interpreter per bot, as
before issue 18) and ``zygote`` (arena/isolation/zygote.py: a pre-imported interpreter forks each Python
bot; C bots always exec). Each path runs in its own child process, rounds alternate, medians of
all starts are printed. The isolation level is the strongest this machine gives (``--isolation``
to choose; ``limits`` has no zygote).

Then whole matches of the minimal and the SDK bot against first-legal-c, CPU per match of every
process (issue 18: SDK bot <= 1.3x a minimal bot per match), per path.

``--baseline REV`` adds REV's tree (taken with ``git archive``) on the zygote path, as a path
named REV, rounds interleaved with this tree's: before and after in one run.

Usage: scripts/bench_startup.py [--starts N] [--rounds R] [--matches M] [--bots a,b]
                                [--paths exec,zygote] [--baseline REV]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TARGET_SDK_CPU_MS = 15.0  # issue 18: starting a Python bot that uses the SDK
BOTS = ("minimal", "sdk", "random", "greedy", "c")


def _argv(bot: str) -> list[str]:
    from arena.entrants.bot_specs import resolve_bot

    if bot == "minimal":
        return list(resolve_bot("first-legal").argv)
    if bot == "sdk":
        return list(resolve_bot(str(ROOT / "bots" / "example" / "bot.py")).argv)
    if bot == "c":
        return list(resolve_bot("first-legal-c").argv)
    return list(resolve_bot(bot).argv)


def _children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def _children_minflt() -> int:
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_minflt


def _self_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime


def measure(bots: list[str], starts: int) -> dict[str, dict[str, list[float]]]:
    """In this process (one launch path): per bot, CPU and wall milliseconds of each start."""
    from arena.isolation import zygote
    from arena.isolation.probe import support
    from arena.match.bot_process import BotProcess, Limits

    support()  # the probe is not part of what is measured
    out: dict[str, dict[str, list[float]]] = {}
    for bot in bots:
        argv = _argv(bot)
        # one start first: the zygote (if any) is started and the caches are warm
        warm = BotProcess(argv, Limits())
        warm.start()
        warm.close()
        z_before = zygote.own_cpu_s()
        cpu: list[float] = []
        wall: list[float] = []
        referee: list[float] = []
        inside: list[float] = []
        faults: list[float] = []
        for _ in range(starts):
            c0, s0, f0 = _children_cpu(), _self_cpu(), _children_minflt()
            t0 = time.perf_counter()
            proc = BotProcess(argv, Limits())
            proc.start()
            proc.send("sixtysix 1")
            line = proc.read_ready_line()
            t1 = time.perf_counter()
            assert line.startswith(b"ready"), line
            proc.close()
            forked = proc.child_cpu_s()  # zygote children: their rusage, from the zygote's wait4
            own = _self_cpu() - s0
            cpu.append((_children_cpu() - c0 + own + forked) * 1000)
            referee.append(own * 1000)
            wall.append((t1 - t0) * 1000)
            # The bot's own process (PID 1's wait4, reported in ms), the rest of the processes
            # being the launcher's (outer process and PID 1); their copy-on-write faults.
            inside.append((proc.report.cpu_s or 0.0) * 1000 if proc.report else 0.0)
            faults.append(float(_children_minflt() - f0 + proc.child_minflt()))
        z_share = (zygote.own_cpu_s() - z_before) * 1000 / starts
        out[bot] = {"cpu": [c + z_share for c in cpu], "wall": wall, "referee": referee,
                    "bot": [c - r for c, r in zip(cpu, referee)], "zygote": [z_share],
                    "path": [1.0 if proc.via_zygote else 0.0], "inside": inside,
                    "launch": [c - r - i for c, r, i in zip(cpu, referee, inside)],
                    "minflt": faults}
    return out


def per_match(bots: list[str], matches: int) -> dict[str, list[float]]:
    """In this process: CPU milliseconds of whole matches of each bot against first-legal-c (every
    process: referee, launchers, both bots; zygote children as the zygote reaped them)."""
    import tempfile

    from arena.entrants.bot_specs import resolve_bot
    from arena.game import profile
    from arena.isolation import zygote
    from arena.isolation.probe import support
    from arena.match.referee import BotSpec, MatchConfig, run_match

    support()
    opponent = resolve_bot("first-legal-c")
    out: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory() as folder:
        for bot in bots:
            spec = BotSpec(bot, tuple(_argv(bot)))
            run_match((spec, opponent), MatchConfig(rules=profile("sixty_six"), seed=0,
                                                    match_id="warm"))
            out[bot] = []
            for n in range(matches):
                c0, s0, z0 = _children_cpu(), _self_cpu(), zygote.children_cpu_s()
                zself0 = zygote.own_cpu_s()
                run_match((spec, opponent), MatchConfig(rules=profile("sixty_six"), seed=n,
                                                        match_id=f"m{n}"),
                          record_path=Path(folder) / f"{bot}{n}.jsonl")
                out[bot].append((_children_cpu() - c0 + _self_cpu() - s0 +
                                 zygote.children_cpu_s() - z0 + zygote.own_cpu_s() - zself0)
                                * 1000)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--starts", type=int, default=10, help="starts per bot per round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--bots", default=",".join(BOTS), help=f"of {', '.join(BOTS)}")
    parser.add_argument("--paths", default="exec,zygote", help="exec, zygote or both")
    parser.add_argument("--isolation", default=None, help="isolated, namespaces or limits")
    parser.add_argument("--matches", type=int, default=4,
                        help="whole matches per bot and round against first-legal-c (0: none)")
    parser.add_argument("--baseline", default=None, metavar="REV",
                        help="also run REV's tree (git archive into a temporary folder) on the "
                             "zygote path, as a path 'REV', rounds interleaved")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    bots = [b for b in args.bots.split(",") if b]
    if args.child:
        figures = measure(bots, args.starts)
        if args.matches:
            for bot, cpu in per_match([b for b in ("minimal", "sdk") if b in bots],
                                      args.matches).items():
                figures[bot]["match"] = cpu
        print(json.dumps(figures))
        return
    from arena.isolation.probe import best_level

    level = args.isolation or best_level()
    paths = [p for p in args.paths.split(",") if p]
    trees = {p: ROOT for p in paths}
    if args.baseline:
        import atexit
        import shutil
        import tempfile

        old = Path(tempfile.mkdtemp(prefix="bench-startup-"))
        atexit.register(shutil.rmtree, old, True)
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.baseline],
                                 check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(old)], input=archive, check=True)
        paths.insert(0, args.baseline)
        trees[args.baseline] = old
    runs: dict[str, dict[str, dict[str, list[float]]]] = {
        p: {b: {"cpu": [], "wall": [], "path": [], "referee": [], "bot": [], "zygote": [],
                "match": [], "inside": [], "launch": [], "minflt": []} for b in bots}
        for p in paths}
    for _ in range(args.rounds):
        for path in paths:
            env = dict(os.environ)
            env.pop("ARENA_SANDBOX", None)
            env["ARENA_ISOLATION"] = level
            env["ARENA_ZYGOTE"] = "0" if path == "exec" else "1"
            script = trees[path] / "scripts" / "bench_startup.py"
            out = subprocess.run([sys.executable, str(script), "--child", "--starts",
                                  str(args.starts), "--matches", str(args.matches), "--bots",
                                  ",".join(bots)], env=env, cwd=trees[path],
                                 check=True, capture_output=True, text=True).stdout
            for bot, figures in json.loads(out.splitlines()[-1]).items():
                for key, values in figures.items():
                    runs[path][bot].setdefault(key, []).extend(values)
    print(f"bot start-up, isolation {level}: start, greeting, 'ready', close; medians of "
          f"{args.rounds} rounds x {args.starts} starts; CPU of every process of the start")
    head = f"{'bot':<9}" + "".join(f"{p + ' CPU ms':>15}{p + ' wall ms':>15}" for p in paths)
    print(head + f"{'target':>22}")
    for bot in bots:
        row = f"{bot:<9}"
        for path in paths:
            r = runs[path][bot]
            forked = path != "exec" and any(r["path"])
            mark = "" if path == "exec" or forked else "*"
            row += f"{statistics.median(r['cpu']):>14.1f}{mark or ' '}" \
                   f"{statistics.median(r['wall']):>15.1f}"
        if bot == "sdk":
            row += f"{'<= ' + str(TARGET_SDK_CPU_MS) + ' ms CPU':>22}"
        print(row)
    print("\nwhere the CPU goes (median ms): the referee's side (folder, uid lease, cgroup), the "
          "bot's processes (launcher, PID 1, bot), the zygote's own share per start")
    print(f"{'bot':<9}" + "".join(f"{p + ' referee':>16}{p + ' bot':>12}"
                                  + ("" if p == "exec" else f"{p + ' share':>14}")
                                  for p in paths))
    for bot in bots:
        row = f"{bot:<9}"
        for path in paths:
            r = runs[path][bot]
            row += f"{statistics.median(r['referee']):>16.1f}{statistics.median(r['bot']):>12.1f}"
            if path != "exec":
                row += f"{statistics.median(r['zygote'] or [0.0]):>14.2f}"
        print(row)
    print("\nthe bot's processes split (median ms): the launcher (outer process and PID 1: "
          "namespaces, root, cgroup, fork) and the bot's own process (PID 1's wait4, in whole ms); "
          "minor page faults of all of them (after a fork: copy-on-write)")
    print(f"{'bot':<9}" + "".join(f"{p + ' launcher':>17}{p + ' bot':>12}{p + ' faults':>15}"
                                  for p in paths))
    for bot in bots:
        row = f"{bot:<9}"
        for path in paths:
            r = runs[path][bot]
            row += "".join(f"{statistics.median(r[key]) if r[key] else float('nan'):>{w}.{d}f}"
                           for key, w, d in (("launch", 17, 1), ("inside", 12, 1),
                                             ("minflt", 15, 0)))
        print(row)
    if "zygote" in paths:
        print("*: this bot starts by exec on the zygote path too (not a Python bot the zygote "
              "serves, or no zygote on this machine: see the log)")
    if "sdk" in bots and "minimal" in bots:
        for path in paths:
            ratio = statistics.median(runs[path]["sdk"]["cpu"]) / statistics.median(
                runs[path]["minimal"]["cpu"])
            print(f"{path}: sdk / minimal start-up CPU = {ratio:.2f}")
        if args.matches:
            print(f"\nwhole matches against first-legal-c, CPU ms per match (every process), "
                  f"medians of {args.rounds} x {args.matches}; issue 18's goal: sdk <= 1.3 x "
                  "minimal")
            for path in paths:
                sdk = statistics.median(runs[path]["sdk"]["match"])
                minimal = statistics.median(runs[path]["minimal"]["match"])
                print(f"{path}: minimal {minimal:.1f}, sdk {sdk:.1f}, sdk / minimal = "
                      f"{sdk / minimal:.2f}")
    if "sdk" in bots and "zygote" in paths:
        r = runs["zygote"]["sdk"]
        cpu_ms = statistics.median(r["cpu"])
        before = [p for p in paths if p != "zygote"]
        was = "; ".join(f"{statistics.median(runs[p]['sdk']['cpu']):.1f} ms ({p}, same run)"
                        for p in before)
        print("\ndocs/internals/benchmarks.md, issue 18's table:")
        print(f"| `bench_startup.py` | CPU to start an SDK bot and read its `ready` (every process) "
              f"| {was} | {cpu_ms:.1f} ms ({statistics.median(r['bot']):.1f} the bot's processes, "
              f"{statistics.median(r['referee']):.1f} the referee's side, "
              f"{statistics.median(r['zygote'] or [0.0]):.1f} the zygote's share) "
              f"| <= {TARGET_SDK_CPU_MS:g} ms | {'met' if cpu_ms <= TARGET_SDK_CPU_MS else 'not met'} |")


if __name__ == "__main__":
    main()
