"""What the doit command line asks for, read before doit has parsed it.

Task creators run while doit loads tasks, before it has decided what to execute, yet two
decisions must be made then: whether this call may write (project_lock.py) and whether the fuzz
tasks are wanted (fuzz_tasks.py). doit's own rule (``DoitMain.run``): after dropping its
``name=value`` variables, the first word is the command if it names one; otherwise doit runs
tasks, and a later word that happens to name a command (``--spec info``) is only a value.
Watch mode also needs to know, before the first cycle, whether doit will run the tasks in worker
processes (``runs_in_worker_processes``).
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
    at = _command_index(arguments)
    return "run" if at is None else arguments[at]


def _command_index(arguments: Sequence[str]) -> int | None:
    """Where the command word is; None when doit runs tasks without one being named."""
    for index in range(_after_loader_options(arguments), len(arguments)):
        word = arguments[index]
        if word.startswith("-") or "=" not in word:  # not one of doit's name=value variables
            return index if word in DOIT_COMMANDS else None
    return None


def _after_loader_options(arguments: Sequence[str]) -> int:
    """How many words doit's loader options take at the start (``doit -f other_dodo clean``),
    read by the parse doit makes of them (DoitMain.run's ``parse_only``: getopt, with the
    options of its dodo loader, which takes clusters and prefixes such as ``-kf`` or
    ``--fi``): none when that parse fails, as doit then reads the command from the first word
    (``doit -n 2 list`` runs a task named list). The astest command's loader takes none of
    these options; its words are read the same way, and doit then fails on such a call before
    any task runs."""
    import getopt  # doit's parser has loaded it already

    try:
        _, rest = getopt.getopt(list(arguments), "f:d:k", ["file=", "dir=", "seek-file"])
    except getopt.GetoptError:
        return 0
    return len(arguments) - len(rest)


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
    dodo = option_value(arguments, "--file", "-f") or "dodo.py"
    # doit imports the dodo file as a module named after it (doit.loader.get_module).
    module = sys.modules.get(os.path.splitext(os.path.basename(dodo))[0])
    config = getattr(module, "DOIT_CONFIG", None)
    return config if isinstance(config, dict) else {}


def option_value(arguments: Sequence[str], long: str, short: str = "") -> str | None:
    """The value doit's parser gives an option that takes one (``--long v``, ``--long=v``,
    ``-s v`` or ``-sv``), or None when it is not given. The last one wins, as in doit, whose
    parse keeps the last (``--db-file a --db-file b`` opens b); a word taken as a value is not
    read as an option (``--db-file --backend`` names a file called --backend, as for doit)."""
    found = None
    index = 0
    while index < len(arguments):
        word = arguments[index]
        if word == long or (short and word == short):
            if index + 1 == len(arguments):
                break  # doit refuses an option without its value
            found = arguments[index + 1]
            index += 2
            continue
        if word.startswith(f"{long}="):
            found = word.removeprefix(f"{long}=")
        elif short and word.startswith(short) and not word.startswith("--"):
            found = word.removeprefix(short)
        index += 1
    return found


def forks_worker_processes(arguments: Sequence[str]) -> bool:
    """Whether this doit call runs tasks in worker processes forked from this one: a run with
    ``-n N`` (N > 0) and not ``-P thread``, on the command line or in the dodo's DOIT_CONFIG."""
    return doit_command(arguments) == "run" and runs_in_worker_processes(
        arguments, dodo_config(arguments)
    )


def runs_in_worker_processes(
    doit_args: Sequence[str], config: Mapping[str, Any] | None = None
) -> bool:
    """Whether doit runs the tasks in worker processes: ``-n N`` (N > 0) without ``-P thread``;
    ``config`` is a DOIT_CONFIG whose ``num_process`` and ``par_type`` the command line
    overrides."""
    defaults = config or {}
    processes = str(defaults.get("num_process", "0"))
    threads = defaults.get("par_type") == "thread"
    for index, word in enumerate(doit_args):
        following = doit_args[index + 1] if index + 1 < len(doit_args) else ""
        if word in ("-n", "--process"):
            processes = following
        elif word.startswith("--process="):
            processes = word.partition("=")[2]
        elif word.startswith("-n") and word[2:].isdigit():
            processes = word[2:]
        elif word in ("-P", "--parallel-type"):
            threads = following == "thread"
        elif word.startswith("--parallel-type="):
            threads = word.partition("=")[2] == "thread"
        elif word == "-Pthread":
            threads = True
    return processes.isdigit() and int(processes) > 0 and not threads


def default_tasks(arguments: Sequence[str]) -> list[str]:
    tasks = dodo_config(arguments).get("default_tasks")
    return [str(task) for task in tasks] if isinstance(tasks, list | tuple) else []


def task_options_first(
    arguments: Sequence[str],
    options: Sequence[Mapping[str, Any]],
    bare_values: Mapping[str, str] | None = None,
    bare_followers: Mapping[str, Sequence[str]] | None = None,
) -> list[str]:
    """``arguments`` with the given task options moved to just after the doit command word (or to
    the front for a run), where a command that carries them reads them: doit reads options after
    a task name as that task's, and a first word that is an option hides the command after it.

    ``options`` are doit option dicts (``long``, ``type``); a ``bool`` one takes no value. A
    value is taken with its option, so ``--spec info`` stays a spec named "info". An option of
    ``bare_values`` (by name) given without ``=`` takes its value from there instead, and the
    word after it stays a word of its own (``--changed list``: HEAD, then the list command),
    unless ``bare_followers`` names it as one of that option's values (``--show-coverage all``).
    """
    bare = {f"--{name}": value for name, value in (bare_values or {}).items()}
    followers = {f"--{name}": words for name, words in (bare_followers or {}).items()}
    flags = {f"--{option['long']}" for option in options if option.get("type") is bool}
    valued = {f"--{option['long']}" for option in options} - flags
    # Short forms (``-m wasi``, ``-mwasi``) move as their long form: a letter of ours may also be
    # one of doit's own (``-c``, doit's --continue, is as-test's --config), and the long form
    # is ours alone.
    shorts = {
        f"-{option['short']}": f"--{option['long']}" for option in options if option.get("short")
    }
    moved: list[str] = []
    rest: list[str] = []
    index = 0
    while index < len(arguments):
        word = arguments[index]
        following = arguments[index + 1] if index + 1 < len(arguments) else None
        index += 1
        name = word.split("=", 1)[0]
        joined_short = len(word) > 2 and word[:2] in shorts  # -mwasi
        if joined_short:
            moved.append(f"{shorts[word[:2]]}={word[2:]}")
        elif word in flags or (name in valued and "=" in word):
            moved.append(word)
        elif word in bare:
            taken = following is not None and following in followers.get(word, ())
            moved.append(f"{word}={following if taken else bare[word]}")
            index += int(taken)
        elif word in valued or word in shorts:
            long_word = shorts.get(word, word)
            moved += [long_word] if following is None else [long_word, following]
            index += int(following is not None)
        else:
            rest.append(word)
    at = _command_index(rest)
    if at is None:
        return moved + rest
    return rest[: at + 1] + moved + rest[at + 1 :]


def doctor_task_wanted(arguments: Sequence[str], basename: str) -> bool:
    """``<basename>:doctor`` exists for doit's listing commands and when named (also through
    the dodo's ``default_tasks``), so that a plain ``doit`` never runs it."""
    name = f"{basename}:doctor"
    if doit_command(arguments) != "run":
        return True
    return names_tasks_under(arguments, name, name) or name in default_tasks(arguments)
