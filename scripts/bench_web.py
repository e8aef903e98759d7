#!/usr/bin/env python3
"""The competition website under load (issue 32, point 9), on loopback only.

Targets: with the league playing on both cores, the leaderboard page (``GET /``, as a visitor
without a login sees it) and ``GET /api/leaderboard`` each hold >= 200 requests/s with p99 <
250 ms; 50 uploads sent within one minute are all queued, built and qualified, none
lost (how long the queue takes to qualify them is reported, without a target).

What is real: ``arena serve`` in a temporary folder (its league with ``workers = 2`` playing the
bundled bots ``house_bots``, its upload queue running ``arena submit`` in the sandbox), spoken to
over HTTP on 127.0.0.1 by ``--clients`` threads with keep-alive connections (http.client). The
uploads are ``bots/example`` zipped, under 50 names of 5 authors.

Bounded: each read phase lasts ``--seconds`` (20), the uploads wait at most ``--qualify-s`` (600)
for their verdicts; then the server is stopped with SIGTERM.

Usage: scripts/bench_web.py [--clients 8] [--seconds 20] [--uploads 50] [--qualify-s 600]
"""

from __future__ import annotations

import argparse
import http.client
import io
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET_RPS = 200.0
TARGET_P99_MS = 250.0
PASSWORD = "bench password 1"
HOUSE = ["random", "greedy", "first-legal", "sixtysix"]


def _zip_example() -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for path in sorted((ROOT / "bots" / "example").rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                archive.write(path, f"example/{path.relative_to(ROOT / 'bots' / 'example')}")
    return out.getvalue()


def _request(conn: http.client.HTTPConnection, method: str, path: str, body: bytes | None = None,
             headers: dict[str, str] | None = None) -> tuple[int, bytes]:
    conn.request(method, path, body=body, headers=headers or {})
    answer = conn.getresponse()
    return answer.status, answer.read()


def _multipart(name: str, data: bytes) -> tuple[bytes, str]:
    boundary = "benchb0undary"
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\n{name}\r\n"
            f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; "
            f"filename=\"bot.zip\"\r\nContent-Type: application/zip\r\n\r\n").encode() + data + \
        f"\r\n--{boundary}--\r\n".encode()
    return body, f"multipart/form-data; boundary={boundary}"


def start_server(folder: Path) -> tuple[subprocess.Popen[str], int, list[str]]:
    from arena.web.settings import init_competition

    settings = init_competition(folder)
    assert settings is not None
    text = settings.read_text()
    for key, value in (("house_bots", json.dumps(HOUSE)), ("workers", "2"),
                       ("uploads_per_hour", "100"), ("logins_per_minute", "100")):
        text = re.sub(rf"(?m)^{key} .*$", f"{key} = {value}", text)
    settings.write_text(text)
    proc = subprocess.Popen([sys.executable, "-m", "arena", "serve", str(folder), "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines: list[str] = []
    port = threading.Event()
    found: list[int] = []

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line)
            match = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
            if match and not found:
                found.append(int(match.group(1)))
                port.set()
        port.set()

    threading.Thread(target=read, daemon=True).start()
    if not port.wait(120) or not found:
        proc.kill()
        raise SystemExit("arena serve did not start:\n" + "".join(lines))
    return proc, found[0], lines


def league_playing(port: int, timeout: float = 180) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status, body = _request(conn, "GET", "/api/leaderboard")
        if status == 200 and json.loads(body)["matches"] >= 4:
            return int(json.loads(body)["matches"])
        time.sleep(1)
    raise SystemExit("the league did not play within its time")


def read_load(port: int, clients: int, seconds: float, path: str) -> tuple[int, int, list[float]]:
    """``clients`` threads asking for ``path`` for ``seconds``: (answers, errors, latencies s)."""
    latencies: list[list[float]] = [[] for _ in range(clients)]
    errors = [0] * clients
    stop = time.monotonic() + seconds

    def client(k: int) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        while time.monotonic() < stop:
            started = time.perf_counter()
            try:
                status, _ = _request(conn, "GET", path)
            except (OSError, http.client.HTTPException):
                errors[k] += 1
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                continue
            latencies[k].append(time.perf_counter() - started)
            if status != 200:
                errors[k] += 1
        conn.close()

    threads = [threading.Thread(target=client, args=(k,)) for k in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    every = sorted(x for mine in latencies for x in mine)
    return len(every), sum(errors), every


def uploads(port: int, count: int, qualify_s: float) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    authors = []
    for k in range(5):
        status, body = _request(conn, "POST", "/api/accounts",
                                json.dumps({"name": f"author{k}", "password": PASSWORD}).encode(),
                                {"Content-Type": "application/json"})
        assert status == 201, body
        authors.append(json.loads(body)["token"])
    archive = _zip_example()
    names = [f"bench{k:02d}" for k in range(count)]
    started = time.monotonic()
    refused = []
    for k, name in enumerate(names):
        body, kind = _multipart(name, archive)
        status, answer = _request(conn, "POST", "/api/bots", body, {
            "Authorization": f"Bearer {authors[k % len(authors)]}", "Content-Type": kind})
        if status != 202:
            refused.append(f"{name}: {status} {answer[:200]!r}")
    sent_s = time.monotonic() - started
    print(f"uploads: {count} sent in {sent_s:.1f} s (target: within 60 s), "
          f"{count - len(refused)} queued (202), {len(refused)} refused")
    for line in refused[:5]:
        print(f"  refused {line}")
    verdicts: dict[str, str] = {}
    deadline = started + qualify_s
    while time.monotonic() < deadline and len(verdicts) < count:
        for name in names:
            if name in verdicts:
                continue
            status, body = _request(conn, "GET", f"/api/bots/{name}")
            if status == 200 and json.loads(body)["status"] in ("active", "rejected"):
                verdicts[name] = json.loads(body)["status"]
        time.sleep(2)
    took = time.monotonic() - started
    active = sum(1 for v in verdicts.values() if v == "active")
    lost = count - len(verdicts)
    print(f"uploads: {active} active, {len(verdicts) - active} rejected, {lost} without a verdict "
          f"after {took:.0f} s (target: all {count} active, none lost; the queue qualifies one at "
          f"a time: {took / max(1, len(verdicts)):.1f} s an upload, no target)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--uploads", type=int, default=50)
    parser.add_argument("--qualify-s", type=float, default=600.0)
    args = parser.parse_args()
    print(f"# python {sys.version.split()[0]}, {os.cpu_count()} cores, load "
          f"{os.getloadavg()[0]:.1f} before the start")
    with tempfile.TemporaryDirectory(prefix="bench-web-") as tmp:
        proc, port, lines = start_server(Path(tmp) / "comp")
        try:
            played = league_playing(port)
            print(f"league playing on 2 workers ({played} matches stored), {len(HOUSE)} house bots")
            for path in ("/", "/api/leaderboard"):
                answers, errors, every = read_load(port, args.clients, args.seconds, path)
                rps = answers / args.seconds
                p50 = every[len(every) // 2] * 1000 if every else float("nan")
                p99 = every[min(len(every) - 1, int(len(every) * 0.99))] * 1000 if every \
                    else float("nan")
                print(f"GET {path}: {rps:.0f} requests/s (target >= {TARGET_RPS:.0f}), p50 "
                      f"{p50:.1f} ms, p99 {p99:.1f} ms (target < {TARGET_P99_MS:.0f}), "
                      f"{errors} errors, {args.clients} clients for {args.seconds:.0f} s, "
                      f"load {os.getloadavg()[0]:.1f}")
            uploads(port, args.uploads, args.qualify_s)
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
