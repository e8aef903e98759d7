#!/bin/sh
# Builds the bot (the same cc line as bot.toml's build) and the unit tests, then runs them
# (test/kit_tests.c: a main of plain checks). Exit status 0 when every case passes; the output
# ends with "# pass N" and "# fail M".
set -eu
cd "$(dirname "$0")"
SOURCES="src/cards.c src/protocol.c src/state.c src/bot.c src/run.c"
# shellcheck disable=SC2086 # one word per source
cc -O2 -std=c99 -Wall -Wextra -pedantic -o bot src/main.c $SOURCES
# shellcheck disable=SC2086
cc -O1 -std=c99 -Wall -Wextra -pedantic -Werror -o test/kit-tests test/kit_tests.c $SOURCES
exec ./test/kit-tests "$@"
