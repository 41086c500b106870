"""What ``astest doctor`` checks of a project's ``dodo.py``: that doit keeps its state in sqlite3,
the backend that two doit processes can write at once without losing records.
"""

from __future__ import annotations

import ast
from pathlib import Path

from astest_tasks.core.setup_checks import Check, Level


def doit_backend_check(project_root: Path) -> Check:
    dodo = project_root / "dodo.py"
    if not dodo.is_file():
        return Check(Level.OK, "doit", "no dodo.py: the astest command keeps its state in sqlite3")
    backend = _declared_backend(dodo)
    if backend == "sqlite3":
        return Check(Level.OK, "doit", "dodo.py uses the sqlite3 backend")
    said = f'"{backend}"' if backend else "doit's default (dbm, which is dbm.dumb on this Python)"
    return Check(
        Level.WARN,
        "doit",
        f"dodo.py's state backend is {said}: it can lose records when two doit processes write "
        "at once",
        'set DOIT_CONFIG = {"backend": "sqlite3", ...} in dodo.py',
    )


def _declared_backend(dodo: Path) -> str | None:
    """The ``backend`` of a literal ``DOIT_CONFIG = {...}`` in the dodo file, read without
    running it (a dodo may do anything when imported)."""
    try:
        tree = ast.parse(dodo.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return None
    for node in tree.body:
        if not isinstance(node, ast.Assign | ast.AnnAssign):
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        if not any(isinstance(t, ast.Name) and t.id == "DOIT_CONFIG" for t in targets):
            continue
        if isinstance(node.value, ast.Dict):
            for key, value in zip(node.value.keys, node.value.values, strict=True):
                if (
                    isinstance(key, ast.Constant)
                    and key.value == "backend"
                    and isinstance(value, ast.Constant)
                ):
                    return str(value.value)
    return None
