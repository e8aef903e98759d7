#!/bin/sh
# Compiles the kit into classes/ with the JDK alone (no jar, no build tool). `arena submit` runs it
# in the sandbox, without network, under the build's memory limit: the -J flags keep javac's own
# JVM small (left alone it sizes its heap from the machine's memory). -XDstringConcat=inline compiles
# string concatenation to plain code: the default bootstraps at its first use, in a decision.
# Warnings are shown, not fatal: a submission should not fail on one.
set -eu
cd "$(dirname "$0")"
rm -rf classes
javac -J-Xmx256m -J-XX:+UseSerialGC -J-XX:TieredStopAtLevel=1 -J-XX:-UsePerfData \
    -encoding UTF-8 -XDstringConcat=inline -Xlint:all -d classes src/kit/*.java
