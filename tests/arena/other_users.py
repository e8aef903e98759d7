"""Whether another user can run this checkout's arena: the tests that run it as one (``setpriv``
to ``nobody``) or whose bots run as one (a leased sandbox user id, as root at ``limits``) need every
folder above the checkout and its virtual environment to be open to others.

A checkout in a folder only root may enter (``mktemp -d`` makes one, mode 0700) fails those tests
with "No module named 'arena'", which names neither the cause nor the fix; they skip instead,
saying which folder is closed. Only root's runs need it: a normal user's bots and helpers run as
that same user.
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import pytest

CHECKOUT = Path(__file__).resolve().parents[2]


def closed_folder() -> Path | None:
    """The first folder above the checkout or its virtual environment that other users cannot
    enter, or None (always None for a normal user). Not the interpreter the environment links
    to: these tests pass with it under root's closed home (pyenv's); what they need is the
    arena's files, in the checkout and the environment."""
    if os.geteuid() != 0:
        return None
    for start in (CHECKOUT / "arena", Path(sys.prefix)):
        for folder in reversed([start, *start.parents]):
            try:
                mode = folder.stat().st_mode
            except OSError:
                return folder
            if not mode & stat.S_IXOTH:
                return folder
    return None


_CLOSED = closed_folder()

needs_others_to_read = pytest.mark.skipif(
    _CLOSED is not None,
    reason=f"another user must run this checkout, but {_CLOSED} is closed to other users "
           f"(chmod o+rx it to run this test)")
