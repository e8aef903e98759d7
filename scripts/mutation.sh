#!/usr/bin/env bash
# Mutation testing of the engine (issue 15): mutmut mutates arena/game and runs tests/game against
# every mutant; a mutant that no test kills is a rule the tests do not pin down.
#
#   scripts/mutation.sh                  # every module of arena/game (long: an hour or more on 2 cores)
#   scripts/mutation.sh scoring match    # only arena/game/scoring.py and arena/game/match.py
#
# Environment: MUTATION_JOBS (parallel mutants, default 1: the machine is shared), MUTATION_TIMEOUT
# (seconds for the whole run, default 3000; the run stops there and reports what it finished),
# MUTATION_KEEP=1 (keep the work folder and print its path, for `mutmut show NAME` inside it),
# MUTATION_SUMMARY_OF=DIR (summarise a kept work folder again, e.g. after judging more survivors),
# with MUTATION_RECHECK=1 (first rerun that folder's survivors against the current tests/game).
# mutmut runs under `nice -n 15`.
#
# mutmut 3.8.1 is pinned (installed into .venv if missing): mutmut 3 copies the code into a
# ./mutants folder and switches mutants on at run time, so the script works in a temporary copy of
# arena/game and tests/game and never writes into the checkout. mutmut 3 mutates code inside
# functions only: module-level tables (the profiles, packs) are pinned by the tests directly.
#
# The summary lists the survivors nobody has judged and a table per module. Survivors are judged in
# scripts/mutation-survivors.txt (message, event-text, equivalent, import-time; see that file and the
# README's "Mutation testing", which also holds the measured figures); a mutant that changes only the
# arguments of a `raise` is judged message text here automatically. Any other survivor is a real
# gap and needs a test (tests/game/test_index_zero.py, tests/game/test_mutation_gaps.py).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
MUTMUT_VERSION="3.8.1"
JOBS="${MUTATION_JOBS:-1}"
LIMIT="${MUTATION_TIMEOUT:-3000}"

if [[ ! -x "$ROOT/.venv/bin/python" ]]; then
    echo "no .venv: run ./scripts/test once first (it creates the project's virtual environment)" >&2
    exit 2
fi
PY="$ROOT/.venv/bin/python"
if ! "$PY" -c "import mutmut, sys; sys.exit(mutmut.__version__ != '$MUTMUT_VERSION')" 2>/dev/null; then
    echo "installing mutmut $MUTMUT_VERSION into .venv" >&2
    "$ROOT/.venv/bin/pip" install --quiet "mutmut==$MUTMUT_VERSION"
fi

# mutmut copies the whole engine and mutates the modules only_mutate names.
paths=()
for file in "$ROOT"/arena/game/*.py; do
    module="$(basename "$file" .py)"
    if [[ $# -eq 0 ]]; then
        paths+=("arena/game/$module.py")
        continue
    fi
    chosen=0
    for wanted in "$@"; do
        wanted="${wanted%.py}"
        [[ "${wanted##*/}" == "$module" ]] && chosen=1
    done
    if [[ $chosen == 1 ]]; then paths+=("arena/game/$module.py"); fi
done
for wanted in "$@"; do
    wanted="${wanted%.py}"
    if [[ ! -f "$ROOT/arena/game/${wanted##*/}.py" ]]; then
        echo "no module arena/game/${wanted##*/}.py (modules: $(cd "$ROOT/arena/game" && ls *.py | tr '\n' ' '))" >&2
        exit 2
    fi
done

if [[ -n "${MUTATION_SUMMARY_OF:-}" ]]; then
    # Summarise a kept work folder again (after judging more survivors), without running mutmut.
    WORK="$(cd "$MUTATION_SUMMARY_OF" && pwd)"
    cd "$WORK"
    echo "# summary of $WORK"
    if [[ "${MUTATION_RECHECK:-0}" == 1 ]]; then
        # Run the survivors again against the checkout's tests/game as it is now (after new tests),
        # instead of every mutant: mutmut picks up the new tests and reruns only the named mutants.
        rm -rf "$WORK/tests/game"
        cp -r "$ROOT/tests/game" "$WORK/tests/game"
        find "$WORK/tests" -name __pycache__ -prune -exec rm -rf {} +
        # Only the survivors nobody judged: a judged one survives again by its nature.
        mapfile -t again < <(MUTATION_RECHECK=0 "$ROOT/scripts/mutation.sh" | sed -n 's/^\(arena\.[^ ]*\) (\(survived\|no tests\))$/\1/p')
        echo "# rechecking ${#again[@]} survivors against the current tests/game"
        if [[ ${#again[@]} -gt 0 ]]; then
            timeout --signal=INT "$LIMIT" nice -n 15 "$ROOT/.venv/bin/mutmut" run --max-children "$JOBS" "${again[@]}" \
                >"$WORK/recheck.log" 2>&1 || echo "# mutmut exited with $? (see $WORK/recheck.log)"
        fi
    fi
else
    WORK="$(mktemp -d "${TMPDIR:-/tmp}/mutation-XXXXXX")"
    if [[ "${MUTATION_KEEP:-0}" != 1 ]]; then
        trap 'rm -rf "$WORK"' EXIT
    fi
    mkdir -p "$WORK/arena" "$WORK/tests"
    cp "$ROOT/arena/__init__.py" "$WORK/arena/"
    cp -r "$ROOT/arena/game" "$WORK/arena/game"
    cp -r "$ROOT/tests/game" "$WORK/tests/game"
    find "$WORK" -name __pycache__ -prune -exec rm -rf {} +
    # Functions that build only text for people (the reasons of IllegalActionError, reprs) are not
    # mutated: their mutants cannot change what the engine does, and each survivor would cost a
    # whole run of tests/game. The copy gets mutmut's "no mutate" pragmas around them.
    "$PY" - "$WORK/arena/game" <<'EOF'
import ast
import pathlib
import sys

TEXT_ONLY = {"state.py": {"_why_illegal", "DealState.__repr__"}, "cards.py": {"Card.__repr__", "Pack.__repr__"},
             "actions.py": {"Action.__repr__"}}
for file, wanted in TEXT_ONLY.items():
    path = pathlib.Path(sys.argv[1]) / file
    lines = path.read_text(encoding="utf-8").splitlines()
    spans = []
    for node in ast.parse("\n".join(lines)).body:
        defs = [(node.name, node)] if isinstance(node, ast.FunctionDef) else \
            [(f"{node.name}.{d.name}", d) for d in node.body if isinstance(d, ast.FunctionDef)] \
            if isinstance(node, ast.ClassDef) else []
        for name, d in defs:
            if name in wanted:
                first = min([d.lineno] + [x.lineno for x in d.decorator_list])
                spans.append((first, d.end_lineno, " " * d.col_offset))
    assert len(spans) == len(wanted), (file, wanted, spans)
    for first, last, indent in sorted(spans, reverse=True):
        lines.insert(last, f"{indent}# pragma: no mutate end")
        lines.insert(first - 1, f"{indent}# pragma: no mutate start")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
EOF
    {
        echo "[mutmut]"
        echo "source_paths=arena/"
        echo "only_mutate="
        for p in "${paths[@]}"; do echo "    $p"; done
        echo "pytest_add_cli_args_test_selection=tests/game/"
        echo "also_copy=conftest.py"
        # A mutant that loops forever is stopped after twice its tests' time (mutmut's default, 15x,
        # let one such mutant hold the run for many minutes on a loaded machine).
        echo "timeout_multiplier=2"
    } > "$WORK/setup.cfg"
    # The project is installed into .venv in editable mode, which puts the checkout on sys.path (an
    # older install: an import hook), so arena would load from the checkout and not from mutmut's
    # copy: the tests here must see the copy.
    cat > "$WORK/conftest.py" <<'EOF'
import os
import sys

sys.meta_path[:] = [f for f in sys.meta_path if not type(f).__module__.startswith("__editable__")]
here = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") == here
               or not os.path.isdir(os.path.join(p or ".", "arena"))]
# mutmut runs pytest several times in one process: forget only modules loaded from elsewhere.
for name, module in list(sys.modules.items()):
    if (name == "arena" or name.startswith("arena.")) and \
            not os.path.abspath(getattr(module, "__file__", None) or "/").startswith(here):
        del sys.modules[name]
EOF

    cd "$WORK"
    echo "# mutmut $MUTMUT_VERSION on ${paths[*]} against tests/game, $JOBS jobs, at most ${LIMIT}s (work: $WORK)"
    status=0
    timeout --signal=INT "$LIMIT" nice -n 15 "$ROOT/.venv/bin/mutmut" run --max-children "$JOBS" >"$WORK/run.log" 2>&1 || status=$?
    if [[ $status -eq 124 ]]; then
        echo "# stopped after ${LIMIT}s: the figures below cover the mutants finished by then"
    elif [[ $status -ne 0 ]]; then
        echo "# mutmut run exited with $status; its output:" >&2
        tail -20 "$WORK/run.log" >&2
    fi
fi
"$ROOT/.venv/bin/mutmut" results --all true >"$WORK/results.txt" 2>&1 || true
"$PY" - "$WORK/results.txt" "$ROOT/scripts/mutation-survivors.txt" <<'EOF'
import ast
import collections
import copy
import fnmatch
import sys

# The judged survivors: "pattern class why" per line, the pattern an fnmatch of mutant names (a
# whole function with "*"). Classes that cannot change what the engine does: message (the text of
# an error), event-text (the text form of an event or a state), equivalent (no input tells the
# mutant apart), import-time (code run once while the module loads, before mutmut switches a
# mutant on; the tables it builds are tested directly). Anything else is a real gap.
judged = []
for line in open(sys.argv[2], encoding="utf-8"):
    line = line.strip()
    if line and not line.startswith("#"):
        pattern, kind, *_ = line.split(None, 2)
        judged.append((pattern, kind))


def judge(name):
    for pattern, kind in judged:
        if fnmatch.fnmatchcase(name, pattern):
            return kind
    return "message" if only_changes_an_error_message(name) else None


# mutmut 3 writes every mutant as a function beside the original (NAME and its __mutmut_orig) in
# mutants/arena/game/MODULE.py: a mutant whose code equals the original once the positional
# arguments of every `raise X(...)` are blanked changes only the text of an error.
_functions = {}


def _function(module, name):
    if module not in _functions:
        found = {}
        try:
            tree = ast.parse(open(f"mutants/arena/game/{module}.py", encoding="utf-8").read())
        except OSError:
            tree = ast.Module(body=[], type_ignores=[])
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found[node.name] = node
        _functions[module] = found
    return _functions[module].get(name)


def _blank_messages(func):
    func = copy.deepcopy(func)
    func.name = "f"
    for node in ast.walk(func):
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
            node.exc.args = [ast.Constant("message") for _ in node.exc.args]
    return ast.dump(func)


def only_changes_an_error_message(name):
    parts = name.split(".")
    if len(parts) != 4 or "__mutmut_" not in parts[3]:
        return False
    mutant = _function(parts[2], parts[3])
    original = _function(parts[2], parts[3].rsplit("__mutmut_", 1)[0] + "__mutmut_orig")
    if mutant is None or original is None:
        return False
    return _blank_messages(mutant) == _blank_messages(original)


per_module = collections.defaultdict(collections.Counter)
statuses = collections.Counter()
gaps = []
for line in open(sys.argv[1], encoding="utf-8"):
    name, sep, status = line.strip().rpartition(": ")
    if not sep or not name or status in ("not checked", "skipped"):
        continue
    module = name.split(".")[2] if name.startswith("arena.game.") else "?"
    statuses[status] += 1
    counts = per_module[module]
    counts["mutants"] += 1
    if status in ("killed", "timeout", "segfault"):
        counts["killed"] += 1
        continue
    kind = judge(name)  # survived, no tests, suspicious: killed by nothing
    if kind is None:
        counts["gap"] += 1
        gaps.append(f"{name} ({status})")
    else:
        counts[kind] += 1
print("# survivors not judged (real gaps, or to be judged in scripts/mutation-survivors.txt):")
for name in gaps:
    print(name)
print("# status counts:", ", ".join(f"{s} {n}" for s, n in statuses.most_common()))
print("# module        mutants  killed  message  event-text  equivalent  import-time  gaps  killed of the"
      " behaviour-changing")
total = collections.Counter()
for module in sorted(per_module):
    c = per_module[module]
    total.update(c)
    rows = [module] + [c[k] for k in ("mutants", "killed", "message", "event-text", "equivalent", "import-time",
                                     "gap")]
    behaviour = c["killed"] + c["gap"]
    rows.append(f"{100 * c['killed'] / behaviour:.1f}%" if behaviour else "-")
    print("  {:<13} {:>7} {:>7} {:>8} {:>11} {:>11} {:>12} {:>5}  {}".format(*rows))
if total["mutants"]:
    behaviour = total["killed"] + total["gap"]
    print(f"# total: {total['mutants']} mutants, {total['killed']} killed "
          f"({100 * total['killed'] / total['mutants']:.1f}% of all); "
          f"{total['killed']} of {behaviour} behaviour-changing mutants killed: "
          f"{100 * total['killed'] / max(behaviour, 1):.1f}%")
EOF
if [[ "${MUTATION_KEEP:-0}" == 1 ]]; then
    echo "# kept $WORK: cd there and run $ROOT/.venv/bin/mutmut show NAME"
fi
