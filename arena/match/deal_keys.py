"""Where deals come from: a secret key per tournament, match or qualification, never a public seed.

The scheme (PROTOCOL.md §3.1, "What a bot can know about the deals"):

- **The key.** Every tournament, ``arena play`` and qualification draws a fresh 256-bit key from the
  operating system (``secrets.token_bytes``). A tournament keeps it in its database only
  (``Store.deal_key``), so ``--resume`` deals exactly the same cards; ``arena play`` and
  qualification keep it in memory only. Records never hold it: they store each deal's pack order
  (``deal_start``), so ``arena replay`` needs no key.
- **The deal set.** Matches that must share their deals (the two matches of a duplicate pair, seats
  swapped) share a *deal set*, a public label such as ``["0", "greedy", "random"]``. The label is
  not secret; the key is.
- **The deal-set secret** is ``HMAC-SHA256(key, "sixtysix-arena/deal-set/v1" NUL label)`` in
  hexadecimal (64 digits). The referee hands it to the engine as the match's seed, and the engine
  (``arena/game/dealing.py: shuffled_order``) deals deal ``n`` from
  ``random.Random("sixtysix/<secret>/<n>")``, which CPython seeds with the whole string and its
  SHA-512. So deal ``n`` of a deal set is a function of (key, deal set, n) that nobody can
  evaluate without the key: HMAC-SHA256 is a pseudo-random function of it. The Mersenne Twister
  behind ``random`` is not a cryptographic generator, but each seeding shuffles one pack once:
  a bot sees at most the 5 high-order bits of each of some two dozen outputs, of a state seeded
  from a 256-bit secret, where rebuilding that state takes 624 whole 32-bit outputs. (A shuffle by a
  cryptographic generator would need a change in ``arena/game``; this one needs none.)
- **Only workers see secrets.** A tournament's jobs (local or on a Dask cluster) carry the
  deal-set secret, never the key; bots are sent neither, nor anything derived from them: match ids
  are names or ``secrets`` randomness, and every line to a bot is an observation (RULES.md §2,
  ``arena/game/observation.py``).
- **``--seed N``** (research runs): the key is ``SHA-256("sixtysix-arena/seed-key/v1" NUL N)``, so
  the same N deals the same cards anywhere; anybody who knows or guesses N can do the same, which
  the arena says once on stderr (``SEED_WARNING``).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets

KEY_BYTES = 32          # 256 bits: far beyond any search, and one SHA-256 block of HMAC key
_DEAL_SET_CONTEXT = b"sixtysix-arena/deal-set/v1\x00"
_SEED_CONTEXT = b"sixtysix-arena/seed-key/v1\x00"

SEED_WARNING = ("warning: --seed {seed}: the deals are derived from the seed alone, so a bot that "
                "knows or guesses it can compute every hand and the stock; use --seed for "
                "reproducible research runs only (without it, each run draws a secret key)")


def new_key() -> bytes:
    """A fresh secret key from the operating system's random source."""
    return secrets.token_bytes(KEY_BYTES)


def key_from_seed(seed: int) -> bytes:
    """The key of a ``--seed`` run: public, reproducible, so unsafe against bots (see module)."""
    return hashlib.sha256(_SEED_CONTEXT + str(int(seed)).encode()).digest()


def check_key(key: bytes) -> bytes:
    if not isinstance(key, bytes) or len(key) != KEY_BYTES:
        raise ValueError(f"a deal key is {KEY_BYTES} bytes")
    return key


def deal_set_label(*parts: object) -> str:
    """An unambiguous label from parts: JSON, since bot names may hold any separator."""
    return json.dumps([str(p) for p in parts], separators=(",", ":"), ensure_ascii=False)


def deal_secret(key: bytes, deal_set: str) -> str:
    """The engine's seed for every match of ``deal_set``: HMAC-SHA256(key, label) in hex."""
    mac = hmac.new(check_key(key), _DEAL_SET_CONTEXT + deal_set.encode(), hashlib.sha256)
    return mac.hexdigest()


def new_match_id(prefix: str) -> str:
    """``prefix-`` and 8 hex digits from ``secrets``: unrelated to the key and to the deals."""
    return f"{prefix}-{secrets.token_hex(4)}"
