"""The one place that prints to the terminal: the Rich consoles of the command line and the helpers
that make text from bots safe to show there.

Much of what the arena prints was written by a bot or its author: bot names, the lines a bot
answered, fault details quoting those lines, the end of its stderr, manifest fields, build output.
All of it is data. Printed through Rich as it is, ``[/bold] oops`` is a markup error (a traceback
instead of the report), ``[debug] thinking`` loses its bracketed part, and ``\\x1b[2J`` or ``\\r``
reach the terminal as control sequences that can clear the screen or overwrite a line with
something else. So every such string passes through ``safe`` (inside a markup string) or is printed
with ``data`` (a whole line of it), which

- show every control character as an escape (``\\x1b``, ``\\r``, ``\\u202e``): C0 and C1 controls,
  DEL, the Unicode line separators and format characters (bidirectional overrides reorder what
  the terminal shows), and lone surrogates (they cannot be encoded at all);
- cut a very long text to ``MAX_SHOWN`` characters with a marker saying how much was cut;
- escape Rich markup (``rich.markup.escape``). The consoles also leave ``:emoji:`` codes and
  highlighting alone, so text is shown as it was written.

Text the arena writes itself (``[bold]...[/]``) is markup; the other modules print through these
consoles only, never ``print()`` or a ``Console`` of their own.
"""

from __future__ import annotations

import unicodedata

import typer
from rich.console import Console
from rich.markup import escape

# Rich reads sys.stdout at each print (not at import), so Typer's CliRunner captures these too.
out = Console(highlight=False, emoji=False)
err = Console(stderr=True, highlight=False, emoji=False)

MAX_SHOWN = 400
"""Characters of one bot-controlled text shown before it is cut (a protocol line is at most 1024
bytes, a stderr line or a fault detail has no limit)."""

_SHOWN_AS_ESCAPE = {"Cc", "Cf", "Cs", "Zl", "Zp"}
_KEPT_FORMAT = {"\u200c", "\u200d"}  # zero-width (non-)joiners: parts of emoji and some scripts
_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def visible(text: object, limit: int | None = MAX_SHOWN) -> str:
    """``text`` with every control character shown as an escape and cut to ``limit`` characters
    (None: never cut). Not escaped for markup: for ``markup=False`` output and for ``safe``."""
    text = str(text)
    if not text.isprintable():
        text = "".join(_escape_char(c) for c in text)
    if limit is not None and len(text) > limit:
        text = f"{text[:limit]}… [{len(text) - limit} more characters cut]"
    return text


def _escape_char(char: str) -> str:
    if char in _KEPT_FORMAT or unicodedata.category(char) not in _SHOWN_AS_ESCAPE:
        return char
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def safe(text: object, limit: int | None = MAX_SHOWN) -> str:
    """Text from outside the arena (a bot, its author, a file), ready to be put inside a markup
    string: control characters visible, cut to ``limit``, markup escaped."""
    shown = visible(text, limit)
    if shown.endswith("\\"):
        # Rich reads a backslash just before a tag as escaping it, and rich.markup.escape doubles
        # a final backslash for that case, which then shows doubled when no tag follows. A
        # zero-width space after it shows nothing and holds either way.
        shown += "\u200b"
    return escape(shown)


def say(markup: str = "", stderr: bool = False) -> None:
    """Print one line of the arena's own markup (its bot-controlled parts already ``safe``).
    Never wrapped: paths and commands must stay whole to be copied."""
    (err if stderr else out).print(markup, soft_wrap=True)


def data(text: object, indent: str = "", limit: int | None = MAX_SHOWN,
         stderr: bool = False) -> None:
    """Print text that is data through and through (a transcript line, a table of bot names,
    build output), each of its lines made ``visible`` and cut to ``limit``, never read as markup."""
    console = err if stderr else out
    for line in str(text).split("\n"):
        console.print(indent + visible(line, limit), markup=False, soft_wrap=True)


def error(message: object) -> None:
    """What a user mistake or a failure gets on stderr, ``error: MESSAGE``. The message often
    quotes a command, a path or a bot's words: it is shown whole, as data. Its own line breaks are
    kept (a list of problems, one a line); every other control character is made visible."""
    text = "\n".join(safe(line, limit=None) for line in str(message).split("\n"))
    err.print(f"[bold red]error:[/] {text}", soft_wrap=True)


def os_error(err: OSError) -> str:
    """An ``OSError`` in words for ``error``: its reason and the path it names, without Python's
    ``[Errno 20]`` (``Not a directory: f/d/registry``)."""
    if not err.strerror:
        return str(err)
    return f"{err.strerror}: {err.filename}" if err.filename is not None else err.strerror


def fail(message: object, code: int = 2) -> typer.Exit:
    """``error(message)``, and the exit for the caller to raise (status 2: the user's mistake)."""
    error(message)
    return typer.Exit(code=code)
