"""``arena`` (the console script) and ``python -m arena``: the command line of ``arena/cli/main.py``.

Its own entry point, not ``arena.cli.main:app`` itself: the command line takes about a second to load
on a busy machine (Typer, Rich, every command's options), and a Ctrl-C meanwhile raised
KeyboardInterrupt in the middle of an import, printed as a traceback (issue 28). Caught here, it
ends the command as a stop does later: one line on stderr, status 130.
"""

from __future__ import annotations

import sys

STOPPED = 130  # 128 + SIGINT, as the shell reports a command a Ctrl-C stopped


def main() -> None:
    try:
        from arena.cli.main import app

        app()
    except SystemExit as done:
        # Typer ends a command that a Ctrl-C interrupted with status 130 and says nothing; the
        # long commands stop on signals themselves and say what was stored (no interrupt then).
        if done.code == STOPPED and done.__context__ is not None \
                and _interrupted(done.__context__.__cause__):
            sys.stderr.write("stopped\n")
        raise
    except BaseException as err:
        # A Ctrl-C while the command line loads, before Typer could catch it; or one that came
        # wrapped in another exception (Python 3.11 wraps one raised while a class is made, as
        # a dataclass at import, in a RuntimeError).
        if not _interrupted(err):
            raise
        sys.stderr.write("stopped\n")
        sys.exit(STOPPED)


def _interrupted(err: BaseException | None) -> bool:
    """Whether ``err`` is a KeyboardInterrupt, or was raised while one was handled or by one."""
    seen: set[int] = set()
    while err is not None and id(err) not in seen:
        if isinstance(err, KeyboardInterrupt):
            return True
        seen.add(id(err))
        err = err.__cause__ or err.__context__
    return False


if __name__ == "__main__":
    main()
