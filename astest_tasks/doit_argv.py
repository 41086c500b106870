"""What the doit command line asks for, read before doit has parsed it.

Task creators run while doit loads tasks, before it has decided what to execute, yet two
decisions must be made then: whether this call may write (project_lock.py) and whether the fuzz
tasks are wanted (fuzz_tasks.py). doit's own rule (``DoitMain.run``): after dropping its
``name=value`` variables, the first word is the command if it names one; otherwise doit runs
tasks, and a later word that happens to name a command (``--spec info``) is only a value.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from fnmatch import fnmatchcase
from typing import Any

# doit commands that never write our files or doit's state.
READ_ONLY_COMMANDS = frozenset({"list", "info", "help", "dumpdb", "tabcompletion", "strace"})
DOIT_COMMANDS = READ_ONLY_COMMANDS | {"run", "clean", "forget", "ignore", "auto", "reset-dep"}


def doit_command(arguments: Sequence[str]) -> str:
    words = [word for word in arguments if word.startswith("-") or "=" not in word]
    return words[0] if words and words[0] in DOIT_COMMANDS else "run"


def names_tasks_under(arguments: Sequence[str], group: str, example: str) -> bool:
    """Whether a word names ``group`` or a task in it, directly or by a wildcard pattern that
    matches ``example`` (a task name of the group)."""
    for word in arguments:
        if word == group or word.startswith(f"{group}:"):
            return True
        if any(char in word for char in "*?[") and fnmatchcase(example, word):
            return True
    return False


def dodo_config(arguments: Sequence[str]) -> Mapping[str, Any]:
    """The ``DOIT_CONFIG`` of the dodo file doit imported (``-f``/``--file``, else dodo.py), as
    far as it is defined yet; {} when none is known (the ``astest`` command has no dodo)."""
    dodo = "dodo.py"
    for index, word in enumerate(arguments):
        if word in ("-f", "--file") and index + 1 < len(arguments):
            dodo = arguments[index + 1]
        elif word.startswith("--file="):
            dodo = word.removeprefix("--file=")
    # doit imports the dodo file as a module named after it (doit.loader.get_module).
    module = sys.modules.get(os.path.splitext(os.path.basename(dodo))[0])
    config = getattr(module, "DOIT_CONFIG", None)
    return config if isinstance(config, dict) else {}


def default_tasks(arguments: Sequence[str]) -> list[str]:
    tasks = dodo_config(arguments).get("default_tasks")
    return [str(task) for task in tasks] if isinstance(tasks, list | tuple) else []
