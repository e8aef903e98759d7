"""The website's JSON API (arena/web/api.py) through Starlette's TestClient, on a real competition
folder: real SQLite files, real argon2 hashes, and the real upload queue, which submits through
``arena submit`` (the build and the qualifying matches in the sandbox)."""

from __future__ import annotations

import json
import os
import sqlite3
import time
from pathlib import Path

import anyio
import pytest
from starlette.testclient import TestClient

import web_archives as archives
from arena.web import accounts
from arena.web.api import create_app
from arena.web.settings import CONFIG_NAME, EXAMPLE, init_competition, load_settings
from arena.web.site_store import SiteStore

MiB = 1 << 20
PASSWORD = "correct horse battery"


def competition(folder: Path, **settings: object) -> Path:
    """A competition folder: the example settings, ``settings`` changed."""
    init_competition(folder)
    text = EXAMPLE
    for key, value in settings.items():
        lines = [line for line in text.splitlines() if line.startswith(f"{key} ")]
        assert lines, key
        text = text.replace(lines[0], f"{key} = {json.dumps(value)}")
    (folder / CONFIG_NAME).write_text(text, encoding="utf-8")
    return folder


@pytest.fixture
def site(tmp_path):
    with TestClient(create_app(load_settings(competition(tmp_path / "comp")))) as client:
        yield client


def register(client: TestClient, name: str = "alice") -> dict[str, str]:
    answer = client.post("/api/accounts", json={"name": name, "password": PASSWORD})
    assert answer.status_code == 201, answer.text
    return {"Authorization": f"Bearer {answer.json()['token']}"}


def upload(client: TestClient, auth: dict[str, str], data: bytes, name: str = "mybot",
           filename: str = "bot.zip"):
    return client.post("/api/bots", headers=auth, data={"name": name},
                       files={"file": (filename, data, "application/octet-stream")})


def wait_for(client: TestClient, name: str, timeout: float = 120) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        bot = client.get(f"/api/bots/{name}").json()
        if bot["status"] in ("active", "rejected"):
            return bot
        time.sleep(0.3)
    raise AssertionError(f"{name} still {bot['status']} after {timeout} s")


CHECKOUT = str(Path(__file__).resolve().parents[2])  # where the server's code is


def assert_plain_error(answer, status: int) -> str:
    """A JSON error of one line: no traceback, no path of the server."""
    assert answer.status_code == status, answer.text
    message = answer.json()["error"]
    assert "\n" not in message and "Traceback" not in message
    assert "pytest-of" not in message and CHECKOUT not in message and ".py" not in message
    return message


# -- accounts --------------------------------------------------------------------------------------

def test_an_account_gets_a_token_and_keeps_only_hashes(site, tmp_path):
    answer = site.post("/api/accounts", json={"name": "alice", "password": PASSWORD})
    assert answer.status_code == 201
    token = answer.json()["token"]
    db = sqlite3.connect(tmp_path / "comp" / "site.sqlite")
    (stored,), = db.execute("SELECT password FROM accounts WHERE name = 'alice'")
    digests = [d for (d,) in db.execute("SELECT digest FROM tokens")]
    db.close()
    assert stored.startswith("$argon2id$") and PASSWORD not in stored
    assert digests == [accounts.token_digest(token)] and token not in digests
    raw = (tmp_path / "comp" / "site.sqlite").read_bytes()
    assert token.encode() not in raw and PASSWORD.encode() not in raw
    assert (tmp_path / "comp" / "site.sqlite").stat().st_mode & 0o077 == 0


def test_a_login_gives_a_new_token_and_a_wrong_password_none(site):
    register(site)
    login = site.post("/api/tokens", json={"name": "alice", "password": PASSWORD})
    assert login.status_code == 201
    mine = {"Authorization": f"Bearer {login.json()['token']}"}
    assert site.get("/api/bots/nobody/log", headers=mine).status_code == 404  # the token works
    for body in ({"name": "alice", "password": "wrong password"},
                 {"name": "nobody", "password": PASSWORD}):
        assert assert_plain_error(site.post("/api/tokens", json=body), 401) == \
            "wrong name or password"


@pytest.mark.parametrize("body,status", [
    ({"name": "a", "password": PASSWORD}, 400),
    ({"name": "../etc", "password": PASSWORD}, 400),
    ({"name": "al ice", "password": PASSWORD}, 400),
    ({"name": "x" * 33, "password": PASSWORD}, 400),
    ({"name": ["alice"], "password": PASSWORD}, 400),
    ({"name": "alice", "password": "short"}, 400),
    ({"name": "alice"}, 400),
], ids=["short", "path", "space", "long", "list", "weak-password", "no-password"])
def test_names_and_passwords_are_checked(site, body, status):
    assert_plain_error(site.post("/api/accounts", json=body), status)


def test_a_taken_name_and_a_body_that_is_not_json(site):
    register(site)
    assert "taken" in assert_plain_error(site.post("/api/accounts", json={
        "name": "alice", "password": PASSWORD}), 409)
    assert_plain_error(site.post("/api/accounts", content=b"{nope"), 400)
    assert_plain_error(site.post("/api/accounts", content=b"[1, 2]"), 400)
    assert_plain_error(site.post("/api/accounts", content=b" " * (64 << 10)), 413)


def test_registration_by_invitation_needs_the_code(tmp_path):
    folder = competition(tmp_path / "comp", registration="invitation",
                         invitation_code="let-me-in-please")
    with TestClient(create_app(load_settings(folder))) as client:
        body = {"name": "alice", "password": PASSWORD}
        assert_plain_error(client.post("/api/accounts", json=body), 403)
        assert_plain_error(client.post("/api/accounts", json={**body, "invitation": "guess"}), 403)
        assert client.post("/api/accounts", json={**body, "invitation": "let-me-in-please"}
                           ).status_code == 201


def test_logins_and_new_accounts_are_limited_per_address(tmp_path):
    with TestClient(create_app(load_settings(competition(tmp_path / "comp",
                                                         logins_per_minute=3)))) as client:
        register(client)
        for _ in range(2):
            client.post("/api/tokens", json={"name": "alice", "password": "wrong password"})
        answer = client.post("/api/tokens", json={"name": "alice", "password": PASSWORD})
        assert "too many" in assert_plain_error(answer, 429)
        assert int(answer.headers["retry-after"]) > 0
        assert_plain_error(client.post("/api/accounts", json={"name": "bob",
                                                              "password": PASSWORD}), 429)


# -- uploads ---------------------------------------------------------------------------------------

def test_an_upload_needs_a_valid_token(site):
    assert_plain_error(upload(site, {}, archives.zip_folder()), 401)
    assert_plain_error(upload(site, {"Authorization": "Bearer nonsense"},
                              archives.zip_folder()), 401)


@pytest.mark.slow
def test_an_upload_is_qualified_in_the_queue_and_a_new_upload_is_a_new_version(site, tmp_path):
    alice = register(site)
    answer = upload(site, alice, archives.zip_folder())
    assert answer.status_code == 202, answer.text
    first = answer.json()
    assert first["name"] == "mybot" and first["status"] == "queued"
    assert len(first["version"]) == 16
    bot = wait_for(site, "mybot")
    assert bot["status"] == "active", bot
    assert bot["active_version"] == first["version"] and bot["owner"] == "alice"
    log = site.get("/api/bots/mybot/log", headers=alice).json()
    assert "qualification of mybot: PASSED" in log["log"]
    assert str(tmp_path) not in log["log"]  # the server's folder is not the author's to know
    # A changed bot is a new version of the same name, which takes the registry's newest place.
    changed = archives.zip_folder(extra={"example/NOTES.txt": b"second version\n"})
    second = upload(site, alice, changed, filename="bot.tar.gz").json()
    assert second["version"] != first["version"]
    bot = wait_for(site, "mybot")
    assert bot["status"] == "active" and bot["active_version"] == second["version"]
    assert [u["version"] for u in bot["uploads"]] == [second["version"], first["version"]]
    assert not list((tmp_path / "comp" / "uploads").glob("*/unpacked"))  # cleaned once done


def test_a_bot_name_belongs_to_its_first_uploader(site):
    alice, bob = register(site, "alice"), register(site, "bob")
    assert upload(site, alice, archives.zip_folder()).status_code == 202
    message = assert_plain_error(upload(site, bob, archives.zip_folder()), 403)
    assert "another author" in message
    # Refused before the archive is even unpacked (this one would be a 400 then).
    assert_plain_error(upload(site, bob, b"not an archive"), 403)
    assert len(site.get("/api/bots/mybot").json()["uploads"]) == 1


def test_two_authors_claiming_a_new_name_get_one_owner(tmp_path):
    # The check before unpacking leaves a window while the first upload unpacks; the claim
    # itself is one statement, so the second author loses it.
    store = SiteStore(tmp_path)
    for name in ("alice", "bob"):
        store.add_account(name, "x")
    assert store.claim("mybot", "alice") and store.claim("mybot", "alice")
    assert not store.claim("mybot", "bob") and store.owner_of("mybot") == "alice"


def test_bundled_and_bad_bot_names_are_refused(site):
    alice = register(site)
    assert_plain_error(upload(site, alice, archives.zip_folder(), name="random"), 409)
    for name in ("../x", "a b", ""):
        assert_plain_error(upload(site, alice, archives.zip_folder(), name=name), 400)


def test_another_authors_log_is_refused(site):
    alice, bob = register(site, "alice"), register(site, "bob")
    assert upload(site, alice, archives.zip_folder()).status_code == 202
    assert_plain_error(site.get("/api/bots/mybot/log", headers=bob), 403)
    assert_plain_error(site.get("/api/bots/mybot/log"), 401)
    assert_plain_error(site.get("/api/bots/other/log", headers=bob), 404)
    assert site.get("/api/bots/mybot/log", headers=alice).status_code == 200


@pytest.mark.parametrize("name", ["zip-dotdot", "zip-absolute", "zip-symlink", "tar-symlink",
                                  "tar-hardlink", "tar-device", "zip-1001-files"])
def test_a_hostile_archive_is_refused_at_upload(site, tmp_path, name):
    from test_web_archive import HOSTILE

    alice = register(site)
    assert_plain_error(upload(site, alice, HOSTILE[name][0]), 400)
    uploads = tmp_path / "comp" / "uploads"
    assert [p.name for p in uploads.iterdir()] == []
    assert not (tmp_path / "comp" / "escaped.txt").exists()
    assert site.get("/api/bots/mybot").status_code == 404  # nor is the name claimed


def test_a_zip_bomb_is_refused_at_upload(site, tmp_path):
    alice = register(site)
    message = assert_plain_error(upload(site, alice, archives.zip_bomb(101)), 400)
    assert "more than 100 MiB" in message
    assert [p.name for p in (tmp_path / "comp" / "uploads").iterdir()] == []


def test_an_upload_a_server_killed_with_kill_9_was_receiving_goes_at_the_next_start(tmp_path):
    """Its folder is named with the server's PID (temp_folders.py): once that process is gone,
    the next start removes it; an upload already in place, and one a live server receives, stay."""
    from bot_procs import ended_pid

    folder = competition(tmp_path / "comp")
    uploads = folder / "uploads"
    gone = ended_pid()
    left = uploads / f"sixtysix-incoming-{gone}-abcd1234"
    (left / "unpacked" / "example").mkdir(parents=True)
    (left / "archive").write_bytes(archives.zip_folder())
    receiving = uploads / f"sixtysix-incoming-{os.getpid()}-live0000"  # this process runs
    receiving.mkdir()
    (uploads / "1").mkdir()
    with TestClient(create_app(load_settings(folder))) as client:
        assert client.get("/api/leaderboard").status_code == 200
        assert sorted(p.name for p in uploads.iterdir()) == ["1", receiving.name]


def test_an_archive_without_a_manifest_is_refused_without_a_server_path(site, tmp_path):
    alice = register(site)
    message = assert_plain_error(upload(site, alice, archives.zip_with([]).replace(
        b"bot.toml", b"not.toml")), 400)
    assert "bot.toml" in message and str(tmp_path) not in message


def test_an_oversized_upload_is_refused(tmp_path):
    with TestClient(create_app(load_settings(competition(tmp_path / "comp",
                                                         upload_mb=1)))) as client:
        alice = register(client)
        message = assert_plain_error(upload(client, alice, bytes(2 * MiB)), 413)
        assert "larger than 1 MiB" in message
        assert list((tmp_path / "comp" / "uploads").iterdir()) == []


def _post_chunks(app, headers: list[tuple[bytes, bytes]], chunks: int) -> tuple[int, int]:
    """POST /api/bots straight through ASGI, a body of ``chunks`` MiB sent a MiB at a time; the
    answer's status and how many chunks the application asked for."""
    asked = 0
    sent: list[dict] = []

    async def receive() -> dict:
        nonlocal asked
        asked += 1
        body = bytes(MiB)
        if asked == 1:  # the file's part begins; the rest is its contents
            body = (b"--b0undary\r\nContent-Disposition: form-data; name=\"file\"; "
                    b"filename=\"bot.zip\"\r\nContent-Type: application/zip\r\n\r\n") + body
        return {"type": "http.request", "body": body, "more_body": asked < chunks}

    async def send(message: dict) -> None:
        sent.append(message)

    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST",
             "scheme": "http", "path": "/api/bots", "raw_path": b"/api/bots", "query_string": b"",
             "root_path": "", "headers": headers, "client": ("127.0.0.1", 5000),
             "server": ("127.0.0.1", 8066)}
    anyio.run(app, scope, receive, send)
    return next(m["status"] for m in sent if m["type"] == "http.response.start"), asked


def test_an_oversized_upload_is_refused_before_it_is_read_whole(tmp_path):
    folder = competition(tmp_path / "comp")
    app = create_app(load_settings(folder))
    token = accounts.create_account(SiteStore(folder), "alice", PASSWORD)
    headers = [(b"authorization", f"Bearer {token}".encode()),
               (b"content-type", b"multipart/form-data; boundary=b0undary")]
    # Announced too large: refused before a byte of it is read.
    status, asked = _post_chunks(app, headers + [(b"content-length", str(60 * MiB).encode())], 60)
    assert (status, asked) == (413, 0)
    # Not announced (chunked): refused once the 21st MiB arrives, not after the 60th.
    status, asked = _post_chunks(app, headers, 60)
    assert status == 413 and asked <= 21
    # And without a token, nothing is read at all.
    status, asked = _post_chunks(app, headers[1:], 60)
    assert (status, asked) == (401, 0)


def test_uploads_are_limited_per_author(tmp_path):
    with TestClient(create_app(load_settings(competition(tmp_path / "comp",
                                                         uploads_per_hour=2)))) as client:
        alice, bob = register(client, "alice"), register(client, "bob")
        for _ in range(2):
            upload(client, alice, b"not an archive")
        assert "too many uploads" in assert_plain_error(upload(client, alice, b"x"), 429)
        assert upload(client, bob, b"not an archive").status_code == 400  # bob has his own


# -- reading -----------------------------------------------------------------------------------------

def test_the_leaderboard_and_matches_before_the_league_played(site):
    board = site.get("/api/leaderboard").json()
    assert board["rows"] == [] and board["matches"] == 0
    assert site.get("/api/matches?bot=mybot").json()["matches"] == []
    assert_plain_error(site.get("/api/matches?limit=0"), 400)
    assert_plain_error(site.get("/api/matches?bot=../x"), 400)
    assert_plain_error(site.get("/api/bots/nobody"), 404)
    assert_plain_error(site.get("/api/no/such"), 404)  # (a page is HTML: test_web_pages.py)
    assert_plain_error(site.delete("/api/leaderboard"), 405)


def test_a_server_failure_says_one_line_and_logs_the_rest(tmp_path):
    folder = competition(tmp_path / "comp")
    app = create_app(load_settings(folder))
    league = folder / "league"
    league.mkdir()
    (league / "league.toml").write_text('name = "competition"\n')
    (league / "results.sqlite").write_bytes(b"this is not a database" * 100)
    with TestClient(app, raise_server_exceptions=False) as client:
        message = assert_plain_error(client.get("/api/leaderboard"), 500)
    assert "log" in message


def test_a_match_waits_for_its_duplicate_partner_before_it_is_listed(tmp_path):
    # Its partner is dealt the same cards: listing it would tell its deals to the bots still to
    # play them (report/public.py waiting_for_partner).
    from synthetic_store import fill_league_with_records, play_templates

    settings = load_settings(competition(tmp_path / "comp"))
    fill_league_with_records(settings.league_dir, 3, play_templates(tmp_path, 2),
                             bots=["greedy", "random"], name="competition")
    db = sqlite3.connect(settings.league_dir / "results.sqlite")
    ids = [m for (m,) in db.execute("SELECT match_id FROM matches ORDER BY sched_order")]
    assert len(ids) == 6
    with db:  # the last pair half played
        for table in ("deals", "seats", "matches"):
            db.execute(f"DELETE FROM {table} WHERE match_id = ?", (ids[-1],))
    db.close()
    with TestClient(create_app(settings)) as client:
        shown = [m["match_id"] for m in client.get("/api/matches").json()["matches"]]
        assert shown == ids[3::-1]
        greedy = client.get("/api/matches", params={"bot": "greedy", "limit": 2}).json()
        assert [m["match_id"] for m in greedy["matches"]] == ids[3:1:-1]
        assert all("greedy" in m["bots"] and m["winner_bot"] in m["bots"]
                   for m in greedy["matches"])
        assert client.get("/api/matches", params={"bot": "nobody"}).json()["matches"] == []
        board = client.get("/api/leaderboard").json()
        assert board["matches"] == 5 and {r["bot"] for r in board["rows"]} == {"random", "greedy"}


@pytest.mark.slow
def test_a_stop_during_qualification_leaves_the_upload_queued_for_the_next_start(tmp_path):
    folder = competition(tmp_path / "comp")
    settings = load_settings(folder)
    with TestClient(create_app(settings)) as client:
        alice = register(client)
        assert upload(client, alice, archives.zip_folder()).status_code == 202
        deadline = time.monotonic() + 60
        while client.get("/api/bots/mybot").json()["status"] == "queued":
            assert time.monotonic() < deadline
            time.sleep(0.05)
        started = time.monotonic()
    # The application stopped (its lifespan ended) while arena submit ran: ended at once.
    assert time.monotonic() - started < 8
    (stopped,) = SiteStore(folder).uploads_of("mybot")
    if stopped.status != "active":  # (unless the submission won the race and finished)
        assert stopped.status == "queued" and stopped.log == ""
        assert list((folder / "uploads").glob("*/unpacked"))
    with TestClient(create_app(settings)) as client:
        bot = wait_for(client, "mybot")
    assert bot["status"] == "active" and len(bot["uploads"]) == 1


@pytest.mark.slow
def test_an_active_bot_that_does_not_play_the_competitions_profile_is_told_so(tmp_path):
    folder = competition(tmp_path / "comp", profile="three_player")
    with TestClient(create_app(load_settings(folder))) as client:
        alice = register(client)
        assert upload(client, alice, archives.zip_folder()).status_code == 202
        bot = wait_for(client, "mybot")
    assert bot["status"] == "active"
    assert "does not declare three_player" in bot["reason"], bot
