"""astest-tasks: run as-test AssemblyScript specs as incremental doit tasks.

In a project's ``dodo.py``::

    from astest_tasks import task_astest  # noqa: F401
    DOIT_CONFIG = {"backend": "sqlite3"}
"""

from __future__ import annotations

from astest_tasks.core.version import __version__
from astest_tasks.tasks.factory import make_astest_tasks, task_astest

__all__ = ["__version__", "make_astest_tasks", "task_astest"]
