"""The results store: a real SQLite file, whole matches or nothing, never a duplicate."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap

import pytest

from arena.entrants.bot_specs import resolve_bot
from arena.match.deal_keys import deal_secret, new_key
from arena.game import profile
from arena.match.referee import MatchConfig, run_match
from arena.compete.schedule import round_robin
from arena.results.store import MatchRows, Store, StoreError, match_rows


@pytest.fixture(scope="module")
def played():
    """Two real matches of a duplicate pair (random vs greedy), with their schedule entries."""
    schedule = round_robin("t", ["random", "greedy"], pairs_per_pairing=1)
    out = []
    for entry in schedule:
        bots = [resolve_bot(entry.seat0), resolve_bot(entry.seat1)]
        result = run_match(bots, MatchConfig(rules=profile("sixty_six"), seed=deal_secret(new_key(), entry.deal_set),
                                             first_dealer=entry.first_dealer,
                                             match_id=entry.match_id))
        out.append((entry, result))
    return out


def open_store(tmp_path):
    store = Store.open(tmp_path / "results.sqlite")
    store.begin_tournament("t", {"bots": ["random", "greedy"], "seed": 3})
    store.register_bots([("random", ["python", "-m", "bots.random_bot"], ""),
                         ("greedy", ["python", "-m", "bots.greedy_bot"], "")])
    return store


def test_a_match_is_stored_with_its_deals_and_seats(tmp_path, played):
    store = open_store(tmp_path)
    entry, result = played[0]
    store.record_match(entry, result, record="records/x.jsonl")
    db = store.db
    assert store.finished_ids() == {entry.match_id}
    row = db.execute("SELECT winner, reason, points0, points1 FROM matches").fetchone()
    assert row == (result.winner, result.reason, *result.game_points)
    assert db.execute("SELECT COUNT(*) FROM deals").fetchone()[0] == len(result.deals)
    awarded = db.execute("SELECT SUM(awarded) FROM deals WHERE winner = ?", (result.winner,))
    assert awarded.fetchone()[0] == result.game_points[result.winner]
    assert db.execute("SELECT COUNT(*) FROM seats").fetchone()[0] == 2
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_a_match_cannot_be_stored_twice_and_the_failed_attempt_leaves_nothing(tmp_path, played):
    store = open_store(tmp_path)
    entry, result = played[0]
    store.record_match(entry, result)
    with pytest.raises(sqlite3.IntegrityError):
        store.record_match(entry, result)
    assert store.db.execute("SELECT COUNT(*) FROM deals").fetchone()[0] == len(result.deals)


def _tables(store: Store) -> dict[str, list[tuple]]:
    """Every match table's rows, the matches table without its commit time."""
    db = store.db
    tables = {t: sorted(db.execute(f"SELECT * FROM {t}").fetchall(), key=repr)
              for t in ("deals", "seats", "sides", "deal_sides")}
    columns = [row[1] for row in db.execute("PRAGMA table_info(matches)")]
    tables["matches"] = sorted((tuple(v for c, v in zip(columns, row) if c != "finished")
                                for row in db.execute("SELECT * FROM matches")), key=repr)
    return tables


def test_matches_stored_together_are_the_rows_of_each_stored_alone(tmp_path, played):
    """A tournament's worker sends a match as the store's rows (match_rows) and the coordinator
    inserts a group of them in one transaction (issue 18): the same rows as record_match's."""
    alone, together = open_store(tmp_path / "alone"), open_store(tmp_path / "together")
    for entry, result in played:
        alone.record_match(entry, result, record=f"records/{entry.match_id}.jsonl")
    rows = [match_rows(entry, result, record=f"records/{entry.match_id}.jsonl")
            for entry, result in played]
    together.insert(rows)
    assert _tables(together) == _tables(alone)
    assert len(_tables(together)["matches"]) == 2 and _tables(together)["deals"]


def test_a_group_with_one_bad_match_stores_none_of_them(tmp_path, played):
    store = open_store(tmp_path)
    (entry, result), _ = played
    rows = match_rows(entry, result)
    with pytest.raises(sqlite3.IntegrityError):
        store.insert([rows, match_rows(played[1][0], played[1][1]), rows])  # the first twice
    assert store.finished_ids() == set()
    assert store.db.execute("SELECT COUNT(*) FROM deals").fetchone()[0] == 0


def test_match_rows_hold_plain_values_and_read_like_the_result(played):
    """What travels from a worker is tuples of numbers, strings and None (cheap to unpickle: no
    enum, no dataclass), and what the progress line reads of it is the result's."""
    import pickle

    for entry, result in played:
        rows = match_rows(entry, result, record="records/x.jsonl")
        values = [v for table in (rows.deals, rows.seats, rows.sides, rows.deal_sides)
                  for row in table for v in row] + list(rows.match)
        assert {type(v) for v in values} <= {str, int, float, type(None)}
        assert (rows.match_id, rows.winner, rows.reason, rows.offender, rows.play_ms,
                rows.game_points) == (result.match_id, result.winner, result.reason,
                                      result.offender, result.play_ms, result.game_points)
        assert pickle.loads(pickle.dumps(rows)) == rows and isinstance(rows, MatchRows)


def test_resume_with_other_settings_is_refused(tmp_path):
    open_store(tmp_path).close()
    store = Store.open(tmp_path / "results.sqlite")
    with pytest.raises(StoreError, match="differing: seed"):
        store.begin_tournament("t", {"bots": ["random", "greedy"], "seed": 4})
    store.begin_tournament("t", {"bots": ["random", "greedy"], "seed": 3})  # the same: fine


def test_a_changed_bot_is_refused(tmp_path):
    store = open_store(tmp_path)
    with pytest.raises(StoreError, match="bot 'random' changed"):
        store.register_bots([("random", ["python", "my_random.py"], "")])


def test_a_file_that_is_not_a_database_is_a_clear_error(tmp_path):
    path = tmp_path / "results.sqlite"
    path.write_text("not a database at all, just text" * 100)
    with pytest.raises(StoreError, match="is not a results database: not an SQLite file"):
        Store.open(path)


def test_kill_9_during_writes_keeps_every_committed_match_whole(tmp_path, played):
    # A child process stores matches in a loop (the same two, under fresh ids) and is killed hard
    # mid-way; every match row it left must come with all its deals and seats.
    script = tmp_path / "writer.py"
    script.write_text(textwrap.dedent(f"""
        import dataclasses, pickle, sys
        from pathlib import Path
        from arena.results.store import Store
        played = pickle.loads(Path(sys.argv[1]).read_bytes())
        store = Store.open(Path(sys.argv[2]))
        store.begin_tournament("t", {{}})
        store.register_bots([("random", [], ""), ("greedy", [], "")])
        print("ready", flush=True)
        for i in range(100000):
            entry, result = played[i % 2]
            entry = dataclasses.replace(entry, match_id=f"m{{i}}", order=i)
            store.record_match(entry, result)
    """))
    import pickle
    payload = tmp_path / "played.pickle"
    payload.write_bytes(pickle.dumps(played))
    db_path = tmp_path / "results.sqlite"
    proc = subprocess.Popen([sys.executable, str(script), str(payload), str(db_path)],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "ready"
    import time
    time.sleep(0.5)
    proc.kill()
    proc.wait()
    db = sqlite3.connect(db_path)
    stored = db.execute("SELECT COUNT(*) FROM matches").fetchone()[0]
    assert stored > 0
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    expected = {e.match_id: len(r.deals) for e, r in played}
    per_match = dict(db.execute("SELECT match_id, COUNT(*) FROM deals GROUP BY match_id"))
    for match_id, order in db.execute("SELECT match_id, sched_order FROM matches"):
        assert per_match.get(match_id) == list(expected.values())[order % 2]
    orphans = db.execute("SELECT COUNT(*) FROM deals WHERE match_id NOT IN "
                         "(SELECT match_id FROM matches)").fetchone()[0]
    assert orphans == 0
    seats = db.execute("SELECT COUNT(*) FROM seats").fetchone()[0]
    assert seats == 2 * stored



def test_a_new_database_is_marked_and_an_unmarked_arena_database_is_still_opened(tmp_path):
    from arena.results.store import APPLICATION_ID, SCHEMA_VERSION, _SCHEMA

    open_store(tmp_path).close()
    db = sqlite3.connect(tmp_path / "results.sqlite")
    assert db.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    db.close()
    # A database made before the mark existed: the arena's tables, application_id 0.
    legacy = tmp_path / "legacy.sqlite"
    db = sqlite3.connect(legacy)
    db.executescript(_SCHEMA + f"; INSERT INTO meta VALUES ('schema_version', '{SCHEMA_VERSION}');")
    db.close()
    Store.open(legacy, create=False).close()
    db = sqlite3.connect(legacy)
    assert db.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    db.close()


def test_another_programs_sqlite_file_is_refused_and_left_byte_for_byte(tmp_path):
    path = tmp_path / "results.sqlite"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE meta (key TEXT, value TEXT)")  # even a table of the same name
    db.commit()
    db.close()
    before = path.read_bytes()
    with pytest.raises(StoreError, match="not a results database of this arena"):
        Store.open(path)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results.sqlite"]


def test_resuming_a_missing_database_does_not_create_one(tmp_path):
    with pytest.raises(StoreError, match="does not exist"):
        Store.open(tmp_path / "results.sqlite", create=False)
    assert not (tmp_path / "results.sqlite").exists()


def test_a_run_stopped_while_the_database_is_made_leaves_none_and_no_leftover(tmp_path,
                                                                               monkeypatch):
    """Seen once by the 20-moment stop test: a signal between the file's creation and its schema
    left an empty results.sqlite, on which --resume failed with 'no such table: matches'."""
    import arena.results.store as store

    made = []

    def stopped(db):
        db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")  # part of a schema
        made.append(db)
        raise KeyboardInterrupt  # the signal, mid-schema

    monkeypatch.setattr(store, "_create_schema", stopped)
    path = tmp_path / "t" / "results.sqlite"
    with pytest.raises(KeyboardInterrupt):
        Store.open(path)
    assert made and not path.exists()
    assert list(path.parent.iterdir()) == []  # no temporary file left either
    monkeypatch.undo()
    Store.open(path).close()  # the next run makes it whole
    db = sqlite3.connect(path)
    assert db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone() is not None
    db.close()
