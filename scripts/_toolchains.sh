# Sourced by scripts/test: the starter kits' tests (tests/kits/) build and run each kit with its
# language's Debian toolchain. Install the missing ones when we may (root with apt-get, as CI
# runs), in one apt-get; otherwise say what to install. A kit's tests skip without its toolchain,
# except under CI=true, where they fail: CI never passes with a kit untested.
# kits/<folder> : the command its tests need : the Debian package that brings it
toolchains="c:cc:gcc cpp:g++:g++ java:javac:default-jdk-headless js:node:nodejs rust:cargo:cargo"
missing=""
for entry in $toolchains; do
    kit="${entry%%:*}"; rest="${entry#*:}"; program="${rest%%:*}"; package="${rest#*:}"
    # Looked for where a bot's build in the sandbox looks (its PATH): a rustup cargo in a home
    # folder builds nothing there.
    if [ -d "kits/$kit" ] && ! PATH=/usr/local/bin:/usr/bin:/bin command -v "$program" >/dev/null 2>&1; then
        missing="$missing $package"
    fi
done
if [ -n "$missing" ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "installing the kits' toolchains:$missing (apt-get, log in .venv/apt-toolchains.log)" >&2
        # shellcheck disable=SC2086 # one word per package
        if ! { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
                --no-install-recommends $missing; } >.venv/apt-toolchains.log 2>&1; then
            echo "warning: installing$missing failed (see .venv/apt-toolchains.log); those kits' tests will skip (fail under CI=true)" >&2
        fi
    else
        echo "note: the kits' tests need$missing; as root: apt-get install$missing (without them those tests skip, and fail under CI=true)" >&2
    fi
fi
