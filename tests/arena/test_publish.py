"""Published reports hold nothing private (issue 13): ``arena publish DIR OUT`` on a real
tournament of bundled bots and a bot started by absolute path from a temporary folder writes the
pages, the charts and the records, with no local path in any file, no database, log or WAL file,
and every link resolving inside OUT; it replaces only an earlier publish of the same tournament."""

from __future__ import annotations

import html.parser
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

import arena
from arena.cli.main import app
from arena.report import ReportError, publish
from arena.report.charts import CHARTS
from arena.report.data import read_report_data
from arena.report.page import render_pages
from arena.report.public import public_argv, public_record_line, scrub_paths
from arena.results.store import Store, connect_read_only
from arena.compete.tournament import load_config, run_tournament
from conftest import BAD_BOT

runner = CliRunner()
CHECKOUT = Path(arena.__file__).resolve().parents[1]
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def bot_home():
    """A folder of its own for a submitted-style bot, as a user would keep one (readable by the
    sandbox's users, like a folder in a home directory)."""
    path = Path(tempfile.mkdtemp(prefix="sixtysix-publish-bot-"))
    path.chmod(0o755)
    (path / "data").mkdir(mode=0o755)
    shutil.copy(BAD_BOT, path / "mybot.py")
    (path / "mybot.py").chmod(0o644)
    (path / "data" / "weights.txt").write_text("1 2 3\n")
    (path / "data" / "weights.txt").chmod(0o644)
    yield path
    shutil.rmtree(path)


@pytest.fixture(scope="module")
def tournament(tmp_path_factory, bot_home) -> Path:
    """Bundled bots (a Python one with options, a script, a C program) and a command bot given by
    absolute paths under ``bot_home``; the command bot plays legally but never claims."""
    out = tmp_path_factory.mktemp("publish") / "spring"
    command = (f"python3 {bot_home / 'mybot.py'} never_claims {bot_home / 'data' / 'weights.txt'}")
    run_tournament(load_config(None, {"name": "spring", "bots": [
        "greedy", "first-legal", "c-counter", command], "matches_per_pairing": 2, "workers": 2,
        "output": str(out)}))
    return out


@pytest.fixture(scope="module")
def published(tournament, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site") / "out"
    result = runner.invoke(app, ["publish", str(tournament), str(out)])
    assert result.exit_code == 0, result.output
    assert "published: " in result.output
    return out


class _Links(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.links += [v for k, v in attrs if k in ("href", "src") and v is not None]


def forbidden(bot_home: Path, tournament: Path) -> list[str]:
    """Paths of this machine no published file may contain."""
    roots = {str(bot_home), str(bot_home.resolve()), str(tournament), str(tournament.resolve()),
             str(CHECKOUT), sys.prefix, os.path.realpath(sys.prefix), sys.executable,
             os.path.expanduser("~"), str(tournament.parent.parent), tempfile.gettempdir() + "/"}
    return sorted(r for r in roots if r not in ("", "/"))


def test_published_folder_holds_the_report_and_records_only(published, tournament):
    from arena.arena_folders import MARKER

    files = sorted(p.relative_to(published).as_posix() for p in published.rglob("*")
                   if p.is_file() and p.name != MARKER)
    top = {p.name for p in published.iterdir()}
    # The mark (issue 29): no bot is given a path in a published site. A line of text, no secret.
    assert top == {"index.html", "rules.html", "bots", "records", "replays", MARKER} | \
        {f"{c}.{e}" for c in CHARTS for e in ("png", "svg")}
    assert (published / MARKER).read_text().startswith("sixtysix-arena published site")
    assert all(f.endswith((".html", ".png", ".svg", ".jsonl")) for f in files), files
    assert not [f for f in files if "sqlite" in f or "log" in f.split("/")[0] or
                f.endswith(("-wal", "-shm", ".log", ".toml", ".json"))]
    # Every stored match's record, and nothing else from the tournament folder.
    stored = sorted(p.relative_to(tournament).as_posix()
                    for p in (tournament / "records").glob("*.jsonl"))
    assert [f for f in files if f.startswith("records/")] == stored and len(stored) == 12
    # and its replay page (issue 17)
    assert [f for f in files if f.startswith("replays/")] == \
        [f"replays/{Path(r).stem}.html" for r in stored]
    assert not list(published.parent.glob(".out.*"))  # no staging folder left behind


def test_no_published_file_names_a_local_path(published, tournament, bot_home):
    paths = forbidden(bot_home, tournament)
    for file in published.rglob("*"):
        if file.is_file():
            data = file.read_bytes()
            for path in paths:
                assert path.encode() not in data, (file.name, path)
    # What the pages say instead: each bot's own command.
    index = (published / "index.html").read_text(encoding="utf-8")
    for command in ("greedy", "first-legal", "c-counter",
                    "python3 mybot.py never_claims data/weights.txt"):
        assert f"<code>{command}</code>" in index, command
    assert "Command: <code>python3 mybot.py never_claims data/weights.txt</code>" in \
        (published / "bots" / "mybot.html").read_text(encoding="utf-8")


def test_every_link_resolves_inside_the_published_folder(published):
    root = published.resolve()
    pages = [published / "index.html", *sorted((published / "bots").glob("*.html"))]
    records = set()
    for page in pages:
        parser = _Links()
        parser.feed(page.read_text(encoding="utf-8"))
        for link in parser.links:
            if link.startswith("#"):
                continue
            assert "://" not in link and not link.startswith("/"), (page.name, link)
            target = (page.parent / link).resolve()
            assert target.is_file() and target.is_relative_to(root), (page.name, link)
            if link.endswith(".jsonl"):
                records.add(target)
    assert records == {p.resolve() for p in (published / "records").glob("*.jsonl")}


def test_published_records_replay_as_the_originals_do(published, tournament):
    for record in sorted((tournament / "records").glob("*.jsonl"))[:3]:
        original = runner.invoke(app, ["replay", str(record)])
        public = runner.invoke(app, ["replay", str(published / "records" / record.name)])
        assert original.exit_code == public.exit_code == 0, public.output
        assert public.output == original.output
        seat = runner.invoke(app, ["replay", str(published / "records" / record.name),
                                   "--seat", "1"])
        assert seat.exit_code == 0 and seat.output == runner.invoke(
            app, ["replay", str(record), "--seat", "1"]).output


def pages_of(folder: Path, **options) -> dict[str, str]:
    """The report's pages for the store in ``folder``, without drawing the charts."""
    db = connect_read_only(folder / "results.sqlite")
    try:
        data = read_report_data(db)
    finally:
        db.close()
    return render_pages(data, {c: (8.0, 4.0) for c in CHARTS}, **options)


def test_the_tournaments_own_report_still_links_its_records(tournament):
    pages = pages_of(tournament)  # as write_report(DIR) renders them into DIR/report/
    assert 'href="../../records/' in pages["bots/greedy.html"]
    for link in re.findall(r'href="\.\./\.\./(records/[^"]+)"', pages["bots/mybot.html"]):
        assert (tournament / link).is_file()
    assert all(str(tournament.resolve()) not in text for text in pages.values())


def test_a_second_publish_replaces_the_first_whole(tournament, published, tmp_path):
    out = tmp_path / "site"
    shutil.copytree(published, out)  # an earlier publish (copied: other tests read the fixture's)
    stale = out / "records" / "stale.jsonl"
    stale.write_text("{}\n")
    inode = (out / "index.html").stat().st_ino
    result = runner.invoke(app, ["publish", str(tournament), str(out)])
    assert result.exit_code == 0, result.output
    assert not stale.exists() and (out / "index.html").stat().st_ino != inode
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]  # no staging or old copy left


def test_a_publish_removes_the_copy_a_publish_killed_with_kill_9_left(tournament, tmp_path):
    """The copy is built beside the site, named with the publishing process's PID: a kill -9
    left it (a whole site) for ever. The next publish removes it once that process is gone; a
    copy another publish is making (its process runs) stays."""
    from bot_procs import ended_pid

    gone = ended_pid()
    left = tmp_path / f".site.publishing-{gone}"
    (left / "records").mkdir(parents=True)
    (left / "index.html").write_text("half a site")
    making = tmp_path / f".site.publishing-{os.getppid()}"  # that process runs
    making.mkdir()
    result = runner.invoke(app, ["publish", str(tournament), str(tmp_path / "site")])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == [making.name, "site"]


def test_publish_refuses_a_folder_it_did_not_write(tournament, published, tmp_path):
    out = tmp_path / "site"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    result = runner.invoke(app, ["publish", str(tournament), str(out)])
    assert result.exit_code == 2 and "not a previous publish of this tournament" in result.output
    assert (out / "notes.txt").read_text() == "mine" and len(list(out.iterdir())) == 1
    # An earlier publish with a file added beside it is not replaced either (a CNAME, say).
    shutil.copytree(published, tmp_path / "again")
    (tmp_path / "again" / "CNAME").write_text("example.org")
    with pytest.raises(ReportError, match="not a previous publish"):
        publish(tournament, tmp_path / "again")
    (tmp_path / "file").write_text("x")
    result = runner.invoke(app, ["publish", str(tournament), str(tmp_path / "file")])
    assert result.exit_code == 2 and "is not a folder" in result.output
    result = runner.invoke(app, ["publish", str(tmp_path / "nowhere"), str(tmp_path / "o")])
    assert result.exit_code == 2 and "holds no tournament" in result.output
    assert not (tmp_path / "o").exists()


def test_publish_refuses_another_tournaments_publish(tournament, published, tmp_path):
    site = tmp_path / "site"
    shutil.copytree(published, site)
    index = site / "index.html"
    ours = re.search(r'<meta name="sixtysix-tournament" content="(\w+)">', index.read_text())
    assert ours is not None
    # Another tournament's publish differs in that name only (a hash of its name and start).
    index.write_text(index.read_text().replace(ours.group(1), "0123456789abcdef"))
    with pytest.raises(ReportError, match="not a previous publish of this tournament"):
        publish(tournament, site)
    assert "0123456789abcdef" in index.read_text()  # left as it was


@pytest.mark.parametrize("config, shown", [
    ({"seed": 7}, "from research seed 7"),
    ({"seed": None}, "from a secret key (not published)"),
    ({}, "from a secret key (not published)"),
    ({"seed": 7, "seeded": False}, "from a secret key (not published)"),
])
def test_settings_show_a_seed_only_when_the_run_was_seeded(config, shown, tmp_path):
    store = Store.open(tmp_path / "results.sqlite")
    store.begin_tournament("t", {"matches_per_pairing": 2, "bots": ["a", "b"], **config})
    store.register_bots([("a", ["./a"], ""), ("b", ["./b"], "")])
    store.close()
    text = " ".join(pages_of(tmp_path, records="", published=True)["index.html"].split())
    assert f"<th>deals</th><td>{shown}" in text
    if "seed" not in shown:
        assert "seed" not in text.split('id="settings"')[1]


# -- what a bot's command becomes ---------------------------------------------------------------

@pytest.mark.parametrize("argv, shown", [
    ([sys.executable, "-I", "-S", "/x/bots/start.py", "bots.greedy_bot"], "greedy"),
    (["/usr/bin/python3.11", "-I", "-S", "/opt/a/bots/start.py", "bots.strong", "--budget-ms",
      "25"], "strong --budget-ms 25"),
    (["/home/ann/arena/bots/c/build/sixtysix-c"], "c-counter"),
    ([sys.executable, "/home/ann/arena/bots/minimal/first_legal.py"], "first-legal"),
    # registered: the manifest's command, python meaning the arena's
    ([sys.executable, "bot.py", "--fast"], "python3 bot.py --fast"),
    (["./mybot", "--depth", "3"], "./mybot --depth 3"),
    # bare commands: paths relative to the bot's own folder, others cut to their name
    ([sys.executable, "/home/ann/bots/x/main.py", "/home/ann/bots/x/w/net.bin"],
     "python3 main.py w/net.bin"),
    (["/home/ann/bin/mybot", "--weights=/home/ann/bin/w.bin", "--log=/var/log/b.log"],
     "mybot --weights=w.bin --log=…/b.log"),
    (["node", "/srv/bots/js/dist/bot.js", "/etc/hosts"], "node bot.js …/hosts"),
    (["java", "-jar", "/home/ann/b/bot.jar"], "java -jar bot.jar"),
    (["/usr/bin/node", "/home/ann/js/bot.js", "/home/ann/js/lib/w.json"], "node bot.js lib/w.json"),
    (["/home/ann/sixtysix/.venv/bin/python", "-m", "mybot"], "python3 -m mybot"),
])
def test_public_commands(argv, shown):
    assert " ".join(public_argv(argv)) == shown


def test_free_text_and_record_lines_lose_their_paths():
    assert scrub_paths("cannot run '/home/ann/x/bot': [Errno 2] No such file") == \
        "cannot run '…/bot': [Errno 2] No such file"
    assert scrub_paths("see ~/bots/x.py or //host/share/y") == "see …/x.py or …/y"
    kept = "PROTOCOL.md §5/§6, 1/2 and a/b stay, ~5 ms, a / b"
    assert scrub_paths(kept) == kept
    header = ('{"type":"header","bots":[{"seat":0,"name":"a","command":["/v/bin/python3",'
              '"/home/ann/a.py"]}],"seed":3}\n')
    assert public_record_line(header) == ('{"type":"header","bots":[{"seat":0,"name":"a",'
                                          '"command":["python3","a.py"]}],"seed":3}\n')
    fault = '{"type":"fault","detail":"exited: /tmp/x/y.py failed","line":"/tmp/said"}\n'
    assert public_record_line(fault) == ('{"type":"fault","detail":"exited: \\u2026/y.py failed",'
                                         '"line":"/tmp/said"}\n')  # what a bot said is its own
    # Whatever else the arena may write later is scrubbed too, at any depth.
    result = ('{"type":"result","line":"/a/said","seats":[{"name":"a","cgroup":'
              '"/sys/fs/cgroup/arena/x","notes":["see /home/ann/log"]}]}')
    assert public_record_line(result) == ('{"type":"result","line":"/a/said","seats":[{"name":'
                                          '"a","cgroup":"\\u2026/x","notes":["see \\u2026/log"]}]}')
    action = '{"type":"action","deal":1,"seat":0,"action":"play:AS","ms":0.01}\n'
    assert public_record_line(action) is action
    message = '{"type":"msg","t":1.0,"seat":0,"dir":"in","line":"I read /home/ann/x"}\n'
    assert public_record_line(message) is message
