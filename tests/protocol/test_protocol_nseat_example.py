"""PROTOCOL.md §9.7's example is a real deal: the in-process driver plays the same three-player match
again, and the block must match seat 1's lines up to the first settle, line for line (as
tests/arena/test_golden_transcripts.py does for §7)."""

from __future__ import annotations

import re
from pathlib import Path

from arena.game import profile
from bots.random_bot import RandomBot
from protocol.local import play

PROTOCOL_MD = Path(__file__).resolve().parents[2] / "protocol" / "PROTOCOL.md"


class Random(RandomBot):
    """The bundled random bot, allowed to play three players (its choices are its own)."""

    player_counts = (2, 3, 4)


def test_protocol_example_is_a_fresh_three_player_deal() -> None:
    match = play(profile("three_player"), [Random(), Random(), Random()], seed=300,
                 match_id="example300", max_deals=1)
    lines = match.transcripts[1]
    first_deal = lines[:next(i for i, line in enumerate(lines) if line.startswith("> settle ")) + 1]
    block = re.search(r"### 9\.7 .*?```\n(.*?)```", PROTOCOL_MD.read_text(), re.S)
    assert block, "PROTOCOL.md has no §9.7 example block"
    example = block.group(1).splitlines()
    # The document shortens the long rules line; compare it by its ends, the rest line by line.
    assert [line for line in example if not line.startswith("> rules ")] == \
        [line for line in first_deal if not line.startswith("> rules ")]
    (short,) = [line for line in example if line.startswith("> rules ")]
    (full,) = [line for line in first_deal if line.startswith("> rules ")]
    head, _, tail = short.partition(" ... ")
    assert full.startswith(head + " ") and full.endswith(" " + tail)
