"""The ``astest:doctor`` task: ``astest doctor`` run by doit, when named and never by a plain run.

Only the doit side lives here: whether the task is made, its dict and its action. What it checks
and prints is ``output/doctor_report.py``'s, which the ``astest doctor`` command
(``commands/doctor.py``) prints too.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from astest_tasks.output.doctor_report import run_doctor
from astest_tasks.output.terminal import output_stream
from astest_tasks.tasks.doit_argv import default_tasks, doit_command, names_tasks_under


def doctor_action(project_root: str, config_path: str, modes: list[str]) -> bool:
    """The ``astest:doctor`` task's action: doit fails the task when it returns False."""
    return run_doctor(Path(project_root), config_path, modes, output_stream()) == 0


def doctor_task_wanted(arguments: Sequence[str], basename: str) -> bool:
    """``<basename>:doctor`` exists for doit's listing commands and when named (also through
    the dodo's ``default_tasks``), so that a plain ``doit`` never runs it."""
    name = f"{basename}:doctor"
    if doit_command(arguments) != "run":
        return True
    return names_tasks_under(arguments, name, name) or name in default_tasks(arguments)


def doctor_task(
    project_root: Path, config_path: str, modes: list[str], basename: str
) -> dict[str, Any]:
    return {
        "basename": basename,
        "name": "doctor",
        "doc": "check the project's setup (astest doctor): config, Node.js, packages, runtimes",
        "actions": [(doctor_action, [str(project_root), config_path, modes])],
        "uptodate": [False],  # a check of the machine as it is now: never cached
        "verbosity": 2,
    }
