"""Holding back a client that asks too often: at most ``count`` requests per ``window`` seconds
for each key (an author's name for uploads, a client address for logins and new accounts).

In memory, in the one server process: a restart forgets the counts, which costs an attacker a
restart of ours; a site served by several processes would need a shared store (not this slice)."""

from __future__ import annotations

import threading
import time
from collections import deque


class RateLimit:
    def __init__(self, count: int, window: float):
        self.count, self.window = count, window
        self._seen: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def allow(self, key: str) -> float:
        """0 when ``key`` may go on now (and the request is counted), else the seconds to wait."""
        now = time.monotonic()
        with self._lock:
            times = self._seen.setdefault(key, deque())
            while times and now - times[0] >= self.window:
                times.popleft()
            if len(times) >= self.count:
                return max(0.1, self.window - (now - times[0]))
            times.append(now)
            if len(self._seen) > 10_000:  # forget the quiet keys, or memory grows with addresses
                for quiet in [k for k, t in self._seen.items() if not t or now - t[-1] >= self.window]:
                    del self._seen[quiet]
            return 0.0
