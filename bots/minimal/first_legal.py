#!/usr/bin/env python3
"""first-legal: the smallest protocol v1 bot (stdlib only). Answers every request with its first action."""
import sys

r = sys.stdin.buffer.readline
w = sys.stdout.write
f = sys.stdout.flush
while True:
    l = r()
    if not l:
        break
    p = l.split()
    if not p:
        continue
    h = p[0]
    if h[-1:] == b"?":
        w(p[1].decode() + "\n")
        f()
    elif h == b"sixtysix":
        if p[1:2] != [b"1"]:
            break
        w("ready first-legal\n")
        f()
    elif h == b"match_end":
        break
