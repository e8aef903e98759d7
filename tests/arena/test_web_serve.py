"""``arena serve DIR`` end to end (issue 32's API scenario): the real command on a free port, its
league playing, spoken to over HTTP as an author's script would; then SIGTERM stops both in time."""

from __future__ import annotations

import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx2 as httpx
import pytest

import web_archives as archives
from bot_procs import parent_of, tagged_processes
from test_web_api import PASSWORD, competition

ARENA = [sys.executable, "-m", "arena"]
MiB = 1 << 20


class Served:
    def __init__(self, folder: Path):
        self.folder = folder
        self.proc = subprocess.Popen([*ARENA, "serve", str(folder), "--port", "0"],
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.lines: list[str] = []
        self.url = ""
        found = threading.Event()

        def read() -> None:
            assert self.proc.stdout is not None
            for line in self.proc.stdout:
                self.lines.append(line)
                address = re.search(r"at (http://127\.0\.0\.1:\d+)/", line)
                if address and not self.url:
                    self.url = address.group(1)
                    found.set()
            found.set()

        threading.Thread(target=read, daemon=True).start()
        if not found.wait(60) or not self.url:
            self.proc.kill()
            raise AssertionError("arena serve did not start: " + "".join(self.lines))
        self.http = httpx.Client(base_url=self.url, timeout=30)

    def output(self) -> str:
        return "".join(self.lines)


@pytest.fixture
def served(tmp_path):
    # One worker: the test shares two cores with other tests.
    serve = Served(competition(tmp_path / "comp", workers=1, upload_mb=2))
    try:
        yield serve
    finally:
        serve.http.close()
        if serve.proc.poll() is None:
            # SIGTERM, which ends the league's child too (a kill left it running, and the
            # session's leftover check then failed as well as the test); a kill if it hangs.
            serve.proc.terminate()
            try:
                serve.proc.wait(20)
            except subprocess.TimeoutExpired:
                serve.proc.kill()
                serve.proc.wait(30)


def _register(served: Served, name: str) -> dict[str, str]:
    answer = served.http.post("/api/accounts", json={"name": name, "password": PASSWORD})
    assert answer.status_code == 201, answer.text
    return {"Authorization": f"Bearer {answer.json()['token']}"}


def _upload(served: Served, auth: dict[str, str], data: bytes, name: str = "mybot"):
    return served.http.post("/api/bots", headers=auth, data={"name": name},
                            files={"file": ("bot.zip", data, "application/zip")})


def _until(check, timeout: float, what: str, served: Served):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.5)
    raise AssertionError(f"{what} not within {timeout} s; arena serve said:\n{served.output()}")


@pytest.mark.slow
def test_register_upload_qualify_play_and_stop(served):
    alice, bob = _register(served, "alice"), _register(served, "bob")
    http = served.http

    answer = _upload(served, alice, archives.zip_folder())
    assert answer.status_code == 202, answer.text
    version = answer.json()["version"]

    bot = _until(lambda: (b := http.get("/api/bots/mybot").json())["status"] in
                 ("active", "rejected") and b, 120, "mybot qualified", served)
    assert bot["status"] == "active" and bot["active_version"] == version, bot

    # The league takes it in and plays it against the house bot.
    row = _until(lambda: next((r for r in http.get("/api/leaderboard").json()["rows"]
                               if r["bot"] == "mybot" and r["matches"] > 0), None),
                 120, "mybot playing in the leaderboard", served)
    assert row["name"] == f"mybot@{version[:8]}" and row["active"]
    # A match is listed once its duplicate partner is played too (its deals are secret until
    # then), which the leaderboard's count does not wait for.
    played = _until(lambda: http.get("/api/matches", params={"bot": "mybot"}).json()["matches"],
                    120, "mybot's first match listed", served)
    assert all(f"mybot@{version[:8]}" in m["bots"] for m in played)

    # The guards, over real HTTP.
    traversal = archives.zip_with([("../../escaped.txt", b"x")])
    assert "leaves its folder" in _upload(served, alice, traversal).json()["error"]
    bomb = _upload(served, alice, archives.zip_bomb(101))
    assert bomb.status_code == 400 and "more than 100 MiB" in bomb.json()["error"]
    assert http.get("/api/bots/mybot/log", headers=bob).status_code == 403
    assert "qualification of mybot: PASSED" in \
        http.get("/api/bots/mybot/log", headers=alice).json()["log"]
    big = _upload(served, alice, bytes(3 * MiB))
    assert big.status_code == 413 and "larger than 2 MiB" in big.json()["error"]
    assert not (served.folder / "escaped.txt").exists()
    assert not (served.folder.parent / "escaped.txt").exists()

    # SIGTERM stops the site and the league within ten seconds, nothing lost.
    stored = http.get("/api/leaderboard").json()["matches"]
    started = time.monotonic()
    served.proc.send_signal(signal.SIGTERM)
    status = served.proc.wait(15)
    took = time.monotonic() - started
    assert took < 10, f"stopping took {took:.1f} s"
    assert status == 128 + signal.SIGTERM, served.output()
    assert "Traceback" not in served.output()
    assert "the league stopped:" in served.output()

    # Started again, the same folder serves the same accounts, bot and results.
    again = Served(served.folder)
    try:
        assert again.http.get("/api/bots/mybot").json()["status"] == "active"
        assert again.http.post("/api/tokens", json={"name": "alice", "password": PASSWORD}
                               ).status_code == 201
        assert again.http.get("/api/leaderboard").json()["matches"] >= stored
    finally:
        again.http.close()
        again.proc.send_signal(signal.SIGTERM)
        again.proc.wait(15)


def _processes_with(*words: str, parent: int | None = None) -> list[int]:
    """The PIDs of processes whose command line holds every one of ``words`` (this test's: a
    word names its folder, or ``parent`` is their parent)."""
    return [pid for pid, command in tagged_processes(words[0])
            if all(word in command.split() for word in words)
            and (parent is None or parent_of(pid) == parent)]


def _alive(pids: list[int], word: str) -> list[int]:
    """Those of ``pids`` still running with ``word`` in their command line (not a reused PID)."""
    running = {pid for pid, _ in tagged_processes(word)}
    return [pid for pid in pids if pid in running]


@pytest.mark.slow
def test_a_server_killed_with_kill_9_takes_its_league_and_submission_along(served, tmp_path):
    """Observed: after ``kill -9`` of ``arena serve`` its league's child played on, holding the
    league's lock, and the submission under way went on for nobody. Both are now sent SIGTERM
    when the server dies (web/child.py), and the next server of the folder serves, plays and
    builds the upload again."""
    slow = tmp_path / "slow"
    shutil.copytree(archives.EXAMPLE, slow, ignore=shutil.ignore_patterns("__pycache__"))
    (slow / "slow.py").write_text("import time\ntime.sleep(300)\n")
    (slow / "bot.toml").write_bytes(archives.MANIFEST + b'build = "python3 slow.py"\n')
    alice = _register(served, "alice")
    answer = _upload(served, alice, archives.zip_folder(slow))
    assert answer.status_code == 202, answer.text
    _until(lambda: served.http.get("/api/bots/mybot").json()["status"] == "building", 60,
           "mybot building", served)
    # The status says building just before the submission's process starts.
    submission = _until(lambda: _processes_with("submit", "--name", "mybot",
                                                parent=served.proc.pid), 30,
                        "the submission's process", served)
    league = _processes_with("arena.web.league_child", str(served.folder))
    assert len(league) == 1 and len(submission) == 1, (league, submission)

    served.proc.kill()
    served.proc.wait(15)
    _until(lambda: not _alive(league, "arena.web.league_child")
           and not _alive(submission, "submit"), 10, "the league and the submission ended", served)

    again = Served(served.folder)
    try:
        _until(lambda: again.http.get("/api/bots/mybot").json()["status"] == "building", 60,
               "mybot building again", again)
        assert again.http.get("/api/leaderboard").status_code == 200
        time.sleep(3)  # the league would fail on its lock within a second or two
        assert again.proc.poll() is None, again.output()
        assert "stopped by itself" not in again.output()
        second = _processes_with("submit", "--name", "mybot", parent=again.proc.pid)
    finally:
        again.http.close()
        again.proc.send_signal(signal.SIGTERM)
        again.proc.wait(15)
    _until(lambda: not _alive(second, "submit"), 10, "the second submission ended", again)


def test_a_second_server_of_a_folder_is_refused_and_the_first_goes_on(served):
    """Observed: a second arena serve of the same folder served for a moment, then stopped when
    its league found the league's folder taken; meanwhile it had written the league's settings
    again, and its upload queue puts a submission under way back in the queue at its start. Now
    it is refused before it writes or starts anything."""
    league = _processes_with("arena.web.league_child", str(served.folder))
    done = subprocess.run([*ARENA, "serve", str(served.folder), "--port", "0"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"is served already, by process {served.proc.pid}" in done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    assert "serving the competition" not in done.stdout
    assert served.proc.poll() is None
    assert served.http.get("/api/leaderboard").status_code == 200
    assert _processes_with("arena.web.league_child", str(served.folder)) == league


def test_a_taken_port_fails_at_once_with_one_line(tmp_path):
    import socket

    holder = socket.socket()
    holder.bind(("127.0.0.1", 0))
    holder.listen(1)
    port = holder.getsockname()[1]
    try:
        done = subprocess.run([*ARENA, "serve", str(tmp_path / "comp"), "--port", str(port)],
                              capture_output=True, text=True, timeout=60)
    finally:
        holder.close()
    assert done.returncode == 2
    assert done.stderr.strip().startswith("error: cannot serve on 127.0.0.1:")
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "comp" / "league" / "results.sqlite").exists()  # no league started


def test_a_bad_setting_is_one_line(tmp_path):
    folder = competition(tmp_path / "comp", registration="maybe")
    done = subprocess.run([*ARENA, "serve", str(folder), "--port", "0"], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2 and "registration must be" in done.stderr
    assert "Traceback" not in done.stderr
