"""Where the adapter runs: a Python that has the ``schnapsen`` package, in a venv of its own.

Not the project's ``.venv``: that one holds exactly ``requirements-lock.txt`` (tests/test_lock.py),
and the package's own requirements pin click, scikit-learn and Flask to releases that clash with
the lock. The adapter needs none of them (``package.py``), so ``.venv-vu`` gets the package alone,
hash-checked, from ``requirements-vu.txt``. The benchmarks (``scripts/bench_vu.py``,
``scripts/ladder.py``) call ``vu_site(make=True)``; the tests only look (``make=False``).

The adapter itself runs on the arena's own Python, as the bundled bots do, with the venv's
site-packages named on its command line (``--site``): the sandbox shows a bot the folders its
command names, and nothing else of the checkout (arena/isolation/allow_list.py).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from bots import START
from bots.vu_adapter.package import VERSION

ROOT = Path(__file__).resolve().parents[2]
VENV = ROOT / ".venv-vu"
REQUIREMENTS = ROOT / "requirements-vu.txt"
MODULE = "bots.vu_adapter"


class VuUnavailable(RuntimeError):
    """No Python with the package could be found or made (one line that says why)."""


def _site_of(python: Path) -> Path | None:
    """The folder from which ``python`` imports schnapsen ``VERSION``, or None."""
    probe = ("import importlib.metadata as m, os, schnapsen; "
             "print(m.version('schnapsen')); print(os.path.dirname(os.path.dirname(schnapsen.__file__)))")
    try:
        done = subprocess.run([str(python), "-I", "-c", probe], capture_output=True, text=True,
                              timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    lines = done.stdout.split("\n")
    if done.returncode != 0 or len(lines) < 2 or lines[0].strip() != VERSION:
        return None
    return Path(lines[1].strip())


def vu_site(make: bool = False, venv: Path = VENV) -> Path | None:
    """The site-packages of ``venv`` if it has schnapsen ``VERSION``; else, with ``make``, the venv
    made (``python -m venv``, then pip with ``--require-hashes --no-deps``), or ``VuUnavailable``;
    without ``make``, None."""
    python = venv / "bin" / "python"
    site = _site_of(python) if python.is_file() else None
    if site is not None or not make:
        return site
    print(f"making {venv} with schnapsen {VERSION} (requirements-vu.txt)", file=sys.stderr)
    steps = [[sys.executable, "-m", "venv", "--clear", str(venv)],
             [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
              "--require-hashes", "--no-deps", "-r", str(REQUIREMENTS)]]
    for step in steps:
        done = subprocess.run(step, capture_output=True, text=True)
        if done.returncode != 0:
            tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["(no output)"]
            raise VuUnavailable(f"cannot make {venv}: {' '.join(step[:4])} ... failed: {tail[0]}")
    site = _site_of(python)
    if site is None:
        raise VuUnavailable(f"{venv} was made, but its Python cannot import schnapsen {VERSION}")
    return site


def adapter_command(site: Path, *options: str) -> list[str]:
    """The argument list that starts the adapter on this Python, as the bundled Python bots start
    (``bots/start.py``), with the package from ``site``. The folder is named as resolved: the
    sandbox gives the bot a path's real folder only (``allow_list`` resolves every argument), so
    a ``.venv-vu`` that links to another checkout's would not be found by a name through the link."""
    return [sys.executable, "-I", "-S", START, MODULE, "--site", str(site.resolve()), *options]
