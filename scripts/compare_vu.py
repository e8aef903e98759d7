#!/usr/bin/env python3
"""Two runs of ``scripts/bench_vu.py --records`` on the same deals, side by side: what a change to
the strong bot bought against the package's bot (issue 35).

Each run is summed up (deals or matches won, game points, the strong bot's decision times, faults,
wrong claims, disagreements with the package's engine); then, over the duplicate pairs both runs
played whole (both seatings), the difference NEW minus OLD with its 95% interval, the pair as the
unit: the same cards and the package's same random numbers met both versions, so most of the
noise of the deal cancels. For one-deal pairs: net game points a deal and points of the deals won;
for matches to 7: points of the matches won. "Changed" counts the pairs where either match ended
otherwise (another winner or other game points): with a fixed world count a bot plays a match
the same way twice, so an unchanged bot changes none.

Usage: scripts/compare_vu.py OLD.jsonl[,MORE.jsonl...] NEW.jsonl[,MORE.jsonl...]
(several files a side, comma-separated: a run split into parts played side by side).
Exit status: 0; 1 when a run had a fault or a disagreement (its figures are not to be trusted);
2 for a file that cannot be read or holds no records.
"""

from __future__ import annotations

import argparse
import json
import math
import signal
import statistics
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_vu import percentile  # noqa: E402

from arena.results.stats import clustered_mean  # noqa: E402

Record = dict[str, Any]  # one JSON line of bench_vu.py's
Key = tuple[str, int]  # (pair, seating)


class BadRecords(Exception):
    """A records file that cannot be read: the message says which and why."""


def load(spec: str) -> dict[Key, Record]:
    """The records of one run (its files comma-separated), by pair and seating."""
    records: dict[Key, Record] = {}
    for name in spec.split(","):
        try:
            lines = Path(name).read_text(encoding="utf-8").splitlines()
        except OSError as err:
            raise BadRecords(f"cannot read {name}: {err.strerror}") from None
        for number, line in enumerate(lines, 1):
            try:
                record = json.loads(line)
                key = (str(record["pair"]), int(record["seating"]))
            except (ValueError, KeyError, TypeError):
                raise BadRecords(f"{name}, line {number}: not a bench_vu.py record") from None
            records[key] = record
    if not records:
        raise BadRecords(f"no records in {spec}")
    return records


def net(record: Record) -> int:
    mine, theirs = record["game_points"]
    return int(mine) - int(theirs)


def won(record: Record) -> float:
    """The strong bot's score of the thing the run counts: the deal in one-deal pairs, the match
    in matches to 7 (a draw half)."""
    if record["kind"] == "deal":
        return float(bool(record["first_deal_won"]))
    return 0.5 if record["drawn"] else float(bool(record["won"]))


def summary(name: str, records: dict[Key, Record]) -> bool:
    """Print one run's totals; False when it holds a fault or a disagreement."""
    values = list(records.values())
    times = sorted(float(ms) for r in values for ms in r["decision_ms"])
    faults = sum(r["fault"] is not None for r in values)
    disagreements = sum(int(r["disagreements"]) for r in values)
    wrong = sum(int(r["wrong_claims"]) for r in values)
    points = [sum(int(r["game_points"][i]) for r in values) for i in (0, 1)]
    p99 = percentile(times, 0.99)  # as bench_vu.py prints it
    print(f"{name}: {len(values)} matches; won {sum(map(won, values)):g} "
          f"({statistics.mean(map(won, values)):.1%}); game points {points[0]} - {points[1]}, "
          f"net {statistics.mean(map(net, values)):+.3f} a match; "
          f"decisions {len(times)}, median {statistics.median(times) if times else math.nan:.0f} "
          f"ms, p99 {p99:.0f} ms; faults {faults}, wrong claims {wrong}, disagreements "
          f"{disagreements}")
    return not faults and not disagreements


def compare(old: dict[Key, Record], new: dict[Key, Record]) -> None:
    """Print NEW minus OLD over the pairs both played whole, the pair as the unit."""
    pairs = sorted({p for p, _ in old} & {p for p, _ in new})
    pairs = [p for p in pairs if all((p, s) in old and (p, s) in new for s in (0, 1))]
    if len(pairs) < 2:
        print(f"pairs both runs played whole: {len(pairs)}; too few to compare")
        return
    kinds = {old[(p, 0)]["kind"] for p in pairs} | {new[(p, 0)]["kind"] for p in pairs}
    if len(kinds) > 1:
        print("one run's pairs are one-deal pairs, the other's matches to 7: not comparable")
        return
    d_net, d_won, changed = [], [], 0
    for p in pairs:
        before = [old[(p, s)] for s in (0, 1)]
        after = [new[(p, s)] for s in (0, 1)]
        # A pair's mean over its two seatings: the figures read per deal (or per match).
        d_net.append((sum(map(net, after)) - sum(map(net, before))) / 2)
        d_won.append(100 * (sum(map(won, after)) - sum(map(won, before))) / 2)
        changed += any((a["game_points"], a["won"]) != (b["game_points"], b["won"])
                       for a, b in zip(before, after))
    # The most a pair's net can move: a deal won by 3 instead of lost by 3, or a match to 7 won
    # 9 - 0 instead of lost 0 - 9.
    one, what, most = ("deal", "deals", 6.0) if kinds == {"deal"} else ("match", "matches", 18.0)
    net_ci, _ = clustered_mean(d_net, pairs, lower=-most, upper=most)
    won_ci, _ = clustered_mean(d_won, pairs, lower=-100.0, upper=100.0)
    print(f"new minus old over {len(pairs)} duplicate pairs ({changed} changed):")
    print(f"  net game points a {one}: {net_ci.estimate:+.3f} (95% CI {net_ci.low:+.3f} to "
          f"{net_ci.high:+.3f})")
    print(f"  {what} won: {won_ci.estimate:+.1f} points (95% CI {won_ci.low:+.1f} to "
          f"{won_ci.high:+.1f})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("old", help="the first run's records (files comma-separated)")
    parser.add_argument("new", help="the second run's records (files comma-separated)")
    args = parser.parse_args()
    # Read through a pipe (| head): a closed pipe ends it quietly, as for any filter.
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    try:
        old, new = load(args.old), load(args.new)
    except BadRecords as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    trusted = summary("old", old) & summary("new", new)
    compare(old, new)
    return 0 if trusted else 1


if __name__ == "__main__":
    sys.exit(main())
