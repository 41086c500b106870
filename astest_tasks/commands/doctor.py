"""The ``astest doctor`` command: the report of a project's setup on stdout, and its exit code.

The checks and the report are ``output/doctor_report.py``'s, which the ``astest:doctor`` doit
task (``tasks/doctor.py``) prints too; this is the command's side, its arguments as given.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

from astest_tasks.config.project_config import split_mode_names
from astest_tasks.output.doctor_report import run_doctor
from astest_tasks.remote.doctor_checks import remote_cache_checks
from astest_tasks.remote.settings import (
    DEFAULT_CONNECT_TIMEOUT,
    DEFAULT_REQUEST_TIMEOUT,
    MODE_VARIABLE,
    URL_VARIABLE,
)


def doctor_command(
    config_path: str,
    mode_options: Sequence[str],
    remote_cache: str | None = None,
    remote_cache_mode: str | None = None,
) -> int:
    """``astest doctor [-c CONFIG] [-m MODES]... [--remote-cache URL]`` in the current folder: 1
    on any ERROR. The remote cache is the option's, else ASTEST_REMOTE_CACHE's, as for a run."""
    environ = os.environ
    url = remote_cache if remote_cache is not None else environ.get(URL_VARIABLE, "")
    mode = remote_cache_mode or environ.get(MODE_VARIABLE, "")
    timeouts = (DEFAULT_CONNECT_TIMEOUT, DEFAULT_REQUEST_TIMEOUT)
    remote = remote_cache_checks(url, mode, environ, timeouts)
    modes = split_mode_names(mode_options)
    return run_doctor(Path.cwd(), config_path, modes, sys.stdout, remote)
