"""The ``astest:doctor`` task: ``astest doctor`` run by doit, when named and never by a plain run.

Only the doit side lives here: whether the task is made, its dict and its action, and which
options the doctor reads (``DOCTOR_OPTIONS``, read by ``DoctorRequest``), which the ``astest
doctor`` command (``commands/doctor.py``) also declares its flags from, so both doors take the
same options. What it checks and prints is ``output/doctor_report.py``'s, which that command
prints too.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TextIO

from astest_tasks.core.errors import UserError
from astest_tasks.core.frozen import frozen
from astest_tasks.core.option_declarations import declared_options, seconds
from astest_tasks.core.setup_checks import Check, Level
from astest_tasks.output.terminal import output_stream
from astest_tasks.remote.cache_options import RemoteCacheOptions
from astest_tasks.remote.settings import DEFAULT_CONNECT_TIMEOUT, DEFAULT_REQUEST_TIMEOUT

# The remote cache's options, by name, as its record declares them (remote/cache_options.py).
_REMOTE_CACHE_OPTIONS = tuple(option.name for option in declared_options(RemoteCacheOptions))
# The task options the doctor reads, by name: the task takes them from doit's values, and
# `astest doctor` generates one flag from each one's declaration.
DOCTOR_OPTIONS = ("config", "mode", *_REMOTE_CACHE_OPTIONS)


def doctor_action(project_root: str, request: DoctorRequest) -> bool:
    """The ``astest:doctor`` task's action: doit fails the task when it returns False."""
    return request.report(Path(project_root), output_stream()) == 0


@frozen
class RemoteCacheAsGiven:
    """The remote cache options as given (a bad one is the doctor's to name, not to stop on),
    under their options' names."""

    remote_cache: str
    remote_cache_mode: str
    remote_cache_connect_timeout: str
    remote_cache_request_timeout: str

    def checks(self) -> list[Check]:
        from astest_tasks.remote.doctor_checks import remote_cache_checks

        bad: list[Check] = []  # a bad timeout stops every run: named even without a cache
        timeouts = (
            _seconds(
                "remote-cache-connect-timeout",
                self.remote_cache_connect_timeout,
                DEFAULT_CONNECT_TIMEOUT,
                bad,
            ),
            _seconds(
                "remote-cache-request-timeout",
                self.remote_cache_request_timeout,
                DEFAULT_REQUEST_TIMEOUT,
                bad,
            ),
        )
        return bad + remote_cache_checks(
            self.remote_cache, self.remote_cache_mode, os.environ, timeouts
        )


@frozen
class DoctorRequest:
    """What the doctor checks, read from the options' values as given, by either door."""

    config_path: str
    modes: list[str]
    remote: RemoteCacheAsGiven

    @classmethod
    def from_values(cls, values: Mapping[str, Any]) -> DoctorRequest:
        """The request of ``DOCTOR_OPTIONS``' values by name; none of them stops the doctor,
        which names a bad one among its checks."""
        from astest_tasks.plan.options import read_option  # loads the config readers: not at import

        # By name: a record whose options were declared in another order reads the same.
        remote = RemoteCacheAsGiven(
            **{name: str(values.get(name, "")) for name in _REMOTE_CACHE_OPTIONS}
        )
        modes = list(read_option(values, "mode"))
        return cls(read_option(values, "config"), modes, remote)

    def report(self, project_root: Path, stream: TextIO) -> int:
        """The checks of the project at ``project_root`` printed to ``stream``; 1 on any
        ERROR, as either door exits or fails."""
        # Here, not at import: every run makes this module's task creator helpers, few run the
        # doctor, and its checks bring in an HTTP client (issue 40's no-change floor).
        from astest_tasks.output.doctor_report import run_doctor

        checks = self.remote.checks()
        return run_doctor(project_root, self.config_path, self.modes, stream, checks)


def _seconds(name: str, text: str, default: float, bad: list[Check]) -> float:
    """The option's seconds by its declared rule (core/option_declarations.py). A bad value is
    added to ``bad`` as an ERROR with the message and fix a run stops with (an empty one too, as
    ``ASTEST_REMOTE_CACHE_REQUEST_TIMEOUT=`` stops a run), and the checks go on with the default.
    An option not given arrives as its default."""
    try:
        return seconds(name)(text)
    except UserError as exc:
        message, _, fix = str(exc).partition("; fix: ")
        bad.append(Check(Level.ERROR, "remote", message, fix))
        return default


def doctor_task(project_root: Path, basename: str, request: DoctorRequest) -> dict[str, Any]:
    return {
        "basename": basename,
        "name": "doctor",
        "doc": "check the project's setup (astest doctor): config, Node.js, packages, runtimes",
        "actions": [(doctor_action, [str(project_root), request])],
        "uptodate": [False],  # a check of the machine as it is now: never cached
        "verbosity": 2,
    }
