"""Golden transcripts: seeded matches between real bot processes, compared byte for byte.

Any change to what the referee sends (order, wording, visibility) shows up here as a diff. After an
intended change, regenerate with ``SIXTYSIX_UPDATE_GOLDEN=1 ./scripts/test tests/arena/test_golden_transcripts.py``
and review the diff like code. PROTOCOL.md §7's example is the first deal of the first golden match,
so the specification cannot drift from what the referee really does.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from arena.entrants.bot_specs import resolve_bot
from arena.game import profile
from arena.match.records import read_record
from arena.match.referee import MatchConfig, run_match

GOLDEN = Path(__file__).parent / "golden"
PROTOCOL_MD = Path(__file__).resolve().parents[2] / "protocol" / "PROTOCOL.md"
UPDATE = os.environ.get("SIXTYSIX_UPDATE_GOLDEN") == "1"

# (file stem, profile, seed): random (seed 0) against greedy (seed 1); the random bot seeds itself
# from the match id, so the whole match is determined by these three values.
MATCHES = [
    ("sixty_six_seed17", "sixty_six", 17),
    ("schnapsen_seed5", "schnapsen", 5),
]


def transcript(profile_name: str, seed: int, seat: int, tmp_path: Path) -> str:
    record = tmp_path / f"{profile_name}-{seed}.jsonl"
    if not record.exists():
        run_match([resolve_bot("random"), resolve_bot("greedy")],
                  MatchConfig(rules=profile(profile_name), seed=seed, match_id=f"example{seed}"),
                  record_path=record)
    lines = [("> " if m["dir"] == "out" else "< ") + m["line"]
             for m in read_record(record).messages if m["seat"] == seat]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("seat", [0, 1])
@pytest.mark.parametrize("stem,profile_name,seed", MATCHES, ids=[m[0] for m in MATCHES])
def test_transcript_matches_golden(tmp_path, stem, profile_name, seed, seat):
    got = transcript(profile_name, seed, seat, tmp_path)
    path = GOLDEN / f"{stem}_seat{seat}.txt"
    if UPDATE:
        path.write_text(got)
    assert path.exists(), f"no golden file {path}; run with SIXTYSIX_UPDATE_GOLDEN=1 to create it"
    assert got == path.read_text()


def test_protocol_example_is_the_first_golden_deal():
    golden = (GOLDEN / f"{MATCHES[0][0]}_seat1.txt").read_text().splitlines()
    first_deal = golden[:next(i for i, l in enumerate(golden) if l.startswith("> settle ")) + 1]
    text = PROTOCOL_MD.read_text()
    block = re.search(r"## 7\..*?```\n(.*?)```", text, re.S)
    assert block, "PROTOCOL.md has no §7 example block"
    example = block.group(1).splitlines()
    # The document wraps the long rules line; compare it by its flags, the rest line by line.
    assert [l for l in example if not l.startswith("> rules ")] == \
        [l for l in first_deal if not l.startswith("> rules ")]
