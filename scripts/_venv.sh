# Sourced by scripts/demo and scripts/test: makes sure .venv holds the releases of
# requirements-lock.txt (every extra: one lock, one .venv for both commands) and the project.
# Installs only when the lock or pyproject.toml changed since the last install, so repeated runs are
# quick. Plain pip and venv, so a fresh machine needs nothing but Python; scripts/relock makes the lock.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
python="${PYTHON:-python3}"
if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
    echo "error: Python 3.11 or newer is needed (found: $("$python" --version 2>&1))" >&2
    exit 1
fi
lock=requirements-lock.txt
# The stamps hold checksums of what .venv was built from: content, not modification times, so a
# checkout that rewrites a file unchanged installs nothing, and one that brings back an older lock
# does. (cksum: POSIX, on macOS too.) Another Python (PYTHON=python3.13) is a new .venv too.
lock_sum="$(cksum <"$lock") $("$python" -c 'import sys; print(sys.version.split()[0])')"
project_sum="$(cksum <pyproject.toml)"
log=".venv/install.log"
# pip's own chatter goes to a log; it is shown only when the install fails.
pip_failed() {
    cat "$log" >&2
    echo "error: installing $1 into .venv failed (log above, also in $log)" >&2
    exit 1
}
if [ ! -x .venv/bin/python ] || [ "$(cat .venv/.locked 2>/dev/null)" != "$lock_sum" ]; then
    # A new .venv for a new lock: nothing an older lock (or a hand-run pip) put there stays
    # behind, such as a pytest plugin the suite would load.
    echo "installing the locked releases into a new .venv" >&2
    "$python" -m venv --clear .venv
    # The venv's own pip, not an upgrade to whatever pip is newest. Hashes required: every
    # file is the one the lock was made from, whichever index serves it. setuptools first, then
    # no build isolation: the packages published as source only (trueskill) and the project are
    # built with the locked setuptools, not with one fetched unpinned.
    awk '/^setuptools==/ { p = 1 } p { print } p && !/\\$/ { exit }' "$lock" >.venv/build-lock.txt
    { .venv/bin/python -m pip install --require-hashes -r .venv/build-lock.txt \
      && .venv/bin/python -m pip install --require-hashes --no-build-isolation -r "$lock"; } \
        >"$log" 2>&1 || pip_failed "$lock"
    echo "$lock_sum" >.venv/.locked
fi
if [ "$(cat .venv/.installed 2>/dev/null)" != "$project_sum" ]; then
    echo "installing the project into .venv" >&2
    # Editable, and its dependencies are the lock's (pyproject.toml's ranges are for other
    # environments; tests/test_lock.py checks the lock satisfies them).
    .venv/bin/python -m pip install --no-deps --no-build-isolation -e . >"$log" 2>&1 \
        || pip_failed "the project"
    echo "$project_sum" >.venv/.installed
fi
