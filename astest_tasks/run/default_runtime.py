"""The default runtime of the wasi and bindings targets: our runner script, run in-process.

A mode without a runtime command runs its specs with ``.as-test/runners/default.<target>.py``,
which a runner task renders from astest-tasks' template when it is missing and never touches once
it exists (``runner_files.py``): from then on it is the user's, the place for their host imports.
as-test's own stock Node runner, named but missing, means this one too: as-test would write its
own there, and this is our equivalent (``claim``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from astest_tasks.core.frozen import frozen
from astest_tasks.core.setup_checks import Check, Level
from astest_tasks.run.runner_files import default_runner_path
from astest_tasks.run.runtime import RuntimeDefaults

if TYPE_CHECKING:
    from astest_tasks.run.channel import ProtocolChannel
    from astest_tasks.run.guest_run import GuestRun
    from astest_tasks.run.runtime import RunnableSpec, SpecLimits
    from astest_tasks.run.runtime_request import RuntimeRequest


@frozen
class DefaultRuntime(RuntimeDefaults):
    """The target's default runner, executed inside the run task's process."""

    target: str  # wasi or bindings

    @classmethod
    def claim(cls, request: RuntimeRequest) -> DefaultRuntime | None:
        """A wasi or bindings mode with no command, with our runner of its target named, or with
        as-test's stock Node runner named where its file is missing."""
        if request.target == "web":
            return None  # the browser's (no command), or the in-process runtime's error
        runner = default_runner_path(request.target)
        if (
            not request.has_command
            or request.python_script == runner
            or request.names_missing_stock_runner
        ):
            return cls(request.target)
        return None

    @property
    def runner(self) -> str:
        return default_runner_path(self.target)

    @property
    def description(self) -> str:
        return f"in-process runner {self.runner}"

    @property
    def default_runner_target(self) -> str | None:
        return self.target

    def input_files(self, project_root: Path) -> list[str]:
        return [self.runner]  # its runner task creates it first when it is missing

    def doctor_checks(self, project_root: Path, scope: str) -> list[Check]:
        made = (
            ""
            if (project_root / self.runner).is_file()
            else " (made from its template on first run)"
        )
        return [Check(Level.OK, scope, f"runtime: in-process runner {self.runner}{made}")]

    def run(self, spec: RunnableSpec, channel: ProtocolChannel, limits: SpecLimits) -> GuestRun:
        from astest_tasks.run.runner_script import run_python_runner  # a spec runs (issue 40)

        return run_python_runner(self.runner, spec, channel, limits)
