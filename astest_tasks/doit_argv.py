"""What the doit command line asks for, read before doit has parsed it.

Task creators run while doit loads tasks, before it has decided what to execute, yet two
decisions must be made then: whether this call may write (project_lock.py) and whether the fuzz
tasks are wanted (fuzz_tasks.py). The first word that names a doit command is the command
(option values may come before it); with none, doit runs tasks.
"""

from __future__ import annotations

from collections.abc import Sequence
from fnmatch import fnmatchcase

# doit commands that never write our files or doit's state.
READ_ONLY_COMMANDS = frozenset({"list", "info", "help", "dumpdb", "tabcompletion", "strace"})
DOIT_COMMANDS = READ_ONLY_COMMANDS | {"run", "clean", "forget", "ignore", "auto", "reset-dep"}


def doit_command(arguments: Sequence[str]) -> str:
    return next((word for word in arguments if word in DOIT_COMMANDS), "run")


def names_tasks_under(arguments: Sequence[str], group: str, example: str) -> bool:
    """Whether a word names ``group`` or a task in it, directly or by a wildcard pattern that
    matches ``example`` (a task name of the group)."""
    for word in arguments:
        if word == group or word.startswith(f"{group}:"):
            return True
        if any(char in word for char in "*?[") and fnmatchcase(example, word):
            return True
    return False
