#!/bin/sh
# Builds the bot (the same g++ line as bot.toml's build) and the unit tests, then runs them
# (test/kit_tests.cpp: a main of plain checks). Exit status 0 when every case passes; the output
# ends with "# pass N" and "# fail M".
set -eu
cd "$(dirname "$0")"
SOURCES="src/protocol.cpp src/state.cpp src/bot.cpp src/run.cpp"
g++ -O2 -std=c++17 -Wall -Wextra -o bot src/main.cpp $SOURCES
g++ -O1 -std=c++17 -Wall -Wextra -Werror -o test/kit-tests test/kit_tests.cpp $SOURCES
exec ./test/kit-tests "$@"
