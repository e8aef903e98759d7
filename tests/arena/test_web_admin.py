"""The organiser's actions (arena/web/admin.py) through Starlette's TestClient on a real
competition folder, and the admin account made by ``arena serve DIR --add-admin``; the reset of
the ratings picked up by a real league run between its pairs."""

from __future__ import annotations

import sqlite3
import subprocess
import sys

import pytest
from starlette.testclient import TestClient

import web_archives as archives
from arena.compete.league_members import membership
from arena.web import admin
from arena.web.api import create_app
from arena.web.settings import load_settings
from arena.web.site_store import SiteStore
from league_util import write_settings
from test_web_api import PASSWORD, assert_plain_error, competition, register, upload

ADMIN_ACTIONS = [
    ("post", "/api/admin/freeze"),
    ("post", "/api/admin/unfreeze"),
    ("post", "/api/admin/bots/mybot/disable"),
    ("post", "/api/admin/bots/mybot/enable"),
    ("delete", "/api/admin/bots/mybot/versions/abcd1234"),
    ("post", "/api/admin/ratings/reset"),
    ("get", "/api/admin/queue"),
    ("get", "/api/admin/league"),
]


@pytest.fixture
def folder(tmp_path):
    return competition(tmp_path / "comp")


def _admin_auth(client: TestClient, folder, name: str = "boss") -> dict[str, str]:
    admin.add_admin(SiteStore(folder), name, PASSWORD)
    answer = client.post("/api/tokens", json={"name": name, "password": PASSWORD})
    assert answer.status_code == 201
    return {"Authorization": f"Bearer {answer.json()['token']}"}


@pytest.mark.parametrize("method,path", ADMIN_ACTIONS, ids=[p for _, p in ADMIN_ACTIONS])
def test_every_admin_action_refuses_authors_and_strangers(folder, method, path):
    with TestClient(create_app(load_settings(folder))) as client:
        alice = register(client)
        assert_plain_error(getattr(client, method)(path), 401)
        assert_plain_error(getattr(client, method)(path, headers={
            "Authorization": "Bearer nonsense"}), 401)
        message = assert_plain_error(getattr(client, method)(path, headers=alice), 403)
        assert "organisers" in message
    store = SiteStore(folder)
    assert admin.uploads_refused(store) is None and not admin.is_disabled(store, "mybot")
    assert membership(folder / "league") == {}


def test_a_freeze_refuses_uploads_until_unfrozen(folder):
    with TestClient(create_app(load_settings(folder))) as client:
        boss, alice = _admin_auth(client, folder), register(client)
        answer = client.post("/api/admin/freeze", headers=boss, json={"reason": "the final"})
        assert answer.status_code == 200 and answer.json()["frozen"]
        message = assert_plain_error(upload(client, alice, archives.zip_folder()), 423)
        assert "frozen" in message and "the final" in message
        assert client.get("/api/bots/mybot").status_code == 404  # nothing taken in
        assert client.get("/api/admin/queue", headers=boss).json()["frozen"]
        assert client.post("/api/admin/unfreeze", headers=boss).status_code == 200
        answer = upload(client, alice, archives.zip_folder())
        assert answer.status_code == 202, answer.text
        queue = client.get("/api/admin/queue", headers=boss).json()
    assert not queue["frozen"]
    assert [u["bot"] for u in queue["waiting"] + queue["finished"]] == ["mybot"]


def test_a_freeze_refuses_the_pages_upload_too(folder):
    # The form's upload and the API's share handling.accept_upload, where the freeze is checked.
    import html
    import re

    from test_web_pages import sign_up, upload_form

    with TestClient(create_app(load_settings(folder))) as client:
        admin.freeze(SiteStore(folder), "the final")
        sign_up(client, "alice")
        answer = upload_form(client, archives.zip_folder())
        assert answer.status_code == 423  # the account's page again, saying why
        message = html.unescape(re.search(r'id="form-error">([^<]*)<', answer.text).group(1))
        assert "frozen" in message and "the final" in message
        assert client.get("/api/bots/mybot").status_code == 404  # nothing taken in
        admin.unfreeze(SiteStore(folder))
        assert upload_form(client, archives.zip_folder()).status_code == 303


def test_disable_takes_a_bot_out_of_the_ladder_and_enable_puts_it_back(folder):
    league = folder / "league"
    with TestClient(create_app(load_settings(folder))) as client:
        boss, alice = _admin_auth(client, folder), register(client)
        assert upload(client, alice, archives.zip_folder()).status_code == 202
        answer = client.post("/api/admin/bots/mybot/disable", headers=boss)
        assert answer.status_code == 200, answer.text
        assert membership(league) == {"mybot": ("mybot", "out")}
        assert client.get("/api/bots/mybot").json()["status"] == "disabled"
        # A house bot too (it plays from the settings, not the registry).
        assert client.post("/api/admin/bots/random/disable", headers=boss).status_code == 200
        assert membership(league)["random"] == ("random", "out")
        assert client.post("/api/admin/bots/mybot/enable", headers=boss).status_code == 200
        assert client.get("/api/bots/mybot").json()["status"] != "disabled"
        assert "mybot" not in membership(league)  # as it was: in by default, not added by hand
        assert_plain_error(client.post("/api/admin/bots/mybot/enable", headers=boss), 409)
        assert_plain_error(client.post("/api/admin/bots/nobody/disable", headers=boss), 404)


def test_enable_puts_back_a_bot_added_by_hand(folder):
    from arena.compete.league_members import set_membership

    league = folder / "league"
    league.mkdir()
    set_membership(league, "greedy", "greedy", "in")  # arena league add DIR greedy
    store, settings = SiteStore(folder), load_settings(folder)
    admin.disable_bot(settings, store, "greedy")
    assert membership(league)["greedy"] == ("greedy", "out")
    admin.enable_bot(settings, store, "greedy")
    assert membership(league)["greedy"] == ("greedy", "in")


@pytest.mark.slow
def test_removing_a_version_leaves_the_one_before(folder):
    with TestClient(create_app(load_settings(folder))) as client:
        from test_web_api import wait_for

        boss, alice = _admin_auth(client, folder), register(client)
        first = upload(client, alice, archives.zip_folder()).json()["version"]
        assert wait_for(client, "mybot")["status"] == "active"
        second = upload(client, alice, archives.zip_folder(
            extra={"example/NOTES.txt": b"second\n"})).json()["version"]
        assert wait_for(client, "mybot")["active_version"] == second
        assert_plain_error(client.delete("/api/admin/bots/mybot/versions/ffff0000",
                                         headers=boss), 404)
        answer = client.delete(f"/api/admin/bots/mybot/versions/{second[:8]}", headers=boss)
        assert answer.status_code == 200 and answer.json()["removed"] == second
        bot = client.get("/api/bots/mybot").json()
    assert bot["active_version"] == first
    assert bot["status"] == "rejected" and "removed by the organiser" in bot["reason"]


def test_the_league_view_before_and_after_play(folder):
    from synthetic_store import fill_league_with_records, play_templates

    settings = load_settings(folder)
    with TestClient(create_app(settings)) as client:
        boss = _admin_auth(client, folder)
        assert client.get("/api/admin/league", headers=boss).json()["matches"] == 0
    fill_league_with_records(settings.league_dir, 3, play_templates(folder.parent, 2),
                             bots=["greedy", "random"], name="competition")
    with TestClient(create_app(settings)) as client:
        view = client.get("/api/admin/league", headers=_admin_auth(client, folder, "boss2")).json()
    assert view["matches"] == 6 and view["pairs"] == 3 and view["in_flight"] == 0
    assert view["last_match"] and view["playing"] == []
    # A pair sent out to the workers, one of its matches stored: what is playing now.
    db = sqlite3.connect(settings.league_dir / "results.sqlite")
    with db:
        db.execute("INSERT INTO league_pairs VALUES (3, 'random', 'greedy', '2026-11-29T03:00:00Z')")
        db.execute("INSERT INTO league_pairs VALUES (4, 'greedy', 'random', '2026-11-29T03:01:00Z')")
        db.execute("UPDATE matches SET sched_order = 7, pair_index = 3 WHERE sched_order = 5")
    db.close()
    with TestClient(create_app(settings)) as client:
        view = client.get("/api/admin/league", headers=_admin_auth(client, folder, "boss3")).json()
    assert view["in_flight"] == 3 and view["workers"] >= 1
    assert view["playing"] == [
        {"pair": 2, "bots": view["playing"][0]["bots"], "started": view["playing"][0]["started"],
         "stored": 1},
        {"pair": 3, "bots": ["random", "greedy"], "started": "2026-11-29T03:00:00Z", "stored": 1},
        {"pair": 4, "bots": ["greedy", "random"], "started": "2026-11-29T03:01:00Z", "stored": 0}]


# -- the admin account from the command line -------------------------------------------------------

ARENA = [sys.executable, "-m", "arena"]


def test_add_admin_from_the_command_line(folder):
    made = subprocess.run([*ARENA, "serve", str(folder), "--add-admin", "boss"],
                          input=PASSWORD + "\n", capture_output=True, text=True, timeout=60)
    assert made.returncode == 0, made.stderr
    store = SiteStore(folder)
    assert admin.is_admin(store, "boss") and not admin.is_admin(store, "alice")
    for name, password, says in (("boss", PASSWORD, "taken"), ("x", PASSWORD, "a name is"),
                                 ("other", "short", "a password is")):
        done = subprocess.run([*ARENA, "serve", str(folder), "--add-admin", name],
                              input=password + "\n", capture_output=True, text=True, timeout=60)
        assert done.returncode == 2 and says in done.stderr, done.stderr
        assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    with sqlite3.connect(folder / "site.sqlite") as db:
        assert db.execute("SELECT name FROM admins").fetchall() == [("boss",)]


# -- resetting the ratings ---------------------------------------------------------------------------

def test_a_reset_is_picked_up_by_the_running_league_between_pairs(tmp_path):
    from arena.compete.league import run_league
    from arena.compete.league_members import request_rating_reset
    from arena.compete.league_store import read_ladder

    league = tmp_path / "league"
    write_settings(league, name="final", bots=["greedy", "random"], workers=1, max_deals=2)
    run_league(league, data=tmp_path / "data", max_pairs=2, publish=False)
    before, counts = read_ladder(league, tmp_path / "data")
    assert counts["matches"] == 4 and sum(r.matches for r in before) == 8
    request_rating_reset(league)
    run_league(league, data=tmp_path / "data", max_pairs=1, publish=False)
    after, counts = read_ladder(league, tmp_path / "data")
    assert counts["matches"] == 6  # the history is kept
    assert {r.name: r.matches for r in after} == {"greedy": 2, "random": 2}
    db = sqlite3.connect(league / "results.sqlite")
    assert db.execute("SELECT request, since FROM league_resets").fetchall() == [(1, 4)]
    db.close()
