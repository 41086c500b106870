"""The ``astest doctor`` command: the report of a project's setup on stdout, and its exit code.

The checks and the report are ``output/doctor_report.py``'s, which the ``astest:doctor`` doit
task (``tasks/doctor.py``) prints too; this is the command's side, its arguments as given.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from astest_tasks.config.project_config import split_mode_names
from astest_tasks.output.doctor_report import run_doctor


def doctor_command(config_path: str, mode_options: Sequence[str]) -> int:
    """``astest doctor [-c CONFIG] [-m MODES]...`` in the current folder: 1 on any ERROR."""
    return run_doctor(Path.cwd(), config_path, split_mode_names(mode_options), sys.stdout)
