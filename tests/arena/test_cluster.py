"""Tournaments on a Dask cluster: a real ``dask scheduler`` and real ``dask worker`` processes on
127.0.0.1, started and stopped by these tests (each in its own process group, ended in finally)."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import IO, Iterator

import pytest
from typer.testing import CliRunner

import arena.compete.cluster as cluster_module
from arena import __version__
from arena.entrants.bot_specs import BOTS_DIR, resolve_bot
from arena.cli.main import app
from arena.compete.cluster import Cluster, ClusterError, WorkerBot, WorkerSetupError, batch_sizes, run_batch
from arena.match.records import read_record, replay_record
from arena.match.referee import BotSpec
from arena.compete.schedule import round_robin
from arena.compete.tournament import load_config, run_tournament

distributed = pytest.importorskip("distributed")  # the dask extra (scripts/test installs it)

ARENA = [sys.executable, "-m", "arena.cli.main"]
DASK = str(Path(sys.executable).with_name("dask"))
FIRST_LEGAL = BOTS_DIR / "minimal" / "first_legal.py"
START_TIMEOUT_S = 120   # a loaded 2-core machine can take long to start Python processes
RUN_TIMEOUT_S = 240
runner = CliRunner()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class LocalDask:
    """A scheduler and workers as separate processes, as a user starts them (docs/organisers/cluster.md)."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.address = f"tcp://127.0.0.1:{free_port()}"
        self.procs: dict[str, subprocess.Popen[bytes]] = {}
        self.logs: list[IO[bytes]] = []

    def _start(self, name: str, argv: list[str]) -> None:
        log = open(self.folder / f"{name}.log", "wb")
        self.logs.append(log)
        # A worker these tests kill mid-batch cannot remove its batch's temporary folder: it goes
        # in this test's folder, not in the machine's temp dir.
        scratch = self.folder / "tmp"
        scratch.mkdir(exist_ok=True)
        self.procs[name] = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT,
                                            start_new_session=True, cwd=self.folder,
                                            env={**os.environ, "TMPDIR": str(scratch)})

    def start(self, workers: int) -> dict[str, str]:
        """Start everything; returns each worker's address by name (w1, w2, ...)."""
        port = self.address.rsplit(":", 1)[1]
        # The timeouts end these processes by themselves should a test run die without cleanup.
        self._start("scheduler", [DASK, "scheduler", "--host", "127.0.0.1", "--port", port,
                                  "--no-dashboard", "--idle-timeout", "600"])
        for i in range(1, workers + 1):
            self._start(f"w{i}", [DASK, "worker", self.address, "--name", f"w{i}", "--nthreads",
                                  "1", "--no-nanny", "--no-dashboard", "--death-timeout", "60",
                                  "--local-directory", str(self.folder / f"w{i}-space")])
        with distributed.Client(self.address, timeout=START_TIMEOUT_S,
                                set_as_default=False) as client:
            if workers:
                client.wait_for_workers(workers, timeout=START_TIMEOUT_S)
            return {info["name"]: address
                    for address, info in client.scheduler_info()["workers"].items()}

    def kill(self, name: str) -> None:
        proc = self.procs[name]
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()

    def stop(self) -> None:
        """Workers first: a worker whose scheduler is gone hangs in its shutdown."""
        workers = [p for name, p in self.procs.items() if name != "scheduler"]
        for group in (workers, [self.procs["scheduler"]]):
            for proc in group:
                if proc.poll() is None:
                    with contextlib.suppress(ProcessLookupError):
                        os.killpg(proc.pid, signal.SIGTERM)
            for proc in group:
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()
        for log in self.logs:
            log.close()


@contextlib.contextmanager
def local_dask(folder: Path, workers: int) -> Iterator[tuple[LocalDask, dict[str, str]]]:
    folder.mkdir(parents=True, exist_ok=True)
    dask = LocalDask(folder)
    try:
        yield dask, dask.start(workers)
    finally:
        dask.stop()


@pytest.fixture(scope="module")
def two_workers(tmp_path_factory) -> Iterator[tuple[LocalDask, dict[str, str]]]:
    with local_dask(tmp_path_factory.mktemp("dask"), workers=2) as running:
        yield running


def outcome(db_path: Path) -> dict[str, list]:
    """Everything a tournament stored but its timings (play_ms, finished, decision times)."""
    db = sqlite3.connect(db_path)
    try:
        return {
            "matches": db.execute(
                "SELECT match_id, sched_order, seat0, seat1, deal_set, first_dealer, pair_index, "
                "swapped, winner, reason, points0, points1, offender, fault, detail, record "
                "FROM matches ORDER BY sched_order").fetchall(),
            "deals": db.execute("SELECT * FROM deals ORDER BY match_id, deal_no").fetchall(),
            "seats": db.execute("SELECT match_id, seat, bot, correct_claims, wrong_claims, "
                                "missed_claims, decisions FROM seats "
                                "ORDER BY match_id, seat").fetchall(),
            "bots": db.execute("SELECT * FROM bots ORDER BY name").fetchall(),
            "tournament": db.execute("SELECT name, config FROM tournament").fetchall(),
        }
    finally:
        db.close()


def settings(tmp_path: Path, folder: str, **kw: object) -> dict[str, object]:
    return {"name": "c", "bots": ["greedy", "c-counter", f"{sys.executable} {FIRST_LEGAL}"],
            "matches_per_pairing": 2, "seed": 9, "workers": 2, "output": str(tmp_path / folder),
            **kw}


# -- without a cluster -----------------------------------------------------------------------------

def test_a_local_tournament_does_not_import_dask(tmp_path):
    code = (
        "import sys\n"
        "from arena.cli.main import app\n"
        f"app(['tournament', '-b', 'random', '-b', 'greedy', '-n', '2', '-w', '1', "
        f"'-o', {str(tmp_path / 'out')!r}], standalone_mode=False)\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')))\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=RUN_TIMEOUT_S)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == "[]"
    assert (tmp_path / "out" / "results.sqlite").is_file()


@pytest.mark.parametrize("matches,threads", [(1, 1), (7, 2), (24, 2), (1000, 2), (5000, 64)])
def test_batches_cover_every_match_shrink_and_stay_capped(matches, threads):
    sizes = batch_sizes(matches, threads)
    assert sum(sizes) == matches
    assert all(1 <= s <= cluster_module.MAX_BATCH for s in sizes)
    assert sizes == sorted(sizes, reverse=True)  # large first, single matches last
    assert len(sizes) < matches or matches <= 2 * threads


@pytest.mark.parametrize("players,threads", [(2, 2), (2, 16), (3, 4)])
def test_batches_keep_each_deal_set_whole(tmp_path, players, threads):
    """The matches on the same deals go to one batch, played one after another by one thread:
    two instances of a bot on the same deals at once could tell each other the cards. A resumed
    run's lone partner and a deal set's six seatings (three players) too."""
    from arena.match.bot_process import Limits
    from arena.compete.cluster import batches
    from arena.compete.match_job import MatchJob
    from arena.compete.tournament import TournamentConfig, rules_of, schedule_of

    bots = ["greedy", "random", "c-counter", "first-legal"]
    config = TournamentConfig(name="b", bots=tuple(bots), matches_per_pairing=20) if players == 2 \
        else TournamentConfig(name="b", bots=tuple(bots), profile="three_player", deal_sets=3)
    rules = rules_of(config)
    schedule = schedule_of(config, rules, bots)[1:]  # as if the first were stored
    jobs = [MatchJob(m, "secret", (), rules, Limits(), 10, tmp_path / f"{m.match_id}.jsonl",
                     tmp_path) for m in schedule]
    chunks = batches(jobs, threads)
    assert [j.entry.match_id for chunk in chunks for j in chunk] == \
        [j.entry.match_id for j in jobs]  # every match once, in the schedule's order
    where = {}
    for index, chunk in enumerate(chunks):
        for job in chunk:
            assert where.setdefault(job.entry.deal_set, index) == index
    assert len(chunks) > threads  # still guided: more batches than threads


def test_cluster_is_a_setting_of_where_not_of_what(tmp_path):
    path = tmp_path / "t.toml"
    path.write_text('bots = ["random", "greedy"]\ncluster = "tcp://10.1.2.3:8786"\n')
    config = load_config(path, {})
    assert config.cluster == "tcp://10.1.2.3:8786"
    # Not stored with the results: a tournament started locally may be resumed on a cluster.
    assert "cluster" not in config.to_dict()


@pytest.mark.parametrize("address,message", [
    ("nonsense", "must be a Dask scheduler's address like tcp://HOST:8786"),
    ("tcp://127.0.0.1:{port}", "cannot reach the Dask scheduler at tcp://127.0.0.1:{port}"),
])
def test_an_unreachable_cluster_is_a_clear_error_before_anything_runs(tmp_path, monkeypatch,
                                                                      address, message):
    monkeypatch.setattr(cluster_module, "CONNECT_TIMEOUT_S", 2)
    port = free_port()  # nothing listens there
    path = tmp_path / "t.toml"
    path.write_text(f'bots = ["random", "greedy"]\ncluster = "{address.format(port=port)}"\n')
    result = runner.invoke(app, ["tournament", "--no-report", str(path), "-o", str(tmp_path / "out")])
    assert result.exit_code == 2
    assert message.format(port=port) in " ".join(result.output.split())
    assert not (tmp_path / "out" / "results.sqlite").exists()


def test_what_a_worker_lacks_is_named(tmp_path):
    gone = str(tmp_path / "gone.py")
    bot = WorkerBot.of(f"python3 {gone}", resolve_bot("python3 " + str(FIRST_LEGAL), "mybot"))
    assert bot.bundled is None and bot.files == (str(FIRST_LEGAL),) and bot.arena_python
    bot = WorkerBot(BotSpec("mybot", ("python3", gone)), files=(gone,))
    with pytest.raises(WorkerSetupError, match=rf"bot 'mybot' cannot run on worker w9: "
                                               rf"{re.escape(gone)} does not exist there"):
        cluster_module._bots_here([bot], __version__, "w9")
    with pytest.raises(WorkerSetupError, match="worker w9 runs arena .*, the coordinator 0.0.0"):
        cluster_module._bots_here([], "0.0.0", "w9")
    assert WorkerBot.of("greedy", resolve_bot("greedy")).bundled == "greedy"


# -- on a real cluster -----------------------------------------------------------------------------

@pytest.mark.slow
def test_a_scheduler_without_workers_is_a_clear_error_before_anything_runs(tmp_path, monkeypatch):
    monkeypatch.setattr(cluster_module, "WORKERS_TIMEOUT_S", 1)
    with local_dask(tmp_path / "dask", workers=0) as (dask, _):
        with pytest.raises(ClusterError, match=rf"the Dask scheduler at {dask.address} has no "
                                               rf"workers .* start some with `dask worker "):
            run_tournament(load_config(None, settings(tmp_path, "out", cluster=dask.address)))
    assert not (tmp_path / "out").exists()


@pytest.mark.slow
def test_the_same_seed_stores_the_same_results_locally_and_on_the_cluster(tmp_path, two_workers):
    dask, _ = two_workers
    local = run_tournament(load_config(None, settings(tmp_path, "local")))
    remote = run_tournament(load_config(None, settings(tmp_path, "remote",
                                                       cluster=dask.address)))
    assert outcome(remote) == outcome(local)
    # Records travel back with the results: every match's record is in the output folder, whole.
    rows = sqlite3.connect(remote).execute("SELECT match_id, record FROM matches").fetchall()
    assert len(rows) == 6
    for match_id, record in rows:
        rec = read_record(remote.parent / record)
        assert rec.header["match_id"] == match_id and rec.result is not None
        replay_record(rec)
        assert (remote.parent / "logs" / f"{match_id}.seat0.stderr.log").is_file()
    assert not list((remote.parent / "records").glob("*.part"))


@pytest.mark.slow
def test_workers_lacking_a_bots_program_fail_before_anything_runs(tmp_path, two_workers,
                                                                  monkeypatch):
    dask, _ = two_workers
    # A program only the coordinator can find: its PATH has a folder the workers' PATH lacks.
    folder = tmp_path / "bin"
    folder.mkdir()
    program = folder / "coordinator-only-bot"
    program.write_text(f"#!/bin/sh\nexec {sys.executable} {FIRST_LEGAL}\n")
    program.chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    config = load_config(None, settings(tmp_path, "out", cluster=dask.address,
                                        bots=["greedy", "coordinator-only-bot"]))
    with pytest.raises(ClusterError) as caught:
        run_tournament(config)
    message = str(caught.value)
    assert "bot 'coordinator-only-bot' cannot run on worker tcp://127.0.0.1:" in message
    assert "program 'coordinator-only-bot' is not on that worker's PATH" in message
    assert message.count("cannot run on worker") == 2  # both workers are named
    assert not (tmp_path / "out").exists()


@pytest.mark.slow
def test_a_bots_file_missing_on_workers_is_named_in_the_check_and_in_each_batch(tmp_path,
                                                                               two_workers):
    dask, _ = two_workers
    shared = tmp_path / "shared"
    shared.mkdir()
    script = shared / "mybot.py"
    script.write_bytes(FIRST_LEGAL.read_bytes())
    text = f"{sys.executable} {script}"
    with Cluster.connect(dask.address, [(text, resolve_bot(text))]) as cluster:
        script.unlink()  # the shared folder loses the file (or a worker never mounted it)
        with pytest.raises(ClusterError, match=rf"bot 'mybot' cannot run on worker "
                                               rf"tcp://127.0.0.1:\d+: {re.escape(str(script))} "
                                               rf"does not exist there"):
            cluster.check_workers()  # as before the first match
        # A worker that joins mid-run is checked by each batch it runs.
        future = cluster.client.submit(run_batch, [], cluster.bots, __version__, pure=False)
        with pytest.raises(WorkerSetupError, match=rf"bot 'mybot' .*{re.escape(str(script))}"):
            future.result(timeout=RUN_TIMEOUT_S)


@pytest.mark.slow
def test_a_worker_killed_mid_run_has_its_batches_played_again_elsewhere(tmp_path):
    flags = ["--name", "k", "-b", "greedy", "-b", "c-counter", "-b", "random", "-n", "6",
             "--seed", "4"]
    reference = tmp_path / "reference"
    # The uninterrupted local run plays while the cluster starts and plays (it waits on the
    # cluster's processes more than it uses the CPU), not before it.
    ref = subprocess.Popen(ARENA + ["tournament", "--no-report", *flags, "-w", "2", "-o",
                                    str(reference)], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, start_new_session=True)
    out = tmp_path / "killed"
    try:
        with local_dask(tmp_path / "dask", workers=2) as (dask, workers):
            with open(tmp_path / "arena.log", "wb") as arena_log:
                proc = subprocess.Popen(ARENA + ["tournament", "--no-report", *flags, "-o", str(out),
                                                 "--cluster", dask.address], stdout=arena_log,
                                        stderr=subprocess.STDOUT, start_new_session=True)
                try:
                    lost = _kill_mid_batch(dask, "w1", workers["w1"], out / "results.sqlite")
                    assert proc.wait(timeout=RUN_TIMEOUT_S) == 0, \
                        (tmp_path / "arena.log").read_text()
                finally:
                    if proc.poll() is None:
                        os.killpg(proc.pid, signal.SIGKILL)
                        proc.wait()
        _, ref_err = ref.communicate(timeout=RUN_TIMEOUT_S)
        assert ref.returncode == 0, ref_err.decode()
    finally:
        if ref.poll() is None:
            os.killpg(ref.pid, signal.SIGKILL)
            ref.communicate()
    assert outcome(out / "results.sqlite") == outcome(reference / "results.sqlite")
    scheduled = [m.match_id for m in round_robin("k", ["greedy", "c-counter", "random"], 3)]
    stored = [row[0] for row in outcome(out / "results.sqlite")["matches"]]
    assert sorted(stored) == sorted(scheduled)  # every match exactly once
    # The batches the killed worker had were played again, by the one left.
    log = (out / "tournament.log").read_text()
    for key in lost:
        index = int(key.split("-")[2])
        assert re.search(rf"batch {index} \(\d+ matches\) played on {workers['w2']} ", log), log


def _kill_mid_batch(dask: LocalDask, name: str, worker: str, db_path: Path) -> list[str]:
    """SIGKILL worker ``name`` (at address ``worker``) once some matches are stored and it is
    running a batch; returns the batches it had."""
    deadline = time.monotonic() + RUN_TIMEOUT_S
    with distributed.Client(dask.address, timeout=START_TIMEOUT_S, set_as_default=False) as client:
        while time.monotonic() < deadline:
            time.sleep(0.1)
            keys = [str(k) for k in client.processing(workers=[worker]).get(worker, [])
                    if str(k).startswith("arena-batch-")]
            if keys and _stored(db_path) >= 1:
                dask.kill(name)
                return keys
    raise AssertionError("the worker never had a batch while the run was going on")


def _stored(db_path: Path) -> int:
    if not db_path.exists():
        return 0
    try:
        with contextlib.closing(sqlite3.connect(db_path)) as db:
            return db.execute("SELECT COUNT(*) FROM matches").fetchone()[0]
    except sqlite3.Error:
        return 0


def test_workers_given_with_a_cluster_are_said_not_to_apply(tmp_path, monkeypatch):
    monkeypatch.setattr(cluster_module, "CONNECT_TIMEOUT_S", 1)
    result = runner.invoke(app, ["tournament", "--no-report", "-b", "random", "-b", "greedy", "-w", "3",
                                 "--cluster", f"tcp://127.0.0.1:{free_port()}",
                                 "-o", str(tmp_path / "out")])
    assert result.exit_code == 2
    assert "--workers 3 does not apply on a cluster" in " ".join(result.output.split())


def test_a_league_plays_its_pairs_on_the_cluster(tmp_path, two_workers, monkeypatch):
    """A league with ``cluster = ...`` plays in rounds of one pair per worker thread there (no
    local worker is started): every pair whole, on one deal set, with its records; a second run
    continues the ladder."""
    import arena.compete.league
    from arena.compete.league_store import read_ladder
    from arena.compete.league import run_league
    from league_util import check_whole, write_settings

    def no_local_pool(*args: object, **kwargs: object) -> None:
        raise AssertionError("a league on a cluster started local workers")

    monkeypatch.setattr(arena.compete.league, "Pool", no_local_pool)
    dask, _ = two_workers
    league = tmp_path / "league"
    write_settings(league, name="far", bots=["greedy", "c-counter", "random"],
                   cluster=dask.address, publish_every=0)
    first = run_league(league, data=tmp_path / "data", max_pairs=3, publish=False)
    assert first.pairs >= 3 and first.played == 2 * first.pairs
    ids = check_whole(league, "far")
    assert len(ids) == 2 * first.pairs
    again = run_league(league, data=tmp_path / "data", max_pairs=1, publish=False)
    assert again.pairs >= 1
    assert len(check_whole(league, "far")) == len(ids) + 2 * again.pairs
    rows, counts = read_ladder(league, tmp_path / "data")
    assert counts["matches"] == len(ids) + 2 * again.pairs
    assert {r.name for r in rows if r.active} == {"greedy", "c-counter", "random"}
