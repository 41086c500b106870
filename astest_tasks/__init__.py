"""astest-tasks: run as-test AssemblyScript specs as incremental doit tasks.

In a project's ``dodo.py``::

    from astest_tasks import task_astest  # noqa: F401
    DOIT_CONFIG = {"backend": "sqlite3"}

Importing the package does nothing else: ``task_astest`` (which reads doit's command line and
checks its state file) and ``make_astest_tasks`` (which brings doit and the task layer in) are
made when a dodo.py or a caller first asks for them, not when a runner script or a tool imports
``astest_tasks`` for something else (``tests/test_package_face.py`` keeps it so). The first
such ask loads the task layer with the cyclic garbage collector paused; in the doit command's
process, every object that exists then is kept out of the collector's later passes
(core/gc_pause.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from astest_tasks.core.version import __version__

if TYPE_CHECKING:
    from astest_tasks.tasks.factory import AstestTasks, make_astest_tasks

    task_astest: AstestTasks

__all__ = ["__version__", "make_astest_tasks", "task_astest"]


def __getattr__(name: str) -> object:
    # PEP 562: called only for names the module does not have yet.
    if name not in ("make_astest_tasks", "task_astest"):
        raise AttributeError(f"module 'astest_tasks' has no attribute {name!r}")
    from astest_tasks.core.gc_pause import TASK_LAYER, FirstLoadKept

    # The task layer's first load makes many objects, all kept for the process (gc_pause.py).
    with FirstLoadKept(TASK_LAYER, keeps=_doit_runs_this_process):
        from astest_tasks.tasks.factory import make_astest_tasks

        if name == "make_astest_tasks":
            return make_astest_tasks
        # Made once, on the first ask, as the module-level name it stands for would have been.
        globals()["task_astest"] = made = make_astest_tasks()
        return made


def _doit_runs_this_process() -> bool:
    """Whether this process is the doit command's (a dodo.py loaded by ``doit``), rather than a
    tool, a notebook or a script that asked for the task creator: only there is everything the
    process holds once the task layer is loaded kept out of the collector's sight."""
    from astest_tasks.plan.command_line import current_command_line

    return current_command_line().run_by_doit
