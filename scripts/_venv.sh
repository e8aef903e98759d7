# Sourced by scripts/demo and scripts/test: makes sure .venv exists and holds the project.
# Re-installs only when pyproject.toml changed since the last install, so repeated runs are quick.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
extras="${1:-}"
python="${PYTHON:-python3}"
if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
    echo "error: Python 3.11 or newer is needed (found: $("$python" --version 2>&1))" >&2
    exit 1
fi
if [ ! -x .venv/bin/python ]; then
    echo "creating .venv" >&2
    "$python" -m venv .venv
fi
stamp=".venv/.installed${extras:+-$extras}"
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
    echo "installing the project into .venv${extras:+ (with $extras extras)}" >&2
    log=".venv/install.log"
    # pip's own chatter goes to a log; it is shown only when the install fails.
    if ! { .venv/bin/python -m pip install --upgrade pip \
           && .venv/bin/python -m pip install -e ".${extras:+[$extras]}"; } >"$log" 2>&1; then
        cat "$log" >&2
        echo "error: installing the project into .venv failed (log above, also in $log)" >&2
        exit 1
    fi
    touch "$stamp"
fi
