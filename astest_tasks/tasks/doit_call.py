"""What doit has decided for the call that is loading our tasks, read from doit itself.

A run task may leave its own check of its build (``BuildUpToDate``) to doit, but only where
doit settles every task's dependencies before it checks the task: its ``run`` command, not
``--single``. Predicting that from the process's words and doit's config files missed ways
doit is told otherwise (a plugin command, a dodo or a config file in another folder, getopt's
spellings). doit has already decided when it loads the tasks: ``DoitCmdBase.execute`` has
merged the command line, the config files and the dodo's ``DOIT_CONFIG`` into ``params`` and
calls the loader, which calls our task creator, from its own frame. So the answer is read
there; where that frame is not found (another doit, a creator called outside a doit command),
it is no, which keeps the check.
"""

from __future__ import annotations

import sys
from types import FrameType
from typing import Any

from doit.cmd_base import DoitCmdBase
from doit.cmd_run import Run

# How far up from the task creator doit's execute() may be: the loader's few frames between
# them, with room for a dodo that wraps the creator.
_MAX_FRAMES_UP = 40


def doit_settles_dependencies_first() -> bool:
    """Whether the doit command now loading the tasks runs them as ``doit run`` does, without
    ``--single``: its dispatcher then checks a run task only once its build is up to date or
    has just been built."""
    frame: FrameType | None = sys._getframe(1)
    for _ in range(_MAX_FRAMES_UP):
        if frame is None:
            return False
        if frame.f_code is DoitCmdBase.execute.__code__:
            # f_locals copies a running frame's variables into a dict on every read: read once
            return _runs_dependencies_first(frame.f_locals)
        frame = frame.f_back
    return False


def _runs_dependencies_first(execute_locals: dict[str, Any]) -> bool:
    """From the locals of ``DoitCmdBase.execute``: its command (``self``) and ``params``."""
    command = execute_locals.get("self")
    # A plugin's subclass of Run that executes in its own way is not known to settle them.
    if not isinstance(command, Run) or type(command)._execute is not Run._execute:
        return False
    params = execute_locals.get("params")
    return isinstance(params, dict) and params.get("single") is False
