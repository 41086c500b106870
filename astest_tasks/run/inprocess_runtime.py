"""The in-process runtime: a Python runner script of the user's, named by the mode's runtime
command (``python ./my-runner.py <file>`` in ``runOptions.runtime.cmd``), executed inside the run
task's process, once per spec (``runner_script.py``).

Every call chooses each mode's runtime, also when nothing runs; what running a script needs loads
when a spec runs (issue 40).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from astest_tasks.core.errors import UserError
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
class InProcessRuntime(RuntimeDefaults):
    """A runner script of the user's, named by the runtime command (``python ./runner.py``)."""

    runner: str  # relative to the project root, posix separators

    @classmethod
    def claim(cls, request: RuntimeRequest) -> InProcessRuntime | None:
        """A command that names a Python runner (``python ./my-runner.py <file>``, or the path
        alone), other than our default runner of the mode's target, which is the default
        runtime's. A web mode cannot run one: that is an error with its fix."""
        script = request.python_script
        if script is None:
            return None
        if request.target == "web":
            raise UserError(
                f"{request.field}: web specs run in the browser, so the Python runner {script} "
                "cannot run them (runner scripts are for the wasi and bindings targets); fix: "
                "remove the command to use the browser, or change the mode's target"
            )
        if script == default_runner_path(request.target):
            return None
        return cls(script)

    @property
    def description(self) -> str:
        return f"in-process runner {self.runner}"

    def input_files(self, project_root: Path) -> list[str]:
        # A missing runner is no input: its specs fail with a message that says how to fix it.
        return [self.runner] if (project_root / self.runner).is_file() else []

    def doctor_checks(self, project_root: Path, scope: str) -> list[Check]:
        if (project_root / self.runner).is_file():
            return [Check(Level.OK, scope, f"runtime: in-process runner {self.runner}")]
        return [
            Check(
                Level.ERROR,
                scope,
                f"runtime: the runner script {self.runner} does not exist",
                "create it, or remove runOptions.runtime.cmd to use the default runner",
            )
        ]

    def run(self, spec: RunnableSpec, channel: ProtocolChannel, limits: SpecLimits) -> GuestRun:
        from astest_tasks.run.runner_script import run_python_runner

        return run_python_runner(self.runner, spec, channel, limits)
