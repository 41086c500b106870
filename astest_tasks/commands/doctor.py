"""The ``astest doctor`` command: the report of a project's setup on stdout, and its exit code.

The checks and the report are ``output/doctor_report.py``'s, which the ``astest:doctor`` doit
task (``tasks/doctor.py``) prints too; this is the command's side. Its flags are the task's
options (``DOCTOR_OPTIONS``), generated from their declarations, and read the same way: the
command line's value, else the option's ``ASTEST_*`` variable's, else its default.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping
from pathlib import Path

from astest_tasks.commands.option_arguments import add_option_arguments, option_values
from astest_tasks.tasks.doctor import DOCTOR_OPTIONS, DoctorRequest

# `-m wasi -m web` as `-m wasi,web`, as the command always took it.
_REPEATABLE = ("mode",)


def add_doctor_arguments(parser: argparse.ArgumentParser) -> None:
    add_option_arguments(parser, DOCTOR_OPTIONS, repeatable=_REPEATABLE)


def doctor_values(parsed: argparse.Namespace, environ: Mapping[str, str]) -> dict[str, str]:
    return option_values(parsed, DOCTOR_OPTIONS, environ)


def doctor_command(parsed: argparse.Namespace) -> int:
    """``astest doctor [-c CONFIG] [-m MODES]... [--remote-cache URL] ...`` in the current
    folder: 1 on any ERROR."""
    request = DoctorRequest.from_values(doctor_values(parsed, os.environ))
    return request.report(Path.cwd(), sys.stdout)
