"""The documentation against the code: docs/RULES.md, the site mkdocs.yml builds, and what cites them.

The code, the replay pages, the command line and the protocol cite the rules by section ("RULES.md
§7.1"); the engine is a table of flags and profiles. These tests fail when a citation names a section
the rules document lacks, when a flag or profile of ``arena/game/rules.py`` is missing from it or
described otherwise, when a §12 edge case has no test, when a file points outside the repository for
the rules, and when the site does not build in MkDocs' strict mode.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from enum import StrEnum
from pathlib import Path

import pytest

from arena.game.rules import FLAG_FIELDS, PROFILES, Rules, flag_section

ROOT = Path(__file__).resolve().parents[1]
RULES_MD = ROOT / "docs" / "RULES.md"

# One section: "§7", "§7.1". A number followed by a dot and no digit ("§9.") ends a sentence.
SECTION = r"§(\d+(?:\.\d+)?)"
# "RULES.md §7.1", and the list or range that may follow it: "RULES.md §7.1, §7.3-§7.5 and §10".
CITATION = re.compile(r"RULES\.md\W{0,3}" + SECTION + r"((?:\s*(?:,|;|-|–|and|or)\s*§\d+(?:\.\d+)?)*)")
# "§11 row 34", "flag row 20": a row of the §11 table.
ROW_CITATION = re.compile(r"(?:§11|flag) rows? (\d+)")
# The files that cite the rules: code, templates, scripts, documents.
CITING_SUFFIXES = {".py", ".md", ".j2", ".html", ".js", ".c", ".h", ".toml", ".sh", ".txt", ".yml"}


def repository_files() -> list[Path]:
    """The repository's files as git tracks them; without git (an unpacked archive), every file but
    the venv's, caches and outputs."""
    try:
        listed = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z"], capture_output=True,
                                check=True).stdout.decode().split("\0")
    except (OSError, subprocess.CalledProcessError):
        skip = {".venv", ".git", "site", "results", "build", "dist", "__pycache__", ".mypy_cache",
                ".pytest_cache", ".hypothesis", ".test-open"}
        return [p for p in ROOT.rglob("*") if p.is_file()
                and not skip & set(p.relative_to(ROOT).parts) and not p.name.endswith(".egg-info")]
    return [ROOT / name for name in listed if name and (ROOT / name).is_file()]


def text_files(suffixes: set[str] | None = None) -> dict[Path, str]:
    out = {}
    for path in repository_files():
        if suffixes is not None and path.suffix not in suffixes and path.parent.name != "scripts":
            continue
        try:
            out[path] = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:  # a binary file (an image) cites nothing
            continue
    return out


def rules_text() -> str:
    return RULES_MD.read_text(encoding="utf-8")


def headings(text: str) -> dict[str, str]:
    """Each numbered section of the rules ("7", "7.1") and its text up to the next numbered heading
    of the same or a higher level (a section's text includes its subsections)."""
    found = [(m.group(2), len(m.group(1)), m.start())
             for m in re.finditer(r"^(#{2,3}) (\d+(?:\.\d+)?)\.? ", text, re.M)]
    others = [m.start() for m in re.finditer(r"^#{1,3} ", text, re.M)]
    sections = {}
    for number, level, start in found:
        ends = [s for n, lv, s in found if s > start and lv <= level]
        ends += [s for s in others if s > start and not re.match(r"#{2,3} \d", text[s:s + 8])]
        sections[number] = text[start:min(ends, default=len(text))]
    return sections


def section_11_rows(text: str) -> dict[int, str]:
    """The rows of the §11 table, by number."""
    table = headings(text)["11"]
    return {int(m.group(1)): m.group(0) for m in re.finditer(r"^\| (\d+) \|.*$", table, re.M)}


def cited_sections(text: str) -> list[str]:
    found = []
    for m in CITATION.finditer(text):
        found.append(m.group(1))
        found += re.findall(SECTION, m.group(2))
    return found


# -- (1) every cited section exists ---------------------------------------------------------------


def test_the_citation_pattern_reads_lists_and_ranges() -> None:
    # The reader below against the forms the code uses, so a pattern that finds nothing fails here.
    assert cited_sections("(RULES.md §7.1, §7.3-§7.5, §7.7 with the §11 flags)") == ["7.1", "7.3",
                                                                                      "7.5", "7.7"]
    assert cited_sections("RULES.md §2.4's mapping; RULES.md §9. And RULES.md §7 and §10;") == \
        ["2.4", "9", "7", "10"]
    assert cited_sections('"RULES.md §6"') == ["6"]


def test_every_section_the_repository_cites_is_a_heading_of_the_rules() -> None:
    sections = headings(rules_text())
    rows = section_11_rows(rules_text())
    missing, seen = [], 0
    for path, text in text_files(CITING_SUFFIXES).items():
        where = path.relative_to(ROOT)
        for number in cited_sections(text):
            seen += 1
            if number not in sections:
                missing.append(f"{where}: RULES.md §{number}")
        for row in ROW_CITATION.findall(text):
            if int(row) not in rows:
                missing.append(f"{where}: §11 row {row}")
        # The engine cites nothing but the rules, so its bare "§5.3" is a rules section too (the
        # reason IllegalActionError gives names one).
        if where.parts[:2] == ("arena", "game"):
            missing += [f"{where}: §{n}" for n in re.findall(SECTION, text) if n not in sections]
    assert seen > 200, f"only {seen} citations found: the reader above has stopped finding them"
    assert not missing, "cited, but not a section of docs/RULES.md:\n" + "\n".join(missing)


def test_the_rules_keep_every_numbered_section() -> None:
    # Sections 0-13 with the subsections the code and pages cite; a renumbering fails here.
    expected = {str(n) for n in range(14)} | {
        "0.1", "0.2", "0.3", "0.4", "1.1", "1.2", "2.1", "2.2", "2.3", "2.4", "2.5", "2.6", "5.1",
        "5.2", "5.3", "5.4", "5.5", "7.1", "7.2", "7.3", "7.4", "7.5", "7.6", "7.7", "10.1", "10.2",
        "10.3", "10.4"}
    assert set(headings(rules_text())) == expected
    assert set(section_11_rows(rules_text())) == set(range(1, 37))


# -- (2) every flag and profile -------------------------------------------------------------------


@pytest.mark.parametrize("name", list(FLAG_FIELDS))
def test_every_flag_is_defined_where_its_label_says(name: str) -> None:
    """``arena rules show`` labels each flag with a place in the rules (``§11.<row>``, ``§10.4``):
    the flag is named there, and every value the engine accepts for it is named in the document."""
    text = rules_text()
    label = flag_section(name)
    if label.startswith("§11."):
        place = section_11_rows(text).get(int(label.removeprefix("§11.")), "")
    else:
        place = headings(text).get(label.removeprefix("§"), "")
    assert f"`{name}`" in place or f"`{name} =" in place, f"{name} is not named in RULES.md {label}"
    default = FLAG_FIELDS[name].default
    if isinstance(default, StrEnum):
        missing = [str(v) for v in type(default) if f"`{v}`" not in text and f"= {v}`" not in text]
        assert not missing, f"values of {name} the rules never name: {missing}"


def profile_paragraphs(text: str) -> dict[str, dict[str, str]]:
    """The "**Profile `name`**:" paragraphs: the ``flag = value`` pairs each one states."""
    out = {}
    for m in re.finditer(r"^\*\*Profile `(\w+)`\*\*(.*?)(?:\n\n|\Z)", text, re.M | re.S):
        pairs = re.findall(r"`(\w+) = ([^`]+)`", m.group(2))
        out[m.group(1)] = {flag: value.strip() for flag, value in pairs}
    return out


def as_text(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


@pytest.mark.parametrize("name", list(PROFILES))
def test_every_profile_is_a_heading_and_its_flags_are_the_engines(name: str) -> None:
    text = rules_text()
    titles = re.findall(r"^#{2,3} .*$", text, re.M)
    assert any(f"`{name}`" in title for title in titles), f"no heading of RULES.md names {name}"
    if name == "sixty_six":
        return  # the defaults: §11, checked flag by flag in tests/game/test_rules_profiles.py
    stated = profile_paragraphs(text).get(name)
    assert stated is not None, f"RULES.md has no **Profile `{name}`** paragraph"
    rules, default = PROFILES[name].to_dict(), Rules().to_dict()
    wrong = {flag: value for flag, value in stated.items() if as_text(rules.get(flag)) != value}
    assert not wrong, f"{name}: RULES.md says {wrong}, the engine has " \
                      f"{ {flag: rules.get(flag) for flag in wrong} }"
    unsaid = {flag for flag in FLAG_FIELDS if rules[flag] != default[flag]} - set(stated)
    assert not unsaid, f"{name} differs from sixty_six in {sorted(unsaid)}, which RULES.md does not say"


# -- (3) the §12 edge cases and their tests -------------------------------------------------------


def test_every_section_12_edge_case_has_a_test_named_for_it() -> None:
    """tests/game/test_edge_cases.py names its tests ``case_<row>_...``; each row of §12 has one,
    and each such test plays a row that exists."""
    table = headings(rules_text())["12"]
    documented = {int(n) for n in re.findall(r"^\| (\d+) \|", table, re.M)}
    assert documented == set(range(1, 53))
    tests = (ROOT / "tests" / "game" / "test_edge_cases.py").read_text(encoding="utf-8")
    tested = {int(n) for n in re.findall(r"[\"']case_(\d+)_\w+[\"']", tests)}
    assert sorted(documented - tested) == [], "§12 rows without a test"
    assert sorted(tested - documented) == [], "tests named for a §12 row that does not exist"


# -- (4) nothing outside the repository -----------------------------------------------------------

# Written in two parts, so that this file is not a match of its own.
OUTSIDE = re.compile(r"\.\./" + r"shared\b|\bshared/" + r"(?:rules|seeds)\b"
                     r"|[\"']shared[\"']\s*/\s*[\"'](?:rules|seeds)[\"']")


def test_no_file_points_outside_the_repository_for_the_rules() -> None:
    found = [f"{path.relative_to(ROOT)}:{text.count(chr(10), 0, m.start()) + 1}: {m.group(0)}"
             for path, text in text_files().items() for m in OUTSIDE.finditer(text)]
    assert not found, "the rules are docs/RULES.md, in the repository:\n" + "\n".join(found)


def test_the_outside_pattern_finds_the_old_reference() -> None:
    assert OUTSIDE.search("The rules are specified in `../" + "shared/" + "rules/RULES.md` (kept beside")
    assert OUTSIDE.search("a seed in " + "shared/" + "seeds/000_330b9ce6b29223c1.txt")
    assert OUTSIDE.search('Path(__file__).resolve().parents[3] / "shared"' + ' / "rules" / "RULES.md"')
    assert not OUTSIDE.search('shared = tmp_path / "shared"')


# -- (5) the site builds, strictly -----------------------------------------------------------------


def mkdocs_build(config: Path, site: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1"}
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file",
                           str(config), "--site-dir", str(site)], capture_output=True, text=True,
                          env=env, timeout=240)


def test_the_site_builds_in_strict_mode_with_the_rules_and_the_protocol(tmp_path: Path) -> None:
    site = tmp_path / "site"
    result = mkdocs_build(ROOT / "mkdocs.yml", site)
    assert result.returncode == 0, result.stderr
    rules = (site / "RULES" / "index.html").read_text(encoding="utf-8")
    assert "Disagreement table and configuration flags" in rules
    # The protocol page is protocol/PROTOCOL.md itself, not a copy kept in docs/.
    protocol = (site / "PROTOCOL" / "index.html").read_text(encoding="utf-8")
    first = (ROOT / "protocol" / "PROTOCOL.md").read_text(encoding="utf-8").splitlines()[0]
    assert first.lstrip("# ") in protocol
    assert not (ROOT / "docs" / "PROTOCOL.md").exists()
    index = (site / "index.html").read_text(encoding="utf-8")
    assert 'href="RULES/' in index and 'href="PROTOCOL/' in index


def copy_of_the_docs(tmp_path: Path) -> Path:
    """What the build reads, copied: mkdocs.yml, docs/, the hook and the protocol."""
    tree = tmp_path / "tree"
    for part in ("mkdocs.yml", "docs", "scripts/mkdocs_hooks.py", "protocol/PROTOCOL.md"):
        target = tree / part
        target.parent.mkdir(parents=True, exist_ok=True)
        if (ROOT / part).is_dir():
            shutil.copytree(ROOT / part, target)
        else:
            shutil.copy2(ROOT / part, target)
    return tree


@pytest.mark.parametrize("link,named", [("[rules](RULE.md)", "RULE.md"),
                                        ("[flags](RULES.md#11-no-such-heading)", "11-no-such-heading")],
                         ids=["missing page", "missing heading"])
def test_a_broken_link_fails_the_build(tmp_path: Path, link: str, named: str) -> None:
    tree = copy_of_the_docs(tmp_path)
    index = tree / "docs" / "index.md"
    result = mkdocs_build(tree / "mkdocs.yml", tmp_path / "site")
    assert result.returncode == 0, result.stderr  # the copy builds as the original does
    index.write_text(index.read_text(encoding="utf-8") + f"\nSee {link}.\n", encoding="utf-8")
    result = mkdocs_build(tree / "mkdocs.yml", tmp_path / "site")
    assert result.returncode != 0 and named in result.stderr, result.stderr


def test_the_protocol_page_follows_protocol_md(tmp_path: Path) -> None:
    tree = copy_of_the_docs(tmp_path)
    protocol = tree / "protocol" / "PROTOCOL.md"
    protocol.write_text(protocol.read_text(encoding="utf-8") + "\nA line added in the copy.\n",
                        encoding="utf-8")
    result = mkdocs_build(tree / "mkdocs.yml", tmp_path / "site")
    assert result.returncode == 0, result.stderr
    assert "A line added in the copy." in (tmp_path / "site" / "PROTOCOL" / "index.html").read_text(
        encoding="utf-8")


def test_a_copy_of_the_protocol_in_docs_is_refused(tmp_path: Path) -> None:
    # Two sources of one page would drift apart; the build names the copy to delete.
    tree = copy_of_the_docs(tmp_path)
    shutil.copy2(tree / "protocol" / "PROTOCOL.md", tree / "docs" / "PROTOCOL.md")
    result = mkdocs_build(tree / "mkdocs.yml", tmp_path / "site")
    assert result.returncode != 0 and "docs/PROTOCOL.md would hide protocol/PROTOCOL.md" in result.stderr
    assert "Traceback" not in result.stderr
