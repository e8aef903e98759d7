"""The lock (``requirements-lock.txt``, written by ``scripts/relock``) against ``pyproject.toml``.

``scripts/demo`` and ``scripts/test`` install the lock, not pyproject's ranges, so every machine
runs the releases the suite passed with. These tests keep the two files in step: a dependency,
extra or range changed in pyproject.toml without re-locking fails here, not on the next machine.
"""

from __future__ import annotations

import importlib.metadata
import re
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest
from packaging.markers import Marker
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import NormalizedName, canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]
LOCK = ROOT / "requirements-lock.txt"

# What one lock serves (scripts/relock: `uv pip compile --universal`): Python 3.11 and newer, on
# Linux and macOS, Intel and ARM.
PYTHONS = ("3.11", "3.12", "3.13", "3.14")
PLATFORMS = (
    ("linux", "Linux", "x86_64"),
    ("linux", "Linux", "aarch64"),
    ("darwin", "Darwin", "arm64"),
    ("darwin", "Darwin", "x86_64"),
)
HASH = re.compile(r"sha256:[0-9a-f]{64}")
UNLOCKED_EXTRAS = {"vu": ROOT / "requirements-vu.txt"}
"""Extras scripts/relock leaves out of the lock, each with the file that pins it instead: the
schnapsen package of bots/vu_adapter pins click, scikit-learn and Flask exactly (pyproject.toml says
why); it is installed alone into .venv-vu."""


@dataclass(frozen=True)
class Pin:
    """One entry of the lock: a release, the environments it is for, the files it may come from."""

    name: NormalizedName
    version: Version
    marker: Marker | None
    hashes: tuple[str, ...]

    def applies(self, environment: dict[str, str] | None) -> bool:
        return self.marker is None or self.marker.evaluate(environment)


def environments() -> list[dict[str, str]]:
    """Marker environments for every Python and platform the lock serves."""
    return [
        {
            "python_version": python,
            "python_full_version": f"{python}.0",
            "sys_platform": sys_platform,
            "platform_system": system,
            "platform_machine": machine,
            "os_name": "posix",
            "implementation_name": "cpython",
            "platform_python_implementation": "CPython",
        }
        for python in PYTHONS
        for sys_platform, system, machine in PLATFORMS
    ]


def read_lock(text: str) -> list[Pin]:
    """The lock's entries; anything but `name==version [; marker]` and its hashes fails the read.

    No index URL, link, path or editable line may pass: CI reaches PyPI only, and --require-hashes
    needs every release pinned to one version.
    """
    entries: list[str] = []
    continued = False
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        body = stripped.removesuffix("\\").strip()
        if continued:
            entries[-1] += " " + body
        else:
            entries.append(body)
        continued = stripped.endswith("\\")
    pins = []
    for entry in entries:
        requirement_text, *hashes = entry.split(" --hash=")
        try:
            requirement = Requirement(requirement_text)
        except InvalidRequirement as err:
            message = f"the lock has a line that is not a pinned release: {entry!r}"
            raise AssertionError(message) from err
        specifiers = list(requirement.specifier)
        assert requirement.url is None, f"the lock points outside the index: {entry!r}"
        assert len(specifiers) == 1 and specifiers[0].operator == "==", f"not pinned: {entry!r}"
        assert hashes, f"no hash for {requirement_text!r}: pip's --require-hashes refuses it"
        bad = [value for value in hashes if not HASH.fullmatch(value.strip())]
        assert not bad, f"not sha256 hashes for {requirement_text!r}: {bad}"
        pins.append(
            Pin(
                canonicalize_name(requirement.name),
                Version(specifiers[0].version),
                requirement.marker,
                tuple(value.strip() for value in hashes),
            )
        )
    return pins


def pyproject_requirements(pyproject: dict) -> dict[str, list[Requirement]]:
    """pyproject.toml's requirements by where they are named: dependencies, extras, the build."""
    project = pyproject["project"]
    groups = {"[project.dependencies]": project.get("dependencies", [])}
    for extra, requirements in project.get("optional-dependencies", {}).items():
        if extra not in UNLOCKED_EXTRAS:
            groups[f"extra {extra!r}"] = requirements
    groups["[build-system.requires]"] = pyproject["build-system"]["requires"]
    return {where: [Requirement(text) for text in texts] for where, texts in groups.items()}


def lock_gaps(pyproject: dict, pins: list[Pin]) -> list[str]:
    """Each way the lock fails pyproject.toml: a requirement with no pin (or two) for some Python
    and platform, or a pinned version outside the requirement's range."""
    by_name: dict[NormalizedName, list[Pin]] = {}
    for pin in pins:
        by_name.setdefault(pin.name, []).append(pin)
    gaps: dict[str, list[str]] = {}
    for where, requirements in pyproject_requirements(pyproject).items():
        for requirement in requirements:
            name = canonicalize_name(requirement.name)
            if name not in by_name:
                gaps[f"{requirement} ({where}) is not in the lock"] = []
                continue
            for environment in environments():
                if requirement.marker is not None and not requirement.marker.evaluate(environment):
                    continue
                chosen = [pin for pin in by_name[name] if pin.applies(environment)]
                place = "Python {python_version} ({sys_platform}, {platform_machine})".format(
                    **environment
                )
                if len(chosen) != 1:
                    versions = [str(pin.version) for pin in chosen]
                    gap = f"{requirement} ({where}): the lock pins {versions}"
                elif not requirement.specifier.contains(chosen[0].version, prereleases=True):
                    gap = f"{requirement} ({where}): the lock has {chosen[0].version}"
                else:
                    continue
                gaps.setdefault(gap, []).append(place)
    # One line a mistake: the places it holds for are named only when it is not all of them.
    every = len(environments())
    return sorted(
        gap if len(places) in (0, every) else f"{gap} for {', '.join(places)}"
        for gap, places in gaps.items()
    )


def read_pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_every_entry_of_the_lock_is_one_release_with_its_hashes():
    pins = read_lock(LOCK.read_text(encoding="utf-8"))
    # The packages the two commands import: the lock is not a stub.
    names = {pin.name for pin in pins}
    assert {"numpy", "pandas", "pytest", "distributed", "setuptools"} <= names


def test_the_lock_pins_every_dependency_extra_and_build_requirement_within_its_range():
    pyproject = read_pyproject()
    pins = read_lock(LOCK.read_text(encoding="utf-8"))
    gaps = lock_gaps(pyproject, pins)
    assert not gaps, "pyproject.toml changed, the lock not (scripts/relock):\n" + "\n".join(gaps)


def test_a_dependency_added_to_pyproject_without_re_locking_is_a_gap():
    # The check above against the mistakes it is for, on a copy of pyproject.toml.
    pins = read_lock(LOCK.read_text(encoding="utf-8"))
    pyproject = read_pyproject()
    pyproject["project"]["dependencies"].append("requests>=2")
    pyproject["project"]["optional-dependencies"]["plots"] = ["seaborn"]
    pyproject["project"]["optional-dependencies"]["test"].append("numpy>=99")
    gaps = lock_gaps(pyproject, pins)
    assert "requests>=2 ([project.dependencies]) is not in the lock" in gaps
    assert "seaborn (extra 'plots') is not in the lock" in gaps
    numpy = next(pin.version for pin in pins if pin.name == "numpy")
    assert f"numpy>=99 (extra 'test'): the lock has {numpy}" in gaps
    assert len(gaps) == 3, gaps


def test_scripts_relock_leaves_out_exactly_the_unlocked_extras():
    # The two lists must agree, or a relock would lock vu (or drop an extra the suite needs).
    relock = (ROOT / "scripts" / "relock").read_text(encoding="utf-8")
    found = re.search(r'^UNLOCKED_EXTRAS="([^"]*)"$', relock, re.MULTILINE)
    assert found is not None and set(found.group(1).split()) == set(UNLOCKED_EXTRAS)
    assert "--all-extras" not in relock


@pytest.mark.parametrize("extra", sorted(UNLOCKED_EXTRAS))
def test_an_unlocked_extra_is_pinned_with_hashes_in_its_own_file(extra):
    # The extra names exact releases, and its file pins the same ones, hash-checked as the lock is
    # (scripts that make .venv-vu install it with --require-hashes).
    wanted = {canonicalize_name(r.name): r for r in
              (Requirement(t) for t in read_pyproject()["project"]["optional-dependencies"][extra])}
    pins = {pin.name: pin for pin in read_lock(UNLOCKED_EXTRAS[extra].read_text(encoding="utf-8"))}
    assert wanted.keys() == pins.keys()
    for name, requirement in wanted.items():
        assert [s.operator for s in requirement.specifier] == ["=="]
        assert requirement.specifier.contains(pins[name].version), (requirement, pins[name])
    assert not set(pins) & {pin.name for pin in read_lock(LOCK.read_text(encoding="utf-8"))}


@pytest.mark.parametrize(
    "line",
    [
        "numpy>=2 \\\n    --hash=sha256:" + "0" * 64,
        "numpy==2.4.6",
        "-e .",
        "--index-url https://example.org/simple",
        "numpy @ https://example.org/numpy-2.4.6.tar.gz \\\n    --hash=sha256:" + "0" * 64,
        "numpy==2.4.6 \\\n    --hash=md5:" + "0" * 32,
    ],
    ids=["a range", "no hash", "editable", "another index", "a link", "not sha256"],
)
def test_a_lock_entry_that_is_not_one_hashed_release_from_the_index_is_refused(line):
    with pytest.raises(AssertionError):
        read_lock(line + "\n")


def test_the_venv_holds_the_lock_and_nothing_else():
    # scripts/_venv.sh builds .venv from the lock; a venv built otherwise (the package installed
    # into someone's own environment) is not what this checks.
    if Path(sys.prefix).resolve() != (ROOT / ".venv").resolve():
        pytest.skip("not running in the project's .venv (scripts/_venv.sh)")
    pins = read_lock(LOCK.read_text(encoding="utf-8"))
    locked = {pin.name: str(pin.version) for pin in pins if pin.applies(None)}
    installed = {
        canonicalize_name(dist.metadata["Name"]): dist.version
        for dist in importlib.metadata.distributions()
    }
    # pip is the venv's own; the project is installed from the worktree.
    installed.pop(canonicalize_name("pip"), None)
    installed.pop(canonicalize_name("sixtysix-arena"), None)
    assert installed == locked, "not the lock's releases: rm -r .venv; ./scripts/test rebuilds it"
