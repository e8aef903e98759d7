"""RecordWriter.msg, the referee's fast path for protocol lines in a record (issue 18), writes
exactly what the general ``write("msg", ...)`` writes: any text (control characters, quotes,
backslashes, non-ASCII, lone surrogates from replaced bytes), any time and seat."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings, strategies as st

from arena.match.records import RecordWriter


def written(path: Path, fast: bool, t: float, seat: int, direction: str, line: str) -> bytes:
    writer = RecordWriter(path)
    if fast:
        writer.msg(t, seat, direction, line)
    else:
        writer.write("msg", t=t, seat=seat, dir=direction, line=line)
    writer.close()
    return path.read_bytes()


@settings(max_examples=300, deadline=None)
@given(t=st.floats(min_value=0, max_value=1e9, allow_nan=False).map(lambda x: round(x, 3)),
       seat=st.integers(0, 3), direction=st.sampled_from(["in", "out"]), line=st.text())
def test_the_fast_msg_line_is_the_general_one_byte_for_byte(tmp_path_factory, t, seat, direction,
                                                            line):
    folder = tmp_path_factory.mktemp("rec")
    assert written(folder / "a.jsonl", True, t, seat, direction, line) == \
        written(folder / "b.jsonl", False, t, seat, direction, line)
