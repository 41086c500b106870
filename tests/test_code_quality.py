"""The codebase stays mypy-strict and ruff clean: checked with the test suite, so CI enforces it."""

from __future__ import annotations

import ast
import fnmatch
import subprocess
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def run_tool(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=REPO, capture_output=True, text=True, timeout=600
    )


def test_mypy_strict_is_clean() -> None:
    proc = run_tool("mypy")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_ruff_lint_is_clean() -> None:
    proc = run_tool("ruff", "check", ".")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_ruff_format_is_clean() -> None:
    proc = run_tool("ruff", "format", "--check", ".")
    assert proc.returncode == 0, proc.stdout + proc.stderr


# What checks an outcome, besides an assert statement: pytest's raises/warns/fail and a mock's
# assert_* methods (any call whose name starts with "assert").
_CHECKING_CALLS = frozenset({"raises", "warns", "fail", "deprecated_call"})


def _checks_something(function: ast.AST, helpers: dict[str, ast.AST], followed: set[str]) -> bool:
    """Whether ``function`` asserts, directly or through a helper of its module it calls."""
    for node in ast.walk(function):
        if isinstance(node, ast.Assert):
            return True
        if not isinstance(node, ast.Call):
            continue
        callee = node.func
        name = (
            callee.attr
            if isinstance(callee, ast.Attribute)
            else callee.id
            if isinstance(callee, ast.Name)
            else ""
        )
        if name in _CHECKING_CALLS or name.startswith("assert"):
            return True
        if name in helpers and name not in followed:
            followed.add(name)
            if _checks_something(helpers[name], helpers, followed):
                return True
    return False


def test_every_test_checks_an_outcome() -> None:
    """A test that only runs code passes whatever the code returns (issue 20)."""
    silent = []
    for path in sorted((REPO / "tests").rglob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        functions = [
            node
            for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        ]
        helpers: dict[str, ast.AST] = {}
        for function in functions:
            helpers.setdefault(function.name, function)
        silent += [
            f"{path.relative_to(REPO)}:{function.lineno} {function.name}"
            for function in functions
            if function.name.startswith("test")
            and not _checks_something(function, helpers, {function.name})
        ]
    assert silent == [], "these tests assert nothing; fix: assert what they should produce"


# pytest's default norecursedirs, used where pyproject.toml sets none.
_PYTEST_DEFAULT_NORECURSE = (
    "*.egg",
    ".*",
    "_darcs",
    "build",
    "CVS",
    "dist",
    "node_modules",
    "venv",
    "{arch}",
)


def test_every_folder_of_tests_is_collected() -> None:
    """A test folder whose name pytest skips (its defaults skip `build`) silently runs nothing:
    tests/build went uncollected by every full run until its name was taken off the list."""
    options = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    skipped = options.get("norecursedirs", _PYTEST_DEFAULT_NORECURSE)
    tests = REPO / "tests"
    folders = {
        path.parent.relative_to(tests)
        for path in tests.rglob("test_*.py")
        if "node_modules" not in path.parts
    }
    assert Path("build") in folders
    unseen = sorted(
        str(folder)
        for folder in folders
        if any(fnmatch.fnmatch(part, pattern) for part in folder.parts for pattern in skipped)
    )
    assert unseen == [], f"pytest skips these test folders: {unseen}"


def test_pre_commit_runs_the_checks_this_suite_runs() -> None:
    text = (REPO / ".pre-commit-config.yaml").read_text()
    entries = [line.split("entry:", 1)[1] for line in text.splitlines() if "entry:" in line]
    for check in ("-m ruff check", "-m ruff format --check", "-m mypy"):
        assert any(check in entry for entry in entries), f"no pre-commit hook runs {check}"


def test_pytest_runs_strict() -> None:
    settings = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["pytest"]
    options = settings["ini_options"]
    assert {"--strict-markers", "--strict-config"} <= set(options["addopts"].split())
    assert options["xfail_strict"] is True
    assert options["filterwarnings"][0] == "error"


# plan/, actions/ and tasks/ are where doit meets the rest; their functions stay short enough to
# read in one screen (issue 31: the task creator had grown to one 138-line function of fifteen
# phases; the three stages were one folder then).
MAX_TASK_FUNCTION_LINES = 50


def _code_lines(function: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """The lines of a function from its first statement after the docstring to its end."""
    body = function.body
    if (
        len(body) > 1
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    ):
        body = body[1:]
    end = function.end_lineno or function.lineno
    return end - body[0].lineno + 1


def long_functions(folder: Path, limit: int) -> list[str]:
    found = []
    for path in sorted(folder.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = _code_lines(node)
                if lines > limit:
                    found.append(f"{path.relative_to(folder)}:{node.lineno} {node.name}: {lines}")
    return found


def test_the_functions_of_the_doit_layer_stay_short() -> None:
    too_long = [
        f"{stage}/{found}"
        for stage in ("plan", "actions", "tasks")
        for found in long_functions(REPO / "astest_tasks" / stage, MAX_TASK_FUNCTION_LINES)
    ]
    assert not too_long, "split these into named steps:\n" + "\n".join(too_long)


def test_a_long_function_is_found(tmp_path: Path) -> None:
    statements = "".join(f"    x{index} = {index}\n" for index in range(60))
    (tmp_path / "module.py").write_text(f'def f() -> None:\n    """Doc."""\n{statements}')
    assert long_functions(tmp_path, 50) == ["module.py:1 f: 60"]
    assert long_functions(tmp_path, 60) == []


def _keyword_true(call: ast.Call, name: str) -> bool:
    return any(
        keyword.arg == name and isinstance(keyword.value, ast.Constant) and keyword.value.value
        for keyword in call.keywords
    )


def frozen_dataclasses_with_generated_methods(folder: Path) -> list[str]:
    """``@dataclass(frozen=True)`` records that could be ``@frozen`` (core/frozen.py): those with
    no other option but ``eq=False`` (one compared by identity writes ``__eq__ = object.__eq__``
    and ``__hash__ = object.__hash__``, which ``@frozen`` keeps; an ordered or slotted one keeps
    ``@dataclass``)."""
    found = []
    for path in sorted(folder.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ClassDef):
                continue
            for decorator in node.decorator_list:
                if (
                    isinstance(decorator, ast.Call)
                    and _keyword_true(decorator, "frozen")
                    and {keyword.arg for keyword in decorator.keywords} <= {"frozen", "eq"}
                ):
                    found.append(f"{path.relative_to(folder)}:{node.lineno} {node.name}")
    return found


def test_the_packages_frozen_records_are_cheap_to_define() -> None:
    # A call with nothing to do defines its records before doit runs a task; 131 dataclasses
    # took 78 ms of it as frozen dataclasses and 28-33 ms as @frozen records (issue 40,
    # bench/README.md, "The floors, fourth pass").
    found = frozen_dataclasses_with_generated_methods(REPO / "astest_tasks")
    assert not found, "declare these with @frozen (astest_tasks/core/frozen.py):\n" + "\n".join(
        found
    )


def test_a_frozen_dataclass_with_generated_methods_is_found(tmp_path: Path) -> None:
    (tmp_path / "module.py").write_text(
        "from dataclasses import dataclass\n\n"
        "@dataclass(frozen=True)\nclass Plain:\n    x: int\n\n"
        "@dataclass(frozen=True, eq=False)\nclass ByIdentity:\n    x: int\n\n"
        "@dataclass(frozen=True, order=True)\nclass Ordered:\n    x: int\n\n"
        "@dataclass(frozen=True, slots=True)\nclass Slotted:\n    x: int\n"
    )
    assert frozen_dataclasses_with_generated_methods(tmp_path) == [
        "module.py:4 Plain",
        "module.py:8 ByIdentity",
    ]
