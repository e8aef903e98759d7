#!/bin/sh
# Builds the kit and its tests, then runs them (test/kit/KitTests.java: a main of plain checks,
# run with -ea). Exit status 0 when every check passes.
set -eu
cd "$(dirname "$0")"
sh build.sh
rm -rf build/test-classes
javac -J-Xmx256m -J-XX:+UseSerialGC -J-XX:TieredStopAtLevel=1 -J-XX:-UsePerfData \
    -encoding UTF-8 -Xlint:all -Werror -cp classes -d build/test-classes test/kit/*.java
exec java -ea -Xmx128m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:-UsePerfData \
    -cp classes:build/test-classes kit.KitTests "$@"
