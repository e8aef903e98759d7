#!/bin/sh
# Starts the bot (after build.sh): `sh run.sh [NAME]`. bot.toml runs it, and so can `arena play`.
#
# The flags matter in the arena's sandbox:
# - A JVM left alone reserves a heap sized from the machine's memory and a gigabyte of class space:
#   it does not even start under a 2048 MB address-space limit (the sandbox's default memory_mb
#   where a bot gets no cgroup). These bound what it reserves to about 300 MB (it starts down to a
#   512 MB limit); raise -Xmx if your bot needs more heap.
# - The serial collector, the client compiler only and no perf-data file start it quickly on the
#   one core a bot gets (Warmup.java does the rest before the greeting).
# - The JVM's own messages go to stderr: on stdout a warning would be taken for an answer.
exec java -Xmx128m -Xss1m -XX:CompressedClassSpaceSize=32m -XX:MaxMetaspaceSize=64m \
    -XX:ReservedCodeCacheSize=32m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:-UsePerfData \
    -Xshare:auto -XX:+DisplayVMOutputToStderr -Xlog:disable -Xlog:all=warning:stderr \
    -cp "$(dirname "$0")/classes" kit.Main "$@"
