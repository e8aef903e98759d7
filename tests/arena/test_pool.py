"""The worker pool pulls its jobs lazily (issue 18): one per idle worker at the start, then one
more only after a result was yielded, so a caller may choose each next job from the results so far
(``sprt`` stops a run, ``league`` picks the next pairing) and a long schedule is never all in memory.
Real spawned worker processes: one pool of two for every case, as starting workers is what costs."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import pytest

from arena.compete.pool import MAX_AHEAD, Pool, WorkerError
from pool_jobs import nap, play, play_or_die, timed


def test_the_pool_pulls_lazily_and_replays_a_job_whose_worker_died(tmp_path: Path):
    with Pool(play, 2) as pool:
        # 1. One job per idle worker, then one per result yielded.
        seen: list[int] = []          # results the caller has been given
        pulled_after: list[int] = []  # for each job pulled: how many results were seen by then

        def jobs() -> Iterator[int]:
            for job in range(7):
                pulled_after.append(len(seen))
                yield job

        for job, result in pool.run(jobs()):
            assert result == job * 2
            seen.append(job)
        assert sorted(seen) == list(range(7))
        # Two workers: jobs 0 and 1 before any result, then job k only after result k - 1.
        assert pulled_after == [0, 0, 1, 2, 3, 4, 5]

        # 2. An endless source ends where the caller decides: nothing beyond the jobs in flight.
        seen.clear()

        def endless() -> Iterator[int]:
            for job in itertools.count():
                if len(seen) >= 3:  # the caller's test concluded
                    return
                yield job

        results: dict[int, int] = {}
        for job, result in pool.run(endless()):
            seen.append(job)
            results[job] = result
        # Jobs 0 and 1 start; each of the first three results lets one more start: at most 3 + 2
        # were pulled, and every pulled job was played and yielded.
        assert 3 <= len(seen) <= 5
        assert sorted(seen) == list(range(len(seen)))
        assert all(results[j] == 2 * j for j in seen)

        # 3. Job 0 kills its worker: the replacement plays it again before anything new is pulled.
        marker = str(tmp_path / "died-once")
        pulled: list[int] = []

        def dying() -> Iterator[tuple[str, int]]:
            for value in range(4):
                pulled.append(value)
                yield marker, value

        got = [result for _, result in pool.run(dying())]
        assert sorted(got) == [0, 1, 2, 3] and len(got) == 4  # each played and yielded once
        assert pulled == [0, 1, 2, 3]


def test_workers_given_time_ahead_hold_several_jobs_report_them_together_and_end_together():
    """With ``ahead_s`` (a tournament of cheap matches) a worker that reports gets as many jobs as
    fill that much of its time, up to 1 + MAX_AHEAD, and reports their results in one message;
    knowing the total, the pool hands out smaller shares toward the end (issue 18)."""
    with Pool(play, 2, ahead_s=10.0) as pool:
        seen: list[int] = []
        pulled_after: list[int] = []

        def jobs() -> Iterator[int]:
            for job in range(300):
                pulled_after.append(len(seen))
                yield job

        for job, result in pool.run(jobs(), total=300):
            assert result == job * 2
            seen.append(job)
        assert sorted(seen) == list(range(300))  # each played and yielded once
        handed = [pulled_after.count(n) for n in sorted(set(pulled_after))]
        # One job per worker at first, then shares of several jobs: a worker reported many at
        # once (else a share would be pulled after each single result).
        assert handed[0] == 2 and max(handed) > 2
        assert max(handed) <= 2 * (1 + MAX_AHEAD)
        # Toward the end the shares shrink: the last handed-out ones are small.
        assert handed[-1] <= 2


def test_a_worker_holds_no_more_than_ahead_s_of_play():
    """A share fills ``ahead_s`` of a worker's time by the jobs it played lately (the slowest of
    them): each job here sleeps at least 50 ms, so with ahead_s 60 ms no worker ever holds more
    than the job it plays and one more."""
    with Pool(nap, 2, ahead_s=0.06) as pool:
        seen: list[float] = []
        pulled_after: list[int] = []

        def jobs() -> Iterator[float]:
            for _ in range(16):
                pulled_after.append(len(seen))
                yield 0.05

        for _, result in pool.run(jobs(), total=16):
            seen.append(result)
        assert len(seen) == 16
        assert max(pulled_after.count(n) for n in set(pulled_after)) <= 2


def test_jobs_held_by_a_worker_that_died_are_played_again_and_a_job_that_kills_twice_ends_it(
        tmp_path):
    # Jobs share keys in pairs (as a tournament's deal sets): a dead worker's keys are freed.
    with Pool(play_or_die, 2, ahead_s=10.0, exclusive=lambda job: job[1] // 2) as pool:
        # Job 40 kills its worker once, in the middle of a share of several jobs: every job that
        # worker held is played again (alone), and each result is yielded exactly once.
        marker = str(tmp_path / "died-once")
        got = [result for _, result in pool.run(((marker, v, 40) for v in range(120)), total=120)]
        assert sorted(got) == list(range(120))
        # Job 40 kills its worker every time: played again alone, it kills the next one too.
        with pytest.raises(WorkerError, match="died twice"):
            for _ in pool.run(((None, v, 40) for v in range(120)), total=120):
                pass


@dataclass(frozen=True)
class _Settings:  # shared objects are a tournament's dataclasses: rules, limits, bot specs
    values: tuple[int, ...]


def test_shared_objects_travel_once_and_jobs_refer_to_them(monkeypatch):
    """The pool's shared objects (a tournament's rules, limits, bots) are sent to each worker when
    it starts; a job's pickle names them by number and unpickles to the worker's copy."""
    import pickle

    from arena.compete import pool
    from arena.compete.pool import _dumps

    rules = _Settings(tuple(range(500)))
    job = (rules, "a path", rules, 7)
    alone, with_shared = _dumps(job, ()), _dumps(job, (_Settings(()), rules))
    assert len(with_shared) < 80 < len(alone)
    worker_copy = _Settings(tuple(range(500)))
    monkeypatch.setattr(pool, "_SHARED", (_Settings(()), worker_copy))  # as a worker sets it
    loaded = pickle.loads(with_shared)
    assert loaded == job and loaded[0] is worker_copy and loaded[2] is worker_copy


def test_a_shared_object_of_a_type_pickle_writes_whole_is_refused():
    """pickle never asks about a str, a tuple or a dict: such a shared object would be sent with
    every job, so the pool says so instead."""
    import pytest

    from arena.compete.pool import Pool

    with pytest.raises(TypeError, match="shared objects cannot be of type dict"):
        with Pool(len, 1, shared=({"flag": 1},)):
            pass


def test_a_worker_does_not_import_the_script_that_started_the_pool(tmp_path):
    """A spawned interpreter imports its parent's ``__main__`` (for `arena`, the whole command
    line) unless it is left out: it is, when the pool's functions live elsewhere (issue 18: some
    70 ms of CPU per worker). A script's own function still reaches its workers."""
    import subprocess
    import sys
    import textwrap

    log = tmp_path / "imports.log"
    script = tmp_path / "starter.py"
    script.write_text(textwrap.dedent(f"""
        import sys
        sys.path[:0] = {[str(Path(__file__).parent), str(Path(__file__).parents[2])]!r}
        with open({str(log)!r}, "a") as fh:
            fh.write(__name__ + "\\n")  # "__main__" in the parent, "__mp_main__" in a worker

        def triple(job):
            return 3 * job

        if __name__ == "__main__":
            from arena.compete.pool import Pool
            from pool_jobs import play
            with Pool(play, 1) as pool:
                assert [r for _, r in pool.run([1, 2])] == [2, 4]
            with Pool(triple, 1) as pool:  # a function of the script: the worker needs it
                assert [r for _, r in pool.run([1])] == [3]
    """))
    subprocess.run([sys.executable, str(script)], check=True, timeout=60)
    assert log.read_text().split() == ["__main__", "__mp_main__"]


def test_each_runs_a_call_on_each_worker_before_the_jobs():
    """``Pool.each`` (a tournament's pre-flight, on its workers' zygotes): one call per worker at
    once, results in order; a call that raises is a WorkerError naming it; jobs run afterwards."""
    import os

    with Pool(play, 2) as pool:
        pids = pool.each(os.getpid, [(), ()])
        assert len(set(pids)) == 2 and os.getpid() not in pids
        assert pool.each(int, [("7",), ("42",)]) == [7, 42]
        with pytest.raises(WorkerError, match="ValueError: invalid literal"):
            pool.each(int, [("seven",)])
        assert sorted(r for _, r in pool.run(range(4))) == [0, 2, 4, 6]
        with pytest.raises(ValueError, match="3 calls for 2 workers"):
            pool.each(int, [("1",), ("2",), ("3",)])


def test_a_close_cut_short_by_a_stop_still_ends_every_worker(monkeypatch):
    """Seen in CI: a Ctrl-C landed while the pool closed, after it had told the first idle worker
    to exit and before the second; that one lived on, and the interpreter hung at exit joining it.
    The stop's exception is raised here where close() sends its first exit message."""
    import os

    import arena.compete.pool

    pool = Pool(play, 2).__enter__()
    assert sorted(r for _, r in pool.run(range(4))) == [0, 2, 4, 6]
    pids = [w.process.pid for w in pool._workers]
    real_dumps = arena.compete.pool._dumps

    def stop_at_the_first(obj, shared):
        monkeypatch.setattr(arena.compete.pool, "_dumps", real_dumps)
        raise KeyboardInterrupt  # what a signal handler raises between two bytecodes

    monkeypatch.setattr(arena.compete.pool, "_dumps", stop_at_the_first)
    with pytest.raises(KeyboardInterrupt):
        pool.close()
    assert pool._workers == []
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)  # ended and reaped


def _overlapping_keys(done: list[tuple[int, int, float, float]]) -> set[int]:
    """The keys two of whose jobs ran at the same time."""
    by_key: dict[int, list[tuple[float, float]]] = {}
    for key, _, start, end in done:
        by_key.setdefault(key, []).append((start, end))
    return {key for key, spans in by_key.items()
            if any(a[0] < b[1] and b[0] < a[1] for a, b in itertools.combinations(spans, 2))}


@pytest.mark.parametrize("ahead_s", [0.0, 0.5])
def test_jobs_that_share_a_key_never_run_on_two_workers_at_once(ahead_s):
    """``Pool(exclusive=...)``: a tournament's deal set. The two matches of a duplicate pair came
    one after the other in the schedule and went to the two workers at once: two instances of a
    bot, each holding the hand the other's opponent hides, could tell each other the cards
    through /proc/stat or the CPU's speed. Every job is still played, by both workers."""
    import os

    jobs = [(key, 0.15) for key in range(5) for _ in range(2)]  # pairs, side by side
    with Pool(timed, 2, ahead_s=ahead_s) as pool:
        pool.each(os.getpid, [(), ()])  # both workers up: the first two jobs start together
        free = [result for _, result in pool.run(jobs)]
    assert _overlapping_keys(free)  # what the rule prevents (both workers take pair 0 at once)
    with Pool(timed, 2, ahead_s=ahead_s, exclusive=lambda job: job[0]) as pool:
        pool.each(os.getpid, [(), ()])
        done = [result for _, result in pool.run(jobs)]
    assert sorted(key for key, *_ in done) == sorted(key for key, _ in jobs)
    assert _overlapping_keys(done) == set()
    assert len({pid for _, pid, _, _ in done}) == 2  # both workers played


def test_a_stop_while_the_worker_imports_the_cgroups_ends_it_without_a_traceback():
    """A worker's SIGTERM handler gives its bots' CPU back first (cgroups.all_asked) when the
    worker imported the cgroups module. A SIGTERM in the middle of that import found the module
    half made, without ``all_asked``: the handler raised, a traceback reached the terminal (a
    fresh clone's Ctrl-C start-up test). A module being imported has run no bot: skipped."""
    import subprocess
    import sys

    code = ("import sys, types; sys.modules['arena.isolation.cgroups'] = "
            "types.ModuleType('arena.isolation.cgroups'); "
            "from arena.compete.pool import _die; _die(143)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert (proc.returncode, proc.stderr) == (143, "")
