"""The website's HTML pages (arena/web/pages.py) and their login sessions and CSRF tokens
(arena/web/sessions.py), through Starlette's TestClient on a real competition folder: real SQLite
files, argon2 hashes, the real upload queue, and a league store whose records are real matches
(synthetic_store.fill_league_with_records).

The security tests each fail without their guard: a form without its CSRF token, or another
browser's, is refused before anything is done; a login starts a new session and ends the old one
on the server; another author's uploads, archives and stderr are not shown; a cookie never
authorises the JSON API; an error is a page of ours, without a traceback or a path."""

from __future__ import annotations

import base64
import html
import json
import re
import sqlite3
import time
from pathlib import Path

import pytest
from starlette.routing import Route
from starlette.testclient import TestClient

import web_archives as archives
from arena.web.api import create_app
from arena.web.sessions import COOKIE, SECRET_FILE
from arena.web.settings import load_settings
from arena.web.site_store import SiteStore
from test_web_api import CHECKOUT, PASSWORD, competition, register

CSRF = re.compile(r'name="csrf" value="([^"]+)"')


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return competition(tmp_path / "comp")


@pytest.fixture
def site(folder: Path):
    with TestClient(create_app(load_settings(folder))) as client:
        yield client


def csrf_of(client: TestClient, path: str = "/login") -> str:
    found = CSRF.search(client.get(path).text)
    assert found, f"no form token on {path}"
    return found.group(1)


def cookie_data(client: TestClient) -> dict:
    """What the signed session cookie holds (its payload is base64 JSON; the signature is
    itsdangerous', checked by the server)."""
    value = client.cookies.get(COOKIE)
    assert value, "no session cookie"
    return json.loads(base64.b64decode(value.split(".")[0]))


def sign_up(client: TestClient, name: str = "alice") -> None:
    answer = client.post("/register", data={"csrf": csrf_of(client, "/register"), "name": name,
                                            "password": PASSWORD, "repeat": PASSWORD},
                         follow_redirects=False)
    assert answer.status_code == 303 and answer.headers["location"] == "/account", answer.text


def log_in(client: TestClient, name: str = "alice", password: str = PASSWORD):
    return client.post("/login", data={"csrf": csrf_of(client), "name": name,
                                       "password": password, "next": "/account"},
                       follow_redirects=False)


def logged_in_as(client: TestClient) -> str | None:
    found = re.search(r'id="me">([^<]+)<', client.get("/").text)
    return found.group(1) if found else None


def upload_form(client: TestClient, data: bytes, name: str = "mybot", token: str | None = None):
    token = csrf_of(client, "/account") if token is None else token
    return client.post("/upload", data={"csrf": token, "name": name},
                       files={"file": ("bot.zip", data, "application/zip")},
                       follow_redirects=False)


def assert_our_error_page(answer, status: int, folder: Path) -> str:
    """An error page of the site's own: HTML, one message, nothing of the server in it."""
    assert answer.status_code == status, answer.text
    assert answer.headers["content-type"].startswith("text/html")
    text = answer.text
    assert 'id="error-message"' in text and "Sixty-Six Arena" in text
    for leak in ("Traceback", "File \"", str(folder), CHECKOUT, "site-packages", ".py\"",
                 "pytest-of"):
        assert leak not in text, leak
    return html.unescape(re.search(r'id="error-message">([^<]*)<', text).group(1))


# -- pages for everyone ----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def templates(tmp_path_factory):
    from synthetic_store import play_templates

    return play_templates(tmp_path_factory.mktemp("templates"), 2)


def league_folder(tmp_path: Path, templates, pairs: int = 3, **settings) -> Path:
    """A competition whose league has played ``pairs`` duplicate pairs of greedy and random, with
    real records."""
    from synthetic_store import fill_league_with_records

    folder = competition(tmp_path / "comp", **settings)
    fill_league_with_records(load_settings(folder).league_dir, pairs, templates,
                             bots=["greedy", "random"], name="competition")
    return folder


def match_ids(folder: Path) -> list[str]:
    db = sqlite3.connect(folder / "league" / "results.sqlite")
    try:
        return [m for (m,) in db.execute("SELECT match_id FROM matches ORDER BY sched_order")]
    finally:
        db.close()


def test_the_leaderboard_bot_and_match_pages_show_the_league(tmp_path, templates):
    folder = league_folder(tmp_path, templates)
    ids = match_ids(folder)
    with TestClient(create_app(load_settings(folder))) as client:
        home = client.get("/")
        assert home.status_code == 200
        assert home.headers["x-frame-options"] == "DENY"
        rows = re.findall(r'<a href="/bots/(\w+)">', home.text.split('id="leaderboard"')[1])
        assert sorted(rows) == ["greedy", "random"]
        assert 'src="/static/site.js"' in home.text
        assert client.get("/static/site.js").status_code == 200
        assert "set-cookie" not in home.headers  # a reader who fills no form gets no cookie

        bot = client.get("/bots/greedy")
        assert bot.status_code == 200 and 'id="bot-ladder"' in bot.text
        assert "A bot of the organiser's" in bot.text
        assert all(f"/matches/{m}" in bot.text for m in ids)

        listed = client.get("/matches", params={"bot": "greedy", "limit": 50}).text
        assert [m for m in re.findall(r'href="/matches/([^"/]+)"', listed)] == ids[::-1]
        assert client.get("/matches", params={"bot": "../x"}).status_code == 400

        page = client.get(f"/matches/{ids[0]}")
        assert page.status_code == 200 and 'id="match-data"' in page.text
        assert "greedy" in page.text and str(folder) not in page.text
        assert client.get("/favicon.ico").headers["content-type"].startswith("image/svg")


def test_the_visitors_leaderboard_page_follows_the_league(tmp_path, templates):
    # Rendered once for every visitor not logged in (ladder_cache): rendered again when the
    # league's store changes, and never shown to someone logged in.
    from synthetic_store import fill_league_with_records

    folder = competition(tmp_path / "comp")
    settings = load_settings(folder)
    with TestClient(create_app(settings)) as client:
        empty = client.get("/").text
        assert client.get("/").text == empty and 'href="/bots/greedy"' not in empty
        fill_league_with_records(settings.league_dir, 2, templates, bots=["greedy", "random"],
                                 name="competition")
        played = client.get("/").text
        assert 'href="/bots/greedy"' in played and 'href="/bots/random"' in played
        sign_up(client, "alice")
        assert logged_in_as(client) == "alice"
        client.post("/logout", data={"csrf": csrf_of(client, "/account")})
        assert logged_in_as(client) is None and client.get("/").text == played


def test_a_match_waiting_for_its_partner_is_not_shown(tmp_path, templates):
    folder = league_folder(tmp_path, templates, pairs=2)
    ids = match_ids(folder)
    db = sqlite3.connect(folder / "league" / "results.sqlite")
    with db:  # the last pair half played: the other half's deals are still to be played
        for table in ("deals", "seats", "matches"):
            db.execute(f"DELETE FROM {table} WHERE match_id = ?", (ids[-1],))
    db.close()
    with TestClient(create_app(load_settings(folder))) as client:
        assert client.get(f"/matches/{ids[0]}").status_code == 200
        assert_our_error_page(client.get(f"/matches/{ids[-2]}"), 404, folder)
        assert ids[-2] not in client.get("/matches").text


def test_the_replay_shows_stderr_to_its_bots_author_only(tmp_path, templates):
    folder = league_folder(tmp_path, templates, pairs=1)
    first = match_ids(folder)[0]
    record = folder / "league" / "records" / f"{first}.jsonl"
    header = json.loads(record.read_text().splitlines()[0])
    greedy = next(b["seat"] for b in header["bots"] if b["name"] == "greedy")
    # The record's debug lines and the league's stderr logs, as the referee writes them.
    with open(record, "a", encoding="utf-8") as out:
        for seat in (0, 1):
            out.write(json.dumps({"type": "debug", "seat": seat, "decision": 0,
                                  "lines": [f"thoughts of seat {seat}"]}) + "\n")
    logs = folder / "league" / "logs"
    logs.mkdir()
    for seat in (0, 1):
        (logs / f"{first}.seat{seat}.stderr.log").write_text(f"stderr of seat {seat}\n")
    store = SiteStore(folder)
    with TestClient(create_app(load_settings(folder))) as alice, \
            TestClient(create_app(load_settings(folder))) as bob:
        sign_up(alice, "alice")
        sign_up(bob, "bob")
        store.claim("greedy", "alice")  # alice is greedy's author here
        mine = alice.get(f"/matches/{first}").text
        assert f"thoughts of seat {greedy}" in mine and f"thoughts of seat {1 - greedy}" not in mine
        for reader in (bob, TestClient(alice.app)):
            assert "thoughts of seat" not in reader.get(f"/matches/{first}").text
        stderr = alice.get(f"/matches/{first}/stderr")
        assert f"stderr of seat {greedy}" in stderr.text
        assert f"stderr of seat {1 - greedy}" not in stderr.text
        assert "/stderr" in alice.get("/bots/greedy").text
        assert_our_error_page(bob.get(f"/matches/{first}/stderr"), 403, folder)
        anonymous = TestClient(alice.app).get(f"/matches/{first}/stderr", follow_redirects=False)
        assert anonymous.status_code == 303 and anonymous.headers["location"].startswith("/login")


# -- accounts and sessions -------------------------------------------------------------------------

def test_register_log_out_and_log_in(site):
    sign_up(site)
    assert logged_in_as(site) == "alice"
    site.post("/logout", data={"csrf": csrf_of(site, "/account")})
    assert logged_in_as(site) is None
    wrong = log_in(site, password="not the password")
    assert wrong.status_code == 401 and "wrong name or password" in wrong.text
    assert log_in(site).status_code == 303
    assert logged_in_as(site) == "alice"
    taken = site.post("/register", data={"csrf": csrf_of(site, "/register"), "name": "alice",
                                         "password": PASSWORD, "repeat": PASSWORD})
    assert taken.status_code == 409 and "taken" in taken.text


def test_the_cookie_is_httponly_samesite_and_secure_behind_https(tmp_path):
    plain = competition(tmp_path / "plain")
    with TestClient(create_app(load_settings(plain))) as client:
        cookie = client.get("/login").headers["set-cookie"].lower()
        assert "httponly" in cookie and "samesite=lax" in cookie and "secure" not in cookie
    secure = competition(tmp_path / "secure", https=True)
    with TestClient(create_app(load_settings(secure)), base_url="https://testserver") as client:
        cookie = client.get("/login").headers["set-cookie"].lower()
        assert "httponly" in cookie and "samesite=lax" in cookie and "secure" in cookie
    secret = plain / SECRET_FILE
    assert secret.stat().st_mode & 0o077 == 0 and len(secret.read_text().strip()) >= 64


def test_a_login_starts_a_new_session_and_ends_the_old_one(site, folder):
    register(site)
    csrf_of(site)  # an anonymous visitor's session, with its form token
    before = cookie_data(site)
    assert "sid" not in before
    assert log_in(site).status_code == 303
    first = cookie_data(site)
    assert first["sid"] and first["csrf"] != before["csrf"]  # a planted token is worth nothing
    old_cookie = site.cookies.get(COOKIE)
    # Logging in again (another person at the same browser, say) gives another session...
    site.post("/logout", data={"csrf": first["csrf"]})
    assert log_in(site).status_code == 303
    second = cookie_data(site)
    assert second["sid"] != first["sid"] and second["csrf"] != first["csrf"]
    # ...and the old cookie no longer logs anybody in: the server forgot its session.
    with TestClient(site.app, cookies={COOKIE: old_cookie}) as stale:
        assert logged_in_as(stale) is None
        assert stale.get("/account", follow_redirects=False).status_code == 303
    # Nor is a session id kept in clear in the database.
    db = sqlite3.connect(folder / "site.sqlite")
    digests = [d for (d,) in db.execute("SELECT digest FROM sessions")]
    db.close()
    assert len(digests) == 1 and second["sid"] not in digests


def test_a_login_while_logged_in_replaces_the_session(site):
    sign_up(site)
    first = cookie_data(site)
    old_cookie = site.cookies.get(COOKIE)
    assert log_in(site).status_code == 303
    second = cookie_data(site)
    assert second["sid"] != first["sid"]
    with TestClient(site.app, cookies={COOKIE: old_cookie}) as stale:
        assert logged_in_as(stale) is None


def test_a_forged_cookie_logs_nobody_in(site):
    sign_up(site)
    value = site.cookies.get(COOKIE)
    payload, rest = value.split(".", 1)
    data = json.loads(base64.b64decode(payload))
    data["sid"] = "x" * 43
    forged = base64.b64encode(json.dumps(data).encode()).decode() + "." + rest
    with TestClient(site.app, cookies={COOKIE: forged}) as other:
        assert logged_in_as(other) is None


def test_a_restart_keeps_the_login(folder):
    with TestClient(create_app(load_settings(folder))) as client:
        sign_up(client)
        cookie = client.cookies.get(COOKIE)
    with TestClient(create_app(load_settings(folder)), cookies={COOKIE: cookie}) as again:
        assert logged_in_as(again) == "alice"


def test_after_a_login_it_goes_back_only_to_a_page_of_this_site(site):
    register(site)
    for target, expected in (("/bots/x", "/bots/x"), ("//evil.example/", "/account"),
                             ("/\\evil.example", "/account"), ("https://evil.example", "/account")):
        site.cookies.clear()
        answer = site.post("/login", data={"csrf": csrf_of(site), "name": "alice",
                                           "password": PASSWORD, "next": target},
                           follow_redirects=False)
        assert answer.headers["location"] == expected, target


def test_logins_from_the_form_are_limited_per_address(tmp_path):
    folder = competition(tmp_path / "comp", logins_per_minute=2)
    with TestClient(create_app(load_settings(folder))) as client:
        for _ in range(2):
            assert log_in(client, "nobody").status_code == 401
        limited = log_in(client)
        assert limited.status_code == 429 and "too many" in limited.text


# -- CSRF ------------------------------------------------------------------------------------------

def _page_posts(app) -> list[str]:
    return sorted({r.path for r in app.routes if isinstance(r, Route) and "POST" in r.methods
                   and not r.path.startswith("/api/")})


def test_every_form_needs_its_csrf_token(site, folder):
    sign_up(site)
    mine = csrf_of(site, "/account")
    posts = _page_posts(site.app)
    assert posts == ["/account/token", "/login", "/logout", "/register", "/upload"]
    with TestClient(site.app) as other:  # another browser: its own token
        theirs = csrf_of(other)
    fields = {"/login": {"name": "alice", "password": PASSWORD},
              "/register": {"name": "carol", "password": PASSWORD, "repeat": PASSWORD},
              "/logout": {}, "/account/token": {}, "/upload": {"name": "mybot"}}
    for path in posts:
        for sent in ({}, {"csrf": ""}, {"csrf": theirs}, {"csrf": mine[:-1] + "x"}):
            files = {"file": ("bot.zip", archives.zip_folder(), "application/zip")} \
                if path == "/upload" else None
            answer = site.post(path, data={**fields[path], **sent}, files=files,
                               follow_redirects=False)
            message = assert_our_error_page(answer, 403, folder)
            assert "did not come from this site" in message, (path, sent)
    # Nothing was done: no new account, no upload, no token, still logged in.
    db = sqlite3.connect(folder / "site.sqlite")
    assert [n for (n,) in db.execute("SELECT name FROM accounts")] == ["alice"]
    assert db.execute("SELECT COUNT(*) FROM uploads").fetchone()[0] == 0
    assert db.execute("SELECT COUNT(*) FROM tokens").fetchone()[0] == 1  # registration's own
    db.close()
    assert logged_in_as(site) == "alice"
    # And with the token, the same forms work.
    assert site.post("/account/token", data={"csrf": mine}).status_code == 200


def test_a_cookie_alone_never_authorises_the_api(site):
    sign_up(site)
    assert logged_in_as(site) == "alice"
    answer = site.post("/api/bots", data={"name": "mybot"},
                       files={"file": ("bot.zip", archives.zip_folder(), "application/zip")})
    assert answer.status_code == 401 and "API token" in answer.json()["error"]
    assert site.get("/api/bots/mybot/log").status_code == 401
    db_uploads = site.get("/api/bots/mybot")
    assert db_uploads.status_code == 404


# -- an author's own pages -------------------------------------------------------------------------

def test_an_upload_from_the_form_is_queued_and_its_pages_are_its_authors(site, folder):
    sign_up(site, "alice")
    sent = archives.zip_folder()
    answer = upload_form(site, sent)
    assert answer.status_code == 303, answer.text
    page_path = answer.headers["location"]
    number = int(page_path.rsplit("/", 1)[1])
    page = site.get(page_path)
    assert page.status_code == 200 and 'id="upload-status"' in page.text
    download = site.get(f"{page_path}/archive")
    assert download.status_code == 200 and download.content == sent
    assert "attachment" in download.headers["content-disposition"]
    assert download.headers["content-disposition"].endswith('.zip"')
    account = site.get("/account").text
    assert "mybot" in account and f"/uploads/{number}" in account
    assert "mybot" in site.get("/bots/mybot").text

    with TestClient(site.app) as bob:
        sign_up(bob, "bob")
        for path in (page_path, f"{page_path}/archive", "/uploads/999", "/uploads/999/archive"):
            assert_our_error_page(bob.get(path), 404, folder)
        # Nor may bob upload under alice's bot's name.
        refused = upload_form(bob, sent)
        assert refused.status_code == 403 and "belongs to another author" in refused.text
        assert f"/uploads/{number}" not in bob.get("/bots/mybot").text
    with TestClient(site.app) as anonymous:
        away = anonymous.get(page_path, follow_redirects=False)
        assert away.status_code == 303 and away.headers["location"] == f"/login?next={page_path}"
        assert anonymous.get("/account", follow_redirects=False).status_code == 303
        assert_our_error_page(anonymous.post("/upload", data={"name": "x"}), 403, folder)


def test_a_hostile_archive_from_the_form_is_refused_in_one_line(site, folder):
    from test_web_archive import HOSTILE

    sign_up(site)
    answer = upload_form(site, HOSTILE["zip-dotdot"][0])
    assert answer.status_code == 400
    error = re.search(r'id="form-error">([^<]*)<', answer.text).group(1)
    assert "leaves its folder" in error and str(folder) not in answer.text
    assert list((folder / "uploads").iterdir()) == []
    no_file = site.post("/upload", data={"csrf": csrf_of(site, "/account"), "name": "mybot"})
    assert no_file.status_code == 400 and "choose the bot's archive" in html.unescape(no_file.text)


def test_a_new_token_from_the_account_page_works_with_the_api(site):
    sign_up(site)
    answer = site.post("/account/token", data={"csrf": csrf_of(site, "/account")})
    token = re.search(r'<code class="token">([^<]+)<', answer.text).group(1)
    with TestClient(site.app) as script:
        assert script.get("/api/bots/none/log",
                          headers={"Authorization": f"Bearer {token}"}).status_code == 404


# -- errors ----------------------------------------------------------------------------------------

def test_error_pages_are_ours_without_a_traceback_or_a_path(folder):
    league = folder / "league"
    league.mkdir()
    (league / "league.toml").write_text('name = "competition"\n')
    (league / "results.sqlite").write_bytes(b"this is not a database" * 100)
    with TestClient(create_app(load_settings(folder)), raise_server_exceptions=False) as client:
        assert "organiser's log" in assert_our_error_page(client.get("/"), 500, folder)
        assert "organiser's log" in assert_our_error_page(client.get("/bots/x"), 500, folder)
        assert assert_our_error_page(client.get("/no/such/page"), 404, folder) == \
            "there is no such page here"
        assert_our_error_page(client.delete("/"), 405, folder)
        # The API keeps its JSON errors.
        assert client.get("/api/no/such").json()["error"] == "Not Found"
        assert "log" in client.get("/api/leaderboard").json()["error"]


@pytest.mark.slow
def test_the_upload_page_reloads_until_done(site, folder):
    sign_up(site)
    answer = upload_form(site, archives.zip_folder())
    page = site.get(answer.headers["location"]).text
    assert 'http-equiv="refresh"' in page
    deadline = time.monotonic() + 120
    while 'http-equiv="refresh"' in page:
        assert time.monotonic() < deadline, page
        time.sleep(0.5)
        page = site.get(answer.headers["location"]).text
    status = re.search(r'id="upload-status">(\w+)<', page).group(1)
    assert status == "active", page
    assert "qualification of mybot: PASSED" in page and str(folder) not in page


def test_the_statistics_pages_are_the_leagues_newest_publish_and_nothing_beside(site, folder):
    """Point 3's statistics pages: /stats/ serves the league's newest static publish (its
    `current` link, switched whole), linked from every page once there is one; a path out of it
    is not served, nor is the store beside it."""
    assert site.get("/stats/").status_code == 404
    assert 'id="stats-link"' not in site.get("/matches").text
    public = folder / "league" / "public"
    for build, title in (("b1", "first"), ("b2", "second")):
        (public / build / "report").mkdir(parents=True)
        (public / build / "index.html").write_text(f"<title>{title}</title>")
        (public / build / "report" / "elo.svg").write_text("<svg/>")
    (public / "current").symlink_to("b1")
    assert 'href="/stats/"' in site.get("/matches").text
    assert "<title>first</title>" in site.get("/stats/").text
    assert site.get("/stats/report/elo.svg").text == "<svg/>"
    (public / "next").symlink_to("b2")
    (public / "next").replace(public / "current")  # as a publish switches it
    assert "<title>second</title>" in site.get("/stats/").text
    for path in ("/stats/../league.toml", "/stats/%2e%2e/league.toml",
                 "/stats/..%2f..%2fcompetition.toml", "/stats/../../data/registry/registry.sqlite"):
        answer = site.get(path)
        assert answer.status_code == 404 or "name =" not in answer.text, path
        assert "SQLite format" not in answer.text and "[" not in answer.text[:1], path
