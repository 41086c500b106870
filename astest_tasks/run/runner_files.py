"""Default runner scripts: rendered from ``templates/runners/`` only when they are missing.

A runner in ``.as-test/runners/`` belongs to the user from the moment it exists: it is where
their host imports live. So we create it when absent and never overwrite, "upgrade" or clean it.
"""

from __future__ import annotations

import sys
from pathlib import Path

from astest_tasks.core.atomic import create_text_atomic

RUNNERS_DIR = ".as-test/runners"
RUNNER_TARGETS = ("wasi", "bindings")


def default_runner_path(target: str) -> str:
    """The in-process default runner of a target, relative to the project root."""
    return f"{RUNNERS_DIR}/default.{target}.py"


def default_runner_source(target: str) -> str:
    from astest_tasks.run.templating import render  # jinja2, when a runner is written (issue 40)

    return render(f"runners/default.{target}.py.j2", target=target)


def ensure_default_runner(project_root: str, target: str) -> bool:
    """doit action: write the target's default runner unless a file is already there."""
    path = Path(project_root) / default_runner_path(target)
    if create_text_atomic(path, default_runner_source(target)):
        # stderr: doit shows it at its default verbosity, which captures stdout.
        print(f"created {default_runner_path(target)} from astest-tasks' template", file=sys.stderr)
    return True
