# Sourced by scripts/test: the report page's browser test needs Debian's chromium. Install it when it
# is missing and we may (root with apt-get); otherwise say so, and that test skips with the reason.
if ! command -v chromium >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "installing Debian's chromium for the report page's browser test (apt-get, log in .venv/apt-chromium.log)" >&2
        if ! { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends chromium; } \
                >.venv/apt-chromium.log 2>&1; then
            echo "warning: installing chromium failed (see .venv/apt-chromium.log); the browser test will skip" >&2
        fi
    else
        echo "note: chromium is not installed and this is not root with apt-get; the browser test will skip" >&2
    fi
fi
