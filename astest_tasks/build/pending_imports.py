"""Imports of files that do not exist yet: doit's file chaining for generated modules.

A spec may import a module that another doit task generates (``"targets": ["gen/table.ts"]``).
For doit to run that task first, the module must be in the build's ``file_dep`` when the tasks
are loaded, before it exists: every path asc would try for the import is declared (``x.ts``,
``x/index.ts``). But a ``file_dep`` that no task makes and that does not exist is a doit error
that stops the whole run, while a broken import should fail its spec alone, with asc's message.
So this ``uptodate`` check, which doit evaluates before it looks at the files (and after the
generating task has run), drops the paths that are still missing; when no path of an import
exists, nothing generated it and the build must run, to report it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from astest_tasks.core.call_signature import CallSignature


class PendingImports:
    """doit ``uptodate`` check; ``imports`` holds each unresolved import's candidate paths, as
    doit knows them (relative to its working folder)."""

    __signature__ = CallSignature()  # doit reads it on every call

    def __init__(self, imports: Sequence[Sequence[str]]) -> None:
        self.imports = [list(candidates) for candidates in imports]
        self.unresolved: list[str] = []

    def __call__(self, task: Any, values: Mapping[str, Any]) -> bool | None:
        self.unresolved = []
        for candidates in self.imports:
            present = [path for path in candidates if os.path.exists(path)]
            for path in candidates:
                if path not in present:
                    task.file_dep.discard(path)
            if not present:
                self.unresolved.append(candidates[0])
        # None: no opinion, the file checks decide; False: a broken import, build to report it.
        return False if self.unresolved else None

    def __str__(self) -> str:
        return f"an import resolves to no file: {', '.join(self.unresolved)}"
