"""Pointers in comments, docstrings, ARCHITECTURE.md and docs/ lead somewhere: a module they name
by file (``run/wipc.py``, ``summary_action.py``) or by dotted name (``astest_tasks.run.wipc``)
exists.

Modules move as the package is restructured; a docstring that still names ``tasks.py`` sends the
reader looking for a file that is gone. (Citations of the design pages are tests/test_docs.py's.)
"""

from __future__ import annotations

import ast
import io
import os
import re
import tokenize
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "astest_tasks"
# Not ours to keep pointing right: the installed toolchains, and the user projects the
# integration tests copy (their comments speak of the user's own files).
_NOT_SCANNED = (REPO / "tests" / "toolchains", REPO / "tests" / "fixtures")
# A file name standing for any file of the user's: "``x.py``, or ``python [flags] x.py``".
USER_FILE_EXAMPLES = frozenset({"x.py"})
# Other projects whose name ends in .py, named for what we follow of them (coverage.py's
# fail_under for --coverage-fail-under).
OTHER_PROJECTS = frozenset({"coverage.py"})

# A path ending in .py that is not part of a longer word, path or dotted name.
_FILE_POINTER = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[A-Za-z_]\w*\.py)\b")
_DOTTED_POINTER = re.compile(r"\bastest_tasks(?:\.\w+)+")


# Not the repository's own: what installs and builds put beside it.
_NOT_OURS = frozenset({".git", ".venv", "node_modules", "site", "__pycache__"})


def _scanned_files() -> list[Path]:
    found = [
        *PACKAGE.rglob("*.py"),
        *(REPO / "tests").rglob("*.py"),
        *(REPO / "bench").glob("*.py"),
        *REPO.glob("*.py"),
    ]
    this_file = Path(__file__).resolve()  # its own examples name modules that do not exist
    return sorted(
        p for p in found if p != this_file and not any(p.is_relative_to(n) for n in _NOT_SCANNED)
    )


def _our_python_files() -> set[str]:
    """Every .py of the repository (package, tests, fixtures, bench), as posix paths."""
    ours = set()
    for folder, subfolders, files in os.walk(REPO):
        subfolders[:] = [name for name in subfolders if name not in _NOT_OURS]
        relative = Path(folder).relative_to(REPO)
        ours |= {(relative / name).as_posix() for name in files if name.endswith(".py")}
    return ours


def comments_and_docstrings(source: str) -> Iterator[tuple[int, str]]:
    """(line, text) of each comment and triple-quoted string: where prose points at modules."""
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT or _is_long_string(token):
            yield token.start[0], token.string


def _is_long_string(token: tokenize.TokenInfo) -> bool:
    return token.type == tokenize.STRING and token.string.lstrip("rbuRBU")[:3] in ('"""', "'''")


def file_pointer_exists(pointer: str, where: Path, ours: set[str]) -> bool:
    """``pointer`` names one of our files, from the repository root, the package, the citing
    file's folder, or (a bare name) anywhere in the repository."""
    if pointer.startswith(("./", "../")) or pointer in USER_FILE_EXAMPLES | OTHER_PROJECTS:
        return True  # a path in the user's project, an example name, another project
    folder = where.parent.relative_to(REPO).as_posix()
    candidates = {pointer, f"astest_tasks/{pointer}", f"{folder}/{pointer}"}
    if candidates & ours:
        return True
    return "/" not in pointer and pointer in {PurePosixPath(p).name for p in ours}


def _module_names() -> dict[str, Path]:
    names = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(REPO).with_suffix("").parts
        names[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return names


def _top_level_names(module: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.parse(module.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
    return names


def dotted_pointer_exists(pointer: str, modules: dict[str, Path]) -> bool:
    """``astest_tasks.a.b`` is a module, or a module and one name defined at its top level."""
    if pointer in modules:
        return True
    module, _, name = pointer.rpartition(".")
    return module in modules and name in _top_level_names(modules[module])


def _prose(path: Path, source: str) -> Iterator[tuple[int, str]]:
    """A Python file's comments and docstrings; a Markdown page whole, line by line."""
    if path.suffix == ".md":
        return enumerate(source.splitlines(), start=1)
    return comments_and_docstrings(source)


def broken_pointers(files: list[Path]) -> list[str]:
    return broken_pointers_in({path: path.read_text(encoding="utf-8") for path in files})


def broken_pointers_in(sources: dict[Path, str]) -> list[str]:
    """The pointers that lead nowhere in ``sources`` (a path in the repository, and its text)."""
    ours = _our_python_files()
    modules = _module_names()
    broken = []
    for path, source in sources.items():
        for line, text in _prose(path, source):
            where = f"{path.relative_to(REPO)}:{line}"
            for match in _FILE_POINTER.finditer(text):
                if not file_pointer_exists(match.group(1), path, ours):
                    broken.append(f"{where}: {match.group(1)}")
            for match in _DOTTED_POINTER.finditer(text):
                if not dotted_pointer_exists(match.group(0), modules):
                    broken.append(f"{where}: {match.group(0)}")
    return broken


def test_every_module_named_in_a_comment_or_docstring_exists() -> None:
    broken = broken_pointers(_scanned_files())
    assert not broken, f"comments and docstrings name modules that do not exist: {broken}"


def test_every_module_named_in_the_docs_and_architecture_exists() -> None:
    # CHANGELOG.md is left out: it tells of modules as they were when each change was made.
    pages = [REPO / "ARCHITECTURE.md", REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
    broken = broken_pointers(pages)
    assert not broken, f"pages name modules that do not exist: {broken}"


def test_the_check_finds_pointers_to_modules_that_are_gone() -> None:
    # A file that would sit in the tests folder, so that relative pointers resolve as for real
    # ones. Only its text is checked: writing it there would put it in the way of the scan of the
    # whole repository, which another worker may be running at the same moment.
    probe = REPO / "tests" / "_pointer_probe.py"
    text = (
        '"""Moved from tasks.py; see run/wipc.py and astest_tasks.run.wipc.FrameDecoder."""\n'
        "# Left behind: actions/run.py, astest_tasks.tasks.actions, astest_tasks.run.wipc.Gone\n"
        "# Fine: summary_action.py, test_docs.py, ./runner.py in the user's project, x.py\n"
    )
    found = broken_pointers_in({probe: text})
    name = probe.relative_to(REPO).as_posix()
    assert found == [
        f"{name}:1: tasks.py",
        f"{name}:2: actions/run.py",
        f"{name}:2: astest_tasks.tasks.actions",
        f"{name}:2: astest_tasks.run.wipc.Gone",
    ]
