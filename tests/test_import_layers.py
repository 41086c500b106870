"""The package reads as the pipeline: a stage imports only its own and lower stages, and no
module imports itself back through others.

The stages, lowest first, are ``STAGES`` (ARCHITECTURE.md says what each holds). The modules at
the top of the package (``astest_tasks``, ``astest_tasks.runner``, ``astest_tasks.cli``) stand
above every stage. Imports inside functions and under ``TYPE_CHECKING`` count too: a deferred
import is still a dependency, only a later one.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "astest_tasks"
STAGES = (
    "core",
    "coverage",
    "model",
    "config",
    "build",
    "run",
    "fuzz",
    "output",
    "remote",
    "schedule",
    "plan",
    "actions",
    "tasks",
    "commands",
)
TOP = len(STAGES)  # astest_tasks/__init__.py, cli.py, runner.py, __main__.py


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return _modules_of(PACKAGE)


def _modules_of(package: Path) -> dict[str, Path]:
    return {".".join(_parts(path, package)): path for path in sorted(package.rglob("*.py"))}


def _parts(path: Path, package: Path) -> tuple[str, ...]:
    parts = path.relative_to(package.parent).with_suffix("").parts
    return parts[:-1] if parts[-1] == "__init__" else parts


def _imports(path: Path, known: set[str]) -> Iterator[tuple[str, int]]:
    """The package modules a file imports, with the line; ``from pkg import name`` names the
    module ``pkg.name`` where that is a module, else ``pkg``."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if not node.module.startswith("astest_tasks"):
                continue
            for alias in node.names:
                candidate = f"{node.module}.{alias.name}"
                yield (candidate if candidate in known else node.module), node.lineno
        elif isinstance(node, ast.ImportFrom):
            raise AssertionError(f"{path}:{node.lineno}: use an absolute import")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("astest_tasks"):
                    yield alias.name, node.lineno


def _stage(module: str) -> int:
    parts = module.split(".")
    return STAGES.index(parts[1]) if len(parts) > 1 and parts[1] in STAGES else TOP


def _graph() -> dict[str, set[str]]:
    """Who imports whom. Importing ``pkg.sub`` runs ``pkg``'s __init__ first, so it counts as
    importing ``pkg`` too (not for a module of ``pkg`` itself, which Python has started already):
    a package whose __init__ names a module that imports back into the package is a cycle."""
    modules = _modules()
    known = set(modules)
    graph = {}
    for name, path in modules.items():
        targets = {target for target, _ in _imports(path, known) if target != name}
        graph[name] = targets | {
            package
            for target in targets
            for package in _packages_of(target)
            if package in known and not (name + ".").startswith(package + ".")
        }
    return graph


def _packages_of(module: str) -> list[str]:
    parts = module.split(".")
    return [".".join(parts[:end]) for end in range(2, len(parts))]


def test_every_module_sits_in_a_stage_or_at_the_top() -> None:
    loose = [
        name
        for name in _modules()
        if _stage(name) == TOP
        and name
        not in {"astest_tasks", "astest_tasks.__main__", "astest_tasks.cli", "astest_tasks.runner"}
        and not name.startswith("astest_tasks.templates")
    ]
    assert loose == [], f"put these modules into a stage's folder: {loose}"


def test_no_stage_imports_a_higher_one() -> None:
    modules = _modules()
    known = set(modules)
    upward = [
        f"{name} ({STAGES[_stage(name)]}) imports {target} at line {line}"
        for name, path in modules.items()
        if _stage(name) < TOP
        for target, line in _imports(path, known)
        if _stage(target) > _stage(name)
    ]
    assert len(modules) > 80  # the walk found the package, not an empty folder
    assert upward == []


# doit is known from actions/ up: the stages below (plan/ too) hold data and rules that run
# without it.
DOIT_STAGES = frozenset({"actions", "tasks", "commands"})


def _doit_imports(path: Path) -> list[int]:
    lines = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        if any(name == "doit" or name.startswith("doit.") for name in names):
            lines.append(node.lineno)
    return lines


def doit_below_tasks(package: Path) -> list[str]:
    found = []
    for name, path in sorted(_modules_of(package).items()):
        parts = name.split(".")
        if len(parts) > 1 and parts[1] in STAGES and parts[1] not in DOIT_STAGES:
            found += [f"{name}:{line}" for line in _doit_imports(path)]
    return found


def test_no_stage_below_tasks_imports_doit() -> None:
    found = doit_below_tasks(PACKAGE)
    assert not found, f"doit is imported below actions/ (move the doit part up): {found}"


def test_the_check_sees_doit_imported_below_tasks(tmp_path: Path) -> None:
    package = tmp_path / "astest_tasks"
    (package / "output").mkdir(parents=True)
    (package / "tasks").mkdir()
    (package / "output" / "show.py").write_text("from doit.exceptions import TaskFailed\n")
    (package / "tasks" / "act.py").write_text("import doit\n")
    assert doit_below_tasks(package) == ["astest_tasks.output.show:1"]


def test_no_import_cycles() -> None:
    graph = _graph()
    # Tarjan's strongly connected components; any component of two or more modules is a cycle.
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph.get(node, set()):
            if target not in graph:
                continue  # a package's own __init__ named through its folder
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for node in graph:
        if node not in index:
            visit(node)
    assert cycles == []


def test_the_check_sees_an_upward_import(tmp_path: Path) -> None:
    """The walk itself: a lower stage importing a higher one is found, with its line."""
    module = tmp_path / "probe.py"
    module.write_text(
        "import os\n\n\ndef f() -> None:\n    from astest_tasks.tasks import creator\n"
    )
    found = list(_imports(module, {"astest_tasks.tasks.creator"}))
    assert found == [("astest_tasks.tasks.creator", 5)]
    assert _stage("astest_tasks.tasks.creator") > _stage("astest_tasks.core.errors")


def test_the_plan_knows_no_doit_even_through_what_it_imports() -> None:
    """The direct check above cannot see plan/ reaching doit through a module it imports (as
    planning.py once did through the fuzz tasks): import every module of plan/ in a fresh
    interpreter and look at what was loaded."""
    plan_modules = sorted(name for name in _modules() if name.startswith("astest_tasks.plan."))
    probe = (
        "import importlib, sys\n"
        f"for name in {plan_modules!r}:\n"
        "    importlib.import_module(name)\n"
        "print(sorted(m for m in sys.modules if m == 'doit' or m.startswith('doit.')))\n"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    assert len(plan_modules) >= 10
    assert loaded.strip() == "[]", f"importing plan/ loads doit: {loaded}"
