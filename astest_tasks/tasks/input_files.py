"""Every file a task depends on is a regular file (or missing): checked as the tasks are made.

doit reads each ``file_dep`` to see whether it changed, with a plain, blocking read. A FIFO
there, or a link to one (or to ``/proc/self/fd/1`` with stdout piped, as in CI), committed into
the project by a pull request, would have the call wait for ever: a spec's source or an import
of it, a runner script, a package's manifest. Such a file stops the call before any task, with
one line naming it and the task that reads it. A missing file is left to doit's own check (and
to the import scan's, which builds again once it appears); a link to a regular file is read as
doit reads it, through the link. A file that a task checked before makes again when it is not
a regular file (a run's build record: the build's ``TargetsAreFiles``, checks.py) is that
task's to replace before doit reads it, so a call mends it rather than stopping (tasks come
before the tasks that read their targets: creator.py). A runner script is not one of those: it
is the user's, made only when missing, so it is checked as any other input. Each file is
looked at once per call (``os.stat``, which never opens it), relative to the cwd, as doit reads
``file_dep`` (config/layout.py's ``doit_paths``).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from typing import Any

from astest_tasks.core.errors import UserError
from astest_tasks.core.guest_text import inert_field
from astest_tasks.tasks.checks import TargetsAreFiles


class InputFiles:
    """The ``file_dep`` of the tasks of one call, each checked once."""

    def __init__(self) -> None:
        self._seen: set[str] = set()  # looked at, or made again by a task checked before

    def check(self, task: Mapping[str, Any]) -> None:
        """Raise UserError when a file ``task`` depends on is there but is not a regular file,
        unless a task checked before makes it again then."""
        if any(isinstance(check, TargetsAreFiles) for check in task.get("uptodate", ())):
            self._seen.update(task.get("targets", ()))
        for name in task.get("file_dep", ()):
            if name in self._seen:
                continue
            self._seen.add(name)
            try:
                kind = os.stat(name).st_mode
            except OSError:
                continue  # missing (or unreadable): doit's own check says so
            if not stat.S_ISREG(kind):
                raise UserError(
                    f"{inert_field(name)} is not a regular file (a FIFO, a device or a folder, "
                    f"or a link to one), and doit reads every file a task depends on "
                    f"({task.get('basename', '')}:{task.get('name', '')}) to see whether it "
                    f"changed; fix: delete it, or put the file it should be in its place"
                )
