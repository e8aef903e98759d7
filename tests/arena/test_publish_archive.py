"""A league's build packs the records of each closed block of matches into one archive (issue 30,
point 5: report/archive.py): every record still public, byte for byte what a loose record file
held, nothing private in it, written once and linked into later builds, and linked from the pages
and replay pages. A synthetic league filled through the real ``Store`` API, its records copies of
real matches of the bundled C bots (synthetic_store.fill_league_with_records)."""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tarfile
import time
from pathlib import Path

import numpy as np
import pytest

from arena.compete.league_config import load_league_config
from arena.compete.league_publish import PAGE, publish_league
from arena.report.archive import BLOCK, MANIFEST, archive_name, located, pack, records_in, unpack
from arena.report.charts import visible_points
from arena.report.public import public_record_line
from arena.results.store import DB_NAME
from league_util import read_store
from synthetic_store import fill_league_with_records, play_templates

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def templates(tmp_path_factory):  # noqa: ANN201
    return play_templates(tmp_path_factory.mktemp("templates"), 4)


def build_of(league: Path) -> Path:
    return publish_league(league, load_league_config(league), league / "data").parent.resolve()


def public_text(league: Path, record: str) -> bytes:
    """What the published copy of a stored record must be (public.public_record_line per line)."""
    text = (league / record).read_text(encoding="utf-8")
    return "".join(public_record_line(line) for line in text.splitlines(True)).encode()


def inode(path: Path) -> int:
    return os.stat(path).st_ino


def test_each_closed_block_is_one_archive_of_every_record_byte_for_byte(tmp_path, templates):
    league = tmp_path / "league"
    fill_league_with_records(league, 260, templates)  # 520 matches: 5 closed blocks, 20 loose
    build = build_of(league)
    rows = read_store(league, "SELECT record, sched_order FROM matches")
    manifest = json.loads((build / MANIFEST).read_text(encoding="utf-8"))
    assert sorted(manifest["archives"]) == [archive_name(b) for b in range(5)]
    for block in range(5):
        name = archive_name(block)
        data = (build / name).read_bytes()
        members = unpack(data)
        expected = {r for r, order in rows if order // BLOCK == block}
        assert set(members) == expected and len(members) == BLOCK
        assert all(members[r] == public_text(league, r) for r in expected)
        entry = manifest["archives"][name]
        assert entry["records"] == sorted(expected)
        assert entry["sha256"] == hashlib.sha256(data).hexdigest()
        assert pack(sorted(members.items())) == data  # deterministic: the same records, bytes
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:  # as `tar xzf` sees it
            assert all(m.isfile() and m.mtime == 0 and m.uid == 0 and m.uname == ""
                       for m in tar.getmembers())
    loose = {r for r, order in rows if order >= 5 * BLOCK}
    assert manifest["loose"] == sorted(loose) and len(loose) == 20
    assert {f"records/{p.name}" for p in (build / "records").glob("*.jsonl")} == loose
    assert all((build / r).read_bytes() == public_text(league, r) for r in loose)
    # Every record is published, and nowhere twice.
    assert set(records_in(build)) == {r for r, _ in rows}
    assert located(build) == {r: archive_name(o // BLOCK) if o < 5 * BLOCK else r
                              for r, o in rows}


def test_a_republish_links_every_archive_and_chart_and_packs_a_newly_closed_block(
        tmp_path, templates):
    league = tmp_path / "league"
    fill_league_with_records(league, 260, templates)
    first = build_of(league)
    second = build_of(league)  # nothing new
    files = [p.relative_to(first) for p in first.rglob("*") if p.is_file() and
             p.suffix in (".gz", ".jsonl", ".svg", ".png")]
    assert files and all(inode(first / f) == inode(second / f) for f in files)
    fill_league_with_records(league, 40, templates)  # block 5 closes; 600 matches
    third = build_of(league)
    assert all(inode(second / archive_name(b)) == inode(third / archive_name(b)) for b in range(5))
    members = unpack((third / archive_name(5)).read_bytes())
    assert len(members) == BLOCK and not any((third / r).exists() for r in members)
    assert not list((third / "records").glob("*.jsonl"))


def test_an_unsafe_or_private_record_cannot_reach_an_archive(tmp_path, templates):
    league = tmp_path / "league"
    fill_league_with_records(league, 50, templates)  # one closed block
    rows = sorted(read_store(league, "SELECT record, match_id FROM matches"))
    (league / "secret.txt").write_text("the deal key is 1234\n")
    linked, scrubbed, outside = rows[0][0], rows[1][0], rows[2][1]
    # A record replaced by a symbolic link to a private file: not published.
    (league / linked).unlink()
    (league / linked).symlink_to(league / "secret.txt")
    # A bot command with a local path: published with the path cut (public.py).
    lines = (league / scrubbed).read_text(encoding="utf-8").splitlines(True)
    header = json.loads(lines[0])
    header["bots"][0]["command"] = ["/home/secret-user/private/bot", "--weights",
                                    "/home/secret-user/w.bin"]
    (league / scrubbed).write_text(json.dumps(header) + "\n" + "".join(lines[1:]))
    # A stored record path leading out of the league's folder: never read.
    (tmp_path / "outside.jsonl").write_text("outside the league\n")
    db = sqlite3.connect(league / DB_NAME)
    with db:
        db.execute("UPDATE matches SET record = '../outside.jsonl' WHERE match_id = ?",
                   (outside,))
    db.close()
    build = build_of(league)
    members = unpack((build / archive_name(0)).read_bytes())
    assert linked not in members and len(members) == BLOCK - 2
    assert scrubbed in members and b"secret-user" not in members[scrubbed]
    assert b"secret-user" in (league / scrubbed).read_bytes()  # (the test changed it)
    everything = b"".join(p.read_bytes() for p in build.rglob("*") if p.is_file()) + \
        b"".join(members.values())
    assert b"deal key is 1234" not in everything and b"outside the league" not in everything
    assert b"secret-user" not in everything


def test_a_tampered_archive_of_the_previous_build_is_packed_again(tmp_path, templates):
    league = tmp_path / "league"
    fill_league_with_records(league, 50, templates)
    first = build_of(league)
    name = archive_name(0)
    good = (first / name).read_bytes()
    members = unpack(good)
    record = sorted(members)[0]
    members[record] = members[record].replace(b'"type":"header"', b'"type":"header","x":"evil"')
    os.unlink(first / name)  # (not in place: a hard link would change it in both)
    (first / name).write_bytes(pack(sorted(members.items())))
    second = build_of(league)
    assert (second / name).read_bytes() == good
    assert inode(first / name) != inode(second / name)


def test_replay_pages_and_the_league_page_link_the_file_that_holds_the_record(
        tmp_path, templates):
    league = tmp_path / "league"
    fill_league_with_records(league, 260, templates)
    build = build_of(league)
    where = located(build)
    pages = list((build / "replays").glob("*.html"))
    kinds = set()
    for page in pages:
        record = f"records/{page.stem}.jsonl"
        link = re.search(r'<a id="record" href="([^"]+)"', page.read_text(encoding="utf-8"))
        assert link and link.group(1) == f"../{where[record]}", page.name
        assert (page.parent / link.group(1)).resolve().is_file()
        kinds.add(where[record].endswith(".tar.gz"))
    assert kinds == {True, False}  # upsets of closed blocks, the latest matches loose
    text = (build / PAGE).read_text(encoding="utf-8")
    for href in re.findall(r'href="(records/[^"]+)"', text):
        assert (build / href).is_file() and href in where.values()


def test_a_rating_line_keeps_the_points_that_show():
    """A step line of 20,000 points is cut to at most 600, keeping its first and last points, a
    spike one point wide, and every level it holds for long (a rows-th of its range apart)."""
    rng = np.random.default_rng(3)
    x = np.arange(20_000, dtype=float)
    y = 25 + np.cumsum(rng.normal(0, 0.05, len(x)))
    y[12_345] += 30  # one match's spike
    keep = visible_points(x, (y,))
    assert len(keep) <= 600 and keep[0] == 0 and keep[-1] == len(x) - 1
    assert 12_345 in keep and list(keep) == sorted(set(keep))
    # Drawn as steps through the kept points, the line is never off by more than the larger of
    # a rows-th of its range and what one column of x (a few pixels) spans.
    drawn = y[keep][np.searchsorted(keep, np.arange(len(x)), side="right") - 1]
    window = 2 * len(x) // 200  # two columns, ending at each point
    spans = np.ptp(np.lib.stride_tricks.sliding_window_view(y, window), axis=1)
    near = np.r_[np.full(window - 1, np.ptp(y)), spans]
    assert np.all(np.abs(drawn - y) <= near + np.ptp(y) / 1000 + 1e-9)
    short = np.arange(100, dtype=float)
    assert list(visible_points(short, (short,))) == list(range(100))


_PUBLISH_APART = """
import sys
from pathlib import Path
from concurrent.futures import ProcessPoolExecutor
import arena.report as report
from arena.compete.league_config import load_league_config
from arena.compete.league_publish import publish_league
with report._packers() as packers:
    print(type(packers).__name__, flush=True)
league = Path(sys.argv[1])
publish_league(league, load_league_config(league), league / "data")
"""


def test_archives_and_charts_made_in_forked_processes_are_those_made_in_threads(
        tmp_path, templates, monkeypatch):
    # A publish from a process with no other thread (arena league publish, a league's publisher)
    # packs and draws in forked processes beside its pages; one with threads (this test's, under
    # xdist) in threads. The build is the same, byte for byte.
    import arena.report as report
    from concurrent.futures import ThreadPoolExecutor

    league = tmp_path / "league"
    fill_league_with_records(league, 110, templates)  # 2 closed blocks
    apart = subprocess.run([sys.executable, "-c", _PUBLISH_APART, str(league)],
                           capture_output=True, text=True, timeout=300)
    assert apart.returncode == 0, apart.stderr
    assert apart.stdout.split() == ["ProcessPoolExecutor"]
    forked = (league / "public" / "current").resolve()
    kept = tmp_path / "forked"
    shutil.copytree(forked, kept, symlinks=True)
    shutil.rmtree(league / "public")
    monkeypatch.setattr(report, "_packers", lambda: ThreadPoolExecutor(2))
    threaded = build_of(league)
    files = sorted(p.relative_to(kept).as_posix() for p in kept.rglob("*")
                   if p.is_file() and (p.suffix in (".gz", ".svg") or p.name == "index.json"))
    assert len([f for f in files if f.endswith(".tar.gz")]) == 2
    assert len([f for f in files if f.endswith(".svg")]) >= 5
    for name in files:
        assert (kept / name).read_bytes() == (threaded / name).read_bytes(), name
    assert sorted(p.name for p in (kept / "replays").iterdir()) == \
        sorted(p.name for p in (threaded / "replays").iterdir())


def test_a_killed_publisher_leaves_no_packer_behind(tmp_path, templates):
    # A league's stop kills a publish it cannot wait for (league_publish.Publisher.stop): the
    # processes it forked to pack end with it (PR_SET_PDEATHSIG), never writing on alone.
    league = tmp_path / "league"
    fill_league_with_records(league, 250, templates)  # 5 blocks: packing takes a while
    proc = subprocess.Popen([sys.executable, "-c", _PUBLISH_APART, str(league)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    children: list[int] = []
    try:
        deadline = time.monotonic() + 120
        while not children and time.monotonic() < deadline and proc.poll() is None:
            try:
                found = Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()
            except OSError:
                pytest.skip("this kernel does not list a process's children in /proc")
            # The first packers (the announcement's) have ended; the publish's own are forked
            # after the store is read.
            if len(found) >= 2 and proc.stdout is not None:
                children = [int(pid) for pid in found]
            time.sleep(0.005)
        assert children, "the publish forked no packers"
    finally:
        proc.kill()
        proc.wait()
    deadline = time.monotonic() + 10
    alive = children
    while alive and time.monotonic() < deadline:
        alive = [pid for pid in children if _running(pid)]
        time.sleep(0.05)
    assert not alive


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")  # a zombie has ended: only its reaping is left
