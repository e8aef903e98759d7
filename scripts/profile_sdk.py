#!/usr/bin/env python3
"""The SDK's own CPU per decision, and where it goes: a profiling aid for issue 18.

What a bot process reads in a real match is recorded once (``protocol.local`` plays seeded
``sixty_six`` matches between two first-legal SDK bots and keeps every line each seat received,
exactly as the referee writes them), then replayed in this process through

- ``sdk``: ``protocol.run`` with a first-legal ``Bot`` (``legal[0]``), and
- ``minimal``: ``bots/minimal/first_legal.py`` itself, the stdlib-only bot,

each reading the recorded bytes from a pipe-less buffer and writing its answers to ``/dev/null``
(a real write and flush per answer, as on a pipe). Both answer the same; the difference is the
SDK's cost per decision with no referee, sandbox or scheduler in the figure, so it moves little
under load. Rounds are interleaved and medians printed; ``--baseline REV`` also replays through
the SDK of commit REV (its tree checked out into a temporary folder, run in a child process) in
the same rounds. ``--profile`` prints the top of a cProfile of the SDK's replay (CPU clock).

Usage: scripts/profile_sdk.py [--matches N] [--rounds R] [--profile] [--baseline REV]
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.game import Action, profile  # noqa: E402
from protocol import Bot, BotView, run  # noqa: E402
from protocol.local import play  # noqa: E402


class FirstLegal(Bot):
    name = "sdk-first-legal"

    def decide(self, view: BotView, legal: tuple[Action, ...]) -> Action:
        return legal[0]


def record(matches: int) -> list[bytes]:
    """Every seat's input of ``matches`` seeded matches, one bytes object per seat and match."""
    inputs = []
    for seed in range(matches):
        played = play(profile("sixty_six"), [FirstLegal(), FirstLegal()], seed=seed,
                      first_dealer=seed & 1, match_id=f"bench{seed}")
        for log in played.transcripts:
            inputs.append("".join(line[2:] + "\n" for line in log if line.startswith("> "))
                          .encode())
    return inputs


MINIMAL_BOT = ROOT / "bots" / "minimal" / "first_legal.py"
_MINIMAL_CODE = compile(MINIMAL_BOT.read_text(), str(MINIMAL_BOT), "exec")


def minimal(infile: io.BufferedIOBase, outfile: io.TextIOBase) -> None:
    """bots/minimal/first_legal.py itself (compiled once), its standard streams the given ones."""
    saved = sys.stdin, sys.stdout
    sys.stdin, sys.stdout = io.TextIOWrapper(infile), outfile
    try:
        exec(_MINIMAL_CODE, {"__name__": "__main__"})
    finally:
        sys.stdin, sys.stdout = saved


def replay(kind: str, inputs: list[bytes]) -> float:
    """CPU seconds to play every recorded input through ``kind`` (``sdk`` or ``minimal``)."""
    with open(os.devnull, "w") as sink:
        start = time.process_time()
        for data in inputs:
            source = io.BytesIO(data)
            if kind == "sdk":
                run(FirstLegal(), source, sink)
            else:
                minimal(source, sink)
        return time.process_time() - start


CHILD = """
import io, os, sys, time
sys.path.insert(0, {root!r})
kind = sys.argv[1]
data = sys.stdin.buffer.read()
if kind == "sdk":
    from protocol import Bot, run

    class FirstLegal(Bot):
        name = "sdk-first-legal"

        def decide(self, view, legal):
            return legal[0]

else:
    code = compile(open({bot!r}).read(), {bot!r}, "exec")  # compiled before the clock starts
sink = open(os.devnull, "w")
start = time.process_time()
if kind == "sdk":
    run(FirstLegal(), io.BytesIO(data), sink)
else:
    sys.stdin, sys.stdout = io.TextIOWrapper(io.BytesIO(data)), sink
    exec(code, {{"__name__": "__main__"}})
    sys.stdout = sys.__stdout__
print(time.process_time() - start)
"""


def replay_cold(kind: str, inputs: list[bytes], root: Path = ROOT) -> float:
    """As ``replay``, but each input in a fresh interpreter, as a bot process plays one match:
    nothing is warm (the specialising interpreter, caches). Start-up and imports are left out."""
    child = CHILD.format(root=str(root), bot=str(MINIMAL_BOT))
    total = 0.0
    for data in inputs:
        out = subprocess.run([sys.executable, "-c", child, kind], input=data, check=True,
                             capture_output=True).stdout
        total += float(out.split()[-1])
    return total


def replay_warm_in(root: Path, inputs: list[bytes]) -> float:
    """``replay("sdk", ...)`` (warmed up) through the SDK of the tree at ``root``, in a child."""
    import inspect
    child = (f"import sys\nsys.path.insert(0, {str(root)!r})\n"
             "import io, os, time\nfrom protocol import Bot, run\n"
             + inspect.getsource(FirstLegal) + inspect.getsource(replay) +
             "import json\ninputs = [bytes.fromhex(h) for h in json.load(sys.stdin)]\n"
             "replay('sdk', inputs)\nprint(replay('sdk', inputs))\n")
    out = subprocess.run([sys.executable, "-c", child], input=json.dumps([i.hex() for i in inputs]),
                         check=True, capture_output=True, text=True).stdout
    return float(out.split()[-1])


def decisions(inputs: list[bytes]) -> int:
    return sum(line.endswith(b"?") for data in inputs for line in data.split(b"\n")
               for line in [line.split(b" ", 1)[0]])


def baseline_tree(rev: str, folder: Path) -> Path:
    """``rev``'s tree, checked out into ``folder`` (no .git: the working tree only)."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev], check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--profile", action="store_true", help="print the top of a cProfile")
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--baseline", metavar="REV", help="also replay through REV's SDK")
    parser.add_argument("--cold", action="store_true",
                        help="replay each input in a fresh interpreter (as a real bot process)")
    args = parser.parse_args()
    inputs = record(args.matches)
    n = decisions(inputs)
    print(f"# {len(inputs)} bot inputs ({args.matches} matches), {n} decisions, "
          f"{sum(map(len, inputs))} bytes; {args.rounds} interleaved rounds, medians")
    if args.profile:
        prof = cProfile.Profile(time.process_time)
        prof.runcall(replay, "sdk", inputs)
        pstats.Stats(prof).sort_stats("tottime").print_stats(args.top)
    with tempfile.TemporaryDirectory() as tmp:
        old = None
        if args.baseline:
            old = baseline_tree(args.baseline, Path(tmp))
        rows: dict[str, list[float]] = {}
        play_all = replay_cold if args.cold else replay
        replay("sdk", inputs), replay("minimal", inputs)  # warm up
        for _ in range(args.rounds):
            sdk = play_all("sdk", inputs) / n * 1e6
            low = play_all("minimal", inputs) / n * 1e6
            rows.setdefault("minimal bot, CPU us/decision", []).append(low)
            rows.setdefault("SDK bot, CPU us/decision", []).append(sdk)
            rows.setdefault("SDK over minimal, CPU us/decision", []).append(sdk - low)
            if old is not None:
                base = (replay_cold("sdk", inputs, old) if args.cold
                        else replay_warm_in(old, inputs)) / n * 1e6
                rows.setdefault(f"SDK bot at {args.baseline}, CPU us/decision", []).append(base)
                rows.setdefault(f"SDK at {args.baseline} over minimal, CPU us/decision",
                                []).append(base - low)
    for key, values in rows.items():
        print(f"{key}: {statistics.median(values):.1f}  (rounds: "
              f"{', '.join(f'{v:.1f}' for v in values)})")


if __name__ == "__main__":
    main()
