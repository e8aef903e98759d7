"""Issue 13: nothing a bot is given can unhide a folder, and the sandbox fails closed.

Every check runs a real process in the real sandbox: ``fixtures/probe_bot.py`` tries what its
``probe.json`` lists (never its arguments, which are checked before a bot runs) and reports.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from arena.isolation import allow_list, bot_folders, launcher, levels, sandbox, zygote
from arena.isolation import probe as probing  # probe(): this file's probe bot
from arena.match.bot_process import BotProcess, Limits
from arena.entrants.bot_specs import BotSpecError, check_bot_paths, resolve_bot
from arena.game import profile
from arena.match.referee import BotSpec, MatchConfig, run_match
from arena.isolation.limits import PER_PROCESS_ENV, SandboxLimits
from arena.isolation.levels import LEVELS, SandboxUnavailable
from bot_procs import TAG, sandbox_user_processes, tagged_processes
from other_users import needs_others_to_read

FIXTURES = Path(__file__).parent / "fixtures"
PROBE = FIXTURES / "probe_bot.py"
BAD_BOT = FIXTURES / "bad_bot.py"
CHECKOUT = Path(__file__).resolve().parents[2]
ROOT = os.geteuid() == 0
LIMITS = Limits(decision_ms=5000, startup_ms=10000, max_line_bytes=1 << 15,
                sandbox=SandboxLimits(cpu_s=20, memory_mb=1024, processes=32, workdir_mb=16))
# The system's Python where there is one: the arena's may sit under /root, which a bot of the
# `limits` level (an unprivileged user on the host's files) cannot enter.
SYSTEM_PYTHON = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable

isolated = pytest.mark.skipif(not ROOT, reason="the isolated level needs root")
# The strongest level the arena may ask for on this machine without an opt-in to less.
STRONG = "isolated" if ROOT else "namespaces"

@pytest.fixture(params=["zygote", "exec"])
def launch_path(request, monkeypatch):
    """Both ways a Python bot starts (issue 18): forked from the zygote (arena/isolation/zygote.py) and by
    exec; every guarantee this fixture's tests check holds for both."""
    monkeypatch.setenv(zygote.ENV, "1" if request.param == "zygote" else "0")
    if request.param == "zygote" and probing.support().mode != "limits":
        assert zygote.get() is not None, zygote.failure()  # never a silent fall-back to exec
    return request.param



@pytest.fixture
def level(monkeypatch):
    """Ask for an isolation level for one test (the probe is redone, and undone after)."""
    def ask(name: str) -> None:
        monkeypatch.setenv(levels.ISOLATION_ENV, name)
        monkeypatch.setattr(probing, "_requested", None)
        monkeypatch.setattr(probing, "_support", None)
    yield ask
    probing._support = None


def probe(folder: Path, checks: dict, python: str = sys.executable, extra: tuple[str, ...] = (),
          private: tuple[Path, ...] = (), limits: Limits = LIMITS) -> dict:
    """Run the probe bot with ``checks`` in its own folder; its report."""
    folder.mkdir(exist_ok=True)
    shutil.copy(PROBE, folder / "probe_bot.py")
    (folder / "probe.json").write_text(json.dumps(checks))
    for path in folder.iterdir():
        path.chmod(0o644)
    proc = BotProcess([python, "probe_bot.py", TAG, *extra], limits, files=folder, hide=private)
    proc.start()
    try:
        line = proc.read_line(20)
    finally:
        proc.close()
    return json.loads(line)


def private_world(base: Path) -> tuple[Path, Path, Path]:
    """A data folder with a registry and a tournament's record in it, every file world-readable,
    so that only the sandbox keeps a bot out: (data folder, a registry file, a record file)."""
    data = base / "data"
    (data / "registry" / "bots" / "rival").mkdir(parents=True)
    (data / "t1" / "records").mkdir(parents=True)
    secret = data / "registry" / "bots" / "rival" / "bot.py"
    secret.write_text("another bot's code")
    record = data / "t1" / "records" / "m1.jsonl"
    record.write_text("the deal orders")
    for path in [data, *data.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return data, secret, record


# -- nothing a bot is given can unhide a folder ----------------------------------------------------

def test_arguments_pointing_into_private_folders_are_refused(tmp_path, monkeypatch):
    from arena.compete.tournament import ConfigError, load_config, resolve_bots

    data, secret, record = private_world(tmp_path)
    monkeypatch.setenv("ARENA_DATA", str(data))
    bot = f"{sys.executable} {PROBE}"
    for arg in (str(record), str(record.parent), str(secret), f"--log={data}/t1",
                str(data / "t1" / "records" / ".." / "records")):
        with pytest.raises(BotSpecError, match="a folder of the arena that bots may not see"):
            resolve_bot(f"{bot} {arg}")  # issue 29: refused as soon as it is named
        with pytest.raises(BotSpecError, match="a folder of the arena that bots may not see"):
            check_bot_paths(BotSpec("probe", (sys.executable, str(PROBE), arg)), [data])
        config = load_config(None, {"bots": ["greedy", f"{bot} {arg}"], "output": str(tmp_path / "o")})
        with pytest.raises(ConfigError, match="bots may not see"):
            resolve_bots(config)  # tournament start
    # relative to the working folder, wherever the arena runs from
    monkeypatch.chdir(data / "t1")
    with pytest.raises(BotSpecError):
        resolve_bot(f"{bot} records/m1.jsonl")
    check_bot_paths(resolve_bot(f"{bot} --fast"), [data])  # the control: nothing private named


def test_a_private_folder_inside_what_every_bot_sees_is_refused(tmp_path):
    from arena.compete.tournament import ConfigError, load_config, resolve_bots

    inside = Path(sandbox.__file__).resolve().parent / f"results-{TAG}"  # in the installation
    config = load_config(None, {"bots": ["greedy", "random"], "output": str(inside)})
    with pytest.raises(ConfigError, match="which every bot sees read-only"):
        resolve_bots(config)  # before the tournament's folder is made
    allow_list.allow_list(["true"], [str(inside)])  # a data folder that is not there hides nothing
    inside.mkdir()
    try:
        with pytest.raises(SandboxUnavailable, match="which every bot sees read-only"):
            allow_list.allow_list(["true"], [str(inside)])
    finally:
        inside.rmdir()


def test_the_old_arena_sandbox_limits_switch_still_means_limits(monkeypatch):
    monkeypatch.setattr(probing, "_requested", None)
    monkeypatch.delenv(levels.ISOLATION_ENV, raising=False)
    monkeypatch.setenv("ARENA_SANDBOX", "limits")
    assert probing.requested_level() == "limits"
    monkeypatch.setenv(levels.ISOLATION_ENV, "namespaces")  # the new name wins
    assert probing.requested_level() == "namespaces"
    monkeypatch.setenv(levels.ISOLATION_ENV, "weak")
    with pytest.raises(ValueError, match="unknown isolation level 'weak'"):
        probing.requested_level()


@needs_others_to_read
@pytest.mark.slow
def test_the_isolation_level_is_a_tournament_setting(tmp_path):
    from arena.compete.tournament import ConfigError, load_config

    assert load_config(None, {"bots": ["greedy", "random"], "isolation": "limits"}).isolation \
        == "limits"
    with pytest.raises(ConfigError, match="unknown isolation level 'none'"):
        load_config(None, {"bots": ["greedy", "random"], "isolation": "none"})
    settings = tmp_path / "t.toml"
    settings.write_text('bots = ["first-legal-c", "c-counter"]\nisolation = "limits"\n'
                        'matches_per_pairing = 2\n')
    env = {probing.PROBE_FAIL_ENV: "no namespaces (simulated)", levels.ISOLATION_ENV: STRONG}
    proc = run_arena(["tournament", "--no-report", str(settings), "-o", str(tmp_path / "t")], env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "sandbox: limits" in proc.stdout
    proc = run_arena(["tournament", "--no-report", str(settings), "-o", str(tmp_path / "t2"), "--isolation",
                      STRONG], env)  # the flag wins over the file
    assert proc.returncode == 2 and "bots do not run" in proc.stderr


@pytest.mark.slow
def test_arena_submit_refuses_a_command_naming_the_registry(tmp_path):
    data, secret, _ = private_world(tmp_path)
    proc = subprocess.run([str(CHECKOUT / ".venv" / "bin" / "arena"), "submit",
                           f"{sys.executable} {PROBE} {secret}", "--name", "sneaky",
                           "--data", str(data)], capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0 and "Traceback" not in proc.stderr + proc.stdout
    assert "a folder of the arena that bots may not see" in proc.stdout + proc.stderr


@isolated
def test_a_bot_cannot_read_a_hidden_folder_by_any_path(launch_path, tmp_path, monkeypatch,
                                                       open_folder, level):
    level("isolated")
    data, secret, record = private_world(open_folder)
    monkeypatch.setenv("ARENA_DATA", str(data))
    monkeypatch.chdir(tmp_path)  # the data folder is hidden by its absolute path, from anywhere
    targets = [str(secret), str(record), str(data), str(record.parent), str(open_folder)]
    paths = [*targets,
             *(f"/proc/1/root{p}" for p in targets), *(f"/proc/self/root{p}" for p in targets),
             *(f"/proc/self/cwd/../../../../../../..{p}" for p in targets),
             *(f"../../../../../../..{p}" for p in targets)]
    # The records folder even as an argument: the sandbox does not expose it (and the arena
    # refuses such a bot before: see above).
    report = probe(tmp_path / "bot", {"read": paths + ["probe.json", sys.executable],
                                      "via_links": targets},
                   extra=(str(record), str(record.parent)), private=(record.parent, data))
    assert report["read"].pop("probe.json") and report["read"].pop(sys.executable)  # the control
    assert not any(report["read"].values()), report["read"]
    assert not any(report["via_links"].values()), report["via_links"]
    # Nothing inside names a hidden path, nor where the sandbox keeps its things.
    for name in (str(open_folder), str(data), str(tmp_path), bot_folders.FOLDER_PREFIX,
                 str(launcher.cache_folder())):
        assert name not in report["mountinfo"] and name not in report["cmdline1"]
    assert report["cwd"] == launcher.BOT_HOME


@pytest.mark.parametrize("name", LEVELS)
def test_as_root_a_bot_never_runs_as_root_and_cannot_read_etc_shadow(launch_path, tmp_path, level,
                                                                    name):
    if not ROOT:
        pytest.skip("the test is about an arena run as root")
    level(name)
    report = probe(tmp_path / "bot", {}, python=SYSTEM_PYTHON if name == "limits" else
                   sys.executable)
    assert probing.support().mode == ("limits" if name == "limits" else "isolated")
    assert report["uid"] != 0 and report["euid"] != 0 and report["gid"] != 0
    assert not report["shadow_read"] and not report["shadow_write"]


def test_no_connection_to_a_host_service_over_a_unix_socket(launch_path, tmp_path, level):
    if not ROOT and probing.requested_level() == "isolated":
        level("namespaces")
    runs = Path("/run") if os.access("/run", os.W_OK) else Path(tempfile_dir())
    # Two names: as a normal user ``runs`` may be /tmp too.
    files = [runs / f"sixtysix-test-run-{TAG}.sock", Path("/tmp") / f"sixtysix-test-{TAG}.sock"]
    abstract = f"sixtysix-test-{TAG}"
    servers, accepted = [], []
    try:
        for address in [*map(str, files), "\0" + abstract]:
            server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            server.bind(address)
            if not address.startswith("\0"):
                os.chmod(address, 0o777)  # a service anyone may talk to
            server.listen()
            server.settimeout(0.2)
            servers.append(server)
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as control:
            control.connect(str(files[0]))  # the control: the service is there
            servers[0].accept()[0].close()
        report = probe(tmp_path / "bot", {"connect": [str(f) for f in files],
                                          "abstract": [abstract]})
        for server in servers:
            try:
                accepted.append(server.accept())
            except TimeoutError:
                pass
    finally:
        for server in servers:
            server.close()
        for path in files:
            path.unlink(missing_ok=True)
    assert report["connect"] == {str(f): False for f in files}
    assert report["abstract"] == {abstract: False}
    assert accepted == []


def tempfile_dir() -> str:
    import tempfile

    return tempfile.gettempdir()


def test_writing_past_workdir_mb_fails_with_enospc(launch_path, tmp_path, level):
    if not ROOT and probing.requested_level() == "isolated":
        level("namespaces")
    limits = replace(LIMITS, sandbox=replace(LIMITS.sandbox, workdir_mb=8, file_mb=0))
    report = probe(tmp_path / "bot", {"fill_mb": 20, "write": ["/tmp/t", "/dev/shm/s", "new"]},
                   limits=limits)
    assert report["fill"] == "No space left on device"
    assert report["write"] == {"/tmp/t": True, "/dev/shm/s": True, "new": True}  # the control
    # The cap is on top of the bot's own files: a bot of 12 MB still starts, and is held at 8 more.
    (tmp_path / "big").mkdir()
    (tmp_path / "big" / "weights.bin").write_bytes(b"w" * (12 << 20))
    report = probe(tmp_path / "big", {"fill_mb": 20, "read": ["weights.bin"]}, limits=limits)
    assert report["read"] == {"weights.bin": True} and report["fill"] == "No space left on device"
    report = probe(tmp_path / "big", {"fill_mb": 6}, limits=limits)
    assert report["fill"] == ""


def test_a_disk_filler_forfeits_with_enospc_in_its_stderr(launch_path, tmp_path, level):
    if not ROOT and probing.requested_level() == "isolated":
        level("namespaces")
    limits = replace(LIMITS, sandbox=replace(LIMITS.sandbox, workdir_mb=8, file_mb=0))
    filler = BotSpec("filler", (sys.executable, str(BAD_BOT), "disk_filler", TAG))
    config = MatchConfig(rules=profile("sixty_six"), seed=3, match_id="f", limits=limits)
    result = run_match([filler, resolve_bot("greedy")], config, record_path=tmp_path / "m.jsonl",
                       log_dir=tmp_path / "logs")
    assert (result.reason, result.offender, result.fault) == ("forfeit", 0, "exit"), result.detail
    assert "No space left on device" in (tmp_path / "logs" / "f.seat0.stderr.log").read_text()
    assert tagged_processes() == [] and sandbox_user_processes() == []


# A bot that reports its PATH, its /etc and the users it can name (issue 29: it saw the host's).
ETC_BOT = """
import json, os, pwd, sys
said = {"path": os.environ.get("PATH"), "etc": sorted(os.listdir("/etc")),
        "users": sorted(entry.pw_name for entry in pwd.getpwall())}
try:
    said["me"] = pwd.getpwuid(os.getuid()).pw_name
except KeyError:
    said["me"] = None
print(json.dumps(said), flush=True)
sys.stdin.read()
"""


@pytest.mark.parametrize("name", LEVELS)
def test_a_bot_sees_a_minimal_etc_and_a_fixed_path(launch_path, tmp_path, level, name):
    """Issue 29: a bot's PATH is ``launcher.BOT_PATH`` at every level, whatever the arena's; in
    the namespaced levels its /etc holds only the loader's files and a user list of its own."""
    if name == "isolated" and not ROOT:
        pytest.skip("the isolated level needs root")
    level(name)
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "etc_bot.py").write_text(ETC_BOT)
    for path in (folder, folder / "etc_bot.py"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    python = SYSTEM_PYTHON if name == "limits" else sys.executable
    proc = BotProcess([python, "etc_bot.py"], LIMITS, files=folder)
    proc.start()
    try:
        said = json.loads(proc.read_line(20))
    finally:
        proc.close()
    assert said["path"] == launcher.BOT_PATH == "/usr/local/bin:/usr/bin:/bin"
    if name == "limits":
        return  # the machine's own /etc: no root of its own at this level
    mode = probing.support().mode
    assert set(said["etc"]) <= {"ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives",
                                "localtime", "passwd", "group", "hosts", "nsswitch.conf"} | \
        {p.name for p in Path("/etc").glob("java-*")}, said["etc"]
    assert "shadow" not in said["etc"] and "hostname" not in said["etc"]
    # root, the bot's own user (as root: its leased id; in a user namespace it is root), nobody
    assert said["users"] == (["bot", "nobody", "root"] if mode == "isolated" else
                             ["nobody", "root"])
    assert said["me"] == ("bot" if mode == "isolated" else "root")


# -- the sandbox fails closed ----------------------------------------------------------------------

def run_arena(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(CHECKOUT / ".venv" / "bin" / "arena"), *args], capture_output=True,
                          text=True, timeout=120, env={**os.environ, **env})


def test_without_a_c_compiler_no_bot_runs(tmp_path):
    empty = tmp_path / "empty-path"
    empty.mkdir()
    env = {"PATH": str(empty), "XDG_CACHE_HOME": str(tmp_path / "cache"),
           levels.ISOLATION_ENV: STRONG}
    proc = run_arena(["play", "first-legal-c", "c-counter", "--record", str(tmp_path / "m.jsonl")],
                     env)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    assert f"bots do not run: the '{STRONG}' sandbox is not available here" in proc.stderr
    assert "no C compiler (cc or gcc) on PATH" in proc.stderr
    assert "--isolation " in proc.stderr and "limits" in proc.stderr
    assert not (tmp_path / "m.jsonl").exists()


@needs_others_to_read
@pytest.mark.slow
def test_when_namespaces_fail_no_bot_runs_unless_a_weaker_level_is_asked_for(tmp_path):
    env = {probing.PROBE_FAIL_ENV: "unshare: Operation not permitted (simulated)",
           levels.ISOLATION_ENV: STRONG}
    record = tmp_path / "m.jsonl"
    for args in (["play", "first-legal-c", "c-counter"],
                 ["tournament", "--no-report", "-b", "first-legal-c", "-b", "c-counter", "-n", "2",
                  "-o", str(tmp_path / "t")],
                 ["play", "first-legal-c", "c-counter", "--isolation", "namespaces"]):
        proc = run_arena([*args, "--record", str(record)] if args[0] == "play" else args, env)
        assert proc.returncode == 2, proc.stdout + proc.stderr
        assert "bots do not run" in proc.stderr and "(simulated)" in proc.stderr
        assert "Traceback" not in proc.stderr
    assert not record.exists() and not (tmp_path / "t").exists()
    # The explicit opt-in: the match is played, and the level said.
    proc = run_arena(["play", "first-legal-c", "c-counter", "--isolation", "limits",
                      "--record", str(record)], env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert record.exists()
    proc = run_arena(["play", "first-legal-c", "c-counter", "--isolation", "strong"], env)
    assert proc.returncode == 2 and "unknown isolation level 'strong'" in proc.stderr


def test_a_tampered_launcher_is_built_again(tmp_path, monkeypatch, level):
    if not sys.platform.startswith("linux"):
        pytest.skip("the launcher is Linux only")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    launcher.forget_launcher()
    try:
        binary = launcher._build("", ())
        good = binary.read_bytes()
        for tamper in (lambda: binary.write_bytes(b"#!/bin/sh\necho owned\n"),
                       lambda: binary.write_bytes(good + b"\0"),
                       lambda: binary.chmod(0o777),
                       lambda: binary.with_name(binary.name + ".sha256").unlink()):
            tamper()
            assert launcher._build("", ()) == binary
            assert binary.read_bytes() == good and not binary.stat().st_mode & 0o022
        level("isolated" if ROOT else "namespaces")
        assert probe(tmp_path / "bot", {})["cwd"] == launcher.BOT_HOME  # and it runs bots
    finally:
        launcher.forget_launcher()


def test_a_launcher_cache_others_may_write_to_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    (tmp_path / "sixtysix-arena").mkdir(mode=0o777)
    (tmp_path / "sixtysix-arena").chmod(0o777)
    with pytest.raises(OSError, match="writable by you alone"):
        launcher._build("", ())


NOBODY_SCRIPT = """
import json, os, sys
sys.path.insert(0, {checkout!r})
from arena.isolation import launcher, levels, probe
try:
    probe.support()
    print("isolated: ran")
except levels.SandboxUnavailable as err:
    print("isolated:", err)
probe.set_isolation("namespaces")
try:
    print("mode:", probe.support().mode)
except levels.SandboxUnavailable as err:
    print("namespaces:", err)
    sys.exit(0)
from arena.match.bot_process import BotProcess, Limits
proc = BotProcess([sys.executable, {probe!r}], Limits(max_line_bytes=1 << 15), files={folder!r})
proc.start()
print("report:", proc.read_line(20).decode())
proc.close()
"""


@needs_others_to_read
@pytest.mark.skipif(not ROOT or shutil.which("setpriv") is None or
                    not os.path.exists("/usr/bin/python3"),
                    reason="runs the arena as another user with setpriv, as root, with the "
                           "system's Python")
def test_as_a_normal_user_isolated_is_refused_and_namespaces_hides_the_users_files():
    import tempfile

    # Not under pytest's folder, which only root may enter.
    top = Path(tempfile.mkdtemp(prefix="sixtysix-test-nobody-"))
    try:
        _as_nobody(top)
    finally:
        shutil.rmtree(top, ignore_errors=True)


def _as_nobody(tmp_path: Path) -> None:
    home = tmp_path / "nobody"
    (home / "bot").mkdir(parents=True)
    shutil.copy(PROBE, home / "bot" / "probe_bot.py")
    cache = home / "cache"
    own = home / "own-file"
    own.write_text("the user's own file")
    service = tmp_path / "service.sock"  # a host service anyone may talk to, file and abstract
    abstract = f"sixtysix-test-nobody-{TAG}"
    (home / "bot" / "probe.json").write_text(json.dumps(
        {"read": [str(own), str(cache)], "write": [str(own), str(home / "new-file")],
         "connect": [str(service)], "abstract": [abstract]}))
    for path in [tmp_path, home, *home.rglob("*")]:
        os.chown(path, 65534, 65534)
    tmp_path.chmod(0o755)
    with socket.socket(socket.AF_UNIX) as server, socket.socket(socket.AF_UNIX) as server2:
        server.bind(str(service))
        service.chmod(0o777)
        server2.bind("\0" + abstract)
        for s in (server, server2):
            s.listen()
            s.settimeout(0.1)
        report = _nobody_report(tmp_path, home, cache)
        for s in (server, server2):
            with pytest.raises(TimeoutError):
                s.accept()  # nobody came
    assert report["connect"] == {str(service): False} and report["abstract"] == {abstract: False}
    assert report["read"] == {str(own): False, str(cache): False}
    # What it wrote there went to its own /tmp (a tmpfs): the user's files are untouched.
    assert own.read_text() == "the user's own file" and not (home / "new-file").exists()
    assert str(cache) not in report["mountinfo"]


def _nobody_report(tmp_path: Path, home: Path, cache: Path) -> dict:
    script = NOBODY_SCRIPT.format(checkout=str(CHECKOUT), probe=str(home / "bot" / "probe_bot.py"),
                                  folder=str(home / "bot"))
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "XDG_CACHE_HOME": str(cache),
           "TMPDIR": str(home), "LANG": "C.UTF-8", PER_PROCESS_ENV: "1"}
    proc = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                           "/usr/bin/python3", "-c", script], capture_output=True, text=True,
                          env=env, timeout=120)
    out = proc.stdout
    assert proc.returncode == 0, out + proc.stderr
    assert "isolated: bots do not run" in out and "only when the arena runs as root" in out
    if "namespaces: " in out:
        pytest.skip(f"this machine refuses user namespaces: {out}")
    assert "mode: namespaces" in out
    return json.loads(out.split("report: ", 1)[1])


# -- issue 29: a bot of `limits` as a normal user cannot poison a later run's launcher --------------

# A `limits` bot as the arena's own user: it replaces every cached launcher with a wrapper that
# leaves a mark and then runs the real one, and rewrites the checksum beside it (what the arena
# checked before issue 29).
POISONER = """
import hashlib, os, pathlib, sys
cache = pathlib.Path(open("cache").read())
real = cache / "real"
for binary in cache.glob("sandbox-launch-*"):
    if binary.suffix in (".so", ".sha256"):
        continue
    os.replace(binary, real)
    wrapper = f"#!/bin/sh\\nid > {cache.parent / 'owned'}\\nexec {real} \\"$@\\"\\n".encode()
    binary.write_bytes(wrapper)
    binary.chmod(0o700)
    binary.with_name(binary.name + ".sha256").write_text(hashlib.sha256(wrapper).hexdigest())
    print("poisoned", binary, flush=True)
print("done", flush=True)
sys.stdin.read()
"""

POISON_SCRIPT = """
import json, os, sys
sys.path.insert(0, {checkout!r})
from arena.isolation import launcher, probe
from arena.match.bot_process import BotProcess, Limits
probe.set_isolation(sys.argv[1])
bot = [sys.executable, {bot!r}]
proc = BotProcess(bot, Limits(max_line_bytes=1 << 15), files={folder!r})
proc.start()
said = []
while not said or said[-1] != "done":
    said.append(proc.read_line(20).decode())
proc.close()
print("said:", json.dumps(said))
print("trust:", os.environ.get(launcher.TRUST_ENV, ""))
"""


@needs_others_to_read
@pytest.mark.skipif(not ROOT or shutil.which("setpriv") is None or
                    not os.path.exists("/usr/bin/python3"),
                    reason="runs the arena as another user with setpriv, as root, with the "
                           "system's Python")
def test_a_limits_bot_cannot_poison_the_launcher_of_a_later_namespaces_run():
    """Issue 29: at `limits` as a normal user the bot IS the arena's user and can rewrite its
    cache; the next `namespaces` run must not execute what it wrote there."""
    import tempfile

    top = Path(tempfile.mkdtemp(prefix="sixtysix-test-poison-"))
    try:
        home = top / "home"
        cache = home / "cache"
        (home / "bot").mkdir(parents=True)
        (home / "bot" / "poison.py").write_text(POISONER)
        (home / "bot" / "cache").write_text(str(cache / "sixtysix-arena"))
        for path in [top, *top.rglob("*")]:
            os.chown(path, 65534, 65534)
        top.chmod(0o755)
        script = POISON_SCRIPT.format(checkout=str(CHECKOUT), bot=str(home / "bot" / "poison.py"),
                                      folder=str(home / "bot"))
        env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "XDG_CACHE_HOME": str(cache),
               "TMPDIR": str(home), "LANG": "C.UTF-8", PER_PROCESS_ENV: "1"}

        def run(level: str, extra: dict[str, str] | None = None) -> str:
            proc = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                                   "/usr/bin/python3", "-c", script, level], capture_output=True,
                                  text=True, env={**env, **(extra or {})}, timeout=300)
            assert proc.returncode == 0, proc.stdout + proc.stderr
            return proc.stdout

        first = run("namespaces")  # a namespaces run leaves the launcher in the user's cache
        if "said:" not in first:
            pytest.skip(f"this machine refuses user namespaces: {first}")
        trust = first.split("trust: ", 1)[1].strip()
        assert "poisoned" not in first  # in its own root, the bot found no cache to write
        poisoned = run("limits")
        assert "poisoned" in poisoned, poisoned
        # The next run, a fresh arena; and one started by an arena that passed down the digest
        # of what it built (a tournament's worker): neither runs the wrapper, both run the bot.
        for extra in ({}, {launcher.TRUST_ENV: trust}):
            again = run("namespaces", extra)
            assert "done" in again and not (cache / "owned").exists(), again
    finally:
        shutil.rmtree(top, ignore_errors=True)


# A `limits` bot run by a normal user has that user's id: it tries its referee (its parent there).
TRACER = """
import ctypes, json, os, sys
referee = os.getppid()
libc = ctypes.CDLL(None, use_errno=True)
said = {"referee": referee}
# PTRACE_SEIZE: attached without stopping it; the kernel detaches as this process exits.
seized = libc.ptrace(0x4206, referee, 0, 0) == 0
said["ptrace"] = seized or os.strerror(ctypes.get_errno())
for name in ("mem", "environ", "maps"):
    try:
        with open(f"/proc/{referee}/{name}", "rb") as fh:
            said[name] = len(fh.read(64)) >= 0
    except OSError as err:
        said[name] = err.strerror
print(json.dumps(said), flush=True)
sys.stdin.read()
"""

TRACE_SCRIPT = """
import sys
sys.path.insert(0, {checkout!r})
from arena.isolation import launcher, probe
from arena.match.bot_process import BotProcess, Limits
probe.set_isolation("limits")
proc = BotProcess([sys.executable, {bot!r}], Limits(max_line_bytes=1 << 15), files={folder!r})
proc.start()
print("report:", proc.read_line(20).decode(), flush=True)
proc.close()
"""


@needs_others_to_read
@pytest.mark.skipif(not ROOT or shutil.which("setpriv") is None or
                    not os.path.exists("/usr/bin/python3"),
                    reason="runs the arena as another user with setpriv, as root, with the "
                           "system's Python")
def test_a_limits_bot_of_a_normal_user_cannot_trace_or_read_its_referee():
    """Issue 29: the referee (and the coordinator and workers, which call the same
    ``probe.not_dumpable``) is not dumpable, so a bot of its own user cannot attach to it or
    read its memory or environment (this kernel has no Yama to stop it otherwise)."""
    import tempfile

    top = Path(tempfile.mkdtemp(prefix="sixtysix-test-trace-"))
    try:
        (top / "bot").mkdir()
        (top / "bot" / "tracer.py").write_text(TRACER)
        for path in [top, *top.rglob("*")]:
            os.chown(path, 65534, 65534)
        top.chmod(0o755)
        script = TRACE_SCRIPT.format(checkout=str(CHECKOUT), bot=str(top / "bot" / "tracer.py"),
                                     folder=str(top / "bot"))
        proc = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                               "/usr/bin/python3", "-c", script], capture_output=True, text=True,
                              env={"PATH": "/usr/bin:/bin", "HOME": str(top), "TMPDIR": str(top),
                                   "LANG": "C.UTF-8"}, timeout=120)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        report = json.loads(proc.stdout.split("report: ", 1)[1])
        assert report == {"referee": report["referee"], "ptrace": "Operation not permitted",
                          "mem": "Permission denied", "environ": "Permission denied",
                          "maps": "Permission denied"}, report
    finally:
        shutil.rmtree(top, ignore_errors=True)


MEMORY_SCRIPT = """
import json, os, sys
sys.path.insert(0, {checkout!r})
from arena.isolation import cgroups, launcher, probe
from arena.match.bot_process import BotProcess, Limits
from arena.isolation.limits import PER_PROCESS_ENV, SandboxLimits
from arena.isolation.levels import SandboxUnavailable
from arena.entrants.submit import submit
from arena.compete.tournament import ConfigError, load_config, run_tournament
probe.set_isolation("namespaces")
print("mode:", probe.support().mode, cgroups.available() is None, flush=True)

def bot(**limits):
    proc = BotProcess([sys.executable, {bot!r}], Limits(max_line_bytes=1 << 15,
                      sandbox=SandboxLimits(**limits)), files={folder!r})
    try:
        proc.start()
    except SandboxUnavailable as err:
        return "refused: " + str(err)
    try:
        return "ran: " + proc.read_line(20).decode()
    finally:
        proc.close()

said = {{"default": bot(), "opt_in": bot(memory_per_process=1), "none": bot(memory_mb=0)}}
os.environ[PER_PROCESS_ENV] = "1"
said["env"] = bot()
del os.environ[PER_PROCESS_ENV]
try:
    run_tournament(load_config(None, {{"name": "t", "bots": ["first-legal", "random"],
                                       "matches_per_pairing": 2, "workers": 1,
                                       "output": {out!r}}}))
    said["tournament"] = "ran"
except ConfigError as err:
    said["tournament"] = "refused: " + str(err)
outcome = submit("first-legal", name="mine", data={data!r})
said["submit"] = outcome.status + ": " + outcome.reason
from arena.compete.single_match import PlayError, check_bots
from arena.entrants.bot_specs import resolve_bot
from arena.game import profile
try:  # arena play's check, before any bot starts (it was a traceback from the first start)
    check_bots((resolve_bot("first-legal"), resolve_bot("random")), Limits(),
               profile("sixty_six"), hide=[])
    said["play"] = "ran"
except PlayError as err:
    said["play"] = "refused: " + str(err)
print("said:", json.dumps(said))
"""


@needs_others_to_read
@pytest.mark.skipif(not ROOT or shutil.which("setpriv") is None or
                    not os.path.exists("/usr/bin/python3"),
                    reason="runs the arena as another user with setpriv, as root, with the "
                           "system's Python")
def test_namespaces_without_a_cgroup_refuses_a_memory_cap_it_cannot_hold_whole():
    """Issue 29: at `namespaces` as a normal user with no cgroup per bot, memory_mb would cap
    each process alone (8 children x 512 MB held 4.2 GB): refused, naming the opt-in, unless the
    operator asks for a cap per process (or none)."""
    import tempfile

    top = Path(tempfile.mkdtemp(prefix="sixtysix-test-memory-"))
    try:
        (top / "bot").mkdir()
        (top / "bot" / "hello.py").write_text("print('hello', flush=True)\nimport sys\n"
                                               "sys.stdin.read()\n")
        for path in [top, *top.rglob("*")]:
            os.chown(path, 65534, 65534)
        top.chmod(0o755)
        script = MEMORY_SCRIPT.format(checkout=str(CHECKOUT), bot=str(top / "bot" / "hello.py"),
                                      folder=str(top / "bot"), out=str(top / "t"),
                                      data=str(top / "data"))
        proc = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                               "/usr/bin/python3", "-c", script], capture_output=True, text=True,
                              env={"PATH": "/usr/bin:/bin", "HOME": str(top), "TMPDIR": str(top),
                                   "LANG": "C.UTF-8"}, timeout=300, cwd=str(top))
        assert proc.returncode == 0, proc.stdout + proc.stderr
        if "mode: namespaces False" not in proc.stdout:
            pytest.skip(f"not namespaces without cgroups here: {proc.stdout[:200]}")
        said = json.loads(proc.stdout.split("said: ", 1)[1])
        for key in ("default", "tournament", "submit", "play"):
            assert "memory_mb=2048 cannot cap a bot's memory as a whole" in said[key], said
            assert "--limit memory_per_process=1" in said[key]
            assert "ARENA_MEMORY_PER_PROCESS=1" in said[key]
        assert said["submit"].startswith("rejected: ")
        assert not (top / "t" / "results.sqlite").exists()  # nothing was played or stored
        for key in ("opt_in", "none", "env"):
            assert said[key] == "ran: hello", said
    finally:
        shutil.rmtree(top, ignore_errors=True)


def test_memory_per_process_is_an_opt_in_of_0_or_1():
    assert SandboxLimits.from_mapping({"memory_per_process": 1}).memory_per_process == 1
    with pytest.raises(ValueError, match="memory_per_process is 0 or 1"):
        SandboxLimits.from_mapping({"memory_per_process": 2})


# -- end to end: a submitted spy in a tournament ---------------------------------------------------

@pytest.mark.slow
@isolated
def test_a_submitted_spy_in_a_tournament_sees_nothing_of_the_arena(tmp_path, monkeypatch, level):
    """The attack of issue 13 as a stranger would run it: a registered bot, in a tournament run
    from outside the checkout, trying the tournament's database, its own match's record, the logs
    and the registry while it plays."""
    from arena.entrants.submit import submit
    from arena.compete.tournament import load_config, run_tournament

    level("isolated")
    data = tmp_path / "data"
    out = data / "spyfest"
    folder = tmp_path / "spy"
    folder.mkdir()
    shutil.copy(BAD_BOT, folder / "bad_bot.py")
    (folder / "bot.toml").write_text(f'name = "spy"\ncommand = "python3 bad_bot.py spy {TAG}"\n')
    targets = [str(out / "results.sqlite"), str(out / "records"), str(out / "logs"),
               str(data / "registry" / "registry.sqlite"), str(data)]
    (folder / "paths").write_text("\n".join(targets))
    monkeypatch.setenv("ARENA_DATA", str(data))
    monkeypatch.chdir(tmp_path)
    outcome = submit(str(folder), data=data, limits=LIMITS, matches=2)
    assert outcome.status == "registered", outcome.reason
    run_tournament(load_config(None, {"name": "spyfest", "bots": ["spy", "greedy"],
                                      "matches_per_pairing": 2, "workers": 1,
                                      "output": str(out)}))
    logs = sorted((out / "logs").glob("*.stderr.log"))
    reports = [json.loads(log.read_text().split("SPY ", 1)[1].splitlines()[0])
               for log in logs if "SPY " in log.read_text()]
    assert len(reports) == 2  # one per match
    for report in reports:
        assert report["read"] == {path: False for path in targets}
        assert not any(report["others"].values())
