"""``arena report --serve``: a published report over HTTP on localhost, for a look in a browser.

The standard library's static file server is enough: the report is static files. It serves a folder
written by ``arena.report.publish`` (a temporary one), never the tournament folder, so what a
browser can fetch is exactly what a static host would show: the pages, the charts and the match
records, not the database or the bots' logs. It listens on the loopback address only: results are
not published by accident.
"""

from __future__ import annotations

import functools
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

HOST = "127.0.0.1"


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        pass  # one line per image request would bury the address the command printed


def make_server(folder: Path, port: int) -> ThreadingHTTPServer:
    """A server for ``folder`` on HOST:port (port 0: any free port); raises OSError when the port
    is taken. The caller runs ``serve_forever()`` and closes it."""
    handler = functools.partial(_QuietHandler, directory=str(folder))
    return ThreadingHTTPServer((HOST, port), handler)


def report_url(server: ThreadingHTTPServer) -> str:
    return f"http://{HOST}:{server.server_address[1]}/"
