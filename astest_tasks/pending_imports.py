"""Imports of files that do not exist yet: doit's file chaining for generated modules.

A spec may import a module that another doit task generates (``"targets": ["gen/table.ts"]``).
For doit to run that task first, the module must be in the build's ``file_dep`` when the tasks
are loaded, before it exists. But a ``file_dep`` that no task makes and that does not exist is
a doit error that stops the whole run, while a broken import should fail its spec alone, with
asc's message. So the path is declared, and this ``uptodate`` check, which doit evaluates
before it looks at the files (and after the generating task has run), drops it again when it
is still missing: then nothing generates it, and the build runs and reports it.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any


def drop_missing_imports(task: Any, values: Any, paths: Sequence[str]) -> bool | None:
    """doit ``uptodate`` check (doit passes ``task`` and ``values`` by name): None once every
    pending import exists (no opinion: the file checks decide), False while one is missing."""
    still_missing = [path for path in paths if not os.path.exists(path)]
    for path in still_missing:
        task.file_dep.discard(path)
    return False if still_missing else None
