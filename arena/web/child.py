"""The web server's children end with it, however it ends: ``python -m arena.web.child PARENT
PROGRAM [ARG...]`` asks the kernel to send it SIGTERM when process PARENT dies, then becomes
PROGRAM (the request is kept across ``exec``).

``arena serve`` runs its league and each upload's ``arena submit`` as child processes, and stops
them with SIGTERM when it is stopped: they unwind (the league commits and ends its bots, a
submission ends its build or its matches and removes its folders). A server killed with ``kill -9``
sends nothing. Its league then played on with no site, holding the league's lock, so the next
``arena serve`` of the folder failed ("the league stopped by itself"); a submission went on for
nobody while the next server queued the same upload again. Now each gets the SIGTERM a stop would
have sent.

Linux only (``PR_SET_PDEATHSIG``); elsewhere PROGRAM runs unguarded, as before. The signal comes
when the *thread* that started the child ends: the server's main thread starts the league, and the
upload queue's thread, which lives until the server stops, starts the submissions.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
from typing import Sequence

_PR_SET_PDEATHSIG = 1  # linux/prctl.h


def guarded(program: Sequence[str]) -> list[str]:
    """The command that runs ``program`` as a child of this process that ends with it."""
    return [sys.executable, "-m", "arena.web.child", str(os.getpid()), *program]


def end_with(parent: int) -> None:
    """SIGTERM to this process when ``parent`` dies; at once if it is no longer our parent (it
    died before the request, and the process was handed to another)."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
    if os.getppid() != parent:
        os.kill(os.getpid(), signal.SIGTERM)


def main(argv: Sequence[str]) -> None:
    if len(argv) < 2 or not argv[0].isdigit():
        sys.exit("usage: python -m arena.web.child PARENT PROGRAM [ARG...]")
    end_with(int(argv[0]))
    os.execv(argv[1], list(argv[1:]))


if __name__ == "__main__":
    main(sys.argv[1:])
