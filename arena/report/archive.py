"""A league's match records packed by blocks (issue 30, point 5): a build of 10,000 matches was
170 MB, 150 MB of it the records, one file of some 16 kB per match, every one published.

A block is ``BLOCK`` consecutive matches by schedule order (``sched_order`` k * BLOCK to
(k + 1) * BLOCK - 1). Once every match of a block is in the build's snapshot (none still to be
played, none waiting for its duplicate partner), the block is closed: no match of it will change or
be added, so its records go into one archive, ``records/matches-000100-000199.tar.gz``, written once
and hard-linked into every later build. The records of blocks still open stay loose files
(``records/ID.jsonl``), as before.

An archive is a plain tar file compressed with gzip (``tar xzf`` or Python's ``tarfile`` open it
anywhere), holding each record under its stored path (``records/ID.jsonl``), byte for byte the
record a loose file would hold: extracted at the top of a build, it gives the loose layout back.
It is made deterministically (sorted members, no dates, owners or modes of this machine), so the
same records give the same bytes. gzip rather than xz: measured on real records of the bundled
bots, xz's preset 6 packed a block a third smaller but at under 1 MB/s, a first publish of 10,000
matches over a minute; gzip packs some 15-30 MB/s.

``records/index.json`` (``MANIFEST``) tells a downloader, and the next build, where each record
is: ``{"format": 1, "public": <public.public_version()>, "block": 100, "archives": {PATH:
{"first": ORDER, "last": ORDER, "sha256": HEX, "records": [PATH, ...]}}, "loose": [PATH, ...]}``.
What goes into an archive passed the same checks as a loose record (``publish._public_bytes``:
``public.publishable_record``, no symbolic link, ``public.public_record_line``).
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import shutil
import tarfile
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

BLOCK = 100
"""Matches per archive: 100 archives at 10,000 matches, some 150-300 kB each; a newly closed block
costs one archive's compression (a tenth of a second), and a reader fetches 100 records for one."""
MANIFEST = "records/index.json"
FORMAT = 1
_LEVEL = 6  # gzip's default: level 9 measured 5% smaller and 25% slower


def archive_name(block: int, size: int = BLOCK) -> str:
    """The archive of block ``block`` (matches ``block * size`` to ``(block + 1) * size - 1``)."""
    return f"records/matches-{block * size:06d}-{(block + 1) * size - 1:06d}.tar.gz"


def closed_blocks(orders: Iterable[int], size: int = BLOCK) -> set[int]:
    """The blocks every match of which is among ``orders`` (the schedule orders of the build's
    matches): those will not change. A block with a gap (a match still playing, waiting for its
    partner, or never stored) stays open."""
    count: dict[int, set[int]] = {}
    for order in orders:
        count.setdefault(int(order) // size, set()).add(int(order))
    return {block for block, seen in count.items() if len(seen) == size}


def pack(members: Sequence[tuple[str, bytes]]) -> bytes:
    """A tar.gz holding each ``(path, bytes)``, sorted by path, with nothing of this machine or
    this moment in it (mtime 0, owner root, mode 0644, no file name in the gzip header)."""
    raw = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=_LEVEL, mtime=0) as gz:
        with tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar:
            for path, data in sorted(members):
                info = tarfile.TarInfo(path)
                info.size, info.mtime, info.mode = len(data), 0, 0o644
                info.uid = info.gid = 0
                info.uname = info.gname = ""
                tar.addfile(info, io.BytesIO(data))
    return raw.getvalue()


def unpack(data: bytes) -> dict[str, bytes]:
    """{path: bytes} of an archive ``pack`` made (for tests and readers)."""
    out = {}
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        for member in tar.getmembers():
            handle = tar.extractfile(member)
            if handle is not None:
                out[member.name] = handle.read()
    return out


def read_manifest(build: Path | None) -> dict[str, Any]:
    """A build's ``MANIFEST``, or an empty one when it has none or it cannot be read."""
    empty: dict[str, Any] = {"format": FORMAT, "archives": {}, "loose": []}
    if build is None:
        return empty
    try:
        found = json.loads((build / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return empty
    if not isinstance(found, dict) or found.get("format") != FORMAT or \
            not isinstance(found.get("archives"), dict):
        return empty
    return found


def located(build: Path) -> dict[str, str]:
    """{stored record path: the file of ``build`` that holds it} as its ``MANIFEST`` says:
    an archive, or the loose record itself."""
    manifest = read_manifest(build)
    out = {str(r): str(r) for r in manifest.get("loose", [])}
    for name, entry in manifest["archives"].items():
        for record in entry.get("records", []):
            out[str(record)] = str(name)
    return out


def reusable(previous: Path | None, manifest: Mapping[str, Any], name: str,
             records: Sequence[str], public: str) -> bool:
    """Whether ``previous`` (the build current until now, ``manifest`` its ``MANIFEST``) holds
    archive ``name`` of exactly ``records``, made by the same ``public.public_version``, and
    its bytes are those its manifest names: then the new build links it instead of packing."""
    entry = manifest.get("archives", {}).get(name)
    if previous is None or manifest.get("public") != public or manifest.get("block") != BLOCK or \
            not isinstance(entry, dict) or entry.get("records") != sorted(records):
        return False
    path = previous / name
    if path.is_symlink() or not path.is_file():
        return False
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest() == entry.get("sha256")
    except OSError:
        return False


def write_archive(path: Path, members: Sequence[tuple[str, bytes]]) -> str:
    """Write ``pack(members)`` to ``path`` (beside it, then renamed); returns its sha256."""
    data = pack(members)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.partial")
    partial.write_bytes(data)
    os.replace(partial, path)
    return hashlib.sha256(data).hexdigest()


def link_archive(old: Path, new: Path) -> None:
    """``new`` as a hard link to ``old`` (never changed in place), or a copy across devices."""
    new.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(old, new)
    except OSError:
        shutil.copyfile(old, new)


def write_manifest(build: Path, public: str, archives: Mapping[str, Mapping[str, Any]],
                   loose: Iterable[str]) -> None:
    text = json.dumps({"format": FORMAT, "public": public, "block": BLOCK,
                       "archives": {k: archives[k] for k in sorted(archives)},
                       "loose": sorted(loose)}, indent=1) + "\n"
    path = build / MANIFEST
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def records_in(build: Path) -> dict[str, bytes]:
    """{stored record path: bytes} of every record ``build`` publishes, loose or in an archive,
    as its ``MANIFEST`` lists them (a build without one: its loose ``records/*.jsonl``)."""
    manifest = read_manifest(build)
    if not (build / MANIFEST).is_file():
        return {f"records/{p.name}": p.read_bytes()
                for p in sorted((build / "records").glob("*.jsonl"))}
    out = {str(r): (build / str(r)).read_bytes() for r in manifest.get("loose", [])}
    for name in manifest["archives"]:
        out.update(unpack((build / name).read_bytes()))
    return out
