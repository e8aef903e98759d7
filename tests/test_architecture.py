"""The house plan holds (issue 31): ``arena/`` is packages by job, imports run down the layers each
package's ``__init__`` declares, and no module imports one that imports it back, directly or round
a longer circle, not even from inside a function or for type checking only.

Every ``import`` and ``from ... import`` anywhere in a module counts (a function-level import is a
dependency that runs later, and a ``TYPE_CHECKING`` one is a dependency of the reader). Each
package's ``__init__`` docstring has a line ``May import: arena.x, arena.y`` (or "nothing else of
the arena"); the modules directly in ``arena/`` say theirs in ``arena/__init__``'s list. A module
may always import its own package and the ``arena`` package itself (``__version__``).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MOST_TOP_MODULES = 8


def modules(root: Path) -> dict[str, Path]:
    """{dotted name: file} of every module of the ``arena`` package under ``root``."""
    out = {}
    for path in sorted((root / "arena").rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The modules of ``known`` that module ``name`` imports, anywhere in its file."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]

    def owner(dotted: str) -> str | None:  # the longest known module that ``dotted`` names
        while dotted and dotted not in known:
            dotted = dotted.rpartition(".")[0]
        return dotted or None

    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {m for a in node.names if (m := owner(a.name))}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([base] if base else []))
            for alias in node.names:  # ``from arena import sandbox`` imports a module
                target = owner(f"{base}.{alias.name}") if f"{base}.{alias.name}" in known else None
                found |= {m for m in (target or owner(base),) if m}
    found.discard(name)
    return found


def graph(root: Path) -> dict[str, set[str]]:
    known = modules(root)
    return {name: imports(name, path, known) for name, path in known.items()}


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


_MAY = re.compile(r"\(?May import: ([^)\n]*(?:\n[^)\n\-][^)\n]*)*)")


def _listed(text: str) -> set[str]:
    if text.strip().startswith("nothing"):
        return set()
    return {word.strip().rstrip(".") for word in text.replace("\n", " ").split(",") if word.strip()}


def allowed(root: Path) -> dict[str, set[str]]:
    """{unit: what it may import}: a unit is a package under ``arena`` (``arena.compete``) or a
    module directly in ``arena/`` (``arena.types``), from the docstrings that declare them."""
    out: dict[str, set[str]] = {}
    top = ast.get_docstring(ast.parse((root / "arena" / "__init__.py").read_text())) or ""
    for line in re.finditer(r"^- ``(\w+)``: .*?\(May import: ([^)]*)\)", top, re.M):
        out[f"arena.{line.group(1)}"] = _listed(line.group(2))
    for line in re.finditer(r"^- ``(\w+)``: .*\(imports none\)", top, re.M):
        out[f"arena.{line.group(1)}"] = set()
    for init in sorted((root / "arena").glob("*/__init__.py")):
        doc = ast.get_docstring(ast.parse(init.read_text())) or ""
        declared = _MAY.search(doc)
        if declared is None:
            raise AssertionError(f"{init.relative_to(root)} does not say what it may import "
                                 "(a line 'May import: arena.x, ...')")
        out[f"arena.{init.parent.name}"] = _listed(declared.group(1))
    return out


def unit_of(module: str) -> str:
    """``arena.compete.league`` -> ``arena.compete``; ``arena.types`` -> ``arena.types``."""
    return ".".join(module.split(".")[:2])


def against_layers(root: Path) -> list[str]:
    """Every import that runs against the declared layers, as 'a imports b' lines."""
    rules = allowed(root)
    wrong = []
    for module, targets in sorted(graph(root).items()):
        unit = unit_of(module)
        if module == "arena":
            continue
        if unit not in rules:
            wrong.append(f"{module} is in no declared package or module list (arena/__init__)")
            continue
        for target in sorted(targets):
            there = unit_of(target)
            if target == "arena" or there == unit or there in rules[unit]:
                continue
            wrong.append(f"{module} imports {target}: {unit} may import "
                         f"{', '.join(sorted(rules[unit])) or 'nothing of the arena'}")
    return wrong


def test_no_module_of_the_arena_imports_one_that_imports_it_back():
    found = circles(graph(ROOT))
    assert found == [], "import circles: " + "; ".join(" <-> ".join(c) for c in found)


def test_every_import_runs_down_the_layers_the_packages_declare():
    assert against_layers(ROOT) == []


def test_arena_is_packages_with_few_modules_beside_them():
    top = sorted(p.name for p in (ROOT / "arena").glob("*.py"))
    assert len(top) <= MOST_TOP_MODULES, top
    rules = allowed(ROOT)
    for path in top:
        if path != "__init__.py":
            assert f"arena.{path[:-3]}" in rules, f"arena/{path} is not in arena/__init__'s list"


def test_the_game_engine_is_a_leaf():
    assert allowed(ROOT)["arena.game"] == set()
    edges = graph(ROOT)
    assert not [m for m in edges if m.startswith("arena.game")
                and any(not t.startswith("arena.game") for t in edges[m])]


# -- the checks themselves find what they look for --------------------------------------------------

def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path


_TOP = '"""Plan.\n\n- ``types``: values (May import: arena.low)\n"""\n'


def test_a_circle_through_a_function_level_import_is_found(tmp_path):
    root = _tree(tmp_path, {
        "arena/__init__.py": _TOP,
        "arena/low/__init__.py": '"""Low.\n\nMay import: nothing else of the arena\n"""\n',
        "arena/low/a.py": "from arena.low import b\n",
        "arena/low/b.py": "def f():\n    from arena.low.a import x\n",
        "arena/types.py": "",
    })
    assert circles(graph(root)) == [["arena.low.a", "arena.low.b"]]


def test_a_circle_through_a_type_checking_import_is_found(tmp_path):
    root = _tree(tmp_path, {
        "arena/__init__.py": _TOP,
        "arena/low/__init__.py": '"""Low.\n\nMay import: nothing else of the arena\n"""\n',
        "arena/low/a.py": "from arena.low.b import y\n",
        "arena/low/b.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                          "    from arena.low import a\n",
        "arena/types.py": "",
    })
    assert circles(graph(root)) == [["arena.low.a", "arena.low.b"]]


def test_an_import_up_the_layers_is_found(tmp_path):
    root = _tree(tmp_path, {
        "arena/__init__.py": _TOP,
        "arena/low/__init__.py": '"""Low.\n\nMay import: nothing else of the arena\n"""\n',
        "arena/low/a.py": "def f():\n    from arena import types\n",
        "arena/types.py": "import arena.low.a\n",
    })
    assert against_layers(root) == [
        "arena.low.a imports arena.types: arena.low may import nothing of the arena"]


def test_a_package_that_does_not_declare_its_imports_is_refused(tmp_path):
    root = _tree(tmp_path, {"arena/__init__.py": _TOP, "arena/low/__init__.py": '"""Low."""\n',
                            "arena/types.py": ""})
    with pytest.raises(AssertionError, match="does not say what it may import"):
        allowed(root)
