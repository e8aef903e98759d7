"""Every Python script in ``scripts/`` starts: its ``--help`` prints its usage and exits 0.

No test runs the benchmarks themselves (they take minutes and are read by people, not asserted).
Two of them had imported a module that had moved (``arena.referee``) for several sessions before
anyone ran them; mypy (which checks ``scripts/``) now catches a wrong import, and this catches what
fails only when the script starts (its top-level code, its arguments' definitions).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"
# Not commands: a module the benchmarks import, and MkDocs' hook.
NOT_COMMANDS = {"_pairs.py", "mkdocs_hooks.py"}


@pytest.mark.parametrize("script", sorted(p.name for p in SCRIPTS.glob("*.py")
                                          if p.name not in NOT_COMMANDS))
def test_the_script_starts_and_prints_its_usage(script):
    proc = subprocess.run([sys.executable, str(SCRIPTS / script), "--help"], capture_output=True,
                          text=True, timeout=120, cwd=SCRIPTS.parent)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(f"usage: {script}"), proc.stdout[:200]
